//! The store's tables, their version, and the upgrade of older stores, by
//! one list of migrations for both back ends.
//!
//! Several perflab processes may open a store that does not exist yet at
//! the same moment (a script starting measurements in parallel). The busy
//! timeout is therefore set before anything touches the file, and the
//! version is read again and the schema created inside one `BEGIN IMMEDIATE`
//! transaction, so that exactly one process creates or upgrades the schema
//! and the others wait for it and then find it done. PostgreSQL does the
//! same under an advisory lock.

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode};

use super::attachments;
use super::backend::Backend;
use super::notified;
use super::sql::Dialect;
use crate::error::StoreError;
use crate::error::{Error, Result};

/// Schema version, kept in `PRAGMA user_version` (SQLite) or the table
/// `perflab_schema` (PostgreSQL).
///
/// 1: experiments, variants, runs, profile stacks, attachments.
/// 2: the process that runs an experiment (`owner_*`), so that an experiment
///    whose process died is marked `incomplete` (see `liveness`).
/// 3: a stable id (`uid`) of each experiment and run, so that copying
///    between stores (`perflab push`, `perflab pull`) stores each once.
/// 4: runs `replaced` by a new measurement of their block (the contention
///    rule), kept but left out of every figure.
/// 5: the change points whose regression was posted to a webhook
///    (`notified`), so that each is posted once.
/// 6: the names of the metrics each experiment's runs reported
///    (`experiment_metrics`), and indexes on the experiments' name, host
///    and stored results, so that the series of a store and each one's
///    values are found without reading every run (`perflab serve`,
///    `perflab history --changes`).
/// 7: where each run's peak memory was read (`peak_memory_source`: its
///    memory cgroup or rusage), since the two measure different things.
/// 8: an index of the experiments' status, so that every command's look
///    for running experiments whose process ended reads no stored result.
pub(super) const SCHEMA_VERSION: i64 = 8;

/// How long a process waits for another one holding the store.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

const EXPERIMENTS_RUNS: &str = "
CREATE TABLE IF NOT EXISTS experiments (
    id {id},
    kind TEXT NOT NULL,
    name TEXT,
    status TEXT NOT NULL,
    metric TEXT,
    verdict TEXT,
    change {real},
    ci_lo {real},
    ci_hi {real},
    started_at TEXT NOT NULL,
    finished_at TEXT,
    cwd TEXT,
    git_commit TEXT,
    git_dirty {int},
    host TEXT,
    cpu_model TEXT,
    kernel TEXT,
    perflab_version TEXT,
    config_json TEXT,
    result_json TEXT
);
CREATE TABLE IF NOT EXISTS variants (
    id {id},
    experiment_id {int} NOT NULL REFERENCES experiments(id),
    position {int} NOT NULL,
    name TEXT NOT NULL,
    command TEXT NOT NULL,
    env_json TEXT NOT NULL,
    cwd TEXT
);
CREATE TABLE IF NOT EXISTS runs (
    id {id},
    experiment_id {int} NOT NULL REFERENCES experiments(id),
    variant_id {int} NOT NULL REFERENCES variants(id),
    sequence {int} NOT NULL,
    iteration {int} NOT NULL,
    warmup {int} NOT NULL,
    finished_at TEXT NOT NULL,
    wall_s {real} NOT NULL,
    user_s {real} NOT NULL,
    sys_s {real} NOT NULL,
    peak_memory_kib {real} NOT NULL,
    exit_code {int},
    signal {int},
    outcome TEXT NOT NULL,
    metrics_json TEXT NOT NULL,
    profile_json TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_experiment ON runs(experiment_id);
";

/// Version 3: stable ids. Old rows get fresh ones; new rows get theirs
/// from perflab (`sql::new_uid`), in the same form.
const STABLE_IDS: &str = "
ALTER TABLE experiments ADD COLUMN uid TEXT;
ALTER TABLE runs ADD COLUMN uid TEXT;
UPDATE experiments SET uid = {new_uid} WHERE uid IS NULL;
UPDATE runs SET uid = {new_uid} WHERE uid IS NULL;
CREATE UNIQUE INDEX IF NOT EXISTS experiments_by_uid ON experiments(uid);
CREATE UNIQUE INDEX IF NOT EXISTS runs_by_uid ON runs(uid);
";

/// Version 4: a run replaced by a new measurement of its block, because a
/// run of the block waited for a CPU too long (the contention rule), is
/// kept and marked; every reader leaves it out. Older runs were all kept.
const REPLACED_RUNS: &str = "
ALTER TABLE runs ADD COLUMN replaced {int} NOT NULL DEFAULT 0;
";

/// Version 7: where a run's peak memory was read, `cgroup` (the peak
/// charge of its memory cgroup, its whole process tree) or `rusage` (the
/// largest process's resident set). Older runs were all measured by
/// rusage but are left NULL, not known, as are runs a store was given by
/// a program other than perflab's runner.
const PEAK_MEMORY_SOURCE: &str = "
ALTER TABLE runs ADD COLUMN peak_memory_source TEXT;
";

/// Version 8: every command that opens a store for writing looks for running
/// experiments whose process ended (`liveness`). Without an index that
/// look read every experiment to its owner's columns, which come after its
/// stored result (added by version 2): about 2 MB read, and 9 ms, on every
/// start of perflab with a store of 600 experiments, growing with the store.
const EXPERIMENTS_BY_STATUS: &str = "
CREATE INDEX IF NOT EXISTS experiments_by_status ON experiments(status);
";

/// Version 2: the process running an experiment, as `liveness` identifies it.
const OWNER_COLUMNS: &str = "
ALTER TABLE experiments ADD COLUMN owner_pid {int};
ALTER TABLE experiments ADD COLUMN owner_host TEXT;
ALTER TABLE experiments ADD COLUMN owner_boot TEXT;
ALTER TABLE experiments ADD COLUMN owner_pid_ns TEXT;
ALTER TABLE experiments ADD COLUMN owner_start_ticks {int};
";

/// Version 6: what finding the series of a store and their values looks
/// up. `experiment_metrics` holds the names of the metrics the measured
/// (not warm-up) runs of each experiment reported, written with the runs
/// (`Store::insert_runs`, `transfer`) and filled here from the runs already
/// stored; the series are then read from it instead of from every run's
/// metrics. The indexes find an experiment name's experiments (and, with
/// the metric, the pairs of both without reading the table), a host's, and
/// the newest stored result about a metric.
const SERIES_LOOKUPS: &str = "
CREATE TABLE IF NOT EXISTS experiment_metrics (
    experiment_id {int} NOT NULL REFERENCES experiments(id),
    metric TEXT NOT NULL,
    PRIMARY KEY (experiment_id, metric)
);
INSERT INTO experiment_metrics (experiment_id, metric)
    SELECT DISTINCT r.experiment_id, j.key FROM runs r, {run_metric_names} j
    WHERE r.warmup = 0 AND r.replaced = 0;
CREATE INDEX IF NOT EXISTS experiments_by_name ON experiments(name, metric);
CREATE INDEX IF NOT EXISTS experiments_by_host ON experiments(host);
CREATE INDEX IF NOT EXISTS results_by_metric ON experiments(metric, id) WHERE result_json IS NOT NULL;
";

/// The migrations, in order: the store's version is how many were applied.
/// The same list for both back ends; `Dialect::ddl` writes the column types.
const MIGRATIONS: &[&[&str]] = &[
    &[EXPERIMENTS_RUNS, attachments::SCHEMA],
    &[OWNER_COLUMNS],
    &[STABLE_IDS],
    &[REPLACED_RUNS],
    &[notified::SCHEMA],
    &[SERIES_LOOKUPS],
    &[PEAK_MEMORY_SOURCE],
    &[EXPERIMENTS_BY_STATUS],
];

/// Sets up the connection and brings the schema to [`SCHEMA_VERSION`].
pub(super) fn prepare(db: &Backend, path: &Path) -> Result<()> {
    let err = |source: StoreError| Error::Database {
        path: path.to_path_buf(),
        source,
    };
    if let Backend::Sqlite(conn) = db {
        let sqlite = |source: rusqlite::Error| err(source.into());
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sqlite)?;
        use_write_ahead_log(conn).map_err(sqlite)?;
        conn.execute_batch("PRAGMA synchronous=NORMAL;")
            .map_err(sqlite)?;
        keep_log_files(conn).map_err(sqlite)?;
    }
    if version(db, path)? == SCHEMA_VERSION {
        return Ok(());
    }
    let dialect = db.dialect();
    db.batch(dialect.begin()).map_err(err)?;
    let migrated = (|| {
        if dialect == Dialect::Postgres {
            // PostgreSQL has no lock on the whole database to take, and two
            // processes creating the same table at once make one fail; an
            // advisory lock held to the end of the transaction serialises them.
            db.batch(&format!(
                "SELECT pg_advisory_xact_lock({MIGRATION_LOCK});
                 CREATE TABLE IF NOT EXISTS perflab_schema (version BIGINT NOT NULL);"
            ))
            .map_err(err)?;
        }
        // Read again under the lock: another process may have just done it.
        let found = version(db, path)?;
        for migration in MIGRATIONS.iter().skip(found as usize) {
            for part in *migration {
                db.batch(&dialect.ddl(part)).map_err(err)?;
            }
        }
        set_version(db).map_err(err)
    })();
    match migrated {
        Ok(()) => db.batch("COMMIT").map_err(err),
        Err(e) => {
            // The error to report is the migration's, not the rollback's.
            let _ = db.batch("ROLLBACK");
            Err(e)
        }
    }
}

/// Any number of perflab's own: it only has to differ from the advisory
/// locks other programs sharing the database take.
const MIGRATION_LOCK: i64 = 0x0070_6572_666c_6162;

fn set_version(db: &Backend) -> std::result::Result<(), StoreError> {
    match db {
        Backend::Sqlite(_) => db.batch(&format!("PRAGMA user_version={SCHEMA_VERSION};")),
        Backend::Postgres(_) => db.batch(&format!(
            "DELETE FROM perflab_schema; INSERT INTO perflab_schema (version) VALUES ({SCHEMA_VERSION});"
        )),
    }
}

/// The oldest schema a store opened read-only may have: version 8 only
/// added an index that speeds up a writer's look, which readers do without.
const OLDEST_READABLE: i64 = 7;

/// Checks that a store opened read-only has a schema this perflab reads: an
/// older one would be upgraded by a command that writes, which this one
/// cannot.
pub(super) fn check_current(db: &Backend, path: &Path) -> Result<()> {
    let found = version(db, path)?;
    if found >= OLDEST_READABLE {
        return Ok(());
    }
    Err(Error::input(
        path,
        format!(
            "this store was written by an older perflab (schema {found}, this one reads {OLDEST_READABLE} to \
             {SCHEMA_VERSION}) and cannot be upgraded here, as it cannot be written; copy it \
             somewhere writable, or run this command where it can be written"
        ),
    ))
}

/// The store's schema version; refuses stores from a newer perflab.
fn version(db: &Backend, path: &Path) -> Result<i64> {
    let err = |source: StoreError| Error::Database {
        path: path.to_path_buf(),
        source,
    };
    let read = |sql: &str| -> Result<i64> {
        let rows = db.query(sql, &[]).map_err(err)?;
        match rows.first() {
            Some(row) => row.opt_i64(0).map(Option::unwrap_or_default).map_err(err),
            None => Ok(0),
        }
    };
    let version = match db {
        Backend::Sqlite(_) => read("PRAGMA user_version")?,
        // Asked apart: a query naming a missing table fails as a whole.
        Backend::Postgres(_)
            if read(
                "SELECT CASE WHEN to_regclass('perflab_schema') IS NULL THEN 0 ELSE 1 END",
            )? == 0 =>
        {
            0
        }
        Backend::Postgres(_) => read("SELECT MAX(version) FROM perflab_schema")?,
    };
    if version > SCHEMA_VERSION {
        return Err(Error::input(
            path,
            format!(
                "this store was written by a newer perflab (schema {version}); upgrade perflab or use another --store"
            ),
        ));
    }
    Ok(version)
}

/// Switches the store to write-ahead logging (readers do not block the
/// writer, and each run's insert is one cheap append).
///
/// SQLite takes the exclusive lock this needs without calling the busy
/// handler, so a process switching a new store while another one creates
/// its schema gets `SQLITE_BUSY` at once; it is retried here for as long
/// as the busy timeout would have waited.
fn use_write_ahead_log(conn: &Connection) -> rusqlite::Result<()> {
    let deadline = Instant::now() + BUSY_TIMEOUT;
    loop {
        let attempt: rusqlite::Result<String> =
            conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0));
        match attempt {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(e.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
                    && Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            other => return other.map(drop),
        }
    }
}

/// Keeps the write-ahead log's two files when the last connection closes
/// (SQLite's persistent WAL mode), emptied once their content is in the
/// store file, which therefore holds every run on its own, as before.
///
/// Why: otherwise every perflab command creates the log again, and SQLite
/// then syncs the store's directory too, and deletes both files at its end:
/// file system updates that took milliseconds per command on a busy disk,
/// as much as hundreds of runs of a fast command cost perflab.
fn keep_log_files(conn: &Connection) -> rusqlite::Result<()> {
    // Any size: at close the kept log is emptied whatever it is.
    conn.execute_batch("PRAGMA journal_size_limit=4194304;")?;
    let mut keep: std::ffi::c_int = 1;
    // SAFETY: a file control on the open connection's main database, with
    // the int that SQLITE_FCNTL_PERSIST_WAL reads. Its result is left
    // alone: a database without a file (in memory) has no log to keep.
    unsafe {
        rusqlite::ffi::sqlite3_file_control(
            conn.handle(),
            c"main".as_ptr(),
            rusqlite::ffi::SQLITE_FCNTL_PERSIST_WAL,
            (&raw mut keep).cast(),
        );
    }
    Ok(())
}
