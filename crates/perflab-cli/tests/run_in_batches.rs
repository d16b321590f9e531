//! `perflab run` writes the runs of a fast command to the store in batches:
//! none is lost on the way, in the order they ran, Ctrl-C included.

mod common;

use common::Scratch;

/// Measured runs kept in the store so far (0 before the store exists).
fn stored_runs(s: &Scratch) -> i64 {
    rusqlite::Connection::open(s.store())
        .and_then(|db| {
            db.query_row("SELECT COUNT(*) FROM runs WHERE warmup = 0", [], |r| {
                r.get(0)
            })
        })
        .unwrap_or(0)
}

#[test]
fn every_run_of_a_fast_command_is_stored_once_in_the_order_it_ran() {
    let s = Scratch::new();
    // More runs than one batch holds, and not a multiple of it.
    let out = s
        .perflab()
        .args(["run", "-N", "true", "--runs", "150", "--warmup", "3"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let db = rusqlite::Connection::open(s.store()).unwrap();
    let rows: Vec<(i64, i64, bool)> = db
        .prepare("SELECT sequence, iteration, warmup FROM runs ORDER BY rowid")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let expected: Vec<(i64, i64, bool)> =
        (0..153).map(|i| (i + 1, (i - 3).max(0), i < 3)).collect();
    assert_eq!(rows, expected);
}

#[test]
fn ctrl_c_keeps_every_finished_run_of_a_fast_command() {
    let s = Scratch::new();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_perflab"))
        .current_dir(s.dir.path())
        .args(["run", "-N", "true", "--runs", "1000000", "--json", "r.json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A first batch is in the store: runs are being made, and the ones
    // since that batch wait in memory.
    while stored_runs(&s) == 0 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    common::assert_exit(&out, 130);
    let result = s.json("r.json");
    assert_eq!(result["status"], "incomplete");
    let reported = result["variants"][0]["runs"].as_i64().unwrap();
    assert_eq!(stored_runs(&s), reported);
    let db = rusqlite::Connection::open(s.store()).unwrap();
    let status: String = db
        .query_row("SELECT status FROM experiments", [], |r| r.get(0))
        .unwrap();
    assert_eq!(status, "incomplete");
}

#[test]
fn runs_wait_for_the_store_one_batch_at_most_and_a_kill_loses_no_more() {
    let s = Scratch::new();
    // Each run leaves a line, so that the runs made can be counted beside
    // those stored, and after perflab is gone.
    let log = s.dir.path().join("made.log");
    let made = || match std::fs::read_to_string(&log) {
        Ok(text) => text.lines().count() as i64,
        Err(_) => 0,
    };
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_perflab"))
        .current_dir(s.dir.path())
        .args(["run", "--runs", "1000000", "--quiet", "echo x >> made.log"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // A batch holds at most 64 runs; beside them are the run under way
    // (whose line may be written) and the run that finished between the
    // two counts.
    let most_waiting = 64 + 2;
    let mut samples = 0;
    while samples < 30 || stored_runs(&s) < 200 {
        let stored = stored_runs(&s);
        let made = made();
        assert!(
            made - stored <= most_waiting,
            "{made} runs made, {stored} stored"
        );
        samples += 1;
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    let _ = child.wait_with_output();
    // The fork server ends the run under way once perflab is gone.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let (made, stored) = (made(), stored_runs(&s));
    assert!(
        made - stored <= most_waiting,
        "after the kill: {made} runs made, {stored} stored"
    );
    // The killed perflab could not remove its cgroups; the next one does.
    let out = s
        .perflab()
        .args(["run", "-N", "true", "--runs", "1"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
}
