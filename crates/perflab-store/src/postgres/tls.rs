//! TLS to the shared store, with libpq's `sslmode` and `sslrootcert`.
//!
//! | sslmode | encrypted | certificate checked |
//! | --- | --- | --- |
//! | `disable` | never | no |
//! | `prefer` (the default) | if the server offers it | only against a root certificate file given or found |
//! | `require` | always | only against a root certificate file given or found (then as `verify-ca`) |
//! | `verify-ca` | always | signed by a root certificate |
//! | `verify-full` | always | signed by a root certificate, and naming the host connected to |
//!
//! The root certificates are `sslrootcert` (a PEM file, or `system` for the
//! machine's trusted roots), else `~/.postgresql/root.crt` where it exists,
//! as in libpq. OpenSSL does the work, as it does for libpq, so that the
//! certificates libpq accepts are accepted (a self-signed server
//! certificate as its own root; a host name in the subject's common name
//! only). Unix sockets are never encrypted (PostgreSQL does not offer TLS
//! there), whatever the mode.

use std::fmt;
use std::path::PathBuf;

use openssl::ssl::{SslConnector, SslMethod, SslVerifyMode};
use openssl::x509::X509;
use openssl::x509::store::X509StoreBuilder;
use postgres_openssl::MakeTlsConnector;

/// libpq's `sslmode`: whether to encrypt, and what to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SslMode {
    /// Never encrypt.
    Disable,
    /// Encrypt if the server offers it, else not.
    Prefer,
    /// Always encrypt.
    Require,
    /// Always encrypt, with a certificate signed by a trusted root.
    VerifyCa,
    /// As `VerifyCa`, and the certificate names the host.
    VerifyFull,
}

impl SslMode {
    /// Every mode, by its word.
    pub(crate) const ALL: [SslMode; 5] = [
        SslMode::Disable,
        SslMode::Prefer,
        SslMode::Require,
        SslMode::VerifyCa,
        SslMode::VerifyFull,
    ];

    /// The mode of `word`, or None.
    pub(crate) fn parse(word: &str) -> Option<SslMode> {
        SslMode::ALL.into_iter().find(|m| m.as_str() == word)
    }

    /// Its word, as libpq spells it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }
}

impl fmt::Display for SslMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The certificates a server's certificate must be signed by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RootCertificates {
    /// The certificates of a PEM file.
    File(PathBuf),
    /// The machine's trusted roots (`sslrootcert=system`).
    System,
}

impl fmt::Display for RootCertificates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RootCertificates::File(path) => write!(f, "{}", path.display()),
            RootCertificates::System => f.write_str("the system's trusted roots"),
        }
    }
}

/// How a connection uses TLS: the mode, and the roots a certificate is
/// checked against (none: not checked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TlsSettings {
    /// The mode asked for.
    pub mode: SslMode,
    /// The roots the server's certificate is checked against, if it is.
    pub roots: Option<RootCertificates>,
}

impl TlsSettings {
    /// Whether the certificate must name the host connected to.
    pub(crate) fn checks_host(&self) -> bool {
        self.mode == SslMode::VerifyFull
    }

    /// The mode the client speaks to the server.
    pub(crate) fn client_mode(&self) -> tokio_postgres::config::SslMode {
        match self.mode {
            SslMode::Disable => tokio_postgres::config::SslMode::Disable,
            SslMode::Prefer => tokio_postgres::config::SslMode::Prefer,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => {
                tokio_postgres::config::SslMode::Require
            }
        }
    }

    /// The TLS connector that checks what this mode checks; an error says
    /// what is wrong with the root certificates.
    pub(crate) fn connector(&self) -> Result<MakeTlsConnector, String> {
        let openssl_error = |e: openssl::error::ErrorStack| format!("OpenSSL: {e}");
        let mut builder = SslConnector::builder(SslMethod::tls_client()).map_err(openssl_error)?;
        match &self.roots {
            None => builder.set_verify(SslVerifyMode::NONE),
            Some(roots) => {
                // A store of its own: with a root file, only that file's
                // certificates are trusted (the builder starts with the
                // system's).
                let mut store = X509StoreBuilder::new().map_err(openssl_error)?;
                match roots {
                    RootCertificates::System => {
                        store.set_default_paths().map_err(openssl_error)?;
                    }
                    RootCertificates::File(path) => {
                        let pem = std::fs::read(path).map_err(|e| {
                            format!(
                                "cannot read the root certificate file {}: {e}",
                                path.display()
                            )
                        })?;
                        let certificates = X509::stack_from_pem(&pem).unwrap_or_default();
                        if certificates.is_empty() {
                            return Err(format!(
                                "{} holds no PEM certificate (-----BEGIN CERTIFICATE-----): give \
                                 the file of the certificate authority that signed the server's \
                                 certificate",
                                path.display()
                            ));
                        }
                        for certificate in certificates {
                            store.add_cert(certificate).map_err(openssl_error)?;
                        }
                    }
                }
                builder.set_cert_store(store.build());
                builder.set_verify(SslVerifyMode::PEER);
            }
        }
        let mut connector = MakeTlsConnector::new(builder.build());
        if !self.checks_host() {
            connector.set_callback(|config, _| {
                config.set_verify_hostname(false);
                Ok(())
            });
        }
        Ok(connector)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_reads_back_from_its_word() {
        for mode in SslMode::ALL {
            assert_eq!(SslMode::parse(mode.as_str()), Some(mode));
        }
        assert_eq!(SslMode::parse("allow"), None);
        assert_eq!(SslMode::parse("VERIFY-FULL"), None);
    }

    #[test]
    fn a_root_file_without_a_certificate_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("root.crt");
        std::fs::write(&path, "not a certificate\n").unwrap();
        let settings = TlsSettings {
            mode: SslMode::VerifyFull,
            roots: Some(RootCertificates::File(path.clone())),
        };
        let err = settings.connector().err().unwrap();
        assert!(err.contains(&path.display().to_string()), "{err}");
        assert!(err.contains("no PEM certificate"), "{err}");
        let missing = TlsSettings {
            mode: SslMode::VerifyCa,
            roots: Some(RootCertificates::File(dir.path().join("none.crt"))),
        };
        assert!(missing.connector().err().unwrap().contains("none.crt"));
    }
}
