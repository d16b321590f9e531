//! The streaming case study (`examples/streaming`), run through the real CLI
//! on a debug build of the pipeline and small inputs: its suite file runs
//! every waiting strategy on both engines with every record written, a
//! pipeline that drops records is refused by the suite's expectation, and
//! the original investigation's fixed sleep inside the timed region is
//! caught by perflab's warning that the spans were mostly off the CPU; the
//! timeline shows spinning partitions' polls and yields, and the thread
//! table splits the workers' time off the CPU into preempted and blocked.
//! The example's scripts run on fixed inputs whose answers are known:
//! `seed_procedures.py` (the seeds' truncated sums and unsorted
//! percentiles beside the exact ones) and `figures.py` (the README's
//! wording of changes and its readings of intervals). `investigate.sh`
//! itself runs for real on tiny inputs in a committed copy of the example
//! (tests/common/investigate.rs) on a release build of the pipeline, its
//! off-CPU profile of spin against notify included, and writes every
//! block of the README.

mod common;
mod native;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::{Scratch, assert_reached_a_result, stderr_of_refusal};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The example's binary, built once per test process by cargo (debug
/// profile, the target folder of this test run).
fn streaming() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::investigate::example_binary("streaming", false))
}

/// The example's binary in release mode, for `investigate.sh`: its check
/// that the seed's misplaced timers are caught needs spans whose probe
/// cost is that of an optimised build.
fn streaming_release() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::investigate::example_binary("streaming", true))
}

/// The case study's suite, two runs per cell, on `records` records.
fn suite(s: &Scratch, records: &str, flags: &str, extra: &[&str]) -> std::process::Output {
    s.perflab()
        .args(["ab", "-f"])
        .arg(workspace().join("examples/streaming/perflab.toml"))
        .args([
            "--min-runs",
            "2",
            "--max-runs",
            "2",
            "--warmup",
            "0",
            "--quiet",
        ])
        .args(extra)
        .env("STREAMING_BIN", streaming())
        .env("STREAMING_RECORDS", records)
        .env("STREAMING_FLAGS", flags)
        .output()
        .expect("run perflab")
}

#[test]
fn the_suite_runs_every_waiting_strategy_on_both_engines() {
    let s = Scratch::new();
    let out = suite(&s, "20007", "", &["--json", "suite.json"]);
    assert_reached_a_result(&out);
    let doc = s.json("suite.json");
    assert_eq!(doc["kind"], "suite");
    let mut cells: Vec<String> = doc["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .map(|c| {
            format!(
                "{} / {}",
                c["scenario"].as_str().unwrap(),
                c["variant"].as_str().unwrap()
            )
        })
        .collect();
    cells.sort_unstable();
    assert_eq!(
        cells,
        [
            "passthrough / notify",
            "passthrough / recv",
            "sql / notify",
            "sql / recv"
        ]
    );
}

#[test]
fn a_pipeline_that_drops_its_last_partial_batches_is_refused() {
    let s = Scratch::new();
    let out = suite(
        &s,
        "10007",
        "--drop-partial-batches",
        &["--scenario", "sql"],
    );
    let stderr = stderr_of_refusal(&out);
    assert!(stderr.contains("scenario \"sql\""), "{stderr}");
    assert!(
        stderr.contains("records_out / records_in = 10000 / 10007"),
        "{stderr}"
    );
}

#[test]
fn a_fixed_sleep_inside_the_timed_region_is_reported_as_time_off_the_cpu() {
    let s = Scratch::new();
    let command = format!("{} --records 20K --settle-ms 300", streaming().display());
    let out = s
        .perflab()
        .args([
            "run",
            "-r",
            "2",
            "--warmup",
            "0",
            "--quiet",
            "--name",
            "fixed sleep",
        ])
        .arg(&command)
        .env("PERFLAB_TABLE", "0")
        .output()
        .expect("run perflab");
    assert_reached_a_result(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let warning = stdout
        .lines()
        .find(|l| l.contains("inside spans on thread main (#1) was spent off the CPU"))
        .unwrap_or_else(|| panic!("no off-CPU warning for the main thread:\n{stdout}"));
    assert!(warning.contains("move it out of the spans"), "{warning}");
    let startup = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("startup "))
        .unwrap_or_else(|| panic!("no startup span:\n{stdout}"));
    assert!(startup.contains(" ms"), "{startup}");
}

/// The profile and the trace of one run of the pipeline waiting as `wait` says.
fn profile_and_trace(s: &Scratch, wait: &str) -> (serde_json::Value, serde_json::Value) {
    let profile = s.path(&format!("{wait}-profile.json"));
    let trace = s.path(&format!("{wait}-trace.json"));
    let out = Command::new(streaming())
        .args(["--records", "20007", "--wait", wait])
        .env("PERFLAB_PROFILE", &profile)
        .env("PERFLAB_TRACE", &trace)
        .env_remove("PERFLAB_TABLE")
        .output()
        .expect("run the pipeline");
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&profile).expect("the profile");
    (
        serde_json::from_str(&text).expect("profile JSON"),
        common::traces::read_checked(&trace),
    )
}

/// The tokio workers' rows of the thread table.
fn workers(profile: &serde_json::Value) -> Vec<&serde_json::Value> {
    let workers: Vec<&serde_json::Value> = profile["threads"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"].as_str().is_some_and(|n| n.contains("worker")))
        .collect();
    assert!(!workers.is_empty(), "{profile:#}");
    workers
}

#[test]
fn the_timeline_shows_partitions_spinning_and_the_thread_table_splits_the_workers_waiting() {
    let s = Scratch::new();
    let (spin_profile, spin_trace) = profile_and_trace(&s, "spin");
    let (notify_profile, notify_trace) = profile_and_trace(&s, "notify");
    // The timeline holds each partition's polls, and a spinning partition's
    // yields as a counter rising between them; a notified one never yields.
    for trace in [&spin_trace, &notify_trace] {
        assert!(!common::traces::slices(trace, "partition").is_empty());
    }
    let yields = common::traces::counter_values(&spin_trace, "partition_yields");
    assert!(
        yields.len() > 1 && yields.windows(2).all(|w| w[0] < w[1]),
        "{yields:?}"
    );
    assert!(common::traces::counter_values(&notify_trace, "partition_yields").is_empty());
    // The thread table splits every worker's time off the CPU into
    // preempted and blocked. (Which one dominates depends on the load and on
    // how often a notified partition finds its batch waiting: in this
    // workload the notified workers are busy most of the time, so the
    // comparison is the case study's to make on a quiet machine.)
    for profile in [&spin_profile, &notify_profile] {
        for worker in workers(profile) {
            let part = |field: &str| worker[field].as_u64().unwrap_or_else(|| panic!("{worker}"));
            let split = part("cpu_ns") + part("preempted_ns") + part("blocked_ns");
            // The three clocks are read microseconds apart: a 1% margin.
            let wall = part("wall_ns");
            assert!(split >= wall && split <= wall + wall / 100, "{worker}");
        }
    }
}

/// A trace of five `process` calls ending in the order 3.2, 0.4, 5.9, 0.9
/// and 1.7 µs, and three polls of 66, 66 and 500 ns, with the profile
/// of the same run.
fn seed_fixture(s: &Scratch) -> (PathBuf, PathBuf) {
    let mut events = vec![serde_json::json!({
        "name": "thread_name", "ph": "M", "ts": 0.0, "pid": 1, "tid": 1, "args": {"name": "main"}
    })];
    let mut ts = 0.0;
    for (name, cat, dur) in [
        ("process", "span", 3.2),
        ("process", "span", 0.4),
        ("process", "span", 5.9),
        ("process", "span", 0.9),
        ("process", "span", 1.7),
        ("partition receive", "poll", 0.066),
        ("partition receive", "poll", 0.066),
        ("partition receive", "poll", 0.5),
    ] {
        events.push(serde_json::json!({
            "name": name, "cat": cat, "ph": "X", "ts": ts, "dur": dur, "pid": 1, "tid": 1
        }));
        ts += 10.0;
    }
    let trace = serde_json::json!({
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {"format": "perflab-trace/1", "session": "streaming",
            "started_unix_ms": 0, "events_per_thread": 1000, "dropped_events": 0}
    });
    let profile = serde_json::json!({
        "format": "perflab-profile/1",
        "spans": [
            {"name": "process", "calls": 5, "p50_ns": 1700, "p99_ns": 5900},
            {"name": "partition receive", "calls": 1, "p50_ns": 1000, "p99_ns": 1000,
                "async": {"polls": 3, "poll_ns": 632, "cancelled": 0}}
        ]
    });
    (
        s.write("trace.json", &trace.to_string()),
        s.write("profile.json", &profile.to_string()),
    )
}

#[test]
fn the_seed_procedures_script_truncates_and_reads_unsorted_percentiles_beside_the_exact_ones() {
    let s = Scratch::new();
    let (trace, profile) = seed_fixture(&s);
    let out = Command::new("python3")
        .arg(workspace().join("examples/streaming/seed_procedures.py"))
        .args([&trace, &profile])
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let row = |name: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row {name}:\n{stdout}"))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    // Exact sum 12.1 µs; truncated to whole µs 3 + 0 + 5 + 0 + 1 = 9 µs,
    // 26% lost. Sorted, p50 is the 3rd of 5 (1.7 µs) and p99 the 5th (5.9
    // µs); unsorted, "p50" is index 2 (5.9 µs) and "p99" index 4 (1.7 µs).
    assert_eq!(
        row("process"),
        "process 5 12.100 µs 9.000 µs 26% 1.700 µs / 5.900 µs 5.900 µs / 1.700 µs 1.700 µs / 5.900 µs"
    );
    // Every poll is under a microsecond: truncation loses all of it.
    assert!(
        row("partition receive").starts_with("partition receive (polls) 3 632 ns 0 ns 100%"),
        "{stdout}"
    );
    assert_eq!(row("route"), "route never entered");
}

#[test]
fn the_seed_procedures_script_refuses_a_document_of_another_kind() {
    let s = Scratch::new();
    let (trace, _) = seed_fixture(&s);
    let out = Command::new("python3")
        .arg(workspace().join("examples/streaming/seed_procedures.py"))
        .args([&trace, &trace])
        .output()
        .expect("python3 runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is not a perflab-profile/1 document") && stderr.contains("trace.json"),
        "{stderr}"
    );
}

#[test]
fn the_readme_figures_follow_the_intervals_they_rest_on() {
    // figures.py's wording and readings on inputs whose answers are known.
    let program = r#"
import sys
sys.path.insert(0, sys.argv[1])
import figures
# A time halved: the stored change (positive is better) is +100%, its
# interval [+50%, +300%]; notify over spin is 0.5x, interval [0.25x, 0.67x].
print(figures.change_cell(1.0, [0.5, 3.0]))
print(figures.reading_of(1.0, [0.5, 3.0], "less", "more"))
# An interval that spans zero is undecided, whatever the estimate.
print(figures.reading_of(0.8321, [-0.055, 2.5522], "less", "more"))
# MOVER: 10 [8, 12] minus 4 [3, 5] is 6 [6 - sqrt(5), 6 + sqrt(5)].
a = {"marginal": 10.0, "marginal_lo": 8.0, "marginal_hi": 12.0}
b = {"marginal": 4.0, "marginal_lo": 3.0, "marginal_hi": 5.0}
d, lo, hi = figures.mover(a, b)
print(f"{d:.3f} {lo:.3f} {hi:.3f}")
print(figures.difference_reading(lo, hi, "a", "b"))
print(figures.difference_reading(-1.0, 2.0, "a", "b"))
"#;
    let out = Command::new("python3")
        .args(["-c", program])
        .arg(workspace().join("examples/streaming"))
        // Importing the script must leave no bytecode in the example.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "-50.0% [-75.0%, -33.3%]",
            "less",
            "undecided (the interval spans zero)",
            "6.000 3.764 8.236",
            "a costs more per record than b",
            "not told apart (the interval includes zero)",
        ],
        "{stdout}"
    );
}

/// The example's files the script needs, in a committed copy of the workspace's layout.
const FILES: &[&str] = &[
    "examples/publish-gate.sh",
    "examples/figure_words.py",
    "examples/streaming/README.md",
    "examples/streaming/figures.py",
    "examples/streaming/investigate.sh",
    "examples/streaming/perflab.toml",
    "examples/streaming/seed_procedures.py",
];

/// The smallest sizes whose every block still has an interval to read:
/// three runs per point and cell, three record counts, 10,000 records.
const TINY: &[(&str, &str)] = &[
    ("STREAMING_RECORDS", "10K"),
    ("STREAMING_RUNS", "3"),
    ("STREAMING_MAX_RUNS", "3"),
    ("STREAMING_SWEEP_RUNS", "3"),
    ("STREAMING_SIZES", "2K,5K,10K"),
];

#[test]
fn investigate_sh_profiles_spin_against_notify_off_the_cpu_and_fills_every_block_of_the_readme() {
    native::require_tool("perf");
    let s = common::investigate::repository("streaming", FILES);
    let mut sizes: Vec<(&str, &str)> = TINY.to_vec();
    let binary = streaming_release()
        .to_str()
        .expect("a UTF-8 path")
        .to_string();
    sizes.push(("STREAMING_BIN", &binary));
    let out = common::investigate::run(&s, "streaming", &sizes);
    common::investigate::assert_success(&out);
    let readme = std::fs::read_to_string(s.path("examples/streaming/README.md")).unwrap();
    common::investigate::assert_every_block_filled(
        &s,
        &readme,
        &[
            "answer",
            "budget",
            "spans",
            "threads",
            "futures",
            "offcpu",
            "ab",
            "per-record",
            "batch",
            "partitions",
            "suite",
            "dropped",
            "misplaced",
            "settle",
            "seed-procedures",
            "warnings",
        ],
    );
    // The profile: one run of each strategy, spin the baseline, each with
    // its threads' time off the CPU split into preempted and blocked.
    let doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(s.path("examples/streaming/out/offcpu.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(doc["format"], "perflab-sampling/1");
    let profiles = doc["profiles"].as_array().unwrap();
    assert_eq!(profiles.len(), 2, "{doc:#}");
    for (profile, wait) in profiles.iter().zip(["--wait spin", "--wait notify"]) {
        assert!(
            profile["command"].as_str().unwrap().ends_with(wait),
            "{profile:#}"
        );
        let threads = profile["off_cpu"]["threads"].as_array().unwrap();
        assert!(threads.len() >= 2, "{profile:#}");
        for thread in threads {
            for field in ["on_cpu_ns", "preempted_ns", "blocked_ns"] {
                assert!(thread[field].is_u64(), "{field} of {thread}");
            }
        }
    }
    assert!(s.path("examples/streaming/out/offcpu.svg").is_file());
    // The block: a row per strategy and thread (perf names the pipeline's
    // threads alike, after the program), the longest stacks of each
    // strategy, a sentence on each; every warning perflab gave about the
    // profiles, or that it gave none.
    let blocks = common::investigate::blocks(&readme);
    let offcpu = common::investigate::block(&blocks, "offcpu");
    assert!(
        offcpu.contains("`--records 10K`; A: spin (the baseline), B: notify)"),
        "{offcpu}"
    );
    for strategy in ["spin", "notify"] {
        let threads = offcpu
            .lines()
            .filter(|l| l.starts_with(&format!("| {strategy} | `streaming` ")))
            .count();
        assert!(
            threads >= 2,
            "no row of each thread of {strategy}:\n{offcpu}"
        );
        assert!(
            offcpu.lines().any(|l| {
                l.starts_with(&format!("| {strategy} | preempted | "))
                    || l.starts_with(&format!("| {strategy} | blocked | "))
            }),
            "no stack of {strategy}:\n{offcpu}"
        );
        assert!(
            offcpu.contains(&format!("- {strategy}: its threads were ")),
            "no sentence on {strategy}:\n{offcpu}"
        );
    }
    assert!(
        offcpu.contains("preempted") && offcpu.contains("blocked") && offcpu.contains("_[k]`"),
        "no stack ending in the kernel's frame that names the wait:\n{offcpu}"
    );
    let warnings = doc["warnings"].as_array().unwrap();
    if warnings.is_empty() {
        assert!(offcpu.contains("perflab gave no warning"), "{offcpu}");
    }
    for warning in warnings {
        assert!(
            offcpu.contains(warning.as_str().unwrap()),
            "the warning {warning} is not in the block:\n{offcpu}"
        );
    }
}

#[test]
fn the_committed_readme_has_every_block_filled_and_no_figure_outside_them() {
    let readme = std::fs::read_to_string(workspace().join("examples/streaming/README.md")).unwrap();
    for (name, body) in common::investigate::blocks(&readme) {
        assert!(!body.trim().is_empty(), "block `{name}` is empty");
    }
    common::investigate::assert_no_figure_in_prose(&readme);
}
