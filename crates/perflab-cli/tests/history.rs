//! `perflab history --metric` over real commits, and `perflab report` on
//! stores that cannot give one.

mod common;

use common::Scratch;
use common::history::{commit_and_measure, repository};

#[test]
fn the_history_by_commit_with_runs_shuffled_finds_each_change_point_and_flags_the_regression_with_exit_3()
 {
    let s = repository();
    for (step, value) in [(1, 1284.0), (2, 352.0), (3, 210.0), (4, 260.0)] {
        commit_and_measure(&s, step, value);
    }
    let history = |permute: &str| {
        s.perflab()
            .args([
                "history",
                "--metric",
                "cost",
                "--better",
                "lower",
                "--permute",
                permute,
                "--json",
                "h.json",
                "--markdown",
                "h.md",
            ])
            .output()
            .unwrap()
    };
    // Four commits are too few to tell a change from noise shared by one
    // commit's runs: shuffling whole commits finds nothing.
    let out = history("commits");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("no change point found"), "{stdout}");
    // Runs taken as independent of their commit's conditions, each step is one.
    let out = history("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    let json = s.json("h.json");
    assert_eq!(json["format"], "perflab-history/1");
    assert_eq!(json["name"], "insert-10K");
    let steps = json["series"][0]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4, "{stdout}");
    let verdicts: Vec<&str> = steps[1..]
        .iter()
        .map(|s| s["change"]["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["GO", "GO", "NO-GO"], "{stdout}");
    assert_eq!(steps[3]["change"]["regression"], true);
    let changes = json["series"][0]["change_points"].as_array().unwrap();
    let at: Vec<u64> = changes
        .iter()
        .map(|c| c["step"].as_u64().unwrap())
        .collect();
    assert_eq!(at, [1, 2, 3], "{stdout}");
    let total = json["series"][0]["total"]["change"].as_f64().unwrap();
    assert!(
        (total - (1284.0 / 260.0 - 1.0)).abs() < 0.1,
        "total {total}"
    );
    assert!(stdout.contains("← regression"), "{stdout}");
    let md = std::fs::read_to_string(s.path("h.md")).unwrap();
    assert!(
        md.contains("| insert-10K at commit |") && md.contains("**total**"),
        "{md}"
    );
}

#[test]
fn a_metric_no_run_has_is_said_plainly() {
    let s = repository();
    commit_and_measure(&s, 1, 100.0);
    let out = s
        .perflab()
        .args(["history", "--metric", "throughput", "--better", "higher"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("no runs with metric 'throughput' found")
    );
}

#[test]
fn outside_a_git_checkout_the_steps_are_called_experiments_not_commits() {
    let s = Scratch::new();
    for _ in 0..2 {
        let out = s
            .perflab()
            .args(["run", "--quiet", "-r", "4", "true"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
    }
    let out = s
        .perflab()
        .args(["history", "--metric", "wall"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The scratch folder is outside any repository, so runs have no commit.
    assert!(
        stdout.contains("over 2 experiments (no git commit recorded)"),
        "{stdout}"
    );
}

#[test]
fn a_report_where_nothing_was_measured_or_of_an_unknown_experiment_is_refused_with_exit_2() {
    let s = Scratch::new();
    let out = s.perflab().args(["report"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no store at .perflab/perflab.db") && err.contains("perflab run"),
        "{err}"
    );
    let s = repository();
    commit_and_measure(&s, 1, 100.0);
    let out = s
        .perflab()
        .args(["report", "no-such-name"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("perflab: error: EXPERIMENT: there is no experiment 'no-such-name'"),
        "{err}"
    );
    let out = s.perflab().args(["report", "insert-10K"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .starts_with("## perflab report\n\n### run #1: insert-10K")
    );
}
