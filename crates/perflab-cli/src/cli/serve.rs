//! `perflab serve` flags.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

use super::DecisionArgs;
use crate::error::{Error, Result};

/// `perflab serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address and port to listen on; port 0 picks a free one (the address is printed).
    /// Any address but the loopback needs --token.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// The bearer token every request must carry (`Authorization: Bearer T`), at least 16
    /// characters; required to listen beyond the loopback [default: $PERFLAB_SERVE_TOKEN, else none].
    #[arg(long, value_name = "T")]
    pub token: Option<String>,
    /// Serve HTTPS with this certificate chain (PEM); with --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Link commits to the repository: a URL with {commit} where the full commit id goes,
    /// e.g. `https://github.com/OWNER/REPO/commit/{commit}` [default: commits not linked].
    #[arg(long, value_name = "URL")]
    pub commit_url: Option<String>,
    /// The thresholds and confidence change points are judged at.
    #[command(flatten)]
    pub decision: DecisionArgs,
}

impl ServeArgs {
    /// The server's settings these flags give.
    pub fn settings(&self) -> Result<perflab_serve::ServeSettings> {
        let listen: SocketAddr = self.listen.parse().map_err(|_| {
            Error::usage(
                "--listen",
                format!(
                    "'{}' is not an address and port; give e.g. 127.0.0.1:8080, [::1]:8080 or 0.0.0.0:8080",
                    self.listen
                ),
            )
        })?;
        let tls = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => {
                for (flag, path) in [("--tls-cert", cert), ("--tls-key", key)] {
                    if !path.is_file() {
                        return Err(Error::usage(
                            flag,
                            format!("{} is not a file; give a PEM file", path.display()),
                        ));
                    }
                }
                Some(perflab_serve::TlsFiles {
                    cert: cert.clone(),
                    key: key.clone(),
                })
            }
            _ => None,
        };
        if let Some(url) = &self.commit_url {
            if !(url.starts_with("https://") || url.starts_with("http://"))
                || !url.contains("{commit}")
            {
                return Err(Error::usage(
                    "--commit-url",
                    format!(
                        "'{url}' is not an http(s) URL with {{commit}} in it; give e.g. \
                         https://github.com/OWNER/REPO/commit/{{commit}}"
                    ),
                ));
            }
        }
        let settings = perflab_serve::ServeSettings {
            listen,
            token: self.token.clone().or_else(|| {
                std::env::var("PERFLAB_SERVE_TOKEN")
                    .ok()
                    .filter(|t| !t.is_empty())
            }),
            tls,
        };
        settings.check().map_err(serve_error)?;
        Ok(settings)
    }
}

/// A server error as the command's: a flag's fault is bad usage (exit 2).
pub fn serve_error(e: perflab_serve::Error) -> Error {
    match e {
        perflab_serve::Error::Usage { flag, message } => Error::Usage { flag, message },
        perflab_serve::Error::Tls { path, source } => Error::input(
            path,
            format!("cannot be read as a PEM certificate chain or private key: {source}"),
        ),
        perflab_serve::Error::Listen { addr, source } => Error::usage(
            "--listen",
            format!("cannot listen on {addr}: {source}; pick another port or address"),
        ),
        other => Error::Io {
            path: PathBuf::from("perflab serve"),
            source: std::io::Error::other(other.to_string()),
        },
    }
}
