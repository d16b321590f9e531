//! A shared store lost mid-experiment, on real servers started by the tests
//! (see `common::postgres`): the experiment goes on in a spool store in the
//! working folder and ends as usual, and the next command that writes to
//! the server moves it there, runs and result, stored once.

mod common;

use std::path::PathBuf;
use std::process::Output;

use common::postgres::PostgresServer;
use common::{Scratch, assert_exit};

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// The spool file of the database `name` on `server`, for perflab run in `s`.
fn spool_of(s: &Scratch, server: &PostgresServer, name: &str) -> PathBuf {
    s.path(&format!(
        ".perflab/spool/127.0.0.1-{}-{name}.db",
        server.port()
    ))
}

/// A script counting its runs in `count` that runs `at_run` when it makes run `n`.
fn counting_script(s: &Scratch, n: u32, at_run: &str) -> String {
    s.write(
        "measured.sh",
        &format!(
            "n=$(cat count 2>/dev/null || echo 0)\nn=$((n+1))\necho $n > count\n\
             if [ $n -eq {n} ]; then {at_run}; fi\n"
        ),
    );
    "sh measured.sh".to_string()
}

/// The experiments of a store: (kind, status, measured runs not replaced).
fn experiments(store: &std::path::Path) -> Vec<(String, String, i64)> {
    let location = perflab_store::Location::parse(store, "--store").unwrap();
    let store = perflab_store::Store::open_for_reading(&location, "--store").unwrap();
    let mut rows: Vec<_> = store
        .list_experiments(100, None)
        .unwrap()
        .into_iter()
        .map(|r| (r.kind.to_string(), r.status.to_string(), r.runs))
        .collect();
    rows.reverse();
    rows
}

#[test]
fn a_server_stopped_mid_ab_leaves_every_run_in_the_spool_and_the_next_command_moves_it_there() {
    let server = PostgresServer::start();
    let url = server.database("lost");
    let s = Scratch::new();
    // The measured command itself stops the server at its 10th run (of 42:
    // a warm-up run and 20 measured runs of each variant).
    let stop = format!(
        "(cd {} && {}) >/dev/null 2>&1",
        server.dir().display(),
        server.stop_command()
    );
    let command = counting_script(&s, 10, &stop);
    let out = s
        .perflab()
        .args(["--store", &url, "ab", "--quiet", "--seed", "7"])
        .args(["--min-runs", "20", "--max-runs", "20", "--warmup", "1"])
        .args(["--max-cpu-wait", "off", "--json", "result.json"])
        .args([&command, &format!("{command} b")])
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert!(
        [0, 3, 4].contains(&out.status.code().unwrap()),
        "the experiment ends with its verdict's exit code: {out:?}"
    );
    let verdict = s.json("result.json")["verdict"].clone();
    assert!(verdict.is_string(), "a verdict: {verdict}");
    let spool = spool_of(&s, &server, "lost");
    let lost_lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("was lost mid-experiment"))
        .collect();
    assert_eq!(lost_lines.len(), 1, "one line says so: {stderr}");
    assert!(
        lost_lines[0].contains(&spool.display().to_string())
            && lost_lines[0].contains(&url)
            && lost_lines[0].contains("the next perflab command that writes to the store moves it"),
        "{stderr}"
    );
    assert_eq!(
        experiments(&spool),
        [("ab".to_string(), "complete".to_string(), 40)],
        "every measured run is in the spool, those stored before the loss included"
    );

    // The server cannot be reached: a command fails as before (nothing was
    // measured yet), and the spool stays.
    let out = s
        .perflab()
        .args([
            "--store", &url, "run", "--quiet", "-r", "1", "--warmup", "0", "true",
        ])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    assert!(spool.exists());

    server.start_again();
    // A command that only reads says that a spool waits, and leaves it.
    let out = s
        .perflab()
        .args(["--store", &url, "history"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert!(
        stderr_of(&out).contains(&format!(
            "{} holds experiments measured while the store {url} was lost",
            spool.display()
        )),
        "{}",
        stderr_of(&out)
    );
    assert!(spool.exists());

    // The next command that writes moves it, and removes it.
    let out = s
        .perflab()
        .args([
            "--store", &url, "run", "--quiet", "-r", "1", "--warmup", "0", "true",
        ])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("perflab: moved 1 experiment measured while the store was lost (")
            && stderr.contains(&format!(
                "from the spool {} into {url}; the spool is removed",
                spool.display()
            )),
        "{stderr}"
    );
    assert!(!spool.exists());
    let stored = experiments(std::path::Path::new(&url));
    assert_eq!(
        stored,
        [
            ("ab".to_string(), "complete".to_string(), 40),
            ("run".to_string(), "complete".to_string(), 1)
        ],
        "the experiment is stored once, with all its runs"
    );
    assert_eq!(
        server.psql("lost", "SELECT COUNT(*) FROM runs r JOIN experiments e ON e.id = r.experiment_id WHERE e.kind = 'ab'"),
        "42",
        "the warm-up runs too, none twice"
    );
    assert_eq!(
        server.psql("lost", "SELECT verdict FROM experiments WHERE kind = 'ab'"),
        verdict.as_str().unwrap()
    );
}
