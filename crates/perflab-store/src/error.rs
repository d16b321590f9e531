//! The errors of the store: each names the store (its file, or its URL
//! without the password) or the flag at fault, and says how to fix it.

use std::path::PathBuf;
use std::time::Duration;

/// An error of the store.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The flag or argument naming a store or an experiment is wrong.
    #[error("{flag}: {message}")]
    Usage {
        /// The flag or argument at fault, e.g. `--store`.
        flag: String,
        /// What was wrong and how to fix it.
        message: String,
    },
    /// The store cannot be used as it is (written by a newer perflab, or
    /// holding no experiment yet).
    #[error("{}: {message}", path.display())]
    Input {
        /// The store file, or its URL without the password.
        path: PathBuf,
        /// What was wrong and how to fix it.
        message: String,
    },
    /// The folder of a store file cannot be created.
    #[error("{}: {source}", path.display())]
    Io {
        /// The folder at fault.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The store's database failed.
    #[error("store {}: {source}", path.display())]
    Database {
        /// The store file, or its URL without the password.
        path: PathBuf,
        /// What the database said.
        source: StoreError,
    },
}

impl Error {
    /// A usage error for `flag`.
    pub(crate) fn usage(flag: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Usage {
            flag: flag.into(),
            message: message.into(),
        }
    }

    /// An error of the store at `path` as it is.
    pub(crate) fn input(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Input {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// What went wrong in a store's database.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL failed.
    #[error("{}", describe_postgres(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// The PostgreSQL server did not answer a statement in time (stopped,
    /// or out of reach); the connection was given up, so what was stored
    /// before stays and nothing more is written.
    #[error(
        "{server}: no answer within {} (PERFLAB_STORE_TIMEOUT), so perflab gave up the \
         connection; check that the server runs and answers (`{check}`), or give it longer \
         with PERFLAB_STORE_TIMEOUT=5min",
        humantime::format_duration(*.waited)
    )]
    Unanswered {
        /// The server, database and user.
        server: String,
        /// How long perflab waited.
        waited: Duration,
        /// The command that checks the server.
        check: String,
    },
    /// A value to store could not be written as JSON.
    #[error("a value cannot be written as JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A column did not hold what perflab writes there (a database not
    /// written by perflab, or a bug).
    #[error("column {column} holds {found}, not {expected}")]
    Column {
        /// The column's position in the query's answer.
        column: usize,
        /// What perflab expected there.
        expected: &'static str,
        /// What it found.
        found: String,
    },
}

/// The server's own message where it sent one (the client's display says
/// only "db error"), else the client's with its cause.
pub(crate) fn describe_postgres(e: &tokio_postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{}: {}", db.severity(), db.message());
    }
    match std::error::Error::source(e) {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    }
}

/// The result type of the store.
pub type Result<T, E = Error> = std::result::Result<T, E>;
