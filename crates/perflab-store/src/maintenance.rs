//! Looking after a store file: checking it (`perflab store check`) and
//! copying it while experiments write to it (`perflab store backup`), and
//! what to tell the user of a damaged one.

use std::path::Path;

use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::backend::Backend;
use crate::error::{Error, Result, StoreError};
use crate::reading::existing_store_file;
use crate::{Location, Store};

/// Most problems `store check` lists; SQLite finds one per damaged page.
const MOST_PROBLEMS: usize = 20;

/// What checking a store file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    /// What SQLite's integrity check found wrong (at most
    /// 20 findings); empty for a sound store.
    pub problems: Vec<String>,
    /// Experiments and runs it holds, when they can be counted.
    pub counts: Option<(i64, i64)>,
}

/// Checks the store file at `location` with SQLite's integrity check,
/// without writing to it; it may be damaged, so it is opened on its own
/// rather than as a store.
///
/// # Errors
/// [`Error::Usage`] naming `flag` for a PostgreSQL store (the server checks
/// its own data) or a path without a file.
pub fn check_file(location: &Location, flag: &str) -> Result<CheckReport> {
    let path = match location {
        Location::File(path) => {
            existing_store_file(path, flag)?;
            path
        }
        Location::Postgres(_) => {
            return Err(Error::usage(
                flag,
                "a PostgreSQL store is checked by its server (amcheck, pg_dump); \
                 `perflab store check` checks a store file",
            ));
        }
    };
    let database = |source: rusqlite::Error| Error::Database {
        path: path.clone(),
        source: source.into(),
    };
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(database)?;
    let checked: rusqlite::Result<Vec<String>> = (|| {
        let mut statement = conn.prepare(&format!("PRAGMA integrity_check({MOST_PROBLEMS})"))?;
        statement
            .query_map([], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<String>>>()
    })();
    let problems = match checked {
        Ok(lines) if lines == ["ok"] => Vec::new(),
        Ok(lines) => lines,
        // So damaged that the check itself cannot run: that is the finding.
        Err(e) => vec![e.to_string()],
    };
    let counts = conn
        .query_row(
            "SELECT (SELECT COUNT(*) FROM experiments), (SELECT COUNT(*) FROM runs)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ok();
    Ok(CheckReport { problems, counts })
}

impl Store {
    /// Writes a consistent copy of the store file to `target`, which must
    /// not exist, while other processes may go on writing to the store:
    /// SQLite's `VACUUM INTO` reads one snapshot (write-ahead logging lets
    /// writers go on meanwhile) and writes it compacted.
    ///
    /// # Errors
    /// [`Error::Usage`] naming `flag` when `target` exists, or for a
    /// PostgreSQL store, whose copies `pg_dump` makes.
    pub fn backup_to(&self, target: &Path, flag: &str) -> Result<()> {
        if let Backend::Postgres(_) = self.db {
            return Err(Error::usage(
                flag,
                "a PostgreSQL store is backed up by its server's tools: \
                 pg_dump --format=custom DATABASE > perflab.dump (or copy experiments into \
                 a store file with `perflab pull --from URL`)",
            ));
        }
        if target.exists() {
            return Err(Error::usage(
                flag,
                format!(
                    "{} exists; give the path of a new file (a backup never overwrites)",
                    target.display()
                ),
            ));
        }
        let quoted = target.to_string_lossy().replace('\'', "''");
        self.db
            .batch(&format!("VACUUM INTO '{quoted}'"))
            .map_err(|e| self.err(e))
    }
}

/// What the user can do about a store whose database failed with
/// `source`, or `None` when it is not the store's file that is at fault.
pub fn damaged_store_advice(source: &StoreError, path: &Path) -> Option<String> {
    let StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) = source else {
        return None;
    };
    let path = path.display();
    match e.code {
        ErrorCode::DatabaseCorrupt => Some(format!(
            "The store file is damaged. `perflab store check --store {path}` lists what is \
             wrong; `sqlite3 {path} .recover > recovered.sql` saves what can still be read \
             (then `sqlite3 new.db < recovered.sql` and `perflab pull --from new.db` into a \
             new store). Keep {path} as it is until then."
        )),
        ErrorCode::NotADatabase => Some(format!(
            "{path} is not a SQLite file: give --store the path of a perflab store (or check \
             with `perflab store check --store {path}` whether it is a damaged one)."
        )),
        _ => None,
    }
}
