//! Profiles written by instrumented runs: perflab sets PERFLAB_PROFILE for
//! each run (of `run`, `ab` and `sweep`), stores what comes back and shows
//! span figures across runs.
//! The runs here copy profiles recorded from the `spans` example into the
//! path perflab gives them, so the figures are known.

mod common;

use common::{Scratch, fixture};

fn copy_profile(name: &str) -> String {
    format!("cp '{}' \"$PERFLAB_PROFILE\"", fixture(name).display())
}

#[test]
fn run_shows_the_span_table_across_runs_with_the_unattributed_time() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "run",
            &copy_profile("spans-baseline.json"),
            "-r",
            "3",
            "--json",
            "r.json",
        ])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("compute")
            && stdout.contains("(unattributed)")
            && stdout.contains("% wall"),
        "{stdout}"
    );
    let json = s.json("r.json");
    let spans = json["spans"].as_array().unwrap();
    let compute = spans.iter().find(|s| s["name"] == "compute").unwrap();
    assert_eq!(compute["per_variant"][0]["runs"], 3);
    assert!((compute["per_variant"][0]["self_s"].as_f64().unwrap() - 924_474e-9).abs() < 1e-12);
    assert_eq!(spans.last().unwrap()["name"], "(unattributed)");
    // Warnings of the profile (a counter never incremented) are shown once, not per run.
    let warnings = stdout.lines().filter(|line| line.contains("warning:"));
    assert_eq!(
        warnings
            .filter(|line| line.contains("paths_over_error_budget"))
            .count(),
        1,
        "{stdout}"
    );
    // Counters and gauges across runs, beside the spans.
    let counters = json["counters"].as_array().unwrap();
    let malformed = counters
        .iter()
        .find(|c| c["name"] == "malformed_lines")
        .unwrap();
    assert_eq!(malformed["per_variant"][0]["events"], 52.0);
    assert_eq!(malformed["per_variant"][0]["runs_counted"], 3);
    let never = counters
        .iter()
        .find(|c| c["name"] == "paths_over_error_budget")
        .unwrap();
    assert_eq!(never["per_variant"][0]["runs_counted"], 0);
    let records_left = &json["gauges"][0];
    assert_eq!(records_left["name"], "records_left");
    assert_eq!(records_left["per_variant"][0]["mean"], 5366.0);
    assert!(
        stdout.contains("counters: median events per run")
            && stdout.contains("paths_over_error_budget  0, in 0 of 3 runs")
            && stdout.contains("records_left  5366 [758 … 9974]"),
        "{stdout}"
    );
}

#[test]
fn ab_shows_which_spans_moved_and_stores_every_profile() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            &copy_profile("spans-baseline.json"),
            &copy_profile("spans-slow-compute.json"),
            "--max-runs",
            "12",
            "--json",
            "r.json",
            "--markdown",
            "r.md",
        ])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 3 | 4)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = s.json("r.json");
    let span = |name: &str| {
        json["spans"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()
            .clone()
    };
    let compute = span("compute");
    assert_eq!(compute["moved"], true);
    let expected = 924_474.0 / 2_063_448.0 - 1.0;
    assert!(
        (compute["change"].as_f64().unwrap() - expected).abs() < 1e-9,
        "{compute}"
    );
    assert_eq!(span("generate")["per_variant"].as_array().unwrap().len(), 2);
    let md = std::fs::read_to_string(s.path("r.md")).unwrap();
    assert!(
        md.contains("| compute |") && md.contains("**moved**"),
        "{md}"
    );
    let db = rusqlite::Connection::open(s.store()).unwrap();
    let with_profile: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM runs WHERE profile_json LIKE '%perflab-profile/1%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let runs: i64 = db
        .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(with_profile, runs, "every run's profile is stored");
}

#[test]
fn an_unreadable_profile_is_reported_but_does_not_stop_the_measurement() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "run",
            "echo '{\"format\":\"other/9\"}' > \"$PERFLAB_PROFILE\"",
            "-r",
            "2",
        ])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("the profile could not be read") && stdout.contains("other/9"),
        "{stdout}"
    );
    let out = s.perflab().arg("report").output().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert_eq!(
        report.matches("the profile could not be read").count(),
        1,
        "the report says it once: {report}"
    );
}

#[test]
fn sweep_runs_store_their_profiles_and_the_report_shows_the_spans_of_each_point() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["sweep", "-p", "n=1,2", "--warmup", "0", "--min-runs", "2"])
        // Every run's profile is counted: a block measured again on a busy
        // machine would add runs.
        .args(["--max-runs", "2", "--max-cpu-wait", "off"])
        .arg(format!(
            "test {{n}} -gt 0 && {}",
            copy_profile("spans-baseline.json")
        ))
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let db = rusqlite::Connection::open(s.store()).unwrap();
    let (runs, with_profile): (i64, i64) = db
        .query_row(
            "SELECT COUNT(*), COUNT(profile_json) FROM runs WHERE profile_json IS NULL \
             OR profile_json LIKE '%perflab-profile/1%'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        (runs, with_profile),
        (4, 4),
        "every sweep run's profile is stored"
    );
    let out = s
        .perflab()
        .args(["report", "--markdown", "r.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let md = std::fs::read_to_string(s.path("r.md")).unwrap();
    assert!(
        md.contains("#### Where the time goes")
            && md.contains("| `generate` |")
            && md.contains("| test n=1 | 2 |")
            && md.contains("| test n=2 | 2 |"),
        "{md}"
    );
    assert_eq!(
        md.matches("paths_over_error_budget").count(),
        1,
        "a warning every point gives is said once: {md}"
    );
}
