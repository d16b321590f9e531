//! Connecting to the shared store as PostgreSQL users expect, on real
//! servers started by the tests (see `common::postgres`): the password from
//! PGPASSWORD or ~/.pgpass rather than the URL, the server from libpq's
//! environment, TLS by sslmode with a certificate made for the test, and a
//! server that stops answering ending the command with a message naming it
//! rather than hanging it.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::postgres::{PASSWORD_HBA, PostgresServer, Setup, TLS_ONLY_HBA};
use common::{Scratch, assert_exit, stdout_of_success};

/// A password with the characters a password file escapes.
const PASSWORD: &str = "pa:ss\\word";

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// `perflab history` on the store `PERFLAB_STORE` names, with `env` set
/// and HOME in the scratch folder (so that its ~/.pgpass is the test's).
fn history(s: &Scratch, store: &str, env: &[(&str, &str)]) -> Output {
    s.perflab()
        .env("HOME", s.dir.path())
        .env("PERFLAB_STORE", store)
        .envs(env.iter().copied())
        .arg("history")
        .output()
        .unwrap()
}

/// One measured run into the store `PERFLAB_STORE` names.
fn measure(s: &Scratch, store: &str, name: &str, env: &[(&str, &str)]) -> Output {
    s.perflab()
        .env("HOME", s.dir.path())
        .env("PERFLAB_STORE", store)
        .envs(env.iter().copied())
        .args([
            "run", "--quiet", "-r", "1", "--warmup", "0", "--name", name, "true",
        ])
        .output()
        .unwrap()
}

#[test]
fn the_readme_url_without_a_password_works_with_pgpassword_or_a_pgpass_file() {
    let server = PostgresServer::start_with(Setup {
        hba: Some(PASSWORD_HBA),
        ..Setup::default()
    });
    let url = server.database_of("perflab", "ann", PASSWORD);
    let s = Scratch::new();

    // Nowhere to find the password: what to do, and never "put it in the URL".
    let out = history(&s, &url, &[]);
    assert_exit(&out, 2);
    let stderr = stderr_of(&out);
    let line = format!("127.0.0.1:{}:perflab:ann:PASSWORD", server.port());
    assert!(stderr.contains(&url), "{stderr}");
    assert!(stderr.contains("set PGPASSWORD"), "{stderr}");
    assert!(stderr.contains(&line), "{stderr}");
    assert!(stderr.contains(".pgpass (chmod 0600)"), "{stderr}");
    assert!(!stderr.contains("USER:PASSWORD"), "{stderr}");

    stdout_of_success(&measure(
        &s,
        &url,
        "by-pgpassword",
        &[("PGPASSWORD", PASSWORD)],
    ));

    let out = history(&s, &url, &[("PGPASSWORD", "wrong")]);
    assert_exit(&out, 2);
    assert!(
        stderr_of(&out).contains("correct the password in PGPASSWORD"),
        "{}",
        stderr_of(&out)
    );

    // ~/.pgpass, with libpq's escapes; the first matching line wins.
    let pgpass = s.write(
        ".pgpass",
        &format!(
            "# perflab's store\n127.0.0.1:{port}:other:ann:no\n127.0.0.1:{port}:perflab:ann:pa\\:ss\\\\word\n*:*:*:*:not-this\n",
            port = server.port()
        ),
    );
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    stdout_of_success(&measure(&s, &url, "by-pgpass", &[]));

    // Readable by others: ignored with libpq's warning, and the advice says so.
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = history(&s, &url, &[]);
    assert_exit(&out, 2);
    let stderr = stderr_of(&out);
    assert!(stderr.contains("group or world access"), "{stderr}");
    assert!(
        stderr.contains(&format!("chmod 0600 {}", pgpass.display())),
        "{stderr}"
    );
    // Warned about, as libpq warns, when the server lets the user in without
    // a password (postgres is trusted here).
    let trusted = url.replace("ann@", "postgres@");
    let out = history(&s, &trusted, &[]);
    assert_exit(&out, 0);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("warning: password file") && stderr.contains("group or world access"),
        "{stderr}"
    );
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();

    // The server, user and database from libpq's variables alone.
    let port = server.port().to_string();
    let listed = stdout_of_success(&history(
        &s,
        "postgres://",
        &[
            ("PGHOST", "127.0.0.1"),
            ("PGPORT", &port),
            ("PGUSER", "ann"),
            ("PGDATABASE", "perflab"),
        ],
    ));
    assert!(
        listed.contains("by-pgpassword") && listed.contains("by-pgpass"),
        "{listed}"
    );
}

/// A server that accepts only TLS connections, with the URL of a database
/// on it and the scratch folder the tests run perflab in.
fn tls_only_server() -> (PostgresServer, String, Scratch) {
    let server = PostgresServer::start_with(Setup {
        hba: Some(TLS_ONLY_HBA),
        tls: true,
    });
    let url = server.database("tls");
    (server, url, Scratch::new())
}

#[test]
fn prefer_require_verify_ca_and_verify_full_connect_to_a_server_that_accepts_only_tls() {
    let (server, url, s) = tls_only_server();
    let authority = server.certificates().authority.display().to_string();
    // The default, prefer, encrypts when the server offers it.
    stdout_of_success(&measure(&s, &url, "prefer", &[]));
    stdout_of_success(&measure(
        &s,
        &format!("{url}?sslmode=require"),
        "require",
        &[],
    ));
    stdout_of_success(&measure(
        &s,
        &format!("{url}?sslmode=verify-full&sslrootcert={authority}"),
        "verify-full",
        &[],
    ));
    // The certificate names 127.0.0.1 only: verify-ca does not check the name.
    let by_name = url.replace("127.0.0.1", "localhost");
    stdout_of_success(&measure(
        &s,
        &format!("{by_name}?sslmode=verify-ca&sslrootcert={authority}"),
        "verify-ca",
        &[],
    ));
    // The same from libpq's variables.
    let listed = stdout_of_success(&history(
        &s,
        &url,
        &[("PGSSLMODE", "verify-full"), ("PGSSLROOTCERT", &authority)],
    ));
    for name in ["prefer", "require", "verify-full", "verify-ca"] {
        assert!(listed.contains(name), "{name} missing from\n{listed}");
    }
}

#[test]
fn a_certificate_of_another_authority_or_for_another_host_is_refused_naming_the_server() {
    let (server, url, s) = tls_only_server();
    let other = server.certificates().other_authority.display().to_string();
    let store = format!("{url}?sslmode=verify-full&sslrootcert={other}");
    let out = history(&s, &store, &[]);
    assert_exit(&out, 2);
    let stderr = stderr_of(&out);
    assert!(stderr.contains(&store), "{stderr}");
    assert!(
        stderr.contains(&format!("server 127.0.0.1:{}", server.port())),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("not signed by a root certificate of {other}")),
        "{stderr}"
    );
    assert!(stderr.contains("sslrootcert=FILE"), "{stderr}");

    let authority = server.certificates().authority.display().to_string();
    let by_name = url.replace("127.0.0.1", "localhost");
    let out = history(
        &s,
        &format!("{by_name}?sslmode=verify-full&sslrootcert={authority}"),
        &[],
    );
    assert_exit(&out, 2);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("does not name the host connected to"),
        "{stderr}"
    );
    assert!(stderr.contains("sslmode=verify-ca"), "{stderr}");

    // verify-full with no root certificate at all says where to give one.
    let out = history(&s, &format!("{url}?sslmode=verify-full"), &[]);
    assert_exit(&out, 2);
    let stderr = stderr_of(&out);
    assert!(stderr.contains("no root certificate"), "{stderr}");
    assert!(stderr.contains("~/.postgresql/root.crt"), "{stderr}");
}

#[test]
fn sslmode_disable_against_a_server_that_demands_tls_says_to_encrypt() {
    let (server, url, s) = tls_only_server();
    let store = format!("{url}?sslmode=disable");
    let out = history(&s, &store, &[]);
    assert_exit(&out, 2);
    let stderr = stderr_of(&out);
    assert!(stderr.contains(&store), "{stderr}");
    assert!(
        stderr.contains(&format!("127.0.0.1:{}", server.port())),
        "{stderr}"
    );
    assert!(stderr.contains("only encrypted"), "{stderr}");
    assert!(stderr.contains("use sslmode=require"), "{stderr}");
    // The same from PGSSLMODE, named as where it came from.
    let out = history(&s, &url, &[("PGSSLMODE", "disable")]);
    assert_exit(&out, 2);
    assert!(
        stderr_of(&out).contains("from PGSSLMODE"),
        "{}",
        stderr_of(&out)
    );
}

/// The output of `child`, which must end within a few minutes (it is
/// killed, and the test fails, if it hangs).
fn output_within_minutes(mut child: std::process::Child) -> Output {
    let deadline = Instant::now() + Duration::from_secs(180);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("perflab still waits for a server that stopped answering");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// perflab, as `Scratch::perflab` starts it, to run in the background.
fn background_perflab(s: &Scratch, env: &[(&str, &str)], args: &[&str]) -> std::process::Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_perflab"));
    command
        .current_dir(s.dir.path())
        .env_remove("PERFLAB_STORE")
        .env_remove("PERFLAB_HOST");
    for variable in common::postgres::CONNECTION_VARIABLES {
        command.env_remove(variable);
    }
    command
        .envs(env.iter().copied())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn connecting_to_a_server_that_stopped_answering_ends_after_connect_timeout_naming_it() {
    let server = PostgresServer::start();
    let url = server.database("stopped");
    let s = Scratch::new();
    let stopped = server.stop_answering();

    let store = format!("{url}?connect_timeout=2");
    let out = output_within_minutes(background_perflab(&s, &[], &["--store", &store, "history"]));
    assert_exit(&out, 2);
    let stderr = stderr_of(&out);
    assert!(stderr.contains(&store), "{stderr}");
    assert!(
        stderr.contains("did not answer within 2s (connect_timeout in the URL)"),
        "{stderr}"
    );
    assert!(!stderr.contains("  "), "one line, single spaces: {stderr}");
    assert!(
        stderr.contains(&format!("pg_isready -h 127.0.0.1 -p {}", server.port())),
        "{stderr}"
    );

    let out = output_within_minutes(background_perflab(
        &s,
        &[("PGCONNECT_TIMEOUT", "2")],
        &["--store", &url, "history"],
    ));
    assert_exit(&out, 2);
    assert!(
        stderr_of(&out).contains("within 2s (connect_timeout from PGCONNECT_TIMEOUT)"),
        "{}",
        stderr_of(&out)
    );
    drop(stopped);
}

#[test]
fn a_server_that_stops_answering_mid_experiment_is_given_up_after_perflab_store_timeout_and_the_runs_spooled()
 {
    let server = PostgresServer::start();
    let url = server.database("midway");
    let s = Scratch::new();
    // The 5th run waits, its process having said so, until the test has
    // stopped the server: the runs before it are measured with the server
    // answering, and those after it without, however busy the machine.
    s.write(
        "measured.sh",
        "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count\n\
         if [ $n -eq 5 ]; then touch reached; i=0; \
         while [ ! -e stopped ] && [ $i -lt 3000 ]; do sleep 0.05; i=$((i+1)); done; fi\n",
    );
    let child = background_perflab(
        &s,
        &[("PERFLAB_STORE_TIMEOUT", "2s")],
        &[
            "--store",
            &url,
            "run",
            "--quiet",
            "-r",
            "12",
            "--warmup",
            "0",
            "sh measured.sh",
        ],
    );
    let deadline = Instant::now() + Duration::from_secs(120);
    while !s.path("reached").exists() {
        assert!(
            Instant::now() < deadline,
            "the 5th run did not start within two minutes"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let stopped = server.stop_answering();
    s.write("stopped", "");
    let out = output_within_minutes(child);
    let stderr = stderr_of(&out);
    // The experiment ends as usual, in the spool, saying why and where.
    assert_exit(&out, 0);
    assert!(stderr.contains(&url), "{stderr}");
    assert!(
        stderr.contains("no answer within 2s (PERFLAB_STORE_TIMEOUT)"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("pg_isready -h 127.0.0.1 -p {}", server.port())),
        "{stderr}"
    );
    let spool = format!(".perflab/spool/127.0.0.1-{}-midway.db", server.port());
    assert!(stderr.contains(&spool), "{stderr}");
    drop(stopped);
    // Once it answers again, the next command moves the runs there.
    let out = measure(&s, &url, "after", &[]);
    assert_exit(&out, 0);
    assert!(!s.path(&spool).exists(), "{}", stderr_of(&out));
    assert_eq!(
        server.psql(
            "midway",
            "SELECT COUNT(*) FROM runs r JOIN experiments e ON e.id = r.experiment_id \
             WHERE e.name IS NULL AND e.status = 'complete'"
        ),
        "12"
    );
}
