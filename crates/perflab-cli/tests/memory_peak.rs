//! A run's peak memory: the peak charge of its memory cgroup where there is
//! one (cgroup v2's `memory.peak`, or a v1 memory cgroup of perflab's own
//! on a hybrid system), which counts every process of the tree at once;
//! rusage's largest resident set otherwise (`PERFLAB_NO_CGROUP=1`, or no
//! memory controller), which counts only the largest process. Each run
//! says which, and so does the report.

mod common;

use common::machine::{assert_no_cgroup_of_an_exited_perflab, memory_cgroup_here};
use common::{Scratch, stdout_of_result, stdout_of_success};

/// 64 MiB, in KiB.
const ONE_PROCESS_KIB: f64 = 64.0 * 1024.0;

/// A pipeline of two Python processes that each write 64 MiB and hold it
/// until both have: the first waits on a FIFO for the second, which opens
/// it only once its own 64 MiB are written, so at that moment both are
/// resident, whichever starts first.
const PIPELINE: &str = "rm -f both; mkfifo both; \
    /usr/bin/python3 -c \"held = b'a' * (64 << 20); open('both').read()\" \
    | /usr/bin/python3 -c \"held = b'b' * (64 << 20); open('both', 'w').write('x')\"";

/// Each run's peak memory in KiB and where it was read, and what perflab
/// printed.
fn measure(s: &Scratch, no_cgroup: bool) -> (Vec<(f64, String)>, String) {
    let mut cmd = s.perflab();
    if no_cgroup {
        cmd.env("PERFLAB_NO_CGROUP", "1");
    } else {
        cmd.env_remove("PERFLAB_NO_CGROUP");
    }
    let out = cmd
        .args([
            "run",
            "--runs",
            "3",
            "--json",
            "memory.json",
            "--",
            "sh",
            "-c",
            PIPELINE,
        ])
        .output()
        .unwrap();
    let stdout = stdout_of_success(&out);
    let doc = s.json("memory.json");
    let runs = doc["variants"][0]["run_details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let kib = r["peak_memory_kib"].as_f64().unwrap();
            let source = r["peak_memory_source"].as_str().unwrap_or("absent");
            (kib, source.to_string())
        })
        .collect();
    (runs, stdout)
}

#[test]
fn a_pipeline_s_peak_memory_from_its_memory_cgroup_is_both_processes_at_once() {
    let home = match memory_cgroup_here() {
        Ok(home) => home,
        Err(why) => {
            eprintln!("skipped: runs get no memory cgroup here ({why})");
            return;
        }
    };
    let s = Scratch::new();
    let (runs, stdout) = measure(&s, false);
    for (kib, source) in &runs {
        assert_eq!(source, "cgroup", "{runs:?}");
        assert!(
            *kib >= 2.0 * ONE_PROCESS_KIB,
            "a peak of {kib} KiB is less than the two processes' 2 × 64 MiB: {runs:?}"
        );
        assert!(*kib < 4.0 * ONE_PROCESS_KIB, "{runs:?}");
    }
    assert!(
        stdout.contains("peak memory: the process tree's peak cgroup memory charge"),
        "{stdout}"
    );
    if let Some(home) = home {
        assert_no_cgroup_of_an_exited_perflab(&home);
    }
}

#[test]
fn a_pipeline_s_peak_memory_from_rusage_is_its_largest_process_s_alone() {
    let s = Scratch::new();
    let (runs, stdout) = measure(&s, true);
    for (kib, source) in &runs {
        assert_eq!(source, "rusage", "{runs:?}");
        // One process's 64 MiB and its interpreter, not both processes'.
        assert!(
            *kib >= ONE_PROCESS_KIB && *kib < 1.6 * ONE_PROCESS_KIB,
            "{runs:?}"
        );
    }
    assert!(
        stdout.contains("peak memory: the largest process's maximum resident set (rusage)"),
        "{stdout}"
    );
}

#[test]
fn compare_of_peak_memory_read_from_a_cgroup_and_from_rusage_warns_naming_both() {
    let s = Scratch::new();
    let result = |source: &str, kib: [f64; 5]| {
        let runs: Vec<String> = kib
            .iter()
            .map(|k| {
                format!(
                    r#"{{"wall_s": {}, "user_s": 0.05, "sys_s": 0.01, "peak_memory_kib": {k},
                        "peak_memory_source": "{source}", "exit_code": 0}}"#,
                    k / 1e6
                )
            })
            .collect();
        let summary = r#"{"n": 5, "mean": 1, "sd": 0, "median": 1, "min": 1, "max": 1, "mad": 0,
            "q1": 1, "q3": 1, "outliers_mild": 0, "outliers_severe": 0}"#;
        format!(
            r#"{{"format": "perflab-result/1", "kind": "run", "name": null, "experiment_id": null,
               "status": "complete", "metric": {{"name": "wall", "unit": "s", "better": "lower"}},
               "decision": null, "verdict": null, "change": null, "ci": null,
               "variants": [{{"name": "pipeline", "command": "a | b", "runs": 5,
                 "summary": {summary}, "samples": [0.1, 0.11, 0.12, 0.13, 0.14],
                 "run_details": [{}]}}],
               "seed": null, "provenance": null}}"#,
            runs.join(", ")
        )
    };
    s.write(
        "cgroup.json",
        &result("cgroup", [140000.0, 141000.0, 142000.0, 140500.0, 141500.0]),
    );
    s.write(
        "rusage.json",
        &result("rusage", [75000.0, 76000.0, 74000.0, 75500.0, 74500.0]),
    );
    let out = s
        .perflab()
        .args([
            "compare",
            "rusage.json",
            "cgroup.json",
            "--measure",
            "peak-memory",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains(
            "the baseline's peak memory (rusage.json) is the largest process's maximum resident \
             set (rusage), the candidate's (cgroup.json) the process tree's peak cgroup memory \
             charge"
        ),
        "{stdout}{stderr}"
    );
    let out = s
        .perflab()
        .args(["compare", "rusage.json", "cgroup.json", "--measure", "wall"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("peak memory ("), "{stdout}");
}

#[test]
fn an_a_b_guarded_on_peak_memory_says_once_where_its_peak_memory_was_read() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            "--no-shell",
            "--guard",
            "peak-memory:10%",
            "--min-runs",
            "3",
            "--max-runs",
            "3",
            "--warmup",
            "0",
            "--max-cpu-wait",
            "off",
            "true",
            "true",
        ])
        .output()
        .unwrap();
    let stdout = stdout_of_result(&out);
    let said = stdout
        .lines()
        .filter(|line| line.trim_start().starts_with("peak memory: "))
        .count();
    assert_eq!(said, 1, "{stdout}");
}
