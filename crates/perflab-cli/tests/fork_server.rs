//! Runs started through the fork server (`perflab-exec --serve`): their
//! peak memory is their own, the environment and directory reach them, and
//! a server killed under perflab ends the experiment with a clear error.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::Scratch;

/// A field of /proc/PID/status in KiB, e.g. `VmRSS`.
fn status_kib(pid: u32, field: &str) -> Option<f64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = text.lines().find(|l| l.starts_with(&format!("{field}:")))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The processes whose parent is `pid`.
fn children(pid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

/// Waits for `child` to exit, killing it and failing after `limit`.
fn wait_at_most(mut child: Child, limit: Duration) -> std::process::Output {
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("perflab did not end within {limit:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn perflab(s: &Scratch, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_perflab"))
        .current_dir(s.dir.path())
        .env_remove("PERFLAB_STORE")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_run_started_through_the_fork_server_reports_the_peak_memory_of_the_program_itself() {
    let s = Scratch::new();
    let args = ["run", "-N", "sleep 0.4", "--runs", "2", "--warmup", "0"];
    let child = perflab(&s, &[&args[..], &["--json", "r.json"]].concat());
    std::thread::sleep(Duration::from_millis(300));
    let perflab_rss = status_kib(child.id(), "VmRSS").expect("perflab is running");
    let out = wait_at_most(child, Duration::from_secs(30));
    common::assert_exit(&out, 0);
    let json = s.json("r.json");
    let runs = json["variants"][0]["run_details"].as_array().unwrap();
    for run in runs {
        let peak = run["peak_memory_kib"].as_f64().unwrap();
        // sleep's own peak is about 1 MiB; forked from perflab it would
        // start from perflab's resident size.
        assert!(
            peak > 100.0 && peak < 2048.0,
            "peak {peak} KiB, perflab {perflab_rss} KiB"
        );
        assert!(
            peak < perflab_rss,
            "peak {peak} KiB, perflab {perflab_rss} KiB"
        );
    }
}

#[test]
fn environment_overrides_and_the_working_directory_reach_a_command_started_by_the_fork_server() {
    let s = Scratch::new();
    std::fs::create_dir(s.path("work")).unwrap();
    let record = r#"echo "$PERFLAB_T_SET|$PERFLAB_T_KEPT|$(pwd -P)|$(tr '\0' ' ' < /proc/$PPID/cmdline)" >> seen.txt"#;
    let out = Command::new(env!("CARGO_BIN_EXE_perflab"))
        .current_dir(s.dir.path())
        .env_remove("PERFLAB_STORE")
        .env("PERFLAB_T_SET", "inherited")
        .env("PERFLAB_T_KEPT", "kept")
        .args(["ab", record, record, "--env-a", "PERFLAB_T_SET=overridden"])
        .args(["--env-b", "PERFLAB_T_SET=overridden", "--cwd", "work"])
        .args(["--warmup", "0", "--max-runs", "2", "--min-runs", "2"])
        .output()
        .unwrap();
    let seen = std::fs::read_to_string(s.path("work/seen.txt")).unwrap_or_else(|_| {
        panic!(
            "no run wrote seen.txt in work/: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let work = s.path("work").canonicalize().unwrap();
    for line in seen.lines() {
        let fields: Vec<&str> = line.split('|').collect();
        assert_eq!(fields[..3], ["overridden", "kept", work.to_str().unwrap()]);
        assert!(
            fields[3].contains("perflab-exec --serve"),
            "started by {}",
            fields[3]
        );
    }
    assert!(seen.lines().count() >= 4, "{seen}");
}

/// Writes an executable `#!/bin/sh` script of `body` at `path`.
fn script(path: &std::path::Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_program_the_fork_server_found_in_path_that_goes_away_is_searched_for_again() {
    let s = Scratch::new();
    let seen = s.path("seen.txt");
    // The first one found removes itself at its first run; the next run
    // must find the second, as a search of PATH at every run would.
    script(
        &s.path("first/prog"),
        &format!("rm -f \"$0\"; echo first >> {}", seen.display()),
    );
    script(
        &s.path("second/prog"),
        &format!("echo second >> {}", seen.display()),
    );
    let path = format!(
        "{}:{}:/usr/bin:/bin",
        s.path("first").display(),
        s.path("second").display()
    );
    let out = s
        .perflab_process()
        .env("PATH", path)
        .args(["run", "-N", "prog", "--runs", "3", "--warmup", "0"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let seen = std::fs::read_to_string(seen).unwrap();
    assert_eq!(
        seen.lines().collect::<Vec<_>>(),
        ["first", "second", "second"]
    );
}

#[test]
fn a_program_the_fork_server_found_in_path_runs_under_the_name_it_was_given() {
    let s = Scratch::new();
    let seen = s.path("seen.txt");
    let record = format!("echo \"$0\" >> {}", seen.display());
    let out = s
        .perflab_process()
        .args([
            "run", "-N", "--runs", "2", "--warmup", "0", "--", "sh", "-c",
        ])
        .arg(&record)
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let seen = std::fs::read_to_string(seen).unwrap();
    assert_eq!(seen.lines().collect::<Vec<_>>(), ["sh", "sh"]);
}

#[test]
fn a_command_started_by_the_fork_server_holds_no_socket_of_perflab_or_the_server() {
    let s = Scratch::new();
    let record = r#"ls -l /proc/$$/fd/ >> fds.txt; tr '\0' ' ' < /proc/$PPID/cmdline >> fds.txt"#;
    let out = s
        .perflab_process()
        .args(["run", record, "--runs", "2", "--warmup", "0"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let fds = std::fs::read_to_string(s.path("fds.txt")).unwrap();
    assert!(fds.contains("perflab-exec --serve"), "{fds}");
    assert!(!fds.contains("socket:"), "{fds}");
}

#[test]
fn killing_the_fork_server_mid_experiment_stops_with_a_clear_error_and_no_hang() {
    let s = Scratch::new();
    let child = perflab(&s, &SLEEPS);
    let server = fork_server_of(&child);
    std::thread::sleep(Duration::from_millis(700));
    let runs = children(server);
    // SAFETY: kill(2) on the server this test found.
    unsafe { libc::kill(server as i32, libc::SIGKILL) };
    let out = wait_at_most(child, Duration::from_secs(20));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("perflab-exec, the fork server") && err.contains("killed by signal 9"),
        "{err}"
    );
    assert!(err.contains("marked incomplete"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // The run under way was stopped, not left running without a parent.
    for pid in runs {
        assert!(
            ends_soon(pid),
            "the run {pid} ({}) still runs",
            cmdline(pid)
        );
    }
}

#[test]
fn a_stopped_fork_server_ends_the_experiment_with_an_error_instead_of_a_hang() {
    let s = Scratch::new();
    let child = perflab(&s, &SLEEPS);
    let server = fork_server_of(&child);
    std::thread::sleep(Duration::from_millis(700));
    // SAFETY: kill(2) on the server this test found.
    unsafe { libc::kill(server as i32, libc::SIGSTOP) };
    let out = wait_at_most(child, Duration::from_secs(40));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    // Stopped under a run, or between runs with a request waiting.
    assert!(
        err.contains("did not report the end of the run") || err.contains("did not answer"),
        "{err}"
    );
    assert!(err.contains("marked incomplete"), "{err}");
    assert!(ends_soon(server), "perflab left its stopped server behind");
}

/// An experiment of many short runs, for killing its server under it.
const SLEEPS: [&str; 7] = [
    "ab",
    "sleep 0.3",
    "sleep 0.3",
    "--warmup",
    "0",
    "--max-runs",
    "100",
];

/// The fork server perflab started, once it is there.
fn fork_server_of(perflab: &Child) -> u32 {
    let started = Instant::now();
    loop {
        let found = children(perflab.id())
            .into_iter()
            .find(|&p| cmdline(p).contains("--serve"));
        if let Some(pid) = found {
            return pid;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no fork server"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// True once `pid` has exited (a zombie, or gone).
fn ended(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .next();
    matches!(state, None | Some("Z"))
}

/// Waits up to two seconds for `pid` to exit.
fn ends_soon(pid: u32) -> bool {
    let since = Instant::now();
    while !ended(pid) && since.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(10));
    }
    ended(pid)
}
