//! perflab in a CI job: the job (system, pipeline, pull or merge request)
//! in the provenance of what it measures, and no progress display in the
//! job's log even when the job has a terminal.

mod common;

use std::process::Command;

use common::{Scratch, assert_reached_a_result};

/// The variables that make perflab think it runs in CI; removed so the
/// environment the tests run in (which may be a CI job) does not decide.
const CI_VARIABLES: [&str; 3] = ["CI", "GITHUB_ACTIONS", "GITLAB_CI"];

/// A short A/A experiment of `true`, its result written to `result.json`.
fn ab_of_true(s: &Scratch, vars: &[(&str, &str)]) -> serde_json::Value {
    let mut cmd = s.perflab();
    for name in CI_VARIABLES {
        cmd.env_remove(name);
    }
    let out = cmd
        .envs(vars.iter().copied())
        .args([
            "ab",
            "true",
            "true",
            "--min-runs",
            "2",
            "--max-runs",
            "3",
            "--quiet",
        ])
        .args(["--json", "result.json"])
        .output()
        .unwrap();
    assert_reached_a_result(&out);
    s.json("result.json")
}

#[test]
fn a_gitlab_merge_request_pipeline_is_recorded_in_the_provenance_and_shown_in_reports() {
    let s = Scratch::new();
    let doc = ab_of_true(
        &s,
        &[
            ("CI", "true"),
            ("GITLAB_CI", "true"),
            ("CI_PIPELINE_ID", "314"),
            (
                "CI_PIPELINE_URL",
                "https://gitlab.example/acme/app/-/pipelines/314",
            ),
            ("CI_MERGE_REQUEST_IID", "9"),
            ("CI_COMMIT_REF_NAME", "faster-parser"),
        ],
    );
    let ci = &doc["provenance"]["ci"];
    assert_eq!(ci["system"], "gitlab-ci", "{doc}");
    assert_eq!(ci["pipeline"], "314");
    assert_eq!(
        ci["pipeline_url"],
        "https://gitlab.example/acme/app/-/pipelines/314"
    );
    assert_eq!(ci["change_request"], "!9");

    let report = s.perflab().arg("report").output().unwrap();
    let markdown = String::from_utf8_lossy(&report.stdout);
    assert!(
        markdown.contains("in GitLab CI pipeline 314 for merge request !9"),
        "{markdown}"
    );
}

#[test]
fn a_github_push_run_is_recorded_with_its_branch() {
    let s = Scratch::new();
    let doc = ab_of_true(
        &s,
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_RUN_ID", "8001"),
            ("GITHUB_RUN_ATTEMPT", "1"),
            ("GITHUB_REF", "refs/heads/main"),
            ("GITHUB_REF_NAME", "main"),
        ],
    );
    let ci = &doc["provenance"]["ci"];
    assert_eq!(ci["system"], "github-actions", "{doc}");
    assert_eq!(ci["pipeline"], "8001");
    assert_eq!(ci["git_ref"], "main");
    assert!(ci.get("change_request").is_none(), "{ci}");
}

#[test]
fn outside_ci_the_provenance_names_no_ci_job() {
    let s = Scratch::new();
    let doc = ab_of_true(&s, &[]);
    assert!(doc["provenance"].get("ci").is_none(), "{doc}");
}

/// What `perflab run` writes on a terminal (a pseudo-terminal made by
/// util-linux's `script`), stdout and stderr together.
fn run_on_a_terminal(s: &Scratch, vars: &[(&str, &str)]) -> String {
    let perflab = format!(
        "'{}' run -r 12 --store '{}' 'sleep 0.01'",
        env!("CARGO_BIN_EXE_perflab"),
        s.path("terminal.db").display()
    );
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &perflab, "/dev/null"])
        .current_dir(s.dir.path());
    for name in CI_VARIABLES {
        cmd.env_remove(name);
    }
    let out = cmd
        .envs(vars.iter().copied())
        .output()
        .expect("util-linux's script runs (Debian: bsdutils)");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_progress_display_is_left_out_of_a_ci_job_even_on_a_terminal() {
    let s = Scratch::new();
    // The bar shows "runs done/12" as it goes; the result table does not.
    let at_a_desk = run_on_a_terminal(&s, &[]);
    assert!(at_a_desk.contains("/12"), "{at_a_desk}");

    let in_ci = run_on_a_terminal(&s, &[("GITHUB_ACTIONS", "true"), ("CI", "true")]);
    assert!(in_ci.contains("perflab run"), "{in_ci}");
    assert!(!in_ci.contains("/12"), "{in_ci}");
}
