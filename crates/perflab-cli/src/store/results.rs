//! Reading experiments back for reports: finding one by id or name, its
//! stored result and its runs.

use perflab_runner::{ExitState, MetricValue, RunOutcome};
use rusqlite::{OptionalExtension, params};

use super::Store;
use crate::error::{Error, Result};

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
        self.conn
            .query_row(
                "SELECT id, kind, name, status, metric, result_json FROM experiments WHERE id = ?1",
                [id],
                |r| {
                    Ok(ExperimentSummary {
                        id: r.get(0)?,
                        kind: r.get(1)?,
                        name: r.get(2)?,
                        status: r.get(3)?,
                        metric: r.get(4)?,
                        result_json: r.get(5)?,
                    })
                },
            )
            .map_err(|e| self.err(e))
    }

    /// Replaces the stored result document of a running experiment (a
    /// checkpoint), leaving its status alone.
    pub fn save_result_json(&self, id: i64, result_json: &str) -> Result<()> {
        self.conn
            .execute(
                "UPDATE experiments SET result_json = ?2 WHERE id = ?1",
                params![id, result_json],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// The experiment a report is about: an id (`12` or `#12`), a name (the
    /// newest experiment with it), or the newest experiment of all.
    pub fn find_experiment(&self, selector: Option<&str>) -> Result<i64> {
        let newest: Option<i64> = match selector.map(|s| s.trim_start_matches('#')) {
            None => self
                .conn
                .query_row("SELECT MAX(id) FROM experiments", [], |r| r.get(0))
                .map_err(|e| self.err(e))?,
            Some(text) => match text.parse::<i64>() {
                Ok(id) => self
                    .conn
                    .query_row("SELECT id FROM experiments WHERE id = ?1", [id], |r| {
                        r.get(0)
                    })
                    .optional()
                    .map_err(|e| self.err(e))?,
                Err(_) => self
                    .conn
                    .query_row(
                        "SELECT MAX(id) FROM experiments WHERE name = ?1",
                        [text],
                        |r| r.get(0),
                    )
                    .map_err(|e| self.err(e))?,
            },
        };
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
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT r.variant_id, v.name, r.warmup, r.wall_s, r.user_s, r.sys_s, r.peak_memory_kib,
                 r.exit_code, r.signal, r.metrics_json, r.profile_json
                 FROM runs r JOIN variants v ON v.id = r.variant_id
                 WHERE r.experiment_id = ?1 ORDER BY r.sequence",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map([experiment_id], |r| {
            let metrics: std::collections::BTreeMap<String, f64> =
                serde_json::from_str(&r.get::<_, String>(9)?).unwrap_or_default();
            let exit = match (r.get::<_, Option<i32>>(7)?, r.get::<_, Option<i32>>(8)?) {
                (Some(code), _) => ExitState::Code(code),
                (None, Some(signal)) => ExitState::Signal(signal),
                (None, None) => ExitState::TimedOut,
            };
            Ok(StoredRun {
                variant_id: r.get(0)?,
                variant: r.get(1)?,
                warmup: r.get(2)?,
                outcome: RunOutcome {
                    wall_s: r.get(3)?,
                    user_s: r.get(4)?,
                    sys_s: r.get(5)?,
                    peak_memory_kib: r.get(6)?,
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
                    profile_json: r.get(10)?,
                    // Not kept: it only compares the variants of a running experiment.
                    answer: None,
                },
            })
        })
        .map_err(|e| self.err(e))?
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| self.err(e))
    }
}
