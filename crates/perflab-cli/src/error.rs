//! The errors of the perflab command and the exit codes they map to.
//!
//! Every message says what was wrong (naming the flag, file, line or run at
//! fault) and how to fix it, because the person reading it is in the middle
//! of an investigation and should not have to guess.

use std::path::PathBuf;

use perflab_store::StoreError;

/// Exit code: a decision was reached and nothing regressed, or a plain measurement.
pub const EXIT_OK: i32 = 0;
/// Exit code: perflab itself failed (store, I/O, a bug).
pub const EXIT_FAILURE: i32 = 1;
/// Exit code: bad usage or bad input.
pub const EXIT_USAGE: i32 = 2;
/// Exit code: the verdict is NO-GO.
pub const EXIT_NO_GO: i32 = 3;
/// Exit code: the verdict is INCONCLUSIVE.
pub const EXIT_INCONCLUSIVE: i32 = 4;
/// Exit code: interrupted by Ctrl-C; the runs already finished are kept.
pub const EXIT_INTERRUPTED: i32 = 130;

/// An error of the perflab command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A flag or argument is wrong.
    #[error("{flag}: {message}")]
    Usage {
        /// The flag or argument at fault, e.g. `--go`.
        flag: String,
        /// What was wrong and how to fix it.
        message: String,
    },
    /// An input file is wrong.
    #[error("{}: {message}", path.display())]
    Input {
        /// The file at fault, with a `:line:column` suffix where known.
        path: PathBuf,
        /// What was wrong and how to fix it.
        message: String,
    },
    /// A measured run went wrong (failed, timed out, missed a metric).
    #[error("{run}: {message}")]
    Run {
        /// Which run, e.g. `run 3 of variant "B"`.
        run: String,
        /// What happened and how to fix it, with the tail of the run's output.
        message: String,
    },
    /// An external tool perflab drives (perf, valgrind) is missing, may not
    /// be used, or failed.
    #[error("{tool}: {message}")]
    Tool {
        /// The tool, e.g. `perf`.
        tool: String,
        /// What is wrong and how to fix it (how to install it, what to set).
        message: String,
    },
    /// The statistics cannot be computed from these samples.
    #[error("{0}")]
    Stats(String),
    /// The user pressed Ctrl-C; finished runs are kept.
    #[error("interrupted: {0}")]
    Interrupted(String),
    /// An I/O error on a file perflab writes or reads.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file at fault.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A document or value could not be written as JSON (a value JSON
    /// cannot hold); nothing is stored or written in its place.
    #[error("{what}: cannot be written as JSON: {source}")]
    Json {
        /// What was being written, e.g. `the result document`.
        what: String,
        /// The underlying error.
        source: serde_json::Error,
    },
    /// The store's database failed.
    #[error("store {}: {source}{}", path.display(), damaged_advice(source, path))]
    Store {
        /// The store file, or its URL without the password.
        path: PathBuf,
        /// The underlying error.
        source: StoreError,
    },
}

/// What to do about a damaged store, on a line of its own, or nothing.
fn damaged_advice(source: &StoreError, path: &std::path::Path) -> String {
    perflab_store::damaged_store_advice(source, path)
        .map(|advice| format!("\n{advice}"))
        .unwrap_or_default()
}

/// `value` as compact JSON, or an error naming `what` it is.
///
/// The text is cut to its length: serialising grows its buffer by doubling,
/// and a result document of millions of samples would otherwise keep up to
/// twice its size while the store copies it.
pub fn to_json(what: &str, value: &impl serde::Serialize) -> Result<String> {
    let mut text = serde_json::to_string(value).map_err(|source| Error::Json {
        what: what.to_string(),
        source,
    })?;
    text.shrink_to_fit();
    Ok(text)
}

/// `value` as pretty-printed JSON, or an error naming `what` it is.
pub fn to_json_pretty(what: &str, value: &impl serde::Serialize) -> Result<String> {
    serde_json::to_string_pretty(value).map_err(|source| Error::Json {
        what: what.to_string(),
        source,
    })
}

impl Error {
    /// The process exit code for this error (see docs/guide/exit-codes.md).
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage { .. }
            | Error::Input { .. }
            | Error::Run { .. }
            | Error::Tool { .. }
            | Error::Stats(_) => EXIT_USAGE,
            Error::Interrupted(_) => EXIT_INTERRUPTED,
            Error::Io { .. } | Error::Json { .. } | Error::Store { .. } => EXIT_FAILURE,
        }
    }

    /// A usage error for `flag`.
    pub fn usage(flag: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Usage {
            flag: flag.into(),
            message: message.into(),
        }
    }

    /// An input error for `path`.
    pub fn input(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Input {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl From<perflab_stats::StatsError> for Error {
    fn from(e: perflab_stats::StatsError) -> Self {
        Error::Stats(e.to_string())
    }
}

impl From<perflab_store::Error> for Error {
    /// The store's errors are the command's of the same kind, message unchanged.
    fn from(e: perflab_store::Error) -> Self {
        match e {
            perflab_store::Error::Usage { flag, message } => Error::Usage { flag, message },
            perflab_store::Error::Input { path, message } => Error::Input { path, message },
            perflab_store::Error::Io { path, source } => Error::Io { path, source },
            perflab_store::Error::Database { path, source } => Error::Store { path, source },
        }
    }
}

impl From<perflab_report::Error> for Error {
    /// Writing a report fails as the command's usage or I/O, message unchanged.
    fn from(e: perflab_report::Error) -> Self {
        match e {
            perflab_report::Error::Usage { flag, message } => Error::Usage { flag, message },
            perflab_report::Error::Io { path, source } => Error::Io { path, source },
        }
    }
}

impl From<perflab_runner::Error> for Error {
    /// The runner's errors are the command's of the same kind, message unchanged.
    fn from(e: perflab_runner::Error) -> Self {
        match e {
            perflab_runner::Error::Usage { flag, message } => Error::Usage { flag, message },
            perflab_runner::Error::Run { run, message } => Error::Run { run, message },
            perflab_runner::Error::Tool { tool, message } => Error::Tool { tool, message },
            perflab_runner::Error::Io { path, source } => Error::Io { path, source },
        }
    }
}

/// The result type of the perflab command library.
pub type Result<T, E = Error> = std::result::Result<T, E>;
