//! `--perf-events`: perf_event_open counters of every run.

mod common;

use common::Scratch;

#[test]
fn software_counters_are_reported_for_every_run_and_missing_hardware_is_said_once() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            "--perf-events",
            "--min-runs",
            "2",
            "--max-runs",
            "2",
            "--json",
            "r.json",
        ])
        .args([common::busy(2000), common::busy(4000)])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let json = s.json("r.json");
    for variant in 0..2 {
        let metrics = &json["variants"][variant]["run_details"][0]["metrics"];
        assert!(
            metrics["perf.task-clock"].as_f64().unwrap() > 0.0,
            "{metrics}"
        );
        assert!(
            metrics["perf.page-faults"].as_f64().unwrap() > 0.0,
            "{metrics}"
        );
        assert!(
            metrics["perf.context-switches"].as_f64().is_some(),
            "{metrics}"
        );
        let hardware_missing = stderr.contains("no hardware performance counters");
        assert_eq!(
            metrics["perf.cycles"].is_null(),
            hardware_missing,
            "{metrics} {stderr}"
        );
    }
    assert!(
        stderr.matches("no hardware performance counters").count() <= 1,
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("perf.page-faults"),
        "each for A and B: {stdout}"
    );
}

#[test]
fn an_experiment_file_can_ask_for_counters() {
    let s = Scratch::new();
    let busy = |n| common::busy(n).replace('"', "\\\"");
    s.write(
        "perflab.toml",
        &format!(
            "perf_events = true\nmin_runs = 2\nmax_runs = 2\n\
             [[variant]]\ncommand = \"{}\"\n[[variant]]\ncommand = \"{}\"\n",
            busy(2000),
            busy(4000)
        ),
    );
    let out = s
        .perflab()
        .args(["ab", "-f", "perflab.toml", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let json = s.json("r.json");
    let metrics = &json["variants"][1]["run_details"][1]["metrics"];
    assert!(
        metrics["perf.task-clock"].as_f64().unwrap() > 0.0,
        "{metrics}"
    );
}
