//! Nothing perflab started outlives it: killed with `kill -9` mid-run, its
//! fork server ends the run in flight (and all it started) and exits; on a
//! hang-up (a closed terminal) perflab stops as on Ctrl-C, keeps its runs,
//! prints its summary and exits 130; the profile folder of a perflab
//! killed so is removed by a later perflab.

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

/// The cgroups, v2 and v1 alike, named after the perflab of `pid`
/// (`perflab-PID-N`), anywhere in the first levels of `/sys/fs/cgroup`.
/// Of one perflab, not of every exited one as
/// `common::machine::assert_no_cgroup_of_an_exited_perflab` checks: the
/// perflab this file's other tests kill leaves its cgroups for the next
/// perflab to remove, which may be one of these.
fn cgroups_named_after(pid: u32) -> Vec<std::path::PathBuf> {
    let prefix = format!("perflab-{pid}-");
    let mut found = Vec::new();
    let mut dirs = vec![(std::path::PathBuf::from("/sys/fs/cgroup"), 0)];
    while let Some((dir, depth)) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                found.push(entry.path());
            } else if depth < 6 {
                dirs.push((entry.path(), depth + 1));
            }
        }
    }
    found
}

#[test]
fn a_command_refused_after_its_executor_was_made_ready_leaves_no_fork_server_and_no_cgroup_behind()
{
    let s = Scratch::new();
    // Where runs get cgroups of their own, each is named after its perflab.
    let out = s
        .perflab()
        .args(["run", "-N", "cat /proc/self/cgroup", "--runs", "1"])
        .args(["--output", "inherit"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    if !String::from_utf8_lossy(&out.stdout).contains("perflab-") {
        eprintln!("skipped: runs get no cgroup of their own here");
        return;
    }
    // The executor of `run`, `ab` and `sweep` is made ready as the command
    // begins; each of these is refused after that: `run` once it has its
    // executor, `ab` and `sweep` before they ask for it.
    let refused: [&[&str]; 3] = [
        &["run", "-N", "true", "--measure", "nonsense"],
        &[
            "ab",
            "-N",
            "true",
            "false",
            "--min-runs",
            "9",
            "--max-runs",
            "3",
        ],
        &[
            "sweep",
            "-N",
            "true {n}",
            "-p",
            "n=1,2",
            "--min-runs",
            "9",
            "--max-runs",
            "3",
        ],
    ];
    for args in refused {
        let child = s
            .perflab_process()
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        // A fork server left alive would keep its memory cgroup.
        assert_eq!(
            cgroups_named_after(pid),
            Vec::<std::path::PathBuf>::new(),
            "{args:?}"
        );
    }
}

/// The profile folders (`perflab-profiles-*`) in `temp`.
fn profile_folders(temp: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(temp)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("perflab-profiles-")
        })
        .map(|e| e.path())
        .collect()
}

#[test]
fn the_profile_folder_of_a_perflab_killed_with_kill_9_goes_with_a_later_perflab_once_old() {
    let s = Scratch::new();
    let temp = s.path("tmp");
    std::fs::create_dir(&temp).unwrap();
    let mut perflab = s
        .perflab_process()
        .env("TMPDIR", &temp)
        .args(["run", "--runs", "2", "--warmup", "0", "--"])
        .args(["sh", "-c", "echo $$ >> pids; sleep 300"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let run_pid = || -> Option<u32> {
        let pids = std::fs::read_to_string(s.path("pids")).ok()?;
        pids.lines().next()?.trim().parse().ok()
    };
    assert!(
        eventually(Duration::from_secs(60), || run_pid().is_some()),
        "the run never started"
    );
    perflab.kill().unwrap(); // SIGKILL
    perflab.wait().unwrap();
    let run = run_pid().unwrap();
    if !eventually(Duration::from_secs(20), || !running(run)) {
        let _ = Command::new("kill").args(["-9", &run.to_string()]).status();
    }
    let left = profile_folders(&temp);
    assert_eq!(left.len(), 1, "{left:?}");
    let later = |s: &Scratch| {
        s.perflab()
            .env("TMPDIR", &temp)
            .args(["run", "-N", "true", "--runs", "1", "--quiet"])
            .output()
            .unwrap()
    };
    // Young, it might be a folder whose perflab has not locked it yet.
    let out = later(&s);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(profile_folders(&temp), left);
    let two_hours_ago = std::time::SystemTime::now() - Duration::from_secs(7200);
    std::fs::File::open(&left[0])
        .unwrap()
        .set_modified(two_hours_ago)
        .unwrap();
    let out = later(&s);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(profile_folders(&temp), Vec::<std::path::PathBuf>::new());
}
