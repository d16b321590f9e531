//! The history: every experiment and every run, with provenance, in SQLite.
//!
//! Runs are written as they finish (write-ahead logging), one transaction
//! each, or, for `perflab run`, one per block of runs finished within half
//! a second (see `run_block` for what a crash can lose), so Ctrl-C or a
//! crash mid-experiment keeps what was measured. Ctrl-C marks the
//! experiment `incomplete` at once; after a crash or `kill -9` it stays
//! `running` until the store is next opened, which marks it `incomplete`
//! once its process is gone (see `liveness`).

use std::path::{Path, PathBuf};

mod attachments;
mod history;
mod liveness;
mod results;
mod run_block;
mod schema;

pub use history::ExperimentValues;
pub use results::{ExperimentSummary, StoredRun};
pub use run_block::{RunBlock, RunPlace};

use perflab_runner::RunOutcome;
use rusqlite::{Connection, OptionalExtension, params};

use crate::error::{Error, Result};
use crate::provenance::{Provenance, now_rfc3339};

/// An open store.
pub struct Store {
    pub(crate) conn: Connection,
    path: PathBuf,
}

/// A variant as stored.
pub struct VariantRecord<'a> {
    /// Name.
    pub name: &'a str,
    /// Command text.
    pub command: &'a str,
    /// Environment overrides.
    pub env: &'a [(String, String)],
    /// Working directory.
    pub cwd: Option<&'a Path>,
}

/// One line of `perflab history`.
#[derive(Debug, Clone)]
pub struct ExperimentRow {
    /// Experiment id.
    pub id: i64,
    /// `ab`, `run` or `compare`.
    pub kind: String,
    /// Name, if given.
    pub name: Option<String>,
    /// `running`, `complete`, `incomplete` or `failed`.
    pub status: String,
    /// Metric decided on.
    pub metric: Option<String>,
    /// Verdict, if any.
    pub verdict: Option<String>,
    /// Relative change and its interval.
    pub change: Option<(f64, f64, f64)>,
    /// Start time.
    pub started_at: String,
    /// Git commit, if any, and dirtiness.
    pub git: Option<(String, bool)>,
    /// Measured (not warm-up) runs stored.
    pub runs: i64,
    /// Variant names and commands, in order.
    pub variants: Vec<(String, String)>,
}

impl Store {
    /// Where the store lives: `--store`, then `$PERFLAB_STORE`, then `.perflab/perflab.db`.
    pub fn default_path(flag: Option<&Path>) -> PathBuf {
        flag.map(Path::to_path_buf)
            .or_else(|| std::env::var_os("PERFLAB_STORE").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from(".perflab/perflab.db"))
    }

    /// Opens (creating if needed) the store at `path`.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| Error::Io {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let conn = Connection::open(path).map_err(|source| Error::Store {
            path: path.to_path_buf(),
            source,
        })?;
        Self::init(conn, path.to_path_buf())
    }

    /// A store in memory, for tests.
    pub fn in_memory() -> Result<Self> {
        let conn = Connection::open_in_memory().map_err(|source| Error::Store {
            path: ":memory:".into(),
            source,
        })?;
        Self::init(conn, PathBuf::from(":memory:"))
    }

    fn init(mut conn: Connection, path: PathBuf) -> Result<Self> {
        schema::prepare(&mut conn, &path)?;
        let store = Self { conn, path };
        store.mark_ended_experiments_incomplete()?;
        Ok(store)
    }

    pub(crate) fn err(&self, source: rusqlite::Error) -> Error {
        Error::Store {
            path: self.path.clone(),
            source,
        }
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records the start of an experiment; returns its id and the variants' ids.
    pub fn begin_experiment(
        &self,
        kind: &str,
        name: Option<&str>,
        metric: Option<&str>,
        provenance: &Provenance,
        config_json: &str,
        variants: &[VariantRecord<'_>],
    ) -> Result<(i64, Vec<i64>)> {
        let cwd = std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string());
        self.conn
            .execute(
                "INSERT INTO experiments (kind, name, status, metric, started_at, cwd, git_commit, git_dirty, host,
                 cpu_model, kernel, perflab_version, config_json) VALUES (?1, ?2, 'running', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                params![
                    kind, name, metric, provenance.started_at, cwd, provenance.git_commit, provenance.git_dirty,
                    provenance.host, provenance.cpu_model, provenance.kernel, provenance.perflab_version, config_json
                ],
            )
            .map_err(|e| self.err(e))?;
        let id = self.conn.last_insert_rowid();
        self.record_owner(id)?;
        let mut ids = Vec::new();
        for (position, v) in variants.iter().enumerate() {
            let env: std::collections::BTreeMap<_, _> = v.env.iter().cloned().collect();
            self.conn
                .execute(
                    "INSERT INTO variants (experiment_id, position, name, command, env_json, cwd) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![
                        id, position as i64, v.name, v.command,
                        serde_json::to_string(&env).unwrap_or_default(),
                        v.cwd.map(|d| d.display().to_string())
                    ],
                )
                .map_err(|e| self.err(e))?;
            ids.push(self.conn.last_insert_rowid());
        }
        Ok((id, ids))
    }

    /// Stores one finished run.
    pub fn record_run(
        &self,
        experiment_id: i64,
        variant_id: i64,
        sequence: usize,
        iteration: usize,
        warmup: bool,
        run: &RunOutcome,
    ) -> Result<()> {
        let place = RunPlace {
            experiment_id,
            variant_id,
            sequence,
            iteration,
            warmup,
        };
        self.insert_run(&place, &now_rfc3339(), run)
    }

    /// Inserts one run that finished at `finished_at`.
    fn insert_run(&self, place: &RunPlace, finished_at: &str, run: &RunOutcome) -> Result<()> {
        let RunPlace {
            experiment_id,
            variant_id,
            sequence,
            iteration,
            warmup,
        } = *place;
        let metrics: std::collections::BTreeMap<_, _> = run
            .metrics
            .iter()
            .map(|(k, v)| (k.clone(), v.value))
            .collect();
        let (code, signal) = match run.exit {
            perflab_runner::ExitState::Code(c) => (Some(c), None),
            perflab_runner::ExitState::Signal(s) => (None, Some(s)),
            _ => (None, None),
        };
        // Cached: one insert per run, so parsing it every time was a
        // measurable share of perflab's own time between runs.
        self.conn
            .prepare_cached(
                "INSERT INTO runs (experiment_id, variant_id, sequence, iteration, warmup, finished_at, wall_s, user_s,
                 sys_s, peak_memory_kib, exit_code, signal, outcome, metrics_json, profile_json)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
            )
            .and_then(|mut insert| {
                insert.execute(params![
                    experiment_id, variant_id, sequence as i64, iteration as i64, warmup, finished_at, run.wall_s,
                    run.user_s, run.sys_s, run.peak_memory_kib, code, signal, run.exit.describe(),
                    serde_json::to_string(&metrics).unwrap_or_default(), run.profile_json
                ])
            })
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Marks the experiment finished with its status and result.
    pub fn finish_experiment(
        &self,
        id: i64,
        status: &str,
        verdict: Option<&str>,
        change: Option<(f64, f64, f64)>,
        result_json: Option<&str>,
    ) -> Result<()> {
        self.conn
            .execute(
                "UPDATE experiments SET status = ?2, verdict = ?3, change = ?4, ci_lo = ?5, ci_hi = ?6,
                 finished_at = ?7, result_json = ?8 WHERE id = ?1",
                params![
                    id, status, verdict, change.map(|c| c.0), change.map(|c| c.1), change.map(|c| c.2),
                    now_rfc3339(), result_json
                ],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// The newest experiments, newest first.
    pub fn list_experiments(&self, limit: usize) -> Result<Vec<ExperimentRow>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT e.id, e.kind, e.name, e.status, e.metric, e.verdict, e.change, e.ci_lo, e.ci_hi, e.started_at,
                 e.git_commit, e.git_dirty,
                 (SELECT COUNT(*) FROM runs r WHERE r.experiment_id = e.id AND r.warmup = 0)
                 FROM experiments e ORDER BY e.id DESC LIMIT ?1",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([limit as i64], |r| {
                let change = match (
                    r.get::<_, Option<f64>>(6)?,
                    r.get::<_, Option<f64>>(7)?,
                    r.get::<_, Option<f64>>(8)?,
                ) {
                    (Some(c), Some(lo), Some(hi)) => Some((c, lo, hi)),
                    _ => None,
                };
                let git = r.get::<_, Option<String>>(10)?.map(|c| {
                    (
                        c,
                        r.get::<_, Option<bool>>(11).ok().flatten().unwrap_or(false),
                    )
                });
                Ok(ExperimentRow {
                    id: r.get(0)?,
                    kind: r.get(1)?,
                    name: r.get(2)?,
                    status: r.get(3)?,
                    metric: r.get(4)?,
                    verdict: r.get(5)?,
                    change,
                    started_at: r.get(9)?,
                    git,
                    runs: r.get(12)?,
                    variants: Vec::new(),
                })
            })
            .map_err(|e| self.err(e))?
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|mut row| {
                row.variants = self.variant_names(row.id)?;
                Ok(row)
            })
            .collect()
    }

    fn variant_names(&self, experiment_id: i64) -> Result<Vec<(String, String)>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT name, command FROM variants WHERE experiment_id = ?1 ORDER BY position",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map([experiment_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.err(e))?
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))
    }

    /// The stored result document of an experiment, if it finished with one.
    pub fn result_json(&self, id: i64) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT result_json FROM experiments WHERE id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(|e| self.err(e))
    }

    /// Number of measured runs stored for an experiment (for tests and messages).
    pub fn count_runs(&self, experiment_id: i64) -> Result<i64> {
        self.conn
            .query_row(
                "SELECT COUNT(*) FROM runs WHERE experiment_id = ?1 AND warmup = 0",
                [experiment_id],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))
    }
}
