//! perflab's store: every experiment and every run, with provenance, in
//! SQLite (a file, the default) or PostgreSQL (a server several machines
//! share).
//!
//! Runs are written as they finish (write-ahead logging), one transaction
//! each, or, for `perflab run`, one per batch of runs finished within half
//! a second (see `batch` for what a crash can lose), so Ctrl-C or a
//! crash mid-experiment keeps what was measured. Ctrl-C marks the
//! experiment incomplete at once; after a crash or `kill -9` it stays
//! running until the store is next opened, which marks it incomplete
//! once its process is gone (see `liveness`).
//!
//! Every query is written once (`sql`) and runs on either back end
//! (`backend`); experiment and run ids come from the database, and each
//! also has a stable id (`uid`) by which `transfer` copies it between stores.
//! An experiment whose PostgreSQL server is lost mid-way goes on in a local
//! spool store, moved into the server by a later command (`spool`).
//!
//! The [`provenance`] of every experiment is stored with it: where and from
//! what it was measured, with the machine ([`machine_description`]) and the
//! CI job ([`ci`]).
#![deny(missing_docs)]
#![warn(unreachable_pub)]

use std::path::{Path, PathBuf};

mod attachments;
mod backend;
mod batch;
mod browse;
pub mod ci;
mod error;
mod file_identity;
mod history;
mod liveness;
mod location;
pub mod machine_description;
mod maintenance;
mod metric_names;
mod notified;
mod postgres;
pub mod provenance;
mod reading;
mod results;
mod schema;
mod spool;
mod sql;
mod transfer;
mod variants;

pub use batch::{RunBatch, RunPlace};
pub use browse::{ExperimentFilter, ExperimentPage, MAX_PAGE_SIZE};
pub use error::{Error, Result, StoreError};
pub use history::ExperimentValues;
pub use location::Location;
pub use maintenance::{CheckReport, check_file, damaged_store_advice};
pub use notified::NotifiedChange;
pub use results::{ExperimentSummary, StoredRun};
pub use spool::SpoolMove;
pub use transfer::{Selection, TransferSummary};
pub use variants::StoredVariant;

use perflab_format::vocabulary::{ExperimentKind, ResultStatus, Verdict};
use perflab_runner::RunOutcome;

use crate::provenance::{Provenance, now_rfc3339};
use backend::Backend;
use sql::{Row, Value, new_uid, values};

/// An open store.
pub struct Store {
    db: Backend,
    /// The file, or the URL without its password.
    path: PathBuf,
    /// The file opened, for a SQLite store (see `file_identity`).
    file: Option<file_identity::FileIdentity>,
    /// What the store did that the user must be told (a deleted store
    /// written back), for [`Store::take_notices`].
    notices: std::sync::Mutex<Vec<String>>,
    /// Where the runs go when the server is lost mid-experiment (see `spool`).
    spool: spool::Spool,
    /// The metric names this process stored for each experiment (see
    /// `metric_names`).
    metric_names: metric_names::Recorded,
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
    /// The command that stored it.
    pub kind: ExperimentKind,
    /// Name, if given.
    pub name: Option<String>,
    /// Whether it is still running or finished complete or incomplete.
    pub status: ResultStatus,
    /// Metric decided on.
    pub metric: Option<String>,
    /// Verdict, if any.
    pub verdict: Option<String>,
    /// Relative change and its interval.
    pub change: Option<(f64, f64, f64)>,
    /// Start time.
    pub started_at: String,
    /// The host it ran on (empty if unknown).
    pub host: String,
    /// Git commit, if any, and dirtiness.
    pub git: Option<(String, bool)>,
    /// Measured (not warm-up, not replaced) runs stored.
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

    /// Opens (creating if needed) the SQLite store at `path`.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| Error::Io {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let conn = rusqlite::Connection::open(path).map_err(|source| Error::Database {
            path: path.to_path_buf(),
            source: source.into(),
        })?;
        Self::init(Backend::Sqlite(conn), path.to_path_buf())
    }

    /// Opens the store at `location` (creating its tables if needed);
    /// `flag` is the option that named it, for messages.
    pub fn open_at(location: &Location, flag: &str) -> Result<Self> {
        match location {
            Location::File(path) => Self::open(path),
            Location::Postgres(url) => {
                let (conn, notices) = postgres::PostgresConnection::connect(url, flag)?;
                let spool = spool::Spool::for_server(conn.server_key());
                let mut store = Self::init(
                    Backend::Postgres(Box::new(conn)),
                    PathBuf::from(location.to_string()),
                )?;
                store
                    .notices
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .extend(notices);
                store.spool = spool;
                Ok(store)
            }
        }
    }

    /// A store in memory, for tests.
    pub fn in_memory() -> Result<Self> {
        let conn = rusqlite::Connection::open_in_memory().map_err(|source| Error::Database {
            path: ":memory:".into(),
            source: source.into(),
        })?;
        Self::init(Backend::Sqlite(conn), PathBuf::from(":memory:"))
    }

    fn init(db: Backend, path: PathBuf) -> Result<Self> {
        schema::prepare(&db, &path)?;
        let file = match &db {
            Backend::Sqlite(_) => file_identity::FileIdentity::of(&path),
            Backend::Postgres(_) => None,
        };
        let store = Self {
            db,
            path,
            file,
            notices: Default::default(),
            spool: Default::default(),
            metric_names: Default::default(),
        };
        store.mark_ended_experiments_incomplete()?;
        Ok(store)
    }

    fn err(&self, source: impl Into<StoreError>) -> Error {
        Error::Database {
            path: self.path.clone(),
            source: source.into(),
        }
    }

    /// Where the store lives: its file, or its URL without the password.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs one statement (written with `?N` parameters, see `sql`).
    fn execute(&self, sql: &str, params: &[Value]) -> Result<u64> {
        self.db.execute(sql, params).map_err(|e| self.err(e))
    }

    /// Every row a query answers.
    fn rows(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>> {
        self.db.query(sql, params).map_err(|e| self.err(e))
    }

    /// The first row a query answers, if any.
    fn first_row(&self, sql: &str, params: &[Value]) -> Result<Option<Row>> {
        Ok(self.rows(sql, params)?.into_iter().next())
    }

    /// Runs `write` in one transaction: all of it is stored or none.
    fn in_transaction<T>(&self, write: impl FnOnce() -> Result<T>) -> Result<T> {
        self.db
            .batch(self.db.dialect().begin())
            .map_err(|e| self.err(e))?;
        match write() {
            Ok(done) => {
                self.db.batch("COMMIT").map_err(|e| self.err(e))?;
                Ok(done)
            }
            Err(e) => {
                // The error to report is the write's, not the rollback's.
                let _ = self.db.batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// Records the start of an experiment; returns its id and the variants' ids.
    pub fn begin_experiment(
        &self,
        kind: ExperimentKind,
        name: Option<&str>,
        metric: Option<&str>,
        provenance: &Provenance,
        config_json: &str,
        variants: &[VariantRecord<'_>],
    ) -> Result<(i64, Vec<i64>)> {
        let uid = new_uid();
        let (id, ids) =
            self.begin_experiment_as(&uid, kind, name, metric, provenance, config_json, variants)?;
        self.spool.begun(id, || spool::Begun {
            kind,
            name: name.map(str::to_string),
            metric: metric.map(str::to_string),
            provenance: provenance.clone(),
            config_json: config_json.to_string(),
            variants: variants.iter().map(spool::OwnedVariant::of).collect(),
            uid: uid.clone(),
            variant_ids: ids.clone(),
        });
        Ok((id, ids))
    }

    /// [`Store::begin_experiment`] with the stable id `uid`.
    #[allow(clippy::too_many_arguments)]
    fn begin_experiment_as(
        &self,
        uid: &str,
        kind: ExperimentKind,
        name: Option<&str>,
        metric: Option<&str>,
        provenance: &Provenance,
        config_json: &str,
        variants: &[VariantRecord<'_>],
    ) -> Result<(i64, Vec<i64>)> {
        let cwd = std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string());
        let (id, ids) = self.in_transaction(|| {
            let id = self.insert(
                "INSERT INTO experiments (kind, name, status, metric, started_at, cwd, git_commit, git_dirty, host,
                 cpu_model, kernel, perflab_version, config_json, uid)
                 VALUES (?1, ?2, ?14, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) RETURNING id",
                values![
                    kind.as_str(), name, metric, &provenance.started_at, cwd, provenance.git_commit.as_deref(),
                    provenance.git_dirty, &provenance.host, &provenance.cpu_model,
                    &provenance.kernel, &provenance.perflab_version, config_json, uid,
                    ResultStatus::Running.as_str()
                ],
            )?;
            let mut ids = Vec::new();
            for (position, v) in variants.iter().enumerate() {
                let env: std::collections::BTreeMap<_, _> = v.env.iter().cloned().collect();
                ids.push(self.insert(
                    "INSERT INTO variants (experiment_id, position, name, command, env_json, cwd)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id",
                    values![
                        id, position, v.name, v.command,
                        serde_json::to_string(&env).map_err(|e| self.err(e))?,
                        v.cwd.map(|d| d.display().to_string())
                    ],
                )?);
            }
            Ok((id, ids))
        })?;
        self.record_owner(id)?;
        Ok((id, ids))
    }

    /// Runs an `INSERT ... RETURNING id`; returns the id the database gave.
    fn insert(&self, sql: &str, params: &[Value]) -> Result<i64> {
        let row = self.first_row(sql, params)?;
        row.map_or(Ok(None), |r| r.opt_i64(0))
            .map_err(|e| self.err(e))?
            .ok_or_else(|| self.err(sql::missing("id")))
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
        let record = spool::RunRecord {
            place,
            finished_at: now_rfc3339(),
            outcome: run.clone(),
            uid: new_uid(),
        };
        self.write_to_experiment(experiment_id, spool::Write::Runs(vec![record]))
    }

    /// Inserts runs, where their experiment's ids are `ids`: one alone, or
    /// several in one transaction.
    ///
    /// The names of the metrics the measured runs reported that the
    /// experiment had none of yet go into `experiment_metrics` in the same
    /// transaction (see `metric_names`).
    fn insert_runs(&self, runs: &[spool::RunRecord], ids: &spool::Ids) -> Result<()> {
        let names = self.unrecorded_metric_names(ids.experiment, runs);
        let write = || {
            for run in runs {
                self.insert_run(run, ids)?;
            }
            self.record_metric_names(ids.experiment, &names)
        };
        match runs {
            [_] if names.is_empty() => write()?,
            _ => self.in_transaction(write)?,
        }
        self.remember_metric_names(ids.experiment, names);
        Ok(())
    }

    /// Inserts one run, where its experiment's ids are `ids`.
    fn insert_run(&self, record: &spool::RunRecord, ids: &spool::Ids) -> Result<()> {
        let spool::RunRecord {
            place,
            finished_at,
            outcome: run,
            uid,
        } = record;
        let RunPlace {
            sequence,
            iteration,
            warmup,
            ..
        } = *place;
        let (experiment_id, variant_id) = (ids.experiment, ids.variant(place.variant_id));
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
        self.execute(
            "INSERT INTO runs (experiment_id, variant_id, sequence, iteration, warmup, finished_at, wall_s, user_s,
             sys_s, peak_memory_kib, exit_code, signal, outcome, metrics_json, profile_json, uid,
             peak_memory_source)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
            values![
                experiment_id, variant_id, sequence, iteration, warmup, finished_at, run.wall_s,
                run.user_s, run.sys_s, run.peak_memory_kib, code, signal, run.exit.describe(),
                serde_json::to_string(&metrics).map_err(|e| self.err(e))?, run.profile_json.as_deref(), uid,
                run.containment.peak_memory_source.map(|s| s.as_str())
            ],
        )?;
        Ok(())
    }

    /// Marks the experiment finished with its status and result. The result
    /// document is taken rather than copied: with every sample in it, it can
    /// be hundreds of megabytes.
    pub fn finish_experiment(
        &self,
        id: i64,
        status: ResultStatus,
        verdict: Option<Verdict>,
        change: Option<(f64, f64, f64)>,
        result_json: Option<String>,
    ) -> Result<()> {
        let finish = spool::Write::Finish {
            status,
            verdict,
            change,
            finished_at: now_rfc3339(),
            result_json,
        };
        self.write_to_experiment(id, finish)
    }

    /// Sets an experiment's status and result.
    fn set_finished(
        &self,
        id: i64,
        status: ResultStatus,
        verdict: Option<Verdict>,
        change: Option<(f64, f64, f64)>,
        finished_at: &str,
        result_json: Option<&str>,
    ) -> Result<()> {
        self.execute(
            "UPDATE experiments SET status = ?2, verdict = ?3, change = ?4, ci_lo = ?5, ci_hi = ?6,
             finished_at = ?7, result_json = ?8 WHERE id = ?1",
            values![
                id,
                status.as_str(),
                verdict.map(Verdict::as_str),
                change.map(|c| c.0),
                change.map(|c| c.1),
                change.map(|c| c.2),
                finished_at,
                result_json
            ],
        )?;
        Ok(())
    }

    /// What the store did that the user must be told, such as a store file
    /// deleted while an experiment wrote to it and written back; each
    /// notice is given once.
    pub fn take_notices(&self) -> Vec<String> {
        let mut notices = std::mem::take(
            &mut *self
                .notices
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        notices.extend(self.take_spool_notices());
        notices
    }

    /// The newest experiments (of `host` only, when given), newest first.
    pub fn list_experiments(&self, limit: usize, host: Option<&str>) -> Result<Vec<ExperimentRow>> {
        let rows = self.rows(
            "SELECT e.id, e.kind, e.name, e.status, e.metric, e.verdict, e.change, e.ci_lo, e.ci_hi, e.started_at,
             e.git_commit, e.git_dirty,
             (SELECT COUNT(*) FROM runs r WHERE r.experiment_id = e.id AND r.warmup = 0 AND r.replaced = 0), e.host
             FROM experiments e WHERE CAST(?2 AS TEXT) IS NULL OR COALESCE(e.host, '') = ?2
             ORDER BY e.id DESC LIMIT ?1",
            values![limit, host],
        )?;
        self.experiment_rows(&rows)
    }

    /// The [`ExperimentRow`]s of rows of the columns
    /// [`Store::list_experiments`] selects, with their variants, read in
    /// one query for all of them (one per experiment would cost a round
    /// trip each on PostgreSQL).
    pub(crate) fn experiment_rows(&self, rows: &[Row]) -> Result<Vec<ExperimentRow>> {
        let mut out = rows
            .iter()
            .map(|r| self.experiment_row(r))
            .collect::<Result<Vec<_>>>()?;
        if out.is_empty() {
            return Ok(out);
        }
        // The ids are integers read from the store: written into the SQL,
        // they need no parameters (whose number both back ends limit).
        let ids: Vec<String> = out.iter().map(|e| e.id.to_string()).collect();
        let variants = self.rows(
            &format!(
                "SELECT experiment_id, name, command FROM variants WHERE experiment_id IN ({})
                 ORDER BY experiment_id, position",
                ids.join(", ")
            ),
            &[],
        )?;
        let mut by_experiment: std::collections::HashMap<i64, Vec<(String, String)>> =
            std::collections::HashMap::new();
        for r in variants {
            let read = || -> std::result::Result<_, StoreError> {
                Ok((r.i64(0)?, r.text(1)?, r.text(2)?))
            };
            let (id, name, command) = read().map_err(|e| self.err(e))?;
            by_experiment.entry(id).or_default().push((name, command));
        }
        for e in &mut out {
            e.variants = by_experiment.remove(&e.id).unwrap_or_default();
        }
        Ok(out)
    }

    /// An [`ExperimentRow`] from a row of the columns
    /// [`Store::list_experiments`] selects, without its variants.
    fn experiment_row(&self, r: &Row) -> Result<ExperimentRow> {
        let read = || -> std::result::Result<ExperimentRow, StoreError> {
            let change = match (r.opt_f64(6)?, r.opt_f64(7)?, r.opt_f64(8)?) {
                (Some(c), Some(lo), Some(hi)) => Some((c, lo, hi)),
                _ => None,
            };
            Ok(ExperimentRow {
                id: r.i64(0)?,
                kind: r.word(1, "an experiment kind", ExperimentKind::from_word)?,
                name: r.opt_text(2)?,
                status: r.word(3, "a result status", ResultStatus::from_word)?,
                metric: r.opt_text(4)?,
                verdict: r.opt_text(5)?,
                change,
                started_at: r.text(9)?,
                host: r.opt_text(13)?.unwrap_or_default(),
                git: r.opt_text(10)?.map(|c| (c, r.bool(11).unwrap_or(false))),
                runs: r.i64(12)?,
                variants: Vec::new(),
            })
        };
        read().map_err(|e| self.err(e))
    }

    /// The stored result document of an experiment, if it finished with one.
    pub fn result_json(&self, id: i64) -> Result<Option<String>> {
        match self.first_row(
            "SELECT result_json FROM experiments WHERE id = ?1",
            values![id],
        )? {
            Some(row) => row.opt_text(0).map_err(|e| self.err(e)),
            None => Ok(None),
        }
    }

    /// Number of measured runs stored for an experiment that count (not
    /// replaced), for tests and messages.
    pub fn count_runs(&self, experiment_id: i64) -> Result<i64> {
        if let Some(diverted) = self.count_diverted_runs(experiment_id) {
            return diverted;
        }
        self.count(
            "SELECT COUNT(*) FROM runs WHERE experiment_id = ?1 AND warmup = 0 AND replaced = 0",
            values![experiment_id],
        )
    }

    /// The single integer a query answers (a count, an id).
    fn count(&self, sql: &str, params: &[Value]) -> Result<i64> {
        let row = self.first_row(sql, params)?;
        row.map_or(Ok(Some(0)), |r| r.opt_i64(0))
            .map(Option::unwrap_or_default)
            .map_err(|e| self.err(e))
    }
}
