//! Nothing perflab started outlives it: killed with `kill -9` mid-run, its
//! fork server ends the run in flight (and all it started) and exits; on a
//! hang-up (a closed terminal) perflab stops as on Ctrl-C, keeps its runs,
//! prints its summary and exits 130.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Scratch, running};

/// A run that writes its own pid and that of a child it leaves running,
/// then waits long enough to be killed in flight.
const RUN: &str = "echo $$ >> pids; sleep 300 & echo $! >> pids; sleep 300";

/// The children of `parent` whose command name is `name`.
fn children_named(parent: u32, name: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
            continue;
        };
        let field = |key: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim().to_string())
        };
        if field("Name:").as_deref() == Some(name) && field("PPid:") == Some(parent.to_string()) {
            found.push(pid);
        }
    }
    found
}

/// Waits (bounded) until `done` holds; false if it never did.
fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

/// Starts `perflab run` of [`RUN`] and waits until a run is in flight;
/// returns perflab and the pids the run wrote.
fn perflab_with_a_run_in_flight(s: &Scratch) -> (Child, Vec<u32>) {
    let child = Command::new(env!("CARGO_BIN_EXE_perflab"))
        .current_dir(s.dir.path())
        .env_remove("PERFLAB_STORE")
        .args(["run", "--runs", "5", "--warmup", "0", "--", "sh", "-c", RUN])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pids = || -> Vec<u32> {
        std::fs::read_to_string(s.path("pids"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    };
    assert!(
        eventually(Duration::from_secs(60), || pids().len() >= 2),
        "the run never started"
    );
    (child, pids())
}

#[test]
fn killed_with_kill_9_perflab_leaves_no_fork_server_and_no_run_behind() {
    let s = Scratch::new();
    let (mut perflab, pids) = perflab_with_a_run_in_flight(&s);
    let servers = children_named(perflab.id(), "perflab-exec");
    assert_eq!(servers.len(), 1, "one fork server: {servers:?}");
    perflab.kill().unwrap(); // SIGKILL
    perflab.wait().unwrap();
    let all_ended = eventually(Duration::from_secs(20), || {
        !pids.iter().chain(&servers).any(|&pid| running(pid))
    });
    let left: Vec<u32> = pids
        .iter()
        .chain(&servers)
        .copied()
        .filter(|&p| running(p))
        .collect();
    for pid in &left {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    assert!(
        all_ended,
        "still running after perflab was killed: {left:?}"
    );
}

#[test]
fn on_a_hang_up_perflab_keeps_its_runs_prints_its_summary_and_ends_the_run_in_flight() {
    let s = Scratch::new();
    let (perflab, pids) = perflab_with_a_run_in_flight(&s);
    let status = Command::new("kill")
        .args(["-HUP", &perflab.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = perflab.wait_with_output().unwrap();
    let left: Vec<u32> = pids.iter().copied().filter(|&p| running(p)).collect();
    for pid in &left {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no run finished"), "{stderr}");
    assert!(left.is_empty(), "still running after the hang-up: {left:?}");
    // The experiment is kept, marked incomplete.
    let listing = s.perflab().arg("history").output().unwrap();
    let listing = String::from_utf8_lossy(&listing.stdout);
    assert!(listing.contains("incomplete"), "{listing}");
}
