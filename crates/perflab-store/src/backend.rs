//! The database under a store: an SQLite file (the embedded default) or a
//! PostgreSQL server (a store shared by several machines). Both take the
//! same queries (see `sql`) and answer with the same rows.

use rusqlite::types::ValueRef;

use super::postgres::PostgresConnection;
use super::sql::{Dialect, Row, Value};
use crate::error::StoreError;

/// An open connection to the store's database.
pub(super) enum Backend {
    Sqlite(rusqlite::Connection),
    // Boxed: the client is large, and there is one per store.
    Postgres(Box<PostgresConnection>),
}

impl Backend {
    pub(super) fn dialect(&self) -> Dialect {
        match self {
            Backend::Sqlite(_) => Dialect::Sqlite,
            Backend::Postgres(_) => Dialect::Postgres,
        }
    }

    /// Runs one statement; returns the number of rows it changed.
    pub(super) fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        match self {
            // Cached: perflab inserts one row per run with the same
            // statement, and parsing it every time was a measurable share
            // of perflab's own time between runs.
            Backend::Sqlite(conn) => Ok(conn
                .prepare_cached(sql)?
                .execute(rusqlite::params_from_iter(params))?
                as u64),
            Backend::Postgres(conn) => conn.execute(sql, params),
        }
    }

    /// Runs a query; returns every row of its answer.
    pub(super) fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        match self {
            Backend::Sqlite(conn) => {
                let mut stmt = conn.prepare_cached(sql)?;
                let columns = stmt.column_count();
                let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
                let mut out = Vec::new();
                while let Some(row) = rows.next()? {
                    let values = (0..columns)
                        .map(|i| Ok(sqlite_value(row.get_ref(i)?)))
                        .collect::<rusqlite::Result<_>>()?;
                    out.push(Row(values));
                }
                Ok(out)
            }
            Backend::Postgres(conn) => conn.query(sql, params),
        }
    }

    /// Runs statements without parameters (schema changes, transactions).
    pub(super) fn batch(&self, sql: &str) -> Result<(), StoreError> {
        match self {
            Backend::Sqlite(conn) => Ok(conn.execute_batch(sql)?),
            Backend::Postgres(conn) => conn.batch(sql),
        }
    }
}

fn sqlite_value(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(f) => Value::Real(f),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            Value::Text(String::from_utf8_lossy(t).into_owned())
        }
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(match self {
            Value::Null => rusqlite::types::ToSqlOutput::Borrowed(ValueRef::Null),
            Value::Int(i) => rusqlite::types::ToSqlOutput::Borrowed(ValueRef::Integer(*i)),
            Value::Real(f) => rusqlite::types::ToSqlOutput::Borrowed(ValueRef::Real(*f)),
            Value::Text(s) => rusqlite::types::ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
        })
    }
}
