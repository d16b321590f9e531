//! Each run in a cgroup of its own: what a command leaves running is ended
//! and counted (or kept with --keep-children), the run's CPU wait is
//! recorded as the `cpu-wait` metric, its CPU time covers processes nobody
//! waited for, and without a cgroup (`PERFLAB_NO_CGROUP=1`, as where none
//! is writable) the run delay of the command's own process stands in and
//! the result says what is not measured.

mod common;

use std::path::Path;
use std::process::Command;

use common::burners::Burners;
use common::machine::assert_no_cgroup_of_an_exited_perflab;
use common::{Scratch, stdout_of_success};

/// The pids a command appended to `children.txt`, one per run.
fn children(s: &Scratch) -> Vec<u32> {
    std::fs::read_to_string(s.path("children.txt"))
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect()
}

/// True, after saying so, where perflab cannot give runs a cgroup of their
/// own (not root, or no cgroup v2): the test has nothing to check there.
fn skipped_without_cgroups() -> bool {
    let here = cgroups_here();
    if !here {
        eprintln!("skipped: runs get no cgroup of their own here (not root, or no cgroup v2)");
    }
    !here
}

/// Whether perflab can give runs a cgroup of their own on this machine
/// (root, and a writable cgroup v2).
fn cgroups_here() -> bool {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let v2 = mountinfo.lines().any(|l| l.contains(" - cgroup2 "));
    // SAFETY: geteuid has no preconditions.
    v2 && unsafe { libc::geteuid() } == 0
}

/// Each run's value of a metric, from the result document.
fn per_run(doc: &serde_json::Value, metric: &str) -> Vec<f64> {
    doc["variants"][0]["run_details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| match metric {
            "cpu" => r["user_s"].as_f64().unwrap() + r["sys_s"].as_f64().unwrap(),
            "wall" => r["wall_s"].as_f64().unwrap(),
            _ => r["metrics"][metric].as_f64().unwrap_or(f64::NAN),
        })
        .collect()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

#[test]
fn a_child_the_command_left_running_is_ended_and_counted() {
    if skipped_without_cgroups() {
        return;
    }
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["run", "--runs", "3", "--", "sh", "-c"])
        .arg("sleep 300 & echo $! >> children.txt; echo started")
        .output()
        .unwrap();
    let stdout = stdout_of_success(&out);
    assert!(
        stdout.contains(
            "left 1 process running when it returned, in 3 of its 3 runs; perflab ended them"
        ),
        "{stdout}"
    );
    let pids = children(&s);
    assert_eq!(pids.len(), 3, "{pids:?}");
    for pid in pids {
        assert!(
            !common::running(pid),
            "the child {pid} of a run is still running"
        );
    }
}

#[test]
fn with_keep_children_a_child_left_running_stays_and_is_counted() {
    if skipped_without_cgroups() {
        return;
    }
    let s = Scratch::new();
    // The child lets go of the output pipes, so perflab does not wait for them.
    let out = s
        .perflab()
        .args(["run", "--runs", "2", "--keep-children", "--", "sh", "-c"])
        .arg("sleep 300 >/dev/null 2>&1 & echo $! >> children.txt")
        .output()
        .unwrap();
    let pids = children(&s);
    let all_alive = pids.iter().all(|&pid| common::running(pid));
    for &pid in &pids {
        let _ = Command::new("kill").arg(pid.to_string()).status();
    }
    let stdout = stdout_of_success(&out);
    assert!(
        stdout.contains("in 2 of its 2 runs; perflab left them running (--keep-children)"),
        "{stdout}"
    );
    assert!(all_alive, "a kept child was ended: {pids:?}");
}

/// Tests that start burners take turns: one test's burners would
/// otherwise slow another's runs.
static BURNERS_IN_USE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Each run's (wall, CPU, CPU wait) in seconds for a CPU-bound command,
/// one process without children (so that its own run delay covers it),
/// pinned to `cpu`; and the output.
fn pinned_runs(s: &Scratch, cpu: usize, no_cgroup: bool) -> (Vec<(f64, f64, f64)>, String) {
    let mut cmd = s.perflab();
    if no_cgroup {
        cmd.env("PERFLAB_NO_CGROUP", "1");
    }
    let out = cmd
        .args([
            "ab",
            "--pin",
            &cpu.to_string(),
            "--min-runs",
            "3",
            "--max-runs",
            "3",
            "--warmup",
            "0",
        ])
        .args(["--json", "ab.json", "--no-shell", "--", "sh", "-c"])
        .arg(common::busy(150_000))
        .output()
        .unwrap();
    let stdout = common::stdout_of_result(&out);
    let doc = s.json("ab.json");
    let runs = per_run(&doc, "wall")
        .into_iter()
        .zip(per_run(&doc, "cpu"))
        .zip(per_run(&doc, "cpu-wait"))
        .map(|((wall, cpu), wait)| (wall, cpu, wait))
        .collect();
    (runs, stdout)
}

/// A CPU-bound process is either running or waiting for a CPU: its wall
/// time is its CPU time plus its CPU wait, on a busy machine or a quiet
/// one. Returns the median share of wall time waited.
fn wait_share_checked(runs: &[(f64, f64, f64)], case: &str) -> f64 {
    for &(wall, cpu, wait) in runs {
        let unexplained = (wall - cpu - wait).abs();
        assert!(
            unexplained < 0.15 * wall,
            "{case}: wall {wall:.3} s is not CPU {cpu:.3} s + CPU wait {wait:.3} s"
        );
    }
    median(runs.iter().map(|(wall, _, wait)| wait / wall).collect())
}

#[test]
fn cpu_wait_is_recorded_under_real_burners_and_small_without_them() {
    if skipped_without_cgroups() {
        return;
    }
    let _turn = BURNERS_IN_USE.lock().unwrap_or_else(|e| e.into_inner());
    let s = Scratch::new();
    let cpu = 0;
    let (runs, _) = pinned_runs(&s, cpu, false);
    let alone = wait_share_checked(&runs, "alone");
    let burdened = {
        let _burners = Burners::on_cpu(cpu, 3);
        let (runs, _) = pinned_runs(&s, cpu, false);
        wait_share_checked(&runs, "beside 3 burners")
    };
    // Three busy loops on the run's one CPU leave it at most a quarter of
    // it: it waits three quarters of its wall time or more.
    assert!(
        burdened > 0.6,
        "waited {burdened:.3} of wall time beside 3 burners"
    );
    assert!(
        alone < burdened,
        "waited {alone:.3} alone, {burdened:.3} beside 3 burners"
    );
}

#[test]
fn without_a_cgroup_the_commands_own_run_delay_is_its_cpu_wait_and_the_result_says_so() {
    let _turn = BURNERS_IN_USE.lock().unwrap_or_else(|e| e.into_inner());
    let s = Scratch::new();
    let cpu = 0;
    let _burners = Burners::on_cpu(cpu, 3);
    let (runs, stdout) = pinned_runs(&s, cpu, true);
    let burdened = wait_share_checked(&runs, "beside 3 burners, without a cgroup");
    assert!(
        burdened > 0.6,
        "waited {burdened:.3} of wall time beside 3 burners"
    );
    assert!(
        stdout.contains(
            "cpu-wait is the run delay of each command's own process, without its children's"
        ),
        "{stdout}"
    );
}

#[test]
fn cpu_time_counts_a_child_nobody_waited_for() {
    if skipped_without_cgroups() {
        return;
    }
    let s = Scratch::new();
    // The shell starts a child that does a fixed amount of work, out of
    // its own children (a subshell starts it and exits), and waits on a
    // FIFO until the child is done: nobody ever calls wait4 for the child,
    // so wait4 never sees its CPU time.
    s.write(
        "child.sh",
        &format!("{}; echo done > done.fifo", common::busy(100_000)),
    );
    let command = "rm -f done.fifo; mkfifo done.fifo; (sh child.sh &); read x < done.fifo";
    let measure = |no_cgroup: bool, json: &str| {
        let mut cmd = s.perflab();
        if no_cgroup {
            cmd.env("PERFLAB_NO_CGROUP", "1");
        }
        let out = cmd
            .args([
                "run", "--runs", "2", "--json", json, "--", "sh", "-c", command,
            ])
            .output()
            .unwrap();
        stdout_of_success(&out);
        median(per_run(&s.json(json), "cpu"))
    };
    let contained = measure(false, "contained.json");
    let uncontained = measure(true, "uncontained.json");
    assert!(
        contained > 0.05 && contained > 5.0 * uncontained,
        "CPU time {contained:.3} s in a cgroup, {uncontained:.3} s from wait4 alone"
    );
}

#[test]
fn run_cgroups_are_removed_when_perflab_is_done() {
    if skipped_without_cgroups() {
        return;
    }
    let s = Scratch::new();
    let child = s
        .perflab()
        .args(["run", "--runs", "2", "--", "true"])
        .output()
        .unwrap();
    stdout_of_success(&child);
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    let mount = mountinfo
        .lines()
        .find_map(|l| {
            let (before, after) = l.split_once(" - ")?;
            after
                .starts_with("cgroup2 ")
                .then(|| before.split_whitespace().nth(4).unwrap().to_string())
        })
        .unwrap();
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap();
    let own = own.lines().find_map(|l| l.strip_prefix("0::")).unwrap();
    let home = Path::new(&mount).join(own.trim_start_matches('/'));
    // perflab's pid is gone; no cgroup of a perflab that is not running is left.
    assert_no_cgroup_of_an_exited_perflab(&home);
}

#[test]
fn the_runner_floor_script_measures_wake_ups_a_contained_run_against_a_bare_one_and_a_profile_lookup()
 {
    let s = Scratch::new();
    let script = script("bench-runner-floor.sh");
    let out = Command::new(&script)
        .args([
            "--runs",
            "5",
            "--round-trips",
            "50",
            "--moves",
            "2",
            "--lookups",
            "30",
        ])
        .current_dir(s.dir.path())
        .output()
        .unwrap();
    let stdout = stdout_of_success(&out);
    assert!(stdout.contains("load average at the start"), "{stdout}");
    assert!(
        stdout.contains("a round trip with the answering process sleeping")
            && stdout.contains("(50 round trips each)"),
        "{stdout}"
    );
    // Contained runs where a cgroup can be made (root and cgroup v2, as
    // the other tests of this file need), else the reason it was skipped.
    assert!(
        stdout.contains("times as long (7 rounds of 5 runs each")
            || stdout.contains("containment: skipped: making a cgroup needs root"),
        "{stdout}"
    );
    // The fork server's move into a v1 memory cgroup, through each of the
    // two files, where a hybrid system has one, else the reason it was
    // skipped.
    assert!(
        stdout.contains("entering a v1 memory cgroup by its cgroup.procs took")
            && stdout.contains("entering a v1 memory cgroup by its tasks took")
            && stdout.matches("(median of 2 moves,").count() == 2
            || stdout.contains("memory cgroup: skipped: moving into a cgroup needs root"),
        "{stdout}"
    );
    assert!(
        stdout.contains("looking for a missing file of a new name took")
            && stdout.contains("(30 of each)"),
        "{stdout}"
    );
    assert_refused(&script, &["--runs", "many"], "--runs takes a number");
    assert_refused(&script, &["--lookups", "0"], "--lookups takes a number");
}

#[test]
fn the_runner_gaps_script_splits_a_run_of_perflab_from_the_kernel_s_events() {
    // Recording the whole machine's tracepoints needs root (or a
    // kernel.perf_event_paranoid of -1), as the cgroups of this file do.
    if !common::machine::is_root() {
        eprintln!("skipped: recording the machine's sched tracepoints needs root");
        return;
    }
    let s = Scratch::new();
    let script = script("bench-runner-gaps.sh");
    let out = Command::new(&script)
        .args(["--runs", "5", "--perflab", env!("CARGO_BIN_EXE_perflab")])
        .current_dir(s.dir.path())
        .output()
        .unwrap();
    let stdout = stdout_of_success(&out);
    assert!(stdout.contains("load average at the start"), "{stdout}");
    // Each of the five runs was found in the machine's events and split.
    let perflab = stdout
        .lines()
        .find(|line| line.starts_with("perflab: "))
        .unwrap_or_else(|| panic!("no line for perflab in {stdout}"));
    assert!(
        perflab.starts_with("perflab: 5 runs; medians: between runs "),
        "{perflab}"
    );
    assert!(
        perflab.contains(" µs, a run ")
            && perflab.contains(" µs, mean ")
            && !perflab.contains("nan"),
        "{perflab}"
    );
    // The wake-ups at the command's exit and the server's work at its
    // start were found too. On a busy machine the server may be waiting
    // for a CPU, not asleep, at every exit of so few runs: then only that
    // is said.
    // "load average at the start: 0.28 0.72 0.87 on 2 CPUs; ..."
    let (load, cpus): (f64, f64) = stdout
        .lines()
        .find_map(|line| line.strip_prefix("load average at the start: "))
        .map(|rest| {
            let words: Vec<&str> = rest.split_whitespace().collect();
            (words[0].parse().unwrap(), words[4].parse().unwrap())
        })
        .unwrap_or_else(|| panic!("no load average in {stdout}"));
    let quiet = load < cpus;
    let woken = perflab.contains("the runner woken after ")
        && perflab.contains("other CPUs woken before it ");
    let never_asleep = perflab.contains("the runner never woken (not asleep at any exit)");
    assert!(woken || (!quiet && never_asleep), "{perflab}");
    assert!(
        perflab.contains("the runner's work once released ")
            && (!quiet || !perflab.contains("released not seen")),
        "{perflab}"
    );
    assert!(
        stdout.contains("hyperfine: 5 runs; medians:")
            || stdout.contains("hyperfine: skipped: not installed"),
        "{stdout}"
    );
    assert_refused(
        &script,
        &["--perflab", "/nonexistent/perflab"],
        "is not an executable file",
    );
}

/// A benchmark script of the project's `scripts` folder.
#[test]
fn the_taking_turns_script_times_commands_alternately_with_an_interval_of_each_paired_difference() {
    let s = Scratch::new();
    let script = script("bench-taking-turns.py");
    let out = Command::new(&script)
        .args(["--pairs", "6", "--", "sleep 0.01", "sleep 0.05"])
        .current_dir(s.dir.path())
        .output()
        .unwrap();
    let stdout = stdout_of_success(&out);
    assert!(stdout.contains("(6 rounds, the order reversed"), "{stdout}");
    // The second sleeps 40 ms longer: its paired difference, and the whole
    // of its interval, are above zero.
    let line = stdout.lines().find(|l| l.ends_with("sleep 0.05")).unwrap();
    let interval = line.split_once('[').unwrap().1.split_once(']').unwrap().0;
    let (low, high) = interval.split_once(", ").unwrap();
    let low: f64 = low.parse().unwrap();
    let high: f64 = high.parse().unwrap();
    assert!(low > 20.0 && high > low, "{stdout}");
    let one = Command::new(&script).args(["--", "true"]).output().unwrap();
    assert_eq!(one.status.code(), Some(2), "{one:?}");
    assert!(String::from_utf8_lossy(&one.stderr).contains("two or more commands"));
}

fn script(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts")
        .join(name)
}

/// `script` given `args` exits 2 and says `message`.
fn assert_refused(script: &Path, args: &[&str], message: &str) {
    let wrong = Command::new(script).args(args).output().unwrap();
    assert_eq!(wrong.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(stderr.contains(message), "{stderr}");
}
