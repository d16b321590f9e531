//! `perflab history --metric` over real commits, and `perflab report` on
//! stores that cannot give one.

mod common;

use common::{Scratch, git, init_git_repository};

/// Commits a change of the "code" (a file holding the cost), then measures
/// the same command, which prints `cost` from that file with a small ripple.
fn commit_and_measure(s: &Scratch, step: usize, value: f64) {
    std::fs::write(s.path("cost.txt"), value.to_string()).unwrap();
    git(s.dir.path(), &["add", "cost.txt"]);
    git(s.dir.path(), &["commit", "-qm", &format!("phase {step}")]);
    let command = "c=$(cat counter 2>/dev/null || echo 0); echo $((c+1)) > counter; \
         awk -v c=$c -v v=$(cat cost.txt) 'BEGIN { printf \"PERFLAB_METRIC cost %.4f ns\\n\", v * (1 + 0.01 * sin(c * 7.3)) }'";
    let out = s
        .perflab()
        .args(["run", "--name", "insert-10K", "-r", "12", command])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
}

fn repository() -> Scratch {
    let s = Scratch::new();
    init_git_repository(s.dir.path());
    std::fs::write(s.path(".gitignore"), ".perflab/\ncounter\n*.json\n*.md\n").unwrap();
    s
}

#[test]
fn the_history_by_commit_judges_each_step_and_flags_the_regression_with_exit_3() {
    let s = repository();
    for (step, value) in [(1, 1284.0), (2, 352.0), (3, 210.0), (4, 260.0)] {
        commit_and_measure(&s, step, value);
    }
    let out = s
        .perflab()
        .args([
            "history",
            "--metric",
            "cost",
            "--better",
            "lower",
            "--json",
            "h.json",
            "--markdown",
            "h.md",
        ])
        .output()
        .unwrap();
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
fn a_report_from_an_empty_store_or_of_an_unknown_experiment_is_refused_with_exit_2() {
    let s = Scratch::new();
    let out = s.perflab().args(["report"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("holds no experiment yet") && err.contains("perflab run"),
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
