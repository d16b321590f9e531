//! Where a store lives, as the user names it: a SQLite file, or a
//! `postgres://` URL for a store shared between machines.

use std::fmt;
use std::path::{Path, PathBuf};

use super::postgres::{is_postgres_url, redact};
use crate::error::{Error, Result};

/// A store's place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file (created if missing).
    File(PathBuf),
    /// A PostgreSQL database, by its URL (which may hold a password).
    Postgres(String),
}

impl Location {
    /// The place `text` (given with `flag`) names: a `postgres://` or
    /// `postgresql://` URL, or a file path. Another URL (`mysql://…`) is a
    /// usage error, not a file of that name.
    pub fn parse(text: &Path, flag: &str) -> Result<Self> {
        let Some(t) = text.to_str() else {
            return Ok(Location::File(text.to_path_buf()));
        };
        if is_postgres_url(t) {
            return Ok(Location::Postgres(t.to_string()));
        }
        if let Some((scheme, _)) = t.split_once("://") {
            let is_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
            if is_scheme {
                return Err(Error::usage(
                    flag,
                    format!(
                        "'{}' is a {scheme}:// URL, and perflab stores only in SQLite files and \
                         PostgreSQL: give a file path or a postgres://USER@HOST/DATABASE URL",
                        redact(t)
                    ),
                ));
            }
        }
        Ok(Location::File(text.to_path_buf()))
    }

    /// The store of a command: `--store`, then `$PERFLAB_STORE`, then
    /// `.perflab/perflab.db`.
    pub fn from_flag(flag: Option<&Path>) -> Result<Self> {
        let name = if flag.is_some() {
            "--store"
        } else {
            "PERFLAB_STORE"
        };
        Self::parse(&super::Store::default_path(flag), name)
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
        let parse = |text: &str| Location::parse(Path::new(text), "--store").unwrap();
        assert_eq!(
            parse("postgres://u:pw@h/db"),
            Location::Postgres("postgres://u:pw@h/db".into())
        );
        assert_eq!(parse("postgres.db"), Location::File("postgres.db".into()));
        assert_eq!(
            parse("postgresql://u:pw@h/db").to_string(),
            "postgresql://u@h/db"
        );
    }

    #[test]
    fn another_url_is_a_usage_error_naming_the_flag_not_a_file() {
        let err = Location::parse(Path::new("mysql://u:pw@h/db"), "--to").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("--to") && text.contains("mysql://"), "{text}");
        assert!(!text.contains("pw"), "{text}");
        assert_eq!(
            Location::parse(Path::new("runs/a:b.db"), "--to").unwrap(),
            Location::File("runs/a:b.db".into())
        );
    }
}
