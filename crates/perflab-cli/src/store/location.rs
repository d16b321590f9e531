//! Where a store lives, as the user names it: a SQLite file, or a
//! `postgres://` URL for a store shared between machines.

use std::fmt;
use std::path::{Path, PathBuf};

use super::postgres::{is_postgres_url, redact};

/// A store's place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file (created if missing).
    File(PathBuf),
    /// A PostgreSQL database, by its URL (which may hold a password).
    Postgres(String),
}

impl Location {
    /// The place `text` names: a `postgres://` or `postgresql://` URL, or a
    /// file path.
    pub fn parse(text: &Path) -> Self {
        match text.to_str().filter(|t| is_postgres_url(t)) {
            Some(url) => Location::Postgres(url.to_string()),
            None => Location::File(text.to_path_buf()),
        }
    }

    /// The store of a command: `--store`, then `$PERFLAB_STORE`, then
    /// `.perflab/perflab.db`.
    pub fn from_flag(flag: Option<&Path>) -> Self {
        Self::parse(&super::Store::default_path(flag))
    }
}

/// The file, or the URL without its password (safe to print).
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::File(path) => write!(f, "{}", path.display()),
            Location::Postgres(url) => f.write_str(&redact(url)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_postgres_url_is_a_server_and_anything_else_a_file() {
        assert_eq!(
            Location::parse(Path::new("postgres://u:pw@h/db")),
            Location::Postgres("postgres://u:pw@h/db".into())
        );
        assert_eq!(
            Location::parse(Path::new("postgres.db")),
            Location::File("postgres.db".into())
        );
        assert_eq!(
            Location::parse(Path::new("postgresql://u:pw@h/db")).to_string(),
            "postgresql://u@h/db"
        );
    }
}
