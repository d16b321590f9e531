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
}

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
    /// Creates a cluster and starts its server.
    pub fn start() -> Self {
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
        let server = Self {
            dir,
            bin,
            port: free_port(),
            as_postgres_user,
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
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50",
            server.port,
            server.dir.path().display()
        );
        let log = server.dir.path().join("server.log").display().to_string();
        server.tool(&[
            "pg_ctl", "-D", &data, "-l", &log, "-o", &options, "-w", "start",
        ]);
        server
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
}

impl Drop for PostgresServer {
    fn drop(&mut self) {
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
