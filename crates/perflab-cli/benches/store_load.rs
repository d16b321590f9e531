//! Load on the store: 8 `perflab run` processes at once writing 10,000
//! runs in total into one store, first a SQLite file, then a PostgreSQL
//! database on a server started here (see tests/common/postgres.rs).
//! Checks that every run and experiment is stored and no process failed,
//! and prints the wall time of each (`cargo bench -p perflab-cli --bench
//! store_load`). A benchmark, not a test: its times are the machine's.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[allow(dead_code)]
#[path = "../tests/common/postgres.rs"]
mod postgres;

const WRITERS: usize = 8;
const RUNS: usize = 10_000;

/// Starts the writers on `store`, waits for all; returns the time taken.
fn load(store: &str, dir: &std::path::Path) -> Duration {
    let per_writer = (RUNS / WRITERS).to_string();
    let started = Instant::now();
    let writers: Vec<_> = (0..WRITERS)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_perflab"))
                .args(["--store", store, "run", "--quiet", "-N", "true"])
                .args(["--runs", &per_writer, "--warmup", "0"])
                .args(["--name", &format!("writer-{i}")])
                .current_dir(dir)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("perflab starts")
        })
        .collect();
    for writer in writers {
        let out = writer.wait_with_output().expect("perflab ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stderr.trim().is_empty(),
            "a writer failed ({:?}): {stderr}",
            out.status
        );
    }
    started.elapsed()
}

/// The rows of `table`, distinct stable ids of runs, complete experiments.
const CHECKS: [&str; 3] = [
    "SELECT COUNT(*) FROM runs WHERE warmup = 0",
    "SELECT COUNT(DISTINCT uid) FROM runs",
    "SELECT COUNT(*) FROM experiments WHERE status = 'complete'",
];

fn check(found: [i64; 3], back_end: &str) {
    let want = [RUNS as i64, RUNS as i64, WRITERS as i64];
    assert_eq!(
        found, want,
        "{back_end}: runs, distinct run ids, complete experiments"
    );
}

fn main() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let sqlite = dir.path().join("load.db");
    let took = load(&sqlite.display().to_string(), dir.path());
    let db = rusqlite::Connection::open(&sqlite).expect("the store");
    check(
        CHECKS.map(|sql| db.query_row(sql, [], |r| r.get(0)).expect("a count")),
        "SQLite",
    );
    report("SQLite", took);

    let server = postgres::PostgresServer::start();
    let url = server.database("load");
    let took = load(&url, dir.path());
    check(
        CHECKS.map(|sql| server.psql("load", sql).parse().expect("a count")),
        "PostgreSQL",
    );
    report("PostgreSQL", took);
}

fn report(back_end: &str, took: Duration) {
    println!(
        "{back_end:>10}: {WRITERS} writers, {RUNS} runs stored, none lost, no error, in {:.2} s ({:.0} runs/s)",
        took.as_secs_f64(),
        RUNS as f64 / took.as_secs_f64()
    );
}
