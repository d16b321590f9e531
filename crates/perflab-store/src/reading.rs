//! Opening a store for a command that only reads it (`history`, `report`,
//! `push`): such a command never creates a store, and works on one it
//! cannot write (a read-only folder, file or file system).
//!
//! Where the store can be written, it is opened as every command opens it,
//! so that experiments whose process has ended are marked incomplete as
//! usual (see `liveness`). Where it cannot, it is opened read-only and left
//! exactly as it is: its write-ahead log files are used if they are there,
//! and without them SQLite is told the file cannot change (`immutable=1`),
//! which is true of a file nobody can write.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::{Location, Store, schema};

impl Store {
    /// Opens the store at `location` for reading only; `flag` is the option
    /// that named it, for messages.
    ///
    /// # Errors
    /// [`Error::Usage`] naming `flag` when no store file is at the path (a
    /// mistyped `--store` creates nothing); [`Error::Input`] when a store
    /// that cannot be written holds an older schema, which only a command
    /// that can write upgrades.
    pub fn open_for_reading(location: &Location, flag: &str) -> Result<Self> {
        let path = match location {
            Location::Postgres(_) => return Self::open_at(location, flag),
            Location::File(path) => path,
        };
        existing_store_file(path, flag)?;
        if writable(path) {
            return Self::open(path);
        }
        read_only_sqlite(path)
    }
}

impl Store {
    /// Opens the store at `location` so that nothing can be written through
    /// this connection, whoever may write the file (for `perflab serve`,
    /// which must leave a store exactly as it finds it): a SQLite file
    /// opened read-only (its write-ahead log is read, so experiments stored
    /// later are seen), a PostgreSQL session whose transactions are all
    /// read-only (`SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY`).
    /// Neither creates, upgrades nor marks anything; `flag` is the option
    /// that named the store, for messages.
    ///
    /// # Errors
    /// [`Error::Usage`] naming `flag` when no store file is at the path;
    /// [`Error::Input`] when the store holds another schema version than
    /// this perflab's; [`Error::Database`] when it cannot be read.
    pub fn open_read_only(location: &Location, flag: &str) -> Result<Self> {
        match location {
            Location::File(path) => {
                existing_store_file(path, flag)?;
                read_only_sqlite(path)
            }
            Location::Postgres(url) => {
                let (conn, notices) = crate::postgres::PostgresConnection::connect(url, flag)?;
                let path = std::path::PathBuf::from(location.to_string());
                let db = Backend::Postgres(Box::new(conn));
                db.batch("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
                    .map_err(|source| Error::Database {
                        path: path.clone(),
                        source,
                    })?;
                schema::check_current(&db, &path)?;
                Ok(Store {
                    db,
                    path,
                    file: None,
                    notices: std::sync::Mutex::new(notices),
                    spool: Default::default(),
                    metric_names: Default::default(),
                })
            }
        }
    }
}

/// The SQLite store at `path` opened read-only, its schema checked: its
/// write-ahead log is used if it is there, and where it is not and cannot
/// be made, SQLite is told the file cannot change (`immutable=1`), which is
/// true of a file nobody can write.
fn read_only_sqlite(path: &Path) -> Result<Store> {
    let database = |source: rusqlite::Error| Error::Database {
        path: path.to_path_buf(),
        source: source.into(),
    };
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let usable = |conn: Connection| -> rusqlite::Result<Connection> {
        conn.busy_timeout(schema::BUSY_TIMEOUT)?;
        // Reading the schema is what opens the file and its log.
        conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))?;
        Ok(conn)
    };
    let conn = match Connection::open_with_flags(path, flags).and_then(usable) {
        Ok(conn) => conn,
        Err(_) => {
            Connection::open_with_flags(immutable_uri(path), flags | OpenFlags::SQLITE_OPEN_URI)
                .and_then(usable)
                .map_err(database)?
        }
    };
    let db = Backend::Sqlite(conn);
    schema::check_current(&db, path)?;
    Ok(Store {
        db,
        path: path.to_path_buf(),
        file: None,
        notices: Default::default(),
        spool: Default::default(),
        metric_names: Default::default(),
    })
}

/// Refuses a path that holds no store file, naming `flag`: a command that
/// only reads or checks a store never creates one.
pub(crate) fn existing_store_file(path: &Path, flag: &str) -> Result<()> {
    if path.is_file() {
        return Ok(());
    }
    let what = if path.exists() {
        "is not a file"
    } else {
        "does not exist"
    };
    Err(Error::usage(
        flag,
        format!(
            "no store at {}: it {what}. Give the path of a store (--store or \
             PERFLAB_STORE); a store is made by the first command that measures \
             (perflab ab, perflab run, perflab sweep)",
            path.display()
        ),
    ))
}

/// Whether this process may write both the store file and its folder (where
/// SQLite keeps its log files): permissions, and a read-only file system.
fn writable(path: &Path) -> bool {
    let may_write = |p: &Path| {
        let Ok(c) = CString::new(p.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: a NUL-terminated path that lives across the call.
        unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
    };
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    may_write(path) && may_write(folder)
}

/// The `file:` URI of `path` with `immutable=1`, its special characters
/// percent-encoded as SQLite's URI rules ask.
fn immutable_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/._-~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_characters_of_a_path_are_percent_encoded_in_its_uri() {
        assert_eq!(
            immutable_uri(Path::new("/a b/x?#%.db")),
            "file:/a%20b/x%3F%23%25.db?immutable=1"
        );
    }

    /// A store written by this perflab, then taken back to schema `version`
    /// as far as the version number and version 8's index go.
    fn store_of_version(dir: &Path, version: i64) -> std::path::PathBuf {
        let path = dir.join(format!("v{version}.db"));
        drop(Store::open(&path).unwrap());
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(&format!(
            "DROP INDEX experiments_by_status; PRAGMA user_version = {version};"
        ))
        .unwrap();
        path
    }

    #[test]
    fn a_store_of_version_7_is_read_without_its_upgrade_and_one_of_version_6_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let seven = store_of_version(dir.path(), 7);
        let store = Store::open_read_only(&Location::File(seven), "--store").unwrap();
        assert!(store.list_experiments(5, None).unwrap().is_empty());
        let six = store_of_version(dir.path(), 6);
        match Store::open_read_only(&Location::File(six), "--store") {
            Err(Error::Input { message, .. }) => {
                assert!(
                    message.contains("schema 6, this one reads 7 to 8"),
                    "{message}"
                )
            }
            other => panic!("expected the store refused, got {:?}", other.map(|_| ())),
        }
    }
}
