//! Copying experiments between stores (`perflab push`, `perflab pull`): a
//! developer's local investigation shared in a team's store, or CI results
//! fetched from it.
//!
//! Experiments and runs are matched by their stable ids (`uid`), never by
//! the ids each database gives, so copying twice stores everything once and
//! an experiment copied while it ran gets its later runs and final result
//! on the next copy. Each experiment is copied in one transaction of the
//! receiving store: all of it or none.

use std::collections::HashMap;

use perflab_format::vocabulary::ResultStatus;

use super::Store;
use super::sql::{Dialect, Row, Value, values};
use crate::error::{Result, StoreError};

/// Which experiments to copy; all of them when both lists are empty.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Experiment ids in the store copied from.
    pub ids: Vec<i64>,
    /// Experiment names: every experiment with one of them.
    pub names: Vec<String>,
}

/// What a copy did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TransferSummary {
    /// Experiments the receiving store did not have.
    pub experiments_copied: usize,
    /// Experiments it had already (their missing runs are still copied).
    pub experiments_present: usize,
    /// Runs copied.
    pub runs_copied: usize,
    /// Runs it had already.
    pub runs_present: usize,
}

/// The columns of an experiment copied as they are (not its id, which the
/// receiving database gives).
const EXPERIMENT_COLUMNS: &str = "uid, kind, name, status, metric, verdict, change, ci_lo, ci_hi, started_at,
    finished_at, cwd, git_commit, git_dirty, host, cpu_model, kernel, perflab_version, config_json, result_json,
    owner_pid, owner_host, owner_boot, owner_pid_ns, owner_start_ticks";

/// The columns of a run copied as they are, after its experiment and
/// variant; `uid` first and `replaced` last (see `copy_runs`).
const RUN_COLUMNS: &str = "uid, sequence, iteration, warmup, finished_at, wall_s, user_s, sys_s, peak_memory_kib, exit_code, signal, outcome, metrics_json, profile_json, peak_memory_source, replaced";

// Parameters in INSERT ... SELECT are cast: PostgreSQL would take an
// untyped one in a select list for text.

/// `?first, ?first+1, ...` for `n` parameters.
fn placeholders(first: usize, n: usize) -> String {
    (first..first + n)
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn column_count(columns: &str) -> usize {
    columns.split(',').count()
}

impl Store {
    /// Copies the selected experiments of this store, with their variants,
    /// runs, profiles and attachments, into `to`.
    pub fn copy_to(&self, to: &Store, selection: &Selection) -> Result<TransferSummary> {
        let mut summary = TransferSummary::default();
        for row in self.rows("SELECT id, name FROM experiments ORDER BY id", &[])? {
            let (id, name) = (|| Ok::<_, StoreError>((row.i64(0)?, row.opt_text(1)?)))()
                .map_err(|e| self.err(e))?;
            let chosen = (selection.ids.is_empty() && selection.names.is_empty())
                || selection.ids.contains(&id)
                || name.is_some_and(|n| selection.names.contains(&n));
            if chosen {
                to.in_transaction(|| self.copy_experiment(id, to, &mut summary))?;
            }
        }
        // PostgreSQL plans a query from statistics that autovacuum gathers
        // about a minute after a bulk load; until then it plans as if the
        // copied tables were empty (the dashboard's home page took 0.6 s
        // right after a push of 10,000 experiments, 0.2 s with statistics).
        // Gathering them now is what PostgreSQL's documentation advises
        // after populating a database ("Populating a Database: Run ANALYZE
        // Afterwards").
        if summary.experiments_copied > 0 && to.db.dialect() == Dialect::Postgres {
            to.execute("ANALYZE", &[])?;
        }
        Ok(summary)
    }

    fn copy_experiment(&self, id: i64, to: &Store, summary: &mut TransferSummary) -> Result<()> {
        let experiment = self
            .first_row(
                &format!("SELECT {EXPERIMENT_COLUMNS} FROM experiments WHERE id = ?1"),
                values![id],
            )?
            .ok_or_else(|| self.err(super::sql::missing("an experiment")))?
            .into_values();
        let uid = experiment[0].clone();
        let n = column_count(EXPERIMENT_COLUMNS);
        let inserted = to.first_row(
            &format!(
                "INSERT INTO experiments ({EXPERIMENT_COLUMNS}) VALUES ({}) ON CONFLICT (uid) DO NOTHING RETURNING id",
                placeholders(1, n)
            ),
            &experiment,
        )?;
        let target_id = match inserted {
            Some(row) => {
                summary.experiments_copied += 1;
                let target_id = row.i64(0).map_err(|e| to.err(e))?;
                self.copy_variants(id, to, target_id)?;
                target_id
            }
            None => {
                summary.experiments_present += 1;
                let target_id = to.count("SELECT id FROM experiments WHERE uid = ?1", &[uid])?;
                // A finished experiment's outcome replaces whatever was
                // copied while it ran; the same values again change nothing.
                let outcome = [
                    "status",
                    "verdict",
                    "change",
                    "ci_lo",
                    "ci_hi",
                    "finished_at",
                    "result_json",
                ];
                if experiment[3] != Value::Text(ResultStatus::Running.as_str().into()) {
                    let set = outcome
                        .iter()
                        .enumerate()
                        .map(|(i, c)| format!("{c} = ?{}", i + 2))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let mut params = vec![Value::Int(target_id)];
                    params.extend([3, 5, 6, 7, 8, 10, 19].map(|i| experiment[i].clone()));
                    to.execute(
                        &format!("UPDATE experiments SET {set} WHERE id = ?1"),
                        &params,
                    )?;
                }
                target_id
            }
        };
        let variants = to.variant_ids_by_position(target_id)?;
        self.copy_extras(id, to, target_id, &variants)?;
        self.copy_runs(id, to, target_id, &variants, summary)?;
        to.record_metric_names_of_runs(target_id)
    }

    fn copy_variants(&self, id: i64, to: &Store, target_id: i64) -> Result<()> {
        for row in self.rows(
            "SELECT position, name, command, env_json, cwd FROM variants WHERE experiment_id = ?1 ORDER BY position",
            values![id],
        )? {
            let mut params = vec![Value::Int(target_id)];
            params.extend(row.into_values());
            to.execute(
                "INSERT INTO variants (experiment_id, position, name, command, env_json, cwd)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                &params,
            )?;
        }
        Ok(())
    }

    fn variant_ids_by_position(&self, experiment_id: i64) -> Result<HashMap<i64, i64>> {
        self.rows(
            "SELECT position, id FROM variants WHERE experiment_id = ?1",
            values![experiment_id],
        )?
        .iter()
        .map(|r| Ok((r.i64(0)?, r.i64(1)?)))
        .collect::<std::result::Result<_, StoreError>>()
        .map_err(|e| self.err(e))
    }

    /// Profiles and attachments the receiving store lacks (they have no
    /// stable id; the same content is the same thing).
    fn copy_extras(
        &self,
        id: i64,
        to: &Store,
        target_id: i64,
        variants: &HashMap<i64, i64>,
    ) -> Result<()> {
        for row in self.rows(
            "SELECT v.position, p.samples, p.folded FROM profile_stacks p JOIN variants v ON v.id = p.variant_id
             WHERE p.experiment_id = ?1 ORDER BY p.id",
            values![id],
        )? {
            let variant = target_variant(to, variants, &row)?;
            to.execute(
                "INSERT INTO profile_stacks (experiment_id, variant_id, samples, folded)
                 SELECT CAST(?1 AS BIGINT), CAST(?2 AS BIGINT), CAST(?3 AS BIGINT), CAST(?4 AS TEXT) WHERE NOT EXISTS
                 (SELECT 1 FROM profile_stacks WHERE experiment_id = ?1 AND variant_id = ?2 AND folded = ?4)",
                &[Value::Int(target_id), Value::Int(variant), row.0[1].clone(), row.0[2].clone()],
            )?;
        }
        for row in self.rows(
            "SELECT kind, body FROM attachments WHERE experiment_id = ?1 ORDER BY id",
            values![id],
        )? {
            to.execute(
                "INSERT INTO attachments (experiment_id, kind, body)
                 SELECT CAST(?1 AS BIGINT), CAST(?2 AS TEXT), CAST(?3 AS TEXT) WHERE NOT EXISTS
                 (SELECT 1 FROM attachments WHERE experiment_id = ?1 AND kind = ?2 AND body = ?3)",
                &[Value::Int(target_id), row.0[0].clone(), row.0[1].clone()],
            )?;
        }
        Ok(())
    }

    fn copy_runs(
        &self,
        id: i64,
        to: &Store,
        target_id: i64,
        variants: &HashMap<i64, i64>,
        summary: &mut TransferSummary,
    ) -> Result<()> {
        let columns = RUN_COLUMNS
            .split(", ")
            .map(|c| format!("r.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let insert = format!(
            "INSERT INTO runs (experiment_id, variant_id, {RUN_COLUMNS}) VALUES ({})
             ON CONFLICT (uid) DO NOTHING",
            placeholders(1, 2 + column_count(RUN_COLUMNS))
        );
        for row in self.rows(
            &format!(
                "SELECT v.position, {columns} FROM runs r JOIN variants v ON v.id = r.variant_id
                 WHERE r.experiment_id = ?1 ORDER BY r.sequence"
            ),
            values![id],
        )? {
            let variant = target_variant(to, variants, &row)?;
            let mut params = vec![Value::Int(target_id), Value::Int(variant)];
            params.extend(row.into_values().into_iter().skip(1));
            if to.execute(&insert, &params)? == 1 {
                summary.runs_copied += 1;
            } else {
                summary.runs_present += 1;
                // A run copied while its experiment ran may have been
                // replaced by a new measurement of its block since.
                let (uid, replaced) = (&params[2], &params[params.len() - 1]);
                if *replaced == Value::Int(1) {
                    to.execute(
                        "UPDATE runs SET replaced = 1 WHERE uid = ?1",
                        std::slice::from_ref(uid),
                    )?;
                }
            }
        }
        Ok(())
    }
}

/// The receiving store's id of the variant at the position in column 0.
fn target_variant(to: &Store, variants: &HashMap<i64, i64>, row: &Row) -> Result<i64> {
    let position = row.i64(0).map_err(|e| to.err(e))?;
    variants
        .get(&position)
        .copied()
        .ok_or_else(|| to.err(super::sql::missing("the run's variant")))
}
