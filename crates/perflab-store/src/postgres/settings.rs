//! The settings of a connection to the shared store, taken as libpq takes
//! them, so that a URL, environment and password file that work for `psql`
//! work for perflab: what the URL says first, then libpq's environment
//! variables, then libpq's defaults.
//!
//! | setting | URL | environment | default |
//! | --- | --- | --- | --- |
//! | host | `postgres://HOST/…`, `?host=` | `PGHOST` | the Unix socket in `/var/run/postgresql` (`/tmp` where that folder does not exist) |
//! | port | `postgres://HOST:PORT/…`, `?port=` | `PGPORT` | 5432 |
//! | user | `postgres://USER@…`, `?user=` | `PGUSER` | the user running perflab |
//! | database | `postgres://…/DATABASE`, `?dbname=` | `PGDATABASE` | the user's name |
//! | password | `postgres://USER:PASSWORD@…` | `PGPASSWORD` | the password file (`?passfile=`, `PGPASSFILE`, `~/.pgpass`) |
//! | TLS | `?sslmode=`, `?sslrootcert=` | `PGSSLMODE`, `PGSSLROOTCERT` | `prefer`, `~/.postgresql/root.crt` where it exists |
//! | connecting | `?connect_timeout=` (seconds) | `PGCONNECT_TIMEOUT` | 10 s (libpq waits for ever) |
//! | an answer | | `PERFLAB_STORE_TIMEOUT` | 60 s |
//!
//! The other parameters of libpq's URLs that the client knows
//! (`application_name`, `options`, `keepalives…`, `tcp_user_timeout`,
//! `target_session_attrs`, `hostaddr`, …) are passed on as they are.

use std::collections::HashMap;
use std::ffi::{CStr, OsStr};
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use percent_encoding::percent_decode_str;
use tokio_postgres::Config;

use super::password_file::{self, PasswordKey, PasswordLookup};
use super::tls::{RootCertificates, SslMode, TlsSettings};

/// How long connecting may take unless `connect_timeout` or
/// `PGCONNECT_TIMEOUT` says otherwise (libpq waits for ever; a perflab
/// waiting silently for a server that never answers helps nobody).
pub(crate) const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long perflab waits for the server's answer to one statement unless
/// `PERFLAB_STORE_TIMEOUT` says otherwise: far longer than any statement
/// perflab sends takes on a working server, short enough that a stopped
/// one ends the command rather than hanging it.
pub(crate) const DEFAULT_ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// The variable giving the answer timeout.
pub(crate) const ANSWER_TIMEOUT_VARIABLE: &str = "PERFLAB_STORE_TIMEOUT";

/// The environment variables read, libpq's and perflab's own.
const VARIABLES: [&str; 10] = [
    "PGHOST",
    "PGPORT",
    "PGUSER",
    "PGDATABASE",
    "PGPASSWORD",
    "PGPASSFILE",
    "PGSSLMODE",
    "PGSSLROOTCERT",
    "PGCONNECT_TIMEOUT",
    ANSWER_TIMEOUT_VARIABLE,
];

/// The URL parameters perflab applies itself; the client is given the rest.
const OWN_PARAMETERS: [&str; 9] = [
    "host",
    "port",
    "user",
    "password",
    "dbname",
    "sslmode",
    "sslrootcert",
    "passfile",
    "connect_timeout",
];

/// What a connection's settings are taken from besides the URL: the
/// environment variables, the home folder and the user running perflab.
#[derive(Debug, Clone, Default)]
pub(crate) struct Environment {
    /// The variables of [`VARIABLES`] that are set and not empty (libpq
    /// takes an empty one as unset).
    pub variables: HashMap<String, String>,
    /// The home folder: `$HOME`, else the password database's.
    pub home: Option<PathBuf>,
    /// The name of the user running perflab.
    pub os_user: Option<String>,
    /// The folder of the server's Unix socket when no host is given.
    pub default_socket_folder: PathBuf,
}

impl Environment {
    /// This process's.
    pub(crate) fn of_process() -> Self {
        let variables = VARIABLES
            .iter()
            .filter_map(|name| {
                let value = std::env::var(name).ok().filter(|v| !v.is_empty())?;
                Some((name.to_string(), value))
            })
            .collect();
        let account = user_account();
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(|| account.as_ref().map(|(_, home)| home.clone()));
        let default_socket_folder = if Path::new("/var/run/postgresql").is_dir() {
            PathBuf::from("/var/run/postgresql")
        } else {
            PathBuf::from("/tmp")
        };
        Self {
            variables,
            home,
            os_user: account.map(|(name, _)| name),
            default_socket_folder,
        }
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.variables.get(name).map(String::as_str)
    }
}

/// The name and home folder of the user running perflab, from the password
/// database.
fn user_account() -> Option<(String, PathBuf)> {
    let mut buffer = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: getpwuid_r writes into `entry` and `buffer`, both ours and
    // alive for the call; `found` is null or points at `entry`.
    unsafe {
        let mut entry: libc::passwd = std::mem::zeroed();
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        let status = libc::getpwuid_r(
            libc::geteuid(),
            &mut entry,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut found,
        );
        if status != 0 || found.is_null() || entry.pw_name.is_null() || entry.pw_dir.is_null() {
            return None;
        }
        let name = CStr::from_ptr(entry.pw_name).to_str().ok()?.to_string();
        let home = PathBuf::from(OsStr::from_bytes(CStr::from_ptr(entry.pw_dir).to_bytes()));
        Some((name, home))
    }
}

/// Where a setting came from, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The URL.
    Url,
    /// An environment variable.
    Variable(&'static str),
    /// perflab's or libpq's default.
    Default,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Url => f.write_str("in the URL"),
            Origin::Variable(name) => write!(f, "from {name}"),
            Origin::Default => f.write_str("by default"),
        }
    }
}

/// Where the password came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PasswordOrigin {
    /// The URL.
    Url,
    /// `PGPASSWORD`.
    Environment,
    /// A line of the password file.
    File {
        /// The file.
        path: PathBuf,
        /// The line.
        line: usize,
    },
    /// Nowhere: none was given, the password file (if any) had no line
    /// for this connection or was ignored (why, then).
    Nowhere {
        /// The password file looked in.
        file: Option<PathBuf>,
        /// Why it was ignored, if it was.
        ignored: Option<String>,
    },
}

/// One server to try: a host name or a Unix socket's folder, and a port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Server {
    /// The host name, or the folder of the Unix socket (starting with `/`).
    pub host: String,
    /// The port.
    pub port: u16,
}

impl Server {
    /// Whether it is a Unix socket.
    pub(crate) fn is_socket(&self) -> bool {
        self.host.starts_with('/')
    }
}

impl fmt::Display for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_socket() {
            write!(f, "socket {}/.s.PGSQL.{}", self.host, self.port)
        } else if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// Everything a connection needs, and where each came from.
pub(crate) struct ConnectionSettings {
    /// The client's configuration: servers, user, database, password and
    /// the parameters passed on.
    pub config: Config,
    /// The servers, in the order tried.
    pub servers: Vec<Server>,
    /// The user.
    pub user: String,
    /// The database.
    pub database: String,
    /// Where the password came from.
    pub password: PasswordOrigin,
    /// TLS: the mode and the roots.
    pub tls: TlsSettings,
    /// Where the mode came from.
    pub tls_origin: Origin,
    /// How long connecting to one server may take (None: no limit).
    pub connect_timeout: Option<Duration>,
    /// Where it came from.
    pub connect_timeout_origin: Origin,
    /// How long to wait for the answer to a statement (None: no limit).
    pub answer_timeout: Option<Duration>,
    /// Warnings to show (a password file ignored).
    pub notices: Vec<String>,
}

impl ConnectionSettings {
    /// The settings of `url` in `environment`; an error says what is wrong
    /// and how to fix it.
    pub(crate) fn resolve(url: &str, environment: &Environment) -> Result<Self, String> {
        let parts = UrlParts::parse(url)?;
        let param = |name: &str| {
            parts
                .params
                .iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let passed_on = parts
            .params
            .iter()
            .filter(|(k, _)| !OWN_PARAMETERS.contains(&k.as_str()))
            .map(|(k, v)| format!("{k}='{}'", v.replace('\\', "\\\\").replace('\'', "\\'")))
            .collect::<Vec<_>>()
            .join(" ");
        let mut config: Config = passed_on
            .parse()
            .map_err(|e| super::describe(&e).replace("invalid connection string: ", ""))?;
        if config.get_application_name().is_none() {
            config.application_name("perflab");
        }

        let user = parts
            .user
            .clone()
            .or_else(|| environment.var("PGUSER").map(str::to_string))
            .or_else(|| environment.os_user.clone())
            .ok_or("no user: give one as postgres://USER@HOST/DATABASE or in PGUSER")?;
        let database = parts
            .dbname
            .clone()
            .or_else(|| environment.var("PGDATABASE").map(str::to_string))
            .unwrap_or_else(|| user.clone());
        let servers = servers(&parts, &config, environment)?;
        config.user(&user).dbname(&database);
        for server in &servers {
            config.host(&server.host).port(server.port);
        }

        let mut notices = Vec::new();
        let password = match (&parts.password, environment.var("PGPASSWORD")) {
            (Some(password), _) => {
                config.password(password.as_str());
                PasswordOrigin::Url
            }
            (None, Some(password)) => {
                config.password(password);
                PasswordOrigin::Environment
            }
            (None, None) => {
                let file = password_file::path_of(
                    param("passfile"),
                    environment.var("PGPASSFILE"),
                    environment.home.as_deref(),
                );
                let (origin, found) =
                    from_password_file(file, &servers, &database, &user, environment);
                if let Some(password) = found {
                    config.password(password);
                }
                if let PasswordOrigin::Nowhere {
                    ignored: Some(why), ..
                } = &origin
                {
                    notices.push(why.clone());
                }
                origin
            }
        };

        let (tls, tls_origin) = tls_settings(param("sslmode"), param("sslrootcert"), environment)?;
        let (connect_timeout, connect_timeout_origin) =
            connect_timeout(param("connect_timeout"), environment)?;
        let answer_timeout = answer_timeout(environment)?;
        Ok(Self {
            config,
            servers,
            user,
            database,
            password,
            tls,
            tls_origin,
            connect_timeout,
            connect_timeout_origin,
            answer_timeout,
            notices,
        })
    }

    /// The servers, database and user, as a message names them.
    pub(crate) fn describe(&self) -> String {
        let servers: Vec<String> = self.servers.iter().map(Server::to_string).collect();
        format!(
            "server {}, database {}, user {}",
            servers.join(" or "),
            self.database,
            self.user
        )
    }

    /// The `pg_isready` command that checks the first server.
    pub(crate) fn pg_isready(&self) -> String {
        match self.servers.first() {
            Some(s) => format!("pg_isready -h {} -p {}", s.host, s.port),
            None => "pg_isready -h HOST -p PORT".to_string(),
        }
    }

    /// Whether every server is a Unix socket (never encrypted).
    pub(crate) fn only_sockets(&self) -> bool {
        !self.servers.is_empty() && self.servers.iter().all(Server::is_socket)
    }

    /// The line of a password file that would give the first server's
    /// password.
    pub(crate) fn password_file_line(&self, default_socket_folder: &Path) -> String {
        let escape = |s: &str| s.replace('\\', "\\\\").replace(':', "\\:");
        let (host, port) = match self.servers.first() {
            Some(s) => (
                escape(&password_host(&s.host, default_socket_folder)),
                s.port.to_string(),
            ),
            None => ("*".to_string(), "*".to_string()),
        };
        format!(
            "{host}:{port}:{}:{}:PASSWORD",
            escape(&self.database),
            escape(&self.user)
        )
    }
}

/// The servers: the URL's hosts with their ports, else `PGHOST`, else the
/// default socket; ports from the URL, else `PGPORT`, else 5432.
fn servers(
    parts: &UrlParts,
    config: &Config,
    environment: &Environment,
) -> Result<Vec<Server>, String> {
    let port_number = |text: &str, origin: Origin| -> Result<u16, String> {
        if text.is_empty() {
            return Ok(5432);
        }
        text.parse::<u16>()
            .ok()
            .filter(|p| *p > 0)
            .ok_or_else(|| format!("port '{text}' ({origin}) is not a port number (1 to 65535)"))
    };
    let hosts: Vec<String> = if !parts.hosts.is_empty() {
        parts.hosts.clone()
    } else if !config.get_hostaddrs().is_empty() {
        // hostaddr alone names the servers; the client connects to them.
        return Ok(Vec::new());
    } else if let Some(list) = environment.var("PGHOST") {
        list.split(',').map(str::to_string).collect()
    } else {
        vec![String::new()]
    };
    let hosts: Vec<String> = hosts
        .into_iter()
        .map(|h| {
            if h.is_empty() {
                environment.default_socket_folder.display().to_string()
            } else {
                h
            }
        })
        .collect();
    let (ports, origin) = if parts.ports.iter().any(Option::is_some) {
        let ports = parts
            .ports
            .iter()
            .map(|p| p.clone().unwrap_or_default())
            .collect();
        (ports, Origin::Url)
    } else if let Some(list) = environment.var("PGPORT") {
        (
            list.split(',').map(str::to_string).collect(),
            Origin::Variable("PGPORT"),
        )
    } else {
        (vec![String::new()], Origin::Default)
    };
    if ports.len() != 1 && ports.len() != hosts.len() {
        return Err(format!(
            "{} hosts and {} ports ({origin}): give one port for all, or one for each host",
            hosts.len(),
            ports.len()
        ));
    }
    hosts
        .into_iter()
        .enumerate()
        .map(|(i, host)| {
            let port = ports.get(i).unwrap_or(&ports[0]);
            Ok(Server {
                host,
                port: port_number(port, origin)?,
            })
        })
        .collect()
}

/// The host a password file's line is matched against: `localhost` for the
/// default Unix socket, as libpq matches it.
fn password_host(host: &str, default_socket_folder: &Path) -> String {
    let folder = host.trim_end_matches('/');
    if folder
        == default_socket_folder
            .to_string_lossy()
            .trim_end_matches('/')
        || ["/var/run/postgresql", "/run/postgresql", "/tmp"].contains(&folder)
    {
        "localhost".to_string()
    } else {
        host.to_string()
    }
}

/// The password the file gives the first server that has a line, and
/// where it came from.
fn from_password_file(
    file: Option<PathBuf>,
    servers: &[Server],
    database: &str,
    user: &str,
    environment: &Environment,
) -> (PasswordOrigin, Option<String>) {
    let Some(path) = file else {
        return (
            PasswordOrigin::Nowhere {
                file: None,
                ignored: None,
            },
            None,
        );
    };
    for server in servers {
        let host = password_host(&server.host, &environment.default_socket_folder);
        let port = server.port.to_string();
        let key = PasswordKey {
            hostname: &host,
            port: &port,
            database,
            username: user,
        };
        match password_file::look_up(&path, &key) {
            PasswordLookup::Found { password, line } => {
                return (PasswordOrigin::File { path, line }, Some(password));
            }
            PasswordLookup::NoMatch => {}
            PasswordLookup::Missing => break,
            PasswordLookup::Ignored(why) => {
                return (
                    PasswordOrigin::Nowhere {
                        file: Some(path),
                        ignored: Some(why),
                    },
                    None,
                );
            }
        }
    }
    (
        PasswordOrigin::Nowhere {
            file: Some(path),
            ignored: None,
        },
        None,
    )
}

/// The TLS mode and roots: the URL's `sslmode` and `sslrootcert`, else
/// `PGSSLMODE` and `PGSSLROOTCERT`, else `prefer` and
/// `~/.postgresql/root.crt` where it exists.
fn tls_settings(
    mode_in_url: Option<&str>,
    roots_in_url: Option<&str>,
    environment: &Environment,
) -> Result<(TlsSettings, Origin), String> {
    let given_roots = roots_in_url
        .map(|r| (r.to_string(), Origin::Url))
        .or_else(|| {
            environment
                .var("PGSSLROOTCERT")
                .map(|r| (r.to_string(), Origin::Variable("PGSSLROOTCERT")))
        });
    let system = given_roots.as_ref().is_some_and(|(r, _)| r == "system");
    let (mode, origin) = match mode_in_url.map(|m| (m, Origin::Url)).or_else(|| {
        environment
            .var("PGSSLMODE")
            .map(|m| (m, Origin::Variable("PGSSLMODE")))
    }) {
        Some((word, origin)) => {
            let mode = SslMode::parse(word).ok_or_else(|| {
                let words: Vec<&str> = SslMode::ALL.iter().map(|m| m.as_str()).collect();
                format!(
                    "sslmode '{word}' ({origin}) is not one of {}",
                    words.join(", ")
                )
            })?;
            (mode, origin)
        }
        // libpq: the system's roots are for checking host names.
        None if system => (SslMode::VerifyFull, Origin::Default),
        None => (SslMode::Prefer, Origin::Default),
    };
    if system && mode != SslMode::VerifyFull {
        return Err(format!(
            "sslmode={mode} ({origin}) may not be used with sslrootcert=system, whose roots \
             vouch for host names: use sslmode=verify-full"
        ));
    }
    if mode == SslMode::Disable {
        return Ok((TlsSettings { mode, roots: None }, origin));
    }
    let roots = match given_roots {
        Some((_, _)) if system => Some(RootCertificates::System),
        Some((path, roots_origin)) => {
            let path = PathBuf::from(path);
            if !path.is_file() {
                return Err(format!(
                    "the root certificate file {} (sslrootcert {roots_origin}) does not exist: \
                     give the file of the certificate authority that signed the server's \
                     certificate, or leave sslrootcert out with sslmode=require to encrypt \
                     without checking the certificate",
                    path.display()
                ));
            }
            Some(RootCertificates::File(path))
        }
        None => environment
            .home
            .as_ref()
            .map(|home| home.join(".postgresql/root.crt"))
            .filter(|path| path.is_file())
            .map(RootCertificates::File),
    };
    if roots.is_none() && matches!(mode, SslMode::VerifyCa | SslMode::VerifyFull) {
        return Err(format!(
            "sslmode={mode} ({origin}) checks the server's certificate, and there is no root \
             certificate to check it against: give the certificate authority's file as \
             sslrootcert=FILE in the URL (or PGSSLROOTCERT), put it at ~/.postgresql/root.crt, \
             use the system's trusted roots with sslrootcert=system, or use sslmode=require to \
             encrypt without checking the certificate"
        ));
    }
    Ok((TlsSettings { mode, roots }, origin))
}

/// How long connecting may take: the URL's `connect_timeout`, else
/// `PGCONNECT_TIMEOUT`, in seconds as libpq reads them (0 or less: no
/// limit; at least 2 s), else [`DEFAULT_CONNECT_TIMEOUT`].
fn connect_timeout(
    in_url: Option<&str>,
    environment: &Environment,
) -> Result<(Option<Duration>, Origin), String> {
    let Some((text, origin)) = in_url.map(|t| (t, Origin::Url)).or_else(|| {
        environment
            .var("PGCONNECT_TIMEOUT")
            .map(|t| (t, Origin::Variable("PGCONNECT_TIMEOUT")))
    }) else {
        return Ok((Some(DEFAULT_CONNECT_TIMEOUT), Origin::Default));
    };
    let seconds: i64 = text.trim().parse().map_err(|_| {
        format!(
            "connect_timeout '{text}' ({origin}) is not a whole number of seconds: write it as \
             connect_timeout=10, or 0 for no limit"
        )
    })?;
    let timeout = (seconds > 0).then(|| Duration::from_secs(seconds.max(2) as u64));
    Ok((timeout, origin))
}

/// How long to wait for an answer: `PERFLAB_STORE_TIMEOUT` (a duration,
/// `0` for no limit), else [`DEFAULT_ANSWER_TIMEOUT`].
fn answer_timeout(environment: &Environment) -> Result<Option<Duration>, String> {
    let Some(text) = environment.var(ANSWER_TIMEOUT_VARIABLE) else {
        return Ok(Some(DEFAULT_ANSWER_TIMEOUT));
    };
    if text.trim() == "0" {
        return Ok(None);
    }
    let timeout = humantime::parse_duration(text.trim()).map_err(|e| {
        format!(
            "{ANSWER_TIMEOUT_VARIABLE}='{text}' is not a duration ({e}): write it as 30s, 5min, \
             or 0 for no limit"
        )
    })?;
    Ok((!timeout.is_zero()).then_some(timeout))
}

/// The parts of a `postgres://` URL, decoded, as libpq reads them:
/// `postgres://[USER[:PASSWORD]@][HOST[:PORT][,HOST[:PORT]…]][/DATABASE][?NAME=VALUE&…]`.
#[derive(Debug, Default, PartialEq, Eq)]
struct UrlParts {
    user: Option<String>,
    password: Option<String>,
    /// Host names or socket folders, empty for the default.
    hosts: Vec<String>,
    /// The port after each host, if written.
    ports: Vec<Option<String>>,
    dbname: Option<String>,
    /// The parameters, in order.
    params: Vec<(String, String)>,
}

impl UrlParts {
    fn parse(url: &str) -> Result<Self, String> {
        let usage = "write it as postgres://USER@HOST[:PORT]/DATABASE[?sslmode=verify-full&…]";
        let rest = url
            .strip_prefix("postgres://")
            .or_else(|| url.strip_prefix("postgresql://"))
            .ok_or_else(|| format!("not a postgres:// URL; {usage}"))?;
        let decode = |s: &str| -> Result<String, String> {
            percent_decode_str(s)
                .decode_utf8()
                .map(|d| d.into_owned())
                .map_err(|_| format!("'{s}' is not UTF-8 once decoded; {usage}"))
        };
        let (rest, query) = match rest.split_once('?') {
            Some((rest, query)) => (rest, Some(query)),
            None => (rest, None),
        };
        let (authority, path) = match rest.split_once('/') {
            Some((authority, path)) => (authority, Some(path)),
            None => (rest, None),
        };
        let mut parts = UrlParts::default();
        let hosts = match authority.rsplit_once('@') {
            Some((credentials, hosts)) => {
                let (user, password) = match credentials.split_once(':') {
                    Some((user, password)) => (user, Some(password)),
                    None => (credentials, None),
                };
                if !user.is_empty() {
                    parts.user = Some(decode(user)?);
                }
                parts.password = password.map(decode).transpose()?;
                hosts
            }
            None => authority,
        };
        if !hosts.is_empty() {
            for chunk in hosts.split(',') {
                let (host, port) = if let Some(bracketed) = chunk.strip_prefix('[') {
                    let (host, after) = bracketed
                        .split_once(']')
                        .ok_or_else(|| format!("host '{chunk}' lacks its closing ']'; {usage}"))?;
                    let port = match after {
                        "" => None,
                        _ => Some(after.strip_prefix(':').ok_or_else(|| {
                            format!("'{after}' after host [{host}] is not :PORT; {usage}")
                        })?),
                    };
                    (host, port)
                } else {
                    match chunk.split_once(':') {
                        Some((host, port)) => (host, Some(port)),
                        None => (chunk, None),
                    }
                };
                parts.hosts.push(decode(host)?);
                parts.ports.push(port.map(decode).transpose()?);
            }
        }
        if let Some(path) = path.filter(|p| !p.is_empty()) {
            parts.dbname = Some(decode(path)?);
        }
        for pair in query.into_iter().flat_map(|q| q.split('&')) {
            if pair.is_empty() {
                continue;
            }
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("parameter '{pair}' has no value; {usage}"))?;
            let (key, value) = (decode(key)?, decode(value)?);
            match key.as_str() {
                "host" => {
                    parts.hosts = value.split(',').map(str::to_string).collect();
                    parts.ports.resize(parts.hosts.len(), None);
                }
                "port" => {
                    let ports: Vec<Option<String>> =
                        value.split(',').map(|p| Some(p.to_string())).collect();
                    parts.ports = ports;
                }
                "user" => parts.user = Some(value.clone()),
                "password" => parts.password = Some(value.clone()),
                "dbname" => parts.dbname = Some(value.clone()),
                _ => {}
            }
            parts.params.push((key, value));
        }
        if parts.hosts.iter().all(String::is_empty) {
            parts.hosts.clear();
        }
        Ok(parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn environment(variables: &[(&str, &str)]) -> Environment {
        Environment {
            variables: variables
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            home: None,
            os_user: Some("osuser".into()),
            default_socket_folder: PathBuf::from("/var/run/postgresql"),
        }
    }

    fn resolve(url: &str, env: &Environment) -> ConnectionSettings {
        ConnectionSettings::resolve(url, env).unwrap_or_else(|e| panic!("{url}: {e}"))
    }

    #[test]
    fn the_url_wins_over_the_environment_which_wins_over_the_defaults() {
        let env = environment(&[
            ("PGHOST", "env-host"),
            ("PGPORT", "6000"),
            ("PGUSER", "env-user"),
            ("PGDATABASE", "env-db"),
            ("PGPASSWORD", "env-secret"),
        ]);
        let s = resolve("postgres://ann:url-secret@perf-db:5433/perflab", &env);
        assert_eq!(
            s.servers,
            [Server {
                host: "perf-db".into(),
                port: 5433
            }]
        );
        assert_eq!((s.user.as_str(), s.database.as_str()), ("ann", "perflab"));
        assert_eq!(s.config.get_password(), Some(&b"url-secret"[..]));
        assert_eq!(s.password, PasswordOrigin::Url);

        let s = resolve("postgres://", &env);
        assert_eq!(
            s.servers,
            [Server {
                host: "env-host".into(),
                port: 6000
            }]
        );
        assert_eq!(
            (s.user.as_str(), s.database.as_str()),
            ("env-user", "env-db")
        );
        assert_eq!(s.config.get_password(), Some(&b"env-secret"[..]));
        assert_eq!(s.password, PasswordOrigin::Environment);

        // A host without a port takes PGPORT, as in libpq.
        let s = resolve("postgres://ann@perf-db/perflab", &env);
        assert_eq!(s.servers[0].port, 6000);

        let s = resolve("postgres:///", &environment(&[]));
        assert_eq!(
            s.servers,
            [Server {
                host: "/var/run/postgresql".into(),
                port: 5432
            }]
        );
        assert_eq!((s.user.as_str(), s.database.as_str()), ("osuser", "osuser"));
        assert!(s.only_sockets());
        assert_eq!(s.tls.mode, SslMode::Prefer);
        assert_eq!(s.connect_timeout, Some(DEFAULT_CONNECT_TIMEOUT));
        assert_eq!(s.answer_timeout, Some(DEFAULT_ANSWER_TIMEOUT));
    }

    #[test]
    fn query_parameters_name_hosts_sockets_and_ports_too() {
        let env = environment(&[]);
        let s = resolve(
            "postgresql://ann@/perflab?host=%2Fsrv%2Fpg&port=5499&application_name=ci",
            &env,
        );
        assert_eq!(
            s.servers,
            [Server {
                host: "/srv/pg".into(),
                port: 5499
            }]
        );
        assert_eq!(s.config.get_application_name(), Some("ci"));
        let s = resolve("postgres://a:1,[::1]:2,c/db", &env);
        let shown: Vec<String> = s.servers.iter().map(Server::to_string).collect();
        assert_eq!(shown, ["a:1", "[::1]:2", "c:5432"]);
        assert_eq!(
            resolve("postgres://h/db", &env)
                .config
                .get_application_name(),
            Some("perflab")
        );
    }

    #[test]
    fn wrong_values_are_refused_naming_the_setting_and_where_it_came_from() {
        let err = |url: &str, vars: &[(&str, &str)]| {
            ConnectionSettings::resolve(url, &environment(vars))
                .err()
                .unwrap_or_else(|| panic!("{url} accepted"))
        };
        let e = err("postgres://h/db?sslmode=verify", &[]);
        assert!(
            e.contains("sslmode 'verify' (in the URL)") && e.contains("verify-full"),
            "{e}"
        );
        let e = err("postgres://h/db", &[("PGSSLMODE", "on")]);
        assert!(e.contains("from PGSSLMODE"), "{e}");
        let e = err("postgres://h/db?connect_timeout=ten", &[]);
        assert!(e.contains("connect_timeout 'ten'"), "{e}");
        let e = err("postgres://h/db", &[("PERFLAB_STORE_TIMEOUT", "soon")]);
        assert!(
            e.contains("PERFLAB_STORE_TIMEOUT='soon'") && e.contains("5min"),
            "{e}"
        );
        let e = err("postgres://h:http/db", &[]);
        assert!(e.contains("port 'http'"), "{e}");
        let e = err("postgres://h/db?sslmode=verify-full", &[]);
        assert!(
            e.contains("no root certificate") && e.contains("sslrootcert"),
            "{e}"
        );
        let e = err(
            "postgres://h/db?sslmode=require&sslrootcert=/no/such.crt",
            &[],
        );
        assert!(
            e.contains("/no/such.crt") && e.contains("does not exist"),
            "{e}"
        );
        let e = err("postgres://h/db?sslmode=require&sslrootcert=system", &[]);
        assert!(e.contains("verify-full"), "{e}");
        let e = err("postgres://h/db?sslcert=client.crt", &[]);
        assert!(e.contains("sslcert"), "{e}");
    }

    #[test]
    fn timeouts_read_as_libpq_reads_them() {
        let timeout = |url: &str, vars: &[(&str, &str)]| {
            let s = resolve(url, &environment(vars));
            (s.connect_timeout, s.answer_timeout)
        };
        let secs = |s| Some(Duration::from_secs(s));
        assert_eq!(timeout("postgres://h/d?connect_timeout=1", &[]).0, secs(2));
        assert_eq!(timeout("postgres://h/d?connect_timeout=0", &[]).0, None);
        assert_eq!(
            timeout(
                "postgres://h/d?connect_timeout=5",
                &[("PGCONNECT_TIMEOUT", "7")]
            )
            .0,
            secs(5)
        );
        assert_eq!(
            timeout("postgres://h/d", &[("PGCONNECT_TIMEOUT", "7")]).0,
            secs(7)
        );
        assert_eq!(
            timeout("postgres://h/d", &[("PERFLAB_STORE_TIMEOUT", "2min")]).1,
            secs(120)
        );
        assert_eq!(
            timeout("postgres://h/d", &[("PERFLAB_STORE_TIMEOUT", "0")]).1,
            None
        );
    }

    #[test]
    fn a_password_file_gives_the_password_when_the_url_and_pgpassword_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".pgpass");
        std::fs::write(
            &file,
            "other:5432:*:ann:no\nperf-db:5432:perflab:ann:from-file\nlocalhost:*:*:ann:socket\n",
        )
        .unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let mut env = environment(&[]);
        env.home = Some(dir.path().to_path_buf());
        let s = resolve("postgres://ann@perf-db/perflab", &env);
        assert_eq!(s.config.get_password(), Some(&b"from-file"[..]));
        assert_eq!(
            s.password,
            PasswordOrigin::File {
                path: file.clone(),
                line: 2
            }
        );
        // The default socket matches `localhost`.
        let s = resolve("postgres://ann@/perflab", &env);
        assert_eq!(s.config.get_password(), Some(&b"socket"[..]));
        // PGPASSWORD wins over the file.
        env.variables.insert("PGPASSWORD".into(), "env".into());
        let s = resolve("postgres://ann@perf-db/perflab", &env);
        assert_eq!(s.config.get_password(), Some(&b"env"[..]));
        env.variables.clear();
        // No line for this database.
        let s = resolve("postgres://ann@perf-db/other", &env);
        assert_eq!(s.config.get_password(), None);
        assert_eq!(
            s.password_file_line(&env.default_socket_folder),
            "perf-db:5432:other:ann:PASSWORD"
        );
        // A file others may read is ignored, with a notice saying so.
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        let s = resolve("postgres://ann@perf-db/perflab", &env);
        assert_eq!(s.config.get_password(), None);
        assert!(
            s.notices[0].contains("group or world access"),
            "{:?}",
            s.notices
        );
        // PGPASSFILE names another file.
        let other = dir.path().join("other-pgpass");
        std::fs::write(&other, "*:*:*:*:elsewhere\n").unwrap();
        std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o600)).unwrap();
        env.variables
            .insert("PGPASSFILE".into(), other.display().to_string());
        let s = resolve("postgres://ann@perf-db/perflab", &env);
        assert_eq!(s.config.get_password(), Some(&b"elsewhere"[..]));
    }

    #[test]
    fn tls_takes_the_mode_and_roots_from_the_url_then_the_environment_then_the_home_folder() {
        let dir = tempfile::tempdir().unwrap();
        let roots = dir.path().join("ca.crt");
        std::fs::write(&roots, "").unwrap();
        let mut env = environment(&[("PGSSLMODE", "require")]);
        let s = resolve("postgres://h/d", &env);
        assert_eq!((s.tls.mode, s.tls.roots.clone()), (SslMode::Require, None));
        assert_eq!(s.tls_origin, Origin::Variable("PGSSLMODE"));
        let url = format!(
            "postgres://h/d?sslmode=verify-ca&sslrootcert={}",
            roots.display()
        );
        let s = resolve(&url, &env);
        assert_eq!(s.tls.mode, SslMode::VerifyCa);
        assert_eq!(s.tls.roots, Some(RootCertificates::File(roots.clone())));
        // ~/.postgresql/root.crt, where it exists, makes require check the chain.
        std::fs::create_dir(dir.path().join(".postgresql")).unwrap();
        std::fs::write(dir.path().join(".postgresql/root.crt"), "").unwrap();
        env.home = Some(dir.path().to_path_buf());
        let s = resolve("postgres://h/d", &env);
        assert_eq!(
            s.tls.roots,
            Some(RootCertificates::File(
                dir.path().join(".postgresql/root.crt")
            ))
        );
        let s = resolve("postgres://h/d?sslmode=disable", &env);
        assert_eq!(s.tls.roots, None);
        let s = resolve("postgres://h/d?sslrootcert=system", &environment(&[]));
        assert_eq!(
            (s.tls.mode, s.tls.roots),
            (SslMode::VerifyFull, Some(RootCertificates::System))
        );
    }
}
