//! scripts/busy-load, the background load of scripts/bench-busy-machine.sh,
//! runs its burners only while its command runs, whichever way that ends;
//! and the benchmark itself, made tiny, prints its table from real
//! experiments of the built perflab.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::Scratch;

/// A script of the project's `scripts/` folder.
fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts")
        .join(name)
}

/// The online CPUs (`/sys/devices/system/cpu/online`, e.g. `0-1,4`): the
/// number busy-load multiplies its burners per CPU by.
fn online_cpus() -> usize {
    let list = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap();
    list.trim()
        .split(',')
        .map(|part| match part.split_once('-') {
            Some((a, b)) => b.parse::<usize>().unwrap() - a.parse::<usize>().unwrap() + 1,
            None => 1,
        })
        .sum()
}

/// The names (`/proc/PID/comm`) of the live processes of a process group:
/// zombies are left out, since they run nothing and only their parent can
/// make them go.
fn live_members(pgid: i32) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let fields: Vec<&str> = stat[close + 2..].split_whitespace().collect();
        if fields[0] != "Z" && fields[2].parse::<i32>() == Ok(pgid) {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            names.push(comm.trim().to_string());
        }
    }
    names.sort();
    names
}

/// What a load of one burner per CPU and a streamer is made of: its keeper,
/// the burners and the streamer.
fn one_burner_per_cpu() -> Vec<String> {
    let mut names = vec!["busy-load".to_string(), "busy-load-mem".to_string()];
    names.extend(std::iter::repeat_n(
        "busy-load-burn".to_string(),
        online_cpus(),
    ));
    names.sort();
    names
}

/// Waits for `done` to hold, failing the test with `what` if it does not
/// within two minutes (a bound against hanging forever, not a timing check).
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !done() {
        assert!(Instant::now() < deadline, "gave up waiting: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `busy-load run` (one burner per CPU, an 8 MiB streamer) of a command
/// that writes the load's process group id and its own pid, then waits for
/// the file `release` to appear; busy-load runs in a process group of its
/// own, as a shell starts a foreground job. Dropped, it kills that group
/// with SIGKILL, so that a failing test leaves no load running.
struct LoadedCommand {
    busy_load: Option<Child>,
    /// The load's process group id (BUSY_LOAD_PGID).
    load: i32,
    /// The pid of the command under load.
    command: i32,
}

impl LoadedCommand {
    /// Starts it and returns once the command runs under the load.
    fn start(s: &Scratch) -> Self {
        use std::os::unix::process::CommandExt;
        let child = Command::new(script("busy-load"))
            .args(["run", "--burners-per-cpu", "1", "--memory-mib", "8", "--"])
            .args([
                "sh",
                "-c",
                "echo $$ > command.pid; echo $BUSY_LOAD_PGID > load.pgid; \
                 while [ ! -e release ]; do sleep 0.02; done",
            ])
            .current_dir(s.dir.path())
            .process_group(0)
            .stdout(Stdio::null())
            .spawn()
            .expect("scripts/busy-load starts");
        let read = |name: &str| -> Option<i32> {
            std::fs::read_to_string(s.path(name))
                .ok()?
                .trim()
                .parse()
                .ok()
        };
        let mut started = Self {
            busy_load: Some(child),
            load: 0,
            command: 0,
        };
        wait_for("the command under load to start", || {
            read("load.pgid").is_some() && read("command.pid").is_some()
        });
        started.load = read("load.pgid").unwrap();
        started.command = read("command.pid").unwrap();
        started
    }

    /// The process group busy-load and its command run in.
    fn job(&self) -> i32 {
        self.busy_load.as_ref().unwrap().id() as i32
    }

    /// Waits for busy-load to exit and returns its exit code.
    fn exit_code(&mut self) -> Option<i32> {
        self.busy_load.take().unwrap().wait().unwrap().code()
    }
}

impl Drop for LoadedCommand {
    fn drop(&mut self) {
        if let Some(mut child) = self.busy_load.take() {
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
        }
    }
}

#[test]
fn busy_load_runs_its_burners_and_streamer_while_the_command_runs_and_none_after_it_ends() {
    let s = Scratch::new();
    let mut run = LoadedCommand::start(&s);
    assert_eq!(live_members(run.load), one_burner_per_cpu());
    s.write("release", "");
    assert_eq!(run.exit_code(), Some(0));
    assert_eq!(live_members(run.load), Vec::<String>::new());
}

#[test]
fn busy_load_stops_the_load_when_its_command_is_killed_and_exits_as_the_command_did() {
    let s = Scratch::new();
    let mut run = LoadedCommand::start(&s);
    assert_eq!(live_members(run.load), one_burner_per_cpu());
    unsafe { libc::kill(run.command, libc::SIGKILL) };
    assert_eq!(run.exit_code(), Some(128 + libc::SIGKILL));
    assert_eq!(live_members(run.load), Vec::<String>::new());
}

#[test]
fn busy_load_stops_the_load_on_ctrl_c_to_its_process_group() {
    let s = Scratch::new();
    let mut run = LoadedCommand::start(&s);
    assert_eq!(live_members(run.load), one_burner_per_cpu());
    // What a terminal does on Ctrl-C: SIGINT to the foreground job's group,
    // busy-load and its command, but not the load's group.
    unsafe { libc::kill(-run.job(), libc::SIGINT) };
    assert_eq!(run.exit_code(), Some(128 + libc::SIGINT));
    assert_eq!(live_members(run.load), Vec::<String>::new());
}

#[test]
fn busy_load_killed_with_sigkill_leaves_no_burner_behind() {
    let s = Scratch::new();
    let mut run = LoadedCommand::start(&s);
    assert_eq!(live_members(run.load), one_burner_per_cpu());
    unsafe { libc::kill(-run.job(), libc::SIGKILL) };
    assert_eq!(run.exit_code(), None, "busy-load was killed by a signal");
    // The kernel kills the keeper, then the burners, as each one's parent
    // dies (PR_SET_PDEATHSIG): nothing of busy-load could run to do it.
    wait_for("the load's processes to end after kill -9", || {
        live_members(run.load).is_empty()
    });
}

/// Stops a load `busy-load start` left running, when a test ends in any way.
struct StopOnDrop(PathBuf);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        let _ = Command::new(script("busy-load"))
            .arg("stop")
            .arg("--state")
            .arg(&self.0)
            .output();
    }
}

#[test]
fn busy_load_start_leaves_the_load_running_until_stop() {
    let s = Scratch::new();
    let state = s.path("load.pgid");
    let _stop = StopOnDrop(state.clone());
    let busy_load = |action: &str| -> Output {
        Command::new(script("busy-load"))
            .args([action, "--state", state.to_str().unwrap()])
            .args(if action == "start" {
                &["--burners-per-cpu", "1", "--memory-mib", "8"][..]
            } else {
                &[]
            })
            .output()
            .expect("scripts/busy-load starts")
    };
    let started = busy_load("start");
    assert_eq!(started.status.code(), Some(0), "{started:?}");
    let load: i32 = std::fs::read_to_string(&state)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(live_members(load), one_burner_per_cpu());
    let again = busy_load("start");
    let refusal = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(2), "{refusal}");
    assert!(refusal.contains("already running"), "{refusal}");
    let stopped = busy_load("stop");
    assert_eq!(stopped.status.code(), Some(0), "{stopped:?}");
    assert_eq!(live_members(load), Vec::<String>::new());
    assert!(!state.exists(), "stop removes the state file");
}

#[test]
fn busy_load_refuses_a_shape_that_is_not_a_whole_number_naming_the_flag() {
    let out = Command::new(script("busy-load"))
        .args(["run", "--burners-per-cpu", "four", "--", "true"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--burners-per-cpu"), "{stderr}");
}

/// The cells of the table's row that starts with `| workload | mode |`.
fn row<'a>(table: &'a str, workload: &str, mode: &str) -> Vec<&'a str> {
    let start = format!("| {workload} | {mode} |");
    let line = table
        .lines()
        .find(|l| l.starts_with(&start))
        .unwrap_or_else(|| panic!("no row {start}:\n{table}"));
    line.trim_matches('|').split(" | ").map(str::trim).collect()
}

#[test]
fn the_busy_machine_benchmark_counts_verdicts_and_widths_of_real_experiments_in_its_table() {
    let s = Scratch::new();
    let out = s.path("out");
    let run = Command::new(script("bench-busy-machine.sh"))
        .args(["--quick", "--perflab", env!("CARGO_BIN_EXE_perflab")])
        .args([
            "--workloads",
            "python",
            "--modes",
            "default",
            "--loads",
            "quiet",
        ])
        .args([
            "--experiments",
            "2",
            "--pairs",
            "3",
            "--ab-defaults",
            "--no-history",
            "--out",
        ])
        .arg(&out)
        .current_dir(s.dir.path())
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&run.stdout).to_string();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{table}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(table.contains("load average "), "{table}");
    assert!(table.contains("CPU pressure `some avg10="), "{table}");
    let cells = row(&table, "python", "default");
    assert_eq!(cells.len(), 14, "{table}");
    // False alarms quiet, then loaded (not measured here).
    let of_two = |cell: &str| {
        cell.strip_suffix(" of 2")
            .and_then(|n| n.parse::<u32>().ok())
            .is_some_and(|n| n <= 2)
    };
    assert!(of_two(cells[2]), "{table}");
    assert_eq!(cells[3], "–", "{table}");
    let width: f64 = cells[4].strip_suffix('%').unwrap().parse().unwrap();
    assert!(width > 0.0, "{table}");
    assert_eq!((cells[5], cells[6]), ("–", "–"), "{table}");
    assert!(of_two(cells[7]), "{table}");
    assert_eq!(cells[8], "–", "{table}");
    // The A/Bs of a known change ran with perflab ab's own run limits.
    let pairs: f64 = cells[9].parse().unwrap();
    assert!((10.0..=60.0).contains(&pairs), "{table}");
    assert_eq!(cells[10], "–", "{table}");
    assert!(
        table.contains("A/B experiments of perflab ab's own run limits"),
        "{table}"
    );
    assert_eq!(
        table
            .lines()
            .filter(|l| l.starts_with("| python |"))
            .count(),
        1,
        "{table}"
    );
    // Every experiment, one CSV row each: 2 A=A of 3 pairs and 2 A/B of
    // 10 to 60.
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 4, "{csv}");
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let mut kinds: Vec<&str> = rows.iter().map(|r| r[column("kind")]).collect();
    kinds.sort();
    assert_eq!(kinds, ["aa", "aa", "ab", "ab"], "{csv}");
    for r in &rows {
        let pairs: usize = r[column("pairs")].parse().unwrap();
        match r[column("kind")] {
            "aa" => assert_eq!(pairs, 3, "{csv}"),
            _ => assert!((10..=60).contains(&pairs), "{csv}"),
        }
    }
    assert!(
        rows.iter()
            .all(|r| ["INCONCLUSIVE", "NEUTRAL", "GO", "NO-GO"].contains(&r[column("verdict")])),
        "{csv}"
    );
    assert!(out.join("results.json").exists());
}
