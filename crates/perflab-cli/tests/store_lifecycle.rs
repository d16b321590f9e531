//! The store over the life of its experiments: a perflab killed mid-way
//! leaves its experiment `incomplete` with its runs, several perflab
//! processes may create a store at once, older stores are upgraded, and a
//! store named wrongly is refused before anything is created.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Scratch, assert_exit};

/// Measured runs stored so far, 0 while the store or its tables do not exist yet.
fn stored_runs(s: &Scratch) -> i64 {
    let Ok(db) = rusqlite::Connection::open_with_flags(
        s.store(),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    ) else {
        return 0;
    };
    // Runs of a block measured again (contention) are kept, marked
    // replaced, and not counted as the experiment's.
    db.query_row(
        "SELECT COUNT(*) FROM runs WHERE warmup = 0 AND replaced = 0",
        [],
        |r| r.get(0),
    )
    .unwrap_or(0)
}

/// perflab started in the background in the scratch directory, with its
/// output discarded except stderr, which is kept for failure messages.
fn spawn_perflab(s: &Scratch, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_perflab"))
        .args(args)
        .current_dir(s.dir.path())
        .env_remove("PERFLAB_STORE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("perflab starts")
}

/// Waits until at least `runs` measured runs are stored.
fn wait_for_runs(s: &Scratch, child: &mut Child, runs: i64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while stored_runs(s) < runs {
        assert!(
            child.try_wait().unwrap().is_none(),
            "perflab ended before {runs} runs were stored"
        );
        assert!(
            Instant::now() < deadline,
            "{runs} runs not stored within a minute"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The lines of `perflab history`, split into columns, without the header.
fn history_rows(s: &Scratch) -> Vec<Vec<String>> {
    let out = s.perflab().args(["history"]).output().unwrap();
    common::assert_exit(&out, 0);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(1)
        .map(|line| line.split_whitespace().map(str::to_string).collect())
        .collect()
}

#[test]
fn a_killed_ab_leaves_its_experiment_incomplete_with_its_finished_runs() {
    let s = Scratch::new();
    // Far more runs than the test waits for, and no decision before them.
    let mut ab = spawn_perflab(
        &s,
        &[
            "ab",
            "--quiet",
            "--min-runs",
            "500",
            "--max-runs",
            "500",
            // It counts its own runs: none may be marked replaced meanwhile.
            "--max-cpu-wait",
            "off",
            "sleep 0.01",
            "sleep 0.01",
        ],
    );
    wait_for_runs(&s, &mut ab, 6);
    ab.kill().unwrap(); // SIGKILL: no handler, no chance to mark anything
    ab.wait().unwrap();
    let kept = stored_runs(&s);

    let rows = history_rows(&s);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let (kind, status, runs) = (&rows[0][2], &rows[0][3], &rows[0][5]);
    assert_eq!(kind, "ab");
    assert_eq!(status, "incomplete", "{rows:?}");
    assert_eq!(runs.parse::<i64>().unwrap(), kept, "{rows:?}");
    assert!(kept >= 6);
}

#[test]
fn an_experiment_whose_perflab_is_still_running_stays_running() {
    let s = Scratch::new();
    let mut run = spawn_perflab(&s, &["run", "--quiet", "-r", "500", "sleep 0.01"]);
    wait_for_runs(&s, &mut run, 2);
    let rows = history_rows(&s);
    run.kill().unwrap();
    run.wait().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0][3], "running", "{rows:?}");
}

#[test]
fn several_perflab_runs_creating_one_store_at_once_all_succeed_and_all_runs_are_kept() {
    const PROCESSES: usize = 6;
    const RUNS: usize = 3;
    for trial in 0..10 {
        let s = Scratch::new();
        // A start line: each shell blocks opening the FIFO until the test
        // opens it for writing, which releases them all at the same moment.
        let status = Command::new("mkfifo")
            .arg(s.path("start"))
            .status()
            .unwrap();
        assert!(status.success(), "mkfifo");
        let perflab = env!("CARGO_BIN_EXE_perflab");
        let children: Vec<_> = (0..PROCESSES)
            .map(|_| {
                Command::new("sh")
                    .args(["-c", &format!("read _ < start; exec '{perflab}' run --quiet --store new.db -r {RUNS} true")])
                    .current_dir(s.dir.path())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        std::thread::sleep(Duration::from_millis(100));
        drop(
            std::fs::OpenOptions::new()
                .write(true)
                .open(s.path("start"))
                .unwrap(),
        );
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "trial {trial}: exit {:?}: {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let out = s
            .perflab()
            .args(["history", "--store", "new.db"])
            .output()
            .unwrap();
        common::assert_exit(&out, 0);
        let rows: Vec<Vec<&str>> = std::str::from_utf8(&out.stdout)
            .unwrap()
            .lines()
            .skip(1)
            .map(|line| line.split_whitespace().collect())
            .collect();
        assert_eq!(rows.len(), PROCESSES, "trial {trial}: {rows:?}");
        for row in &rows {
            assert_eq!(row[3], "complete", "trial {trial}: {rows:?}");
            assert_eq!(row[5], RUNS.to_string(), "trial {trial}: {rows:?}");
        }
    }
}

#[test]
fn a_store_of_the_first_schema_is_upgraded_and_keeps_its_experiments() {
    let s = Scratch::new();
    std::fs::create_dir_all(s.path(".perflab")).unwrap();
    let db = rusqlite::Connection::open(s.store()).unwrap();
    db.execute_batch(include_str!("fixtures/store-schema-1.sql"))
        .unwrap();
    drop(db);

    let rows = history_rows(&s);
    assert_eq!(rows.len(), 2, "{rows:?}");
    // Newest first. Nobody knows which process ran the first schema's
    // `running` experiment, so it is left as it was.
    assert_eq!(rows[0][3], "running", "{rows:?}");
    assert_eq!(rows[1][3], "complete", "{rows:?}");
    assert_eq!(rows[1][5], "2", "{rows:?}");

    let out = s
        .perflab()
        .args(["run", "--quiet", "-r", "2", "true"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let db = rusqlite::Connection::open(s.store()).unwrap();
    let version: i64 = db
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 8);
    let replaced: i64 = db
        .query_row("SELECT SUM(replaced) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(replaced, 0, "the old runs all count");
    let sources: Vec<Option<String>> = db
        .prepare("SELECT peak_memory_source FROM runs ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let (old, new) = sources.split_at(sources.len() - 2);
    assert!(old.iter().all(Option::is_none), "not known: {sources:?}");
    assert!(
        new.iter()
            .all(|s| matches!(s.as_deref(), Some("cgroup" | "rusage"))),
        "the new runs say where their peak memory was read: {sources:?}"
    );
    let uids: Vec<String> = db
        .prepare("SELECT uid FROM experiments ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(uids.len(), 3, "the old experiments get stable ids too");
    assert!(uids.iter().all(|u| u.len() == 32), "{uids:?}");
    assert!(uids[0] != uids[1] && uids[1] != uids[2], "{uids:?}");
    let owner: Option<i64> = db
        .query_row("SELECT owner_pid FROM experiments WHERE id = 3", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(owner.is_some(), "the new experiment records its process");
}

#[test]
fn a_store_of_a_newer_perflab_is_refused_with_exit_2() {
    let s = Scratch::new();
    std::fs::create_dir_all(s.path(".perflab")).unwrap();
    let db = rusqlite::Connection::open(s.store()).unwrap();
    db.execute_batch("PRAGMA user_version = 99;").unwrap();
    drop(db);
    let out = s.perflab().args(["history"]).output().unwrap();
    common::assert_exit(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("newer perflab"), "{stderr}");
}

#[test]
fn a_store_url_of_another_database_is_a_usage_error_and_creates_nothing() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["--store", "mysql://ann:secret@db/perflab", "history"])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--store") && stderr.contains("postgres://"),
        "{stderr}"
    );
    assert!(!stderr.contains("secret"), "{stderr}");
    assert!(!s.dir.path().join("mysql:").exists());
}

#[test]
fn pulling_from_a_store_file_that_does_not_exist_is_a_usage_error() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["pull", "--from", "shared/typo.db"])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--from") && stderr.contains("shared/typo.db"),
        "{stderr}"
    );
    assert!(!s.dir.path().join("shared").exists());
}
