//! The store's tables, their version in `PRAGMA user_version`, and the
//! upgrade of older stores.
//!
//! Several perflab processes may open a store that does not exist yet at
//! the same moment (a script starting measurements in parallel). The busy
//! timeout is therefore set before anything touches the file, and the
//! version is read again and the schema created inside one `BEGIN IMMEDIATE`
//! transaction, so that exactly one process creates or upgrades the schema
//! and the others wait for it and then find it done.

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, TransactionBehavior};

use super::attachments;
use crate::error::{Error, Result};

/// Schema version kept in `PRAGMA user_version`.
///
/// 1: experiments, variants, runs, profile stacks, attachments.
/// 2: the process that runs an experiment (`owner_*`), so that an experiment
///    whose process died is marked `incomplete` (see `liveness`).
pub(super) const SCHEMA_VERSION: i64 = 2;

/// How long a process waits for another one holding the store.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

const EXPERIMENTS_RUNS: &str = "
CREATE TABLE IF NOT EXISTS experiments (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    name TEXT,
    status TEXT NOT NULL,
    metric TEXT,
    verdict TEXT,
    change REAL,
    ci_lo REAL,
    ci_hi REAL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    cwd TEXT,
    git_commit TEXT,
    git_dirty INTEGER,
    host TEXT,
    cpu_model TEXT,
    kernel TEXT,
    perflab_version TEXT,
    config_json TEXT,
    result_json TEXT
);
CREATE TABLE IF NOT EXISTS variants (
    id INTEGER PRIMARY KEY,
    experiment_id INTEGER NOT NULL REFERENCES experiments(id),
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    command TEXT NOT NULL,
    env_json TEXT NOT NULL,
    cwd TEXT
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    experiment_id INTEGER NOT NULL REFERENCES experiments(id),
    variant_id INTEGER NOT NULL REFERENCES variants(id),
    sequence INTEGER NOT NULL,
    iteration INTEGER NOT NULL,
    warmup INTEGER NOT NULL,
    finished_at TEXT NOT NULL,
    wall_s REAL NOT NULL,
    user_s REAL NOT NULL,
    sys_s REAL NOT NULL,
    peak_memory_kib REAL NOT NULL,
    exit_code INTEGER,
    signal INTEGER,
    outcome TEXT NOT NULL,
    metrics_json TEXT NOT NULL,
    profile_json TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_experiment ON runs(experiment_id);
";

/// Version 2: the process running an experiment, as `liveness` identifies it.
const OWNER_COLUMNS: &str = "
ALTER TABLE experiments ADD COLUMN owner_pid INTEGER;
ALTER TABLE experiments ADD COLUMN owner_host TEXT;
ALTER TABLE experiments ADD COLUMN owner_boot TEXT;
ALTER TABLE experiments ADD COLUMN owner_pid_ns TEXT;
ALTER TABLE experiments ADD COLUMN owner_start_ticks INTEGER;
";

/// Sets up the connection and brings the schema to [`SCHEMA_VERSION`].
pub(super) fn prepare(conn: &mut Connection, path: &Path) -> Result<()> {
    let err = |source| Error::Store {
        path: path.to_path_buf(),
        source,
    };
    conn.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
    use_write_ahead_log(conn).map_err(err)?;
    conn.execute_batch("PRAGMA synchronous=NORMAL;")
        .map_err(err)?;
    keep_log_files(conn).map_err(err)?;
    if version(conn, path)? == SCHEMA_VERSION {
        return Ok(());
    }
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(err)?;
    // Read again under the write lock: another process may have just done it.
    let found = version(&tx, path)?;
    if found < 1 {
        tx.execute_batch(EXPERIMENTS_RUNS).map_err(err)?;
        tx.execute_batch(attachments::SCHEMA).map_err(err)?;
    }
    if found < 2 {
        tx.execute_batch(OWNER_COLUMNS).map_err(err)?;
    }
    tx.execute_batch(&format!("PRAGMA user_version={SCHEMA_VERSION};"))
        .map_err(err)?;
    tx.commit().map_err(err)
}

/// The store's schema version; refuses stores from a newer perflab.
fn version(conn: &Connection, path: &Path) -> Result<i64> {
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|source| Error::Store {
            path: path.to_path_buf(),
            source,
        })?;
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
