//! A real PostgreSQL server for the tests of the shared store: a fresh
//! cluster in a temporary folder, listening on 127.0.0.1 at a free port
//! (and on a socket in that folder), stopped when the guard is dropped.
//!
//! initdb refuses to run as root, so under root the cluster belongs to the
//! `postgres` user the Debian package creates, and its tools run as that user.
//! Without PostgreSQL the tests fail, saying how to install it: a test of the
//! shared store that passes without a server would test nothing.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A running server; stopped on drop.
pub struct PostgresServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    as_postgres_user: bool,
    certificates: Option<Certificates>,
    /// The server's options (`pg_ctl -o`), to start it again.
    options: String,
}

/// How a server is set up before it starts: its `pg_hba.conf` (trust for
/// everyone by default) and whether it offers TLS.
#[derive(Default)]
pub struct Setup {
    /// The lines of pg_hba.conf, replacing initdb's.
    pub hba: Option<&'static str>,
    /// Offer TLS with a certificate made for the test (see [`Certificates`]).
    pub tls: bool,
}

/// The pg_hba.conf of a server asking every user but `postgres` for a
/// password over TCP (the tests' own tools connect as `postgres`).
pub const PASSWORD_HBA: &str = "local all all trust\n\
host all postgres 127.0.0.1/32 trust\n\
host all all 127.0.0.1/32 scram-sha-256\n";

/// The pg_hba.conf of a server accepting TCP connections only with TLS.
pub const TLS_ONLY_HBA: &str = "local all all trust\n\
hostssl all all 127.0.0.1/32 trust\n";

/// The certificates of a server offering TLS, made for the test with the
/// `openssl` command: a certificate authority, the server's certificate
/// signed by it (for the IP address 127.0.0.1 only), and another authority
/// that signed nothing of this server's.
pub struct Certificates {
    /// The authority that signed the server's certificate (PEM).
    pub authority: PathBuf,
    /// An authority that did not.
    pub other_authority: PathBuf,
    server_certificate: PathBuf,
    server_key: PathBuf,
}

impl Certificates {
    /// Makes them in `dir`.
    fn make(dir: &Path) -> Self {
        let openssl = |args: &[&str]| {
            let out = Command::new("openssl")
                .args(args)
                .current_dir(dir)
                .output()
                .unwrap_or_else(|e| {
                    panic!("openssl: {e}; install it with `sudo apt-get install -y openssl`")
                });
            assert!(
                out.status.success(),
                "openssl {args:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let key = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ];
        for name in ["authority", "other-authority"] {
            let mut args = vec!["req", "-x509", "-days", "2", "-subj"];
            let subject = format!("/CN=perflab test {name}");
            args.push(&subject);
            args.extend(key);
            let key_file = format!("{name}.key");
            let certificate = format!("{name}.crt");
            args.extend(["-keyout", &key_file, "-out", &certificate]);
            openssl(&args);
        }
        let mut args = vec![
            "req",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
        ];
        args.extend(key);
        openssl(&args);
        std::fs::write(dir.join("server.ext"), "subjectAltName=IP:127.0.0.1\n").unwrap();
        openssl(&[
            "x509",
            "-req",
            "-days",
            "2",
            "-in",
            "server.csr",
            "-CA",
            "authority.crt",
            "-CAkey",
            "authority.key",
            "-CAcreateserial",
            "-extfile",
            "server.ext",
            "-out",
            "server.crt",
        ]);
        Self {
            authority: dir.join("authority.crt"),
            other_authority: dir.join("other-authority.crt"),
            server_certificate: dir.join("server.crt"),
            server_key: dir.join("server.key"),
        }
    }
}

/// The environment variables that change how perflab connects to a
/// server (libpq's and perflab's own), removed from the tests' perflab.
pub const CONNECTION_VARIABLES: [&str; 10] = [
    "PGHOST",
    "PGPORT",
    "PGUSER",
    "PGDATABASE",
    "PGPASSWORD",
    "PGPASSFILE",
    "PGSSLMODE",
    "PGSSLROOTCERT",
    "PGCONNECT_TIMEOUT",
    "PERFLAB_STORE_TIMEOUT",
];

const HOW_TO_INSTALL: &str = "these tests need a real PostgreSQL server: install it with \
`sudo apt-get install -y postgresql` (or run scripts/install-test-deps.sh), which puts \
initdb and pg_ctl under /usr/lib/postgresql/VERSION/bin";

/// The newest installed PostgreSQL's programs.
fn postgres_bin() -> PathBuf {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    found.sort();
    match found.pop() {
        Some((_, bin)) => bin,
        None => panic!("PostgreSQL not found: {HOW_TO_INSTALL}"),
    }
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().unwrap().port()
}

impl PostgresServer {
    /// Creates a cluster and starts its server, trusting every user.
    pub fn start() -> Self {
        Self::start_with(Setup::default())
    }

    /// Creates a cluster set up as `setup` says and starts its server.
    pub fn start_with(setup: Setup) -> Self {
        let bin = postgres_bin();
        let dir = tempfile::tempdir().expect("temporary directory");
        let as_postgres_user = unsafe { libc::geteuid() } == 0;
        if as_postgres_user {
            let status = Command::new("chown")
                .args(["postgres:", &dir.path().display().to_string()])
                .status()
                .expect("chown runs");
            assert!(
                status.success(),
                "no `postgres` user to own the cluster: {HOW_TO_INSTALL}"
            );
        }
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let certificates = setup.tls.then(|| Certificates::make(dir.path()));
        let mut server = Self {
            dir,
            bin,
            port: free_port(),
            as_postgres_user,
            certificates,
            options: String::new(),
        };
        let data = server.data();
        server.tool(&[
            "initdb",
            "-D",
            &data,
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
        ]);
        if let Some(hba) = setup.hba {
            std::fs::write(Path::new(&data).join("pg_hba.conf"), hba).unwrap();
        }
        let mut options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50",
            server.port,
            server.dir.path().display()
        );
        if let Some(certificates) = &server.certificates {
            // The server reads its key only if nobody else may.
            if server.as_postgres_user {
                let status = Command::new("chown")
                    .arg("postgres:")
                    .arg(&certificates.server_key)
                    .status()
                    .unwrap();
                assert!(status.success());
            }
            std::fs::set_permissions(
                &certificates.server_key,
                std::fs::Permissions::from_mode(0o600),
            )
            .unwrap();
            options.push_str(&format!(
                " -c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
                certificates.server_certificate.display(),
                certificates.server_key.display()
            ));
        }
        server.options = options;
        server.start_again();
        server
    }

    /// Starts the server (again) on its data folder and port, waiting until
    /// it accepts connections.
    pub fn start_again(&self) {
        let log = self.dir.path().join("server.log").display().to_string();
        self.tool(&[
            "pg_ctl",
            "-D",
            &self.data(),
            "-l",
            &log,
            "-o",
            &self.options,
            "-w",
            "start",
        ]);
    }

    /// The shell command that stops the server at once, as a crash or a
    /// lost machine would (`pg_ctl stop -m immediate`): its connections are
    /// closed without a word, and nothing is written on the way out.
    pub fn stop_command(&self) -> String {
        let user = if self.as_postgres_user {
            "runuser -u postgres -- "
        } else {
            ""
        };
        format!(
            "{user}{} -D {} -m immediate -w stop",
            self.bin.join("pg_ctl").display(),
            self.data()
        )
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    /// Runs one of PostgreSQL's programs (as `postgres` under root); panics with its output if it fails.
    fn tool(&self, args: &[&str]) -> Output {
        let program = self.bin.join(args[0]);
        let mut command = if self.as_postgres_user {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&program);
            c
        } else {
            Command::new(&program)
        };
        let out = command
            .args(&args[1..])
            .current_dir(self.dir.path())
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}; {HOW_TO_INSTALL}", program.display()));
        assert!(
            out.status.success(),
            "{} failed: {}{}",
            program.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Creates database `name`; returns its URL.
    pub fn database(&self, name: &str) -> String {
        let port = self.port.to_string();
        self.tool(&[
            "createdb",
            "-h",
            "127.0.0.1",
            "-p",
            &port,
            "-U",
            "postgres",
            name,
        ]);
        self.url(name)
    }

    /// The URL of database `name` (which may not exist).
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// Creates database `name` owned by a new role `user` logging in with
    /// `password`; returns the database's URL for that user, without the
    /// password.
    pub fn database_of(&self, name: &str, user: &str, password: &str) -> String {
        self.database(name);
        let quoted = password.replace('\'', "''");
        self.psql(
            "postgres",
            &format!("CREATE ROLE {user} LOGIN PASSWORD '{quoted}'"),
        );
        self.psql(
            "postgres",
            &format!("ALTER DATABASE {name} OWNER TO {user}"),
        );
        format!("postgres://{user}@127.0.0.1:{}/{name}", self.port)
    }

    /// The answer of `sql` in database `name`, as psql prints it unaligned.
    pub fn psql(&self, name: &str, sql: &str) -> String {
        let port = self.port.to_string();
        let out = self.tool(&[
            "psql",
            "-h",
            "127.0.0.1",
            "-p",
            &port,
            "-U",
            "postgres",
            "-d",
            name,
            "-At",
            "-c",
            sql,
        ]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The folder of the cluster.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The port it listens on at 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The certificates of a server started with TLS.
    pub fn certificates(&self) -> &Certificates {
        self.certificates
            .as_ref()
            .expect("a server started with Setup { tls: true, .. }")
    }

    /// The pids of the server's processes: the postmaster first, then its
    /// children (one backend per connection, and the background workers).
    fn processes(&self) -> Vec<i32> {
        let pid_file = Path::new(&self.data()).join("postmaster.pid");
        let Some(postmaster) = std::fs::read_to_string(pid_file)
            .ok()
            .and_then(|t| t.lines().next()?.trim().parse::<i32>().ok())
        else {
            return Vec::new();
        };
        let children = std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let pid: i32 = e.file_name().to_str()?.parse().ok()?;
                let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
                // The fields after the command name, which may hold spaces and parentheses.
                let after_name = &stat[stat.rfind(')')? + 1..];
                let parent: i32 = after_name.split_whitespace().nth(1)?.parse().ok()?;
                (parent == postmaster).then_some(pid)
            });
        std::iter::once(postmaster).chain(children).collect()
    }

    /// Stops every process of the server with SIGSTOP, as a hung server
    /// (or a frozen machine) stops answering while its kernel still
    /// acknowledges every packet; they go on when the guard is dropped,
    /// whatever the test's outcome. Drop the guard before the server.
    pub fn stop_answering(&self) -> StoppedServer {
        let pids = self.processes();
        assert!(!pids.is_empty(), "no server processes to stop");
        for &pid in &pids {
            // SAFETY: kill has no memory effects; the pids are this server's.
            unsafe { libc::kill(pid, libc::SIGSTOP) };
        }
        StoppedServer { pids }
    }
}

/// A server's processes stopped by [`PostgresServer::stop_answering`];
/// continued (SIGCONT) on drop.
pub struct StoppedServer {
    pids: Vec<i32>,
}

impl Drop for StoppedServer {
    fn drop(&mut self) {
        for &pid in &self.pids {
            // SAFETY: as above.
            unsafe { libc::kill(pid, libc::SIGCONT) };
        }
    }
}

impl Drop for PostgresServer {
    fn drop(&mut self) {
        // A server left stopped would never stop (pg_ctl waits for it).
        for pid in self.processes() {
            // SAFETY: as above.
            unsafe { libc::kill(pid, libc::SIGCONT) };
        }
        let data = self.data();
        // Immediate: nothing in a test cluster needs a clean shutdown.
        let program = self.bin.join("pg_ctl");
        let mut command = if self.as_postgres_user {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&program);
            c
        } else {
            Command::new(&program)
        };
        let _ = command
            .args(["-D", &data, "-m", "immediate", "-w", "stop"])
            .output();
    }
}
