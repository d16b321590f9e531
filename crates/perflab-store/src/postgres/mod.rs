//! The PostgreSQL back end: connecting from a `postgres://` URL with
//! libpq's environment, password file and TLS modes (`settings`,
//! `password_file`, `tls`), with messages that say what to do when it
//! fails, and values and rows converted to and from the store's own (see
//! `sql`).
//!
//! The client (`tokio-postgres`) runs on a current-thread runtime of the
//! connection's own, and every call waits for the server's answer under a
//! deadline: the store is synchronous throughout (one statement per
//! finished run, nothing to do meanwhile), and a server that stops
//! answering must end the command with a message rather than hang it.
//! Neither TCP keepalives nor `tcp_user_timeout` would: a stopped server
//! process (SIGSTOP, a frozen virtual machine's guest) still has a kernel
//! that acknowledges every packet, so only a deadline on the answer returns
//! control.

mod password_file;
mod settings;
mod tls;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;

use tokio_postgres::error::SqlState;
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{Client, Statement};

use self::settings::{ConnectionSettings, Environment, PasswordOrigin};
use self::tls::SslMode;
use super::sql::{Dialect, Row, Value};
use crate::error::{Error, StoreError, describe_postgres as describe};

/// How long closing a connection may wait for the server to take its leave.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);

/// A connection, and the statements it has prepared (perflab runs the
/// same few statements many times, one per run).
pub(super) struct PostgresConnection {
    /// None once dropped (closing the connection).
    client: Option<Client>,
    /// The task driving the connection's socket.
    connection: Option<tokio::task::JoinHandle<()>>,
    runtime: tokio::runtime::Runtime,
    statements: RefCell<HashMap<String, Statement>>,
    /// How long to wait for an answer (None: no limit).
    answer_timeout: Option<Duration>,
    /// The server, database and user, for messages.
    server: String,
    /// The first server's host and port and the database, for
    /// [`PostgresConnection::server_key`].
    server_key: String,
    /// The command checking the server, for messages.
    pg_isready: String,
    /// Set when an answer did not come in time: the connection is then in
    /// an unknown state and is not used again.
    given_up: Cell<bool>,
}

/// Whether `text` names a PostgreSQL store rather than a SQLite file.
pub(crate) fn is_postgres_url(text: &str) -> bool {
    text.starts_with("postgres://") || text.starts_with("postgresql://")
}

/// The URL without its password, to show in messages and reports.
pub(crate) fn redact(url: &str) -> String {
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

/// Why connecting failed.
enum ConnectFailure {
    /// No answer within the connect timeout.
    TimedOut(Duration),
    /// The client's or the server's error.
    Failed(tokio_postgres::Error),
}

impl PostgresConnection {
    /// Connects to the server at `url` (completed by libpq's environment
    /// variables and password file); `flag` is the option that gave it.
    /// Returns the connection and the warnings to show (a password file
    /// ignored). Every failure is the user's to fix (a wrong URL, a server
    /// not running, a database not created, a password or certificate
    /// missing), so each names the server and says what to do.
    pub(super) fn connect(url: &str, flag: &str) -> Result<(Self, Vec<String>), Error> {
        let shown = redact(url);
        let environment = Environment::of_process();
        let settings = ConnectionSettings::resolve(url, &environment).map_err(|message| {
            Error::usage(flag, format!("cannot open the store {shown}: {message}"))
        })?;
        let cannot = |message: String| {
            Error::usage(
                flag,
                format!(
                    "cannot open the store {shown} ({}): {message}",
                    settings.describe()
                ),
            )
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| cannot(format!("cannot start the client: {e}")))?;
        let connector = settings.tls.connector().map_err(&cannot)?;
        // PostgreSQL offers no TLS on Unix sockets; libpq ignores sslmode there.
        let mode = if settings.only_sockets() {
            tokio_postgres::config::SslMode::Disable
        } else {
            settings.tls.client_mode()
        };
        let attempt = |mode| {
            let mut config = settings.config.clone();
            config.ssl_mode(mode);
            if let Some(timeout) = settings.connect_timeout {
                config.connect_timeout(timeout);
            }
            // The timeout covers the whole of connecting to each server (TCP,
            // TLS, authentication), as libpq's does: a stopped server
            // accepts the TCP connection and then says nothing.
            let servers = settings.servers.len().max(1) as u32;
            let connecting = config.connect(connector.clone());
            runtime.block_on(async {
                match settings.connect_timeout {
                    Some(timeout) => tokio::time::timeout(timeout * servers, connecting)
                        .await
                        .map_err(|_| ConnectFailure::TimedOut(timeout))?
                        .map_err(ConnectFailure::Failed),
                    None => connecting.await.map_err(ConnectFailure::Failed),
                }
            })
        };
        let mut connected = attempt(mode);
        // libpq's prefer: TLS first, then without it when TLS fails.
        if settings.tls.mode == SslMode::Prefer
            && matches!(&connected, Err(ConnectFailure::Failed(e)) if is_tls_failure(e))
        {
            connected = attempt(tokio_postgres::config::SslMode::Disable);
        }
        let (client, connection) = connected
            .map_err(|failure| cannot(connect_failure(&settings, &environment, failure)))?;
        let connection = runtime.spawn(async move {
            // Its errors reach the client's calls ("connection closed").
            let _ = connection.await;
        });
        let notices = settings.notices.clone();
        Ok((
            Self {
                client: Some(client),
                connection: Some(connection),
                runtime,
                statements: RefCell::new(HashMap::new()),
                answer_timeout: settings.answer_timeout,
                server: settings.describe(),
                server_key: server_key(&settings),
                pg_isready: settings.pg_isready(),
                given_up: Cell::new(false),
            },
            notices,
        ))
    }

    /// A name of the server and database connected to, made of the first
    /// server's host and port and the database (`127.0.0.1-5432-perflab`),
    /// usable as a file name: the same for every URL that reaches the same
    /// database, whatever its user, password or parameters.
    pub(super) fn server_key(&self) -> &str {
        &self.server_key
    }

    fn client(&self) -> &Client {
        self.client
            .as_ref()
            .expect("the client lives as long as the connection")
    }

    /// The server's answer to `work`, waited for at most the answer timeout.
    fn answer<T>(
        &self,
        work: impl Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> Result<T, StoreError> {
        if self.given_up.get() {
            return Err(self.unanswered());
        }
        let answer = match self.answer_timeout {
            None => self.runtime.block_on(work),
            // The timer is made inside the runtime, whose clock it needs.
            Some(limit) => match self
                .runtime
                .block_on(async { tokio::time::timeout(limit, work).await })
            {
                Ok(answer) => answer,
                Err(_) => {
                    self.given_up.set(true);
                    return Err(self.unanswered());
                }
            },
        };
        Ok(answer?)
    }

    fn unanswered(&self) -> StoreError {
        StoreError::Unanswered {
            server: self.server.clone(),
            waited: self.answer_timeout.unwrap_or_default(),
            check: self.pg_isready.clone(),
        }
    }

    fn prepared(&self, sql: &str) -> Result<Statement, StoreError> {
        if let Some(statement) = self.statements.borrow().get(sql) {
            return Ok(statement.clone());
        }
        let text = Dialect::Postgres.statement(sql);
        let statement = self.answer(self.client().prepare(&text))?;
        self.statements
            .borrow_mut()
            .insert(sql.to_string(), statement.clone());
        Ok(statement)
    }

    pub(super) fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        let statement = self.prepared(sql)?;
        self.answer(self.client().execute(&statement, &as_params(params)))
    }

    pub(super) fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        let statement = self.prepared(sql)?;
        let rows = self.answer(self.client().query(&statement, &as_params(params)))?;
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
        self.answer(self.client().batch_execute(sql))
    }
}

impl Drop for PostgresConnection {
    /// Takes leave of the server (the client's drop sends it the
    /// connection's end, which the connection's task then delivers), unless
    /// it stopped answering.
    fn drop(&mut self) {
        drop(self.client.take());
        if let Some(connection) = self.connection.take()
            && !self.given_up.get()
        {
            let _ = self
                .runtime
                .block_on(async { tokio::time::timeout(CLOSE_TIMEOUT, connection).await });
        }
    }
}

/// See [`PostgresConnection::server_key`]: characters other than letters,
/// digits, `.`, `-` and `_` become `_` (a socket's folder, an IPv6 address).
fn server_key(settings: &ConnectionSettings) -> String {
    let (host, port) = settings
        .servers
        .first()
        .map_or(("", 0), |s| (s.host.as_str(), s.port));
    format!("{host}-{port}-{}", settings.database)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || ".-_".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Whether connecting failed in the TLS handshake (libpq's prefer then
/// connects without TLS).
fn is_tls_failure(e: &tokio_postgres::Error) -> bool {
    e.to_string().starts_with("error performing TLS handshake")
}

/// What went wrong connecting, and what to do about it.
fn connect_failure(
    settings: &ConnectionSettings,
    environment: &Environment,
    failure: ConnectFailure,
) -> String {
    let check = format!(
        "check that the server runs and listens there (`{}`), or use a SQLite file as the store",
        settings.pg_isready()
    );
    let e = match failure {
        ConnectFailure::TimedOut(timeout) => {
            let origin = settings.connect_timeout_origin;
            return format!(
                "the server did not answer within {} (connect_timeout {origin}); check that it \
                 runs and answers (`{}`), or give it longer with connect_timeout=SECONDS in the \
                 URL or PGCONNECT_TIMEOUT",
                humantime::format_duration(timeout),
                settings.pg_isready()
            );
        }
        ConnectFailure::Failed(e) => e,
    };
    let what = describe(&e);
    let mode = settings.tls.mode;
    let mode_origin = settings.tls_origin;
    let what_to_do = match e.code() {
        Some(&SqlState::INVALID_CATALOG_NAME) => {
            let server = settings.servers.first();
            format!(
                "create it first (`createdb -h {} -p {} -U {} {}`, or CREATE DATABASE in psql); \
                 perflab creates its tables",
                server.map_or("HOST", |s| s.host.as_str()),
                server.map_or(5432, |s| s.port),
                settings.user,
                settings.database
            )
        }
        Some(&SqlState::INVALID_PASSWORD) => match &settings.password {
            PasswordOrigin::Url => "correct the password in the URL, and better keep it out of \
                 the URL, where every user's `ps` shows it: in PGPASSWORD or ~/.pgpass"
                .to_string(),
            PasswordOrigin::Environment => "correct the password in PGPASSWORD".to_string(),
            PasswordOrigin::File { path, line } => format!(
                "correct the password on line {line} of {} (the first line matching this \
                 connection)",
                path.display()
            ),
            PasswordOrigin::Nowhere { .. } => "check the user".to_string(),
        },
        Some(&SqlState::INVALID_AUTHORIZATION_SPECIFICATION) if what.contains("no encryption") => {
            format!(
                "the server accepts this connection only encrypted (a hostssl line of its \
                 pg_hba.conf), and sslmode={mode} ({mode_origin}) does not encrypt: use \
                 sslmode=require, or verify-full with the server's root certificate"
            )
        }
        Some(&SqlState::INVALID_AUTHORIZATION_SPECIFICATION) => format!(
            "no line of the server's pg_hba.conf lets user {} connect to database {} from \
             here: check the user and database, or ask the server's administrator",
            settings.user, settings.database
        ),
        Some(_) => check,
        None if what.contains("password missing") => missing_password(settings, environment),
        None if what.contains("server does not support TLS") => format!(
            "the server offers no TLS, and sslmode={mode} ({mode_origin}) requires it: turn ssl \
             on in the server's postgresql.conf, or use sslmode=prefer"
        ),
        None if is_tls_failure(&e) && settings.tls.checks_host() && what.contains("mismatch") => {
            format!(
                "the server's certificate does not name the host connected to, which \
                 sslmode=verify-full ({mode_origin}) checks: connect by a name the certificate \
                 holds, or use sslmode=verify-ca to check only who signed it"
            )
        }
        None if is_tls_failure(&e) => match &settings.tls.roots {
            Some(roots) => format!(
                "the server's certificate is not signed by a root certificate of {roots}, \
                 which sslmode={mode} ({mode_origin}) checks: give the certificate of the \
                 authority that signed the server's certificate as sslrootcert=FILE in the URL \
                 (or PGSSLROOTCERT), or use sslmode=require without sslrootcert to encrypt \
                 without checking the certificate"
            ),
            None => format!(
                "check the server's ssl settings, or use sslmode=disable ({mode_origin} \
                 sslmode={mode}) on a network you trust"
            ),
        },
        None => check,
    };
    format!("{what}; {what_to_do}")
}

/// What to do when the server asks for a password and none was found.
fn missing_password(settings: &ConnectionSettings, environment: &Environment) -> String {
    let line = settings.password_file_line(&environment.default_socket_folder);
    let (file, ignored) = match &settings.password {
        PasswordOrigin::Nowhere { file, ignored } => (file.clone(), ignored.clone()),
        _ => (None, None),
    };
    let file = file.map_or("~/.pgpass".to_string(), |f| f.display().to_string());
    let mut advice = format!(
        "the server asks for a password for user {}, and none was found: set PGPASSWORD, or add \
         the line `{line}` to {file} (chmod 0600)",
        settings.user
    );
    if let Some(why) = ignored {
        advice.push_str(&format!(" ({why})"));
    }
    advice
}

fn as_params(params: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

/// A column of a row as a store value, by its PostgreSQL type.
fn value_of(row: &tokio_postgres::Row, i: usize) -> Result<Value, tokio_postgres::Error> {
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
