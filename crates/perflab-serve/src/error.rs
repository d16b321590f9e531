//! The errors of `perflab serve`: those that stop it from starting
//! ([`Error`], each naming the flag or file at fault) and those of one
//! request ([`PageError`], answered with a status and a message).

use std::net::SocketAddr;
use std::path::PathBuf;

/// Why the server cannot start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A flag's value cannot be used.
    #[error("{flag}: {message}")]
    Usage {
        /// The flag at fault, e.g. `--listen`.
        flag: String,
        /// What was wrong and how to fix it.
        message: String,
    },
    /// The address cannot be listened on.
    #[error("--listen {addr}: cannot listen there: {source}")]
    Listen {
        /// The address asked for.
        addr: SocketAddr,
        /// What the system said.
        source: std::io::Error,
    },
    /// The certificate or key cannot be read.
    #[error("{}: cannot be read as a PEM certificate chain or private key: {source}", path.display())]
    Tls {
        /// The file at fault.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The server failed while serving.
    #[error("serving on {addr} failed: {source}")]
    Serve {
        /// The address served.
        addr: SocketAddr,
        /// What went wrong.
        source: std::io::Error,
    },
}

/// Why one request cannot be answered with its page.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    /// The URL is malformed or asks for too much (400).
    #[error("{0}")]
    BadRequest(String),
    /// What the URL names is not in the store (404).
    #[error("{0}")]
    NotFound(String),
    /// The store could not be read (500).
    #[error("{0}")]
    Failed(String),
}

impl PageError {
    /// The HTTP status of the error.
    pub fn status(&self) -> u16 {
        match self {
            PageError::BadRequest(_) => 400,
            PageError::NotFound(_) => 404,
            PageError::Failed(_) => 500,
        }
    }
}

impl From<crate::source::SourceError> for PageError {
    fn from(e: crate::source::SourceError) -> Self {
        match e {
            crate::source::SourceError::NotFound(m) => PageError::NotFound(m),
            crate::source::SourceError::Failed(m) => PageError::Failed(m),
        }
    }
}

impl From<perflab_store::Error> for PageError {
    fn from(e: perflab_store::Error) -> Self {
        PageError::Failed(e.to_string())
    }
}
