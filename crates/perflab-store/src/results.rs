//! Reading experiments back for reports: finding one by id or name, its
//! stored result and its runs.

use super::Store;
use super::sql::{Row, values};
use crate::error::{Error, Result, StoreError};
use perflab_runner::{ExitState, MetricValue, RunOutcome};

/// A run as stored.
#[derive(Debug, Clone)]
pub struct StoredRun {
    /// Its variant's id.
    pub variant_id: i64,
    /// Its variant's name.
    pub variant: String,
    /// Whether it was a warm-up run.
    pub warmup: bool,
    /// What it measured.
    pub outcome: RunOutcome,
}

/// An experiment's row, for a report's heading.
#[derive(Debug, Clone)]
pub struct ExperimentSummary {
    /// Id.
    pub id: i64,
    /// `ab`, `run`, `compare` or `sweep`.
    pub kind: String,
    /// Name, if given.
    pub name: Option<String>,
    /// `running`, `complete` or `incomplete`.
    pub status: String,
    /// The metric decided on or measured.
    pub metric: Option<String>,
    /// The stored result document, if it finished (or a sweep's checkpoint).
    pub result_json: Option<String>,
}

impl Store {
    /// An experiment's row.
    pub fn experiment_summary(&self, id: i64) -> Result<ExperimentSummary> {
        let row = self
            .first_row(
                "SELECT id, kind, name, status, metric, result_json FROM experiments WHERE id = ?1",
                values![id],
            )?
            .ok_or_else(|| self.err(super::sql::missing("an experiment")))?;
        let read = || -> std::result::Result<ExperimentSummary, StoreError> {
            Ok(ExperimentSummary {
                id: row.i64(0)?,
                kind: row.text(1)?,
                name: row.opt_text(2)?,
                status: row.text(3)?,
                metric: row.opt_text(4)?,
                result_json: row.opt_text(5)?,
            })
        };
        read().map_err(|e| self.err(e))
    }

    /// Replaces the stored result document of a running experiment (a
    /// checkpoint), leaving its status alone.
    pub fn save_result_json(&self, id: i64, result_json: &str) -> Result<()> {
        self.execute(
            "UPDATE experiments SET result_json = ?2 WHERE id = ?1",
            values![id, result_json],
        )?;
        Ok(())
    }

    /// The experiment a report is about: an id (`12` or `#12`), a name (the
    /// newest experiment with it), or the newest experiment of all.
    pub fn find_experiment(&self, selector: Option<&str>) -> Result<i64> {
        let newest = match selector.map(|s| s.trim_start_matches('#')) {
            None => self.first_row("SELECT MAX(id) FROM experiments", &[])?,
            Some(text) => match text.parse::<i64>() {
                Ok(id) => {
                    self.first_row("SELECT id FROM experiments WHERE id = ?1", values![id])?
                }
                Err(_) => self.first_row(
                    "SELECT MAX(id) FROM experiments WHERE name = ?1",
                    values![text],
                )?,
            },
        };
        let newest = newest
            .map_or(Ok(None), |r| r.opt_i64(0))
            .map_err(|e| self.err(e))?;
        newest.ok_or_else(|| match selector {
            None => Error::input(
                self.path(),
                "the store holds no experiment yet; run `perflab ab`, `perflab run` or `perflab sweep` first (or point --store at another store)",
            ),
            Some(s) => Error::usage(
                "EXPERIMENT",
                format!(
                    "there is no experiment '{s}' in {}; give an id or a name from `perflab history`",
                    self.path().display()
                ),
            ),
        })
    }

    /// Every stored run of an experiment, in the order they finished.
    pub fn runs_of(&self, experiment_id: i64) -> Result<Vec<StoredRun>> {
        let rows = self.rows(
            "SELECT r.variant_id, v.name, r.warmup, r.wall_s, r.user_s, r.sys_s, r.peak_memory_kib,
             r.exit_code, r.signal, r.metrics_json, r.profile_json
             FROM runs r JOIN variants v ON v.id = r.variant_id
             WHERE r.experiment_id = ?1 ORDER BY r.sequence",
            values![experiment_id],
        )?;
        rows.iter()
            .map(stored_run)
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| self.err(e))
    }
}

fn stored_run(r: &Row) -> std::result::Result<StoredRun, StoreError> {
    let metrics: std::collections::BTreeMap<String, f64> =
        serde_json::from_str(&r.text(9)?).unwrap_or_default();
    let exit = match (r.opt_i64(7)?, r.opt_i64(8)?) {
        (Some(code), _) => ExitState::Code(code as i32),
        (None, Some(signal)) => ExitState::Signal(signal as i32),
        (None, None) => ExitState::TimedOut,
    };
    Ok(StoredRun {
        variant_id: r.i64(0)?,
        variant: r.text(1)?,
        warmup: r.bool(2)?,
        outcome: RunOutcome {
            wall_s: r.f64(3)?,
            user_s: r.f64(4)?,
            sys_s: r.f64(5)?,
            peak_memory_kib: r.f64(6)?,
            exit,
            metrics: metrics
                .into_iter()
                .map(|(k, value)| {
                    (
                        k,
                        MetricValue {
                            value,
                            unit: String::new(),
                        },
                    )
                })
                .collect(),
            output_tail: String::new(),
            profile_json: r.opt_text(10)?,
            // Not kept: it only compares the variants of a running experiment.
            answer: None,
            containment: Default::default(),
        },
    })
}
