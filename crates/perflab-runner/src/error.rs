//! The errors of starting and measuring runs. Every message names the run,
//! flag, tool or file at fault and says how to fix it; the perflab command
//! turns each kind into its own error of the same name, with the same
//! message, and picks the exit code.

use std::path::PathBuf;

/// An error of the runner.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A flag or argument is wrong (a metric definition, an empty command,
    /// a `--keep-env` variable that is not set, counters not allowed).
    #[error("{flag}: {message}")]
    Usage {
        /// The flag or argument at fault, e.g. `--metric`.
        flag: String,
        /// What was wrong and how to fix it.
        message: String,
    },
    /// A run could not be started, or went wrong while perflab watched it.
    #[error("{run}: {message}")]
    Run {
        /// Which run, e.g. `command './prog'`.
        run: String,
        /// What happened and how to fix it.
        message: String,
    },
    /// An external tool the runner drives (valgrind, setarch, perf,
    /// perf_event_open) is missing, may not be used, or failed.
    #[error("{tool}: {message}")]
    Tool {
        /// The tool, e.g. `valgrind`.
        tool: String,
        /// What is wrong and how to fix it (how to install it, what to set).
        message: String,
    },
    /// An I/O error on a file, pipe or socket the runner uses.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file at fault, or what the descriptor was (`pipe`).
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

impl Error {
    /// A usage error for `flag`.
    pub fn usage(flag: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Usage {
            flag: flag.into(),
            message: message.into(),
        }
    }
}

/// The result type of the runner.
pub type Result<T, E = Error> = std::result::Result<T, E>;
