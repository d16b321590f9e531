//! The PostgreSQL back end: connecting from a `postgres://` URL, with
//! messages that say what to do when it fails, and values and rows
//! converted to and from the store's own (see `sql`).
//!
//! The synchronous `postgres` client is used because the store is
//! synchronous throughout (one statement per finished run, nothing to do
//! meanwhile); it runs its own small runtime underneath.

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::Duration;

use ::postgres::error::SqlState;
use ::postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use ::postgres::{Client, Config, NoTls, Statement};

use super::sql::{Dialect, Row, Value};
use crate::error::{Error, StoreError, describe_postgres as describe};

/// How long connecting may take before perflab says the server is unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A connection, and the statements it has prepared (perflab runs the
/// same few statements many times, one per run).
pub(super) struct PostgresConnection {
    client: RefCell<Client>,
    statements: RefCell<HashMap<String, Statement>>,
}

/// Whether `text` names a PostgreSQL store rather than a SQLite file.
pub fn is_postgres_url(text: &str) -> bool {
    text.starts_with("postgres://") || text.starts_with("postgresql://")
}

/// The URL without its password, to show in messages and reports.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, tail) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    let authority = match authority.rsplit_once('@') {
        Some((user_info, host)) => {
            let user = user_info.split(':').next().unwrap_or_default();
            format!("{user}@{host}")
        }
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let kept: Vec<&str> = query
                .split('&')
                .filter(|p| !p.starts_with("password="))
                .collect();
            if kept.is_empty() {
                path.to_string()
            } else {
                format!("{path}?{}", kept.join("&"))
            }
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
}

impl PostgresConnection {
    /// Connects to the server at `url`; `flag` is the option that gave it.
    /// Every failure is the user's to fix (a wrong URL, a server not
    /// running, a database not created), so each says what to do.
    pub(super) fn connect(url: &str, flag: &str) -> Result<Self, Error> {
        let shown = redact(url);
        let mut config: Config = url.parse().map_err(|e| {
            Error::usage(
                flag,
                format!(
                    "{shown} is not a PostgreSQL URL ({e}); write it as postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
                ),
            )
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let client = config.connect(NoTls).map_err(|e| {
            let what_to_do = match e.code() {
                Some(&SqlState::INVALID_CATALOG_NAME) => {
                    "create it first (`createdb -h HOST -p PORT -U USER DATABASE`, or CREATE DATABASE in psql); perflab creates its tables"
                }
                Some(&SqlState::INVALID_PASSWORD)
                | Some(&SqlState::INVALID_AUTHORIZATION_SPECIFICATION) => {
                    "the server refused this user: check the user and password in the URL"
                }
                _ => {
                    "check that the server runs and listens there (`pg_isready -h HOST -p PORT`), or use a SQLite file as the store"
                }
            };
            Error::usage(
                flag,
                format!("cannot open the store {shown}: {}; {what_to_do}", describe(&e)),
            )
        })?;
        Ok(Self {
            client: RefCell::new(client),
            statements: RefCell::new(HashMap::new()),
        })
    }

    fn prepared(&self, sql: &str) -> Result<Statement, StoreError> {
        if let Some(statement) = self.statements.borrow().get(sql) {
            return Ok(statement.clone());
        }
        let statement = self
            .client
            .borrow_mut()
            .prepare(&Dialect::Postgres.statement(sql))?;
        self.statements
            .borrow_mut()
            .insert(sql.to_string(), statement.clone());
        Ok(statement)
    }

    pub(super) fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        let statement = self.prepared(sql)?;
        Ok(self
            .client
            .borrow_mut()
            .execute(&statement, &as_params(params))?)
    }

    pub(super) fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        let statement = self.prepared(sql)?;
        let rows = self
            .client
            .borrow_mut()
            .query(&statement, &as_params(params))?;
        rows.iter()
            .map(|row| {
                let values = (0..row.len())
                    .map(|i| value_of(row, i))
                    .collect::<Result<_, _>>()?;
                Ok(Row(values))
            })
            .collect()
    }

    pub(super) fn batch(&self, sql: &str) -> Result<(), StoreError> {
        Ok(self.client.borrow_mut().batch_execute(sql)?)
    }
}

fn as_params(params: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

/// A column of a row as a store value, by its PostgreSQL type.
fn value_of(row: &::postgres::Row, i: usize) -> Result<Value, ::postgres::Error> {
    let int = |v: Option<i64>| v.map_or(Value::Null, Value::Int);
    Ok(match *row.columns()[i].type_() {
        Type::INT8 => int(row.try_get(i)?),
        Type::INT4 => int(row.try_get::<_, Option<i32>>(i)?.map(i64::from)),
        Type::INT2 => int(row.try_get::<_, Option<i16>>(i)?.map(i64::from)),
        Type::BOOL => int(row.try_get::<_, Option<bool>>(i)?.map(i64::from)),
        Type::FLOAT8 => row
            .try_get::<_, Option<f64>>(i)?
            .map_or(Value::Null, Value::Real),
        Type::FLOAT4 => row
            .try_get::<_, Option<f32>>(i)?
            .map_or(Value::Null, |f| Value::Real(f.into())),
        // Text, and anything else the client can read as text (its error
        // names the type otherwise).
        _ => row
            .try_get::<_, Option<String>>(i)?
            .map_or(Value::Null, Value::Text),
    })
}

impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        // The server infers each parameter's type from the query; a value
        // is written as that type.
        match (self, ty) {
            (Value::Null, _) => Ok(IsNull::Yes),
            (Value::Int(i), &Type::INT4) => i32::try_from(*i)?.to_sql(ty, out),
            (Value::Int(i), &Type::INT2) => i16::try_from(*i)?.to_sql(ty, out),
            (Value::Int(i), &Type::BOOL) => (*i != 0).to_sql(ty, out),
            (Value::Int(i), &Type::FLOAT8) => (*i as f64).to_sql(ty, out),
            (Value::Int(i), &Type::TEXT | &Type::VARCHAR) => i.to_string().to_sql(ty, out),
            (Value::Int(i), _) => i.to_sql(ty, out),
            (Value::Real(f), &Type::FLOAT4) => (*f as f32).to_sql(ty, out),
            (Value::Real(f), _) => f.to_sql(ty, out),
            (Value::Text(s), _) => s.as_str().to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_never_shows() {
        assert_eq!(
            redact("postgres://ann:secret@db.example:5433/perf"),
            "postgres://ann@db.example:5433/perf"
        );
        assert_eq!(
            redact("postgresql://ann@h/perf?password=secret&sslmode=disable"),
            "postgresql://ann@h/perf?sslmode=disable"
        );
        assert_eq!(redact("postgres://h/perf"), "postgres://h/perf");
    }
}
