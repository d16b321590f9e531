//! The errors of writing a report: each names the file or the flag at fault.

use std::path::PathBuf;

/// An error of writing a report.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An output file that cannot be written was asked for.
    #[error("{flag}: {message}")]
    Usage {
        /// The flag that named the file, e.g. `--html`.
        flag: String,
        /// What was wrong and how to fix it.
        message: String,
    },
    /// Writing a file, or making a flame graph for it, failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder at fault.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
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
}

/// The result type of writing a report.
pub type Result<T, E = Error> = std::result::Result<T, E>;
