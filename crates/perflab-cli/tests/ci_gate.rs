//! The CI gate of examples/ci: the step the GitHub Actions workflow and the
//! GitLab CI job run, taken from their files and run here in a repository
//! made by the test, with the variables the CI system would set and the
//! real perflab binary.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::commits::{BUILD, noisy_program, program, repository_of, repository_slowing_at};
use common::{Scratch, assert_exit};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/ci")
        .join(name)
}

/// The shell command of the CI file's step that calls the gate script
/// (`run: ...` in a workflow, `- ...` in a GitLab job's script).
fn gate_step(ci_file: &str) -> String {
    let text = std::fs::read_to_string(example(ci_file)).unwrap();
    text.lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("run: ").or_else(|| l.strip_prefix("- ")))
        .find(|command| command.contains("perflab-gate.sh"))
        .unwrap_or_else(|| panic!("{ci_file} has no step running perflab-gate.sh"))
        .to_string()
}

/// A repository as a CI job sees it: the gate script where the CI files
/// call it from (copied as a user would, left untracked).
fn checkout(s: &Scratch) {
    let step = gate_step("github-actions.yml");
    let script = step.rsplit(' ').next().unwrap();
    let target = s.dir.path().join(script);
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::copy(example("perflab-gate.sh"), target).unwrap();
}

/// Runs a CI file's gate step in the scratch repository with only `vars`
/// and the settings a user writes in the CI file: no variable of the
/// environment the tests run in (which may be a CI job itself) leaks in.
fn run_step(s: &Scratch, ci_file: &str, vars: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(gate_step(ci_file))
        .current_dir(s.dir.path())
        .env_clear();
    for kept in ["PATH", "HOME", "TMPDIR"] {
        if let Some(value) = std::env::var_os(kept) {
            cmd.env(kept, value);
        }
    }
    cmd.env("PERFLAB", env!("CARGO_BIN_EXE_perflab"))
        .env("PERFLAB_BUILD", BUILD)
        .env("PERFLAB_COMMAND", "./app")
        .env("PERFLAB_ARGS", "--measure work --better lower")
        .env("PERFLAB_STORE", ".perflab-ci/perflab.db");
    cmd.envs(vars.iter().copied());
    cmd.output().unwrap()
}

/// The variables of a GitHub Actions run for pull request #5, writing the
/// step summary to `summary`.
fn github_pull_request<'a>(run_id: &'a str, summary: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("CI", "true"),
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_RUN_ID", run_id),
        ("GITHUB_RUN_ATTEMPT", "1"),
        ("GITHUB_SERVER_URL", "https://github.example"),
        ("GITHUB_REPOSITORY", "acme/app"),
        ("GITHUB_REF", "refs/pull/5/merge"),
        ("GITHUB_REF_NAME", "5/merge"),
        ("GITHUB_STEP_SUMMARY", summary),
    ]
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_no_go_fails_the_step_after_writing_the_summary_and_the_store_grows_from_run_to_run() {
    let s = Scratch::new();
    let ids = repository_slowing_at(s.dir.path(), 1, 1);
    checkout(&s);
    let first_summary = s.write("summary-101.md", "output of an earlier step\n");

    let first = run_step(
        &s,
        "github-actions.yml",
        &github_pull_request("101", first_summary.to_str().unwrap()),
    );
    assert_exit(&first, 3);
    let summary = read(&first_summary);
    assert!(
        summary.starts_with("output of an earlier step\n"),
        "{summary}"
    );
    assert!(summary.contains("**NO-GO**"), "{summary}");
    assert!(
        summary.contains("in GitHub Actions run 101 for pull request #5"),
        "{summary}"
    );
    for (variant, id, rev) in [("base", &ids[0], "HEAD~1"), ("head", &ids[1], "HEAD")] {
        let built = format!("{variant} at `{}` ({rev})", &id[..12]);
        assert!(summary.contains(&built), "{built} not in {summary}");
    }
    assert!(
        stderr(&first).contains("failing the job"),
        "{}",
        stderr(&first)
    );

    let second_summary = s.path("summary-102.md");
    let second = run_step(
        &s,
        "github-actions.yml",
        &github_pull_request("102", second_summary.to_str().unwrap()),
    );
    assert_exit(&second, 3);
    let summary = read(&second_summary);
    assert!(summary.contains("in GitHub Actions run 102"), "{summary}");
    assert_eq!(
        summary.matches("ci-gate: base vs head").count(),
        2,
        "both runs' experiments are listed: {summary}"
    );

    let history = s
        .perflab()
        .args([
            "history",
            "--store",
            ".perflab-ci/perflab.db",
            "--name",
            "ci-gate",
        ])
        .output()
        .unwrap();
    assert_exit(&history, 0);
    let listing = String::from_utf8_lossy(&history.stdout);
    assert_eq!(listing.matches("NO-GO").count(), 2, "{listing}");
}

#[test]
fn an_inconclusive_verdict_passes_the_step_unless_asked_to_fail_it() {
    let s = Scratch::new();
    repository_of(s.dir.path(), &[program(1000), noisy_program(1000)]);
    checkout(&s);
    let summary = s.path("summary.md");
    let mut vars = github_pull_request("7", summary.to_str().unwrap());
    // The swings of the noisy program alternate run after run: a block
    // measured again on a busy machine would shift them between A and B.
    vars.push((
        "PERFLAB_ARGS",
        "--measure work --better lower --max-runs 10 --max-cpu-wait off",
    ));

    let passing = run_step(&s, "github-actions.yml", &vars);
    assert_exit(&passing, 0);
    let written = read(&summary);
    assert!(written.contains("INCONCLUSIVE"), "{written}");
    assert!(
        stderr(&passing).contains("not failing the job"),
        "{}",
        stderr(&passing)
    );

    vars.push(("PERFLAB_FAIL_ON_INCONCLUSIVE", "true"));
    let failing = run_step(&s, "github-actions.yml", &vars);
    assert_exit(&failing, 4);
    assert!(read(&summary).matches("INCONCLUSIVE").count() >= 2);
}

#[test]
fn a_gitlab_merge_request_job_compares_with_the_merge_base_and_leaves_its_report_as_artifacts() {
    let s = Scratch::new();
    let ids = repository_slowing_at(s.dir.path(), 2, 2);
    checkout(&s);
    let vars = [
        ("CI", "true"),
        ("GITLAB_CI", "true"),
        ("CI_PIPELINE_ID", "314"),
        ("CI_MERGE_REQUEST_IID", "9"),
        ("CI_MERGE_REQUEST_DIFF_BASE_SHA", ids[0].as_str()),
        ("PERFLAB_SUMMARY", "perflab-summary.md"),
        ("PERFLAB_HTML", "perflab-report.html"),
    ];
    let out = run_step(&s, "gitlab-ci.yml", &vars);
    assert_exit(&out, 3);
    let summary = read(&s.path("perflab-summary.md"));
    assert!(summary.contains("**NO-GO**"), "{summary}");
    assert!(
        summary.contains("in GitLab CI pipeline 314 for merge request !9"),
        "{summary}"
    );
    let base = format!("base at `{}`", &ids[0][..12]);
    assert!(summary.contains(&base), "{base} not in {summary}");
    let html = read(&s.path("perflab-report.html"));
    assert!(html.contains("GitLab CI pipeline 314"), "the HTML report");
}

#[test]
fn a_gate_missing_its_settings_or_its_base_revision_exits_2_saying_what_to_do() {
    let s = Scratch::new();
    repository_slowing_at(s.dir.path(), 1, 0);
    checkout(&s);
    let summary = s.path("summary.md");
    let mut vars = github_pull_request("1", summary.to_str().unwrap());
    vars.push(("PERFLAB_COMMAND", ""));
    let out = run_step(&s, "github-actions.yml", &vars);
    assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("PERFLAB_COMMAND is not set"),
        "{}",
        stderr(&out)
    );

    vars.pop();
    vars.push(("PERFLAB_BASE", "HEAD~5"));
    let out = run_step(&s, "github-actions.yml", &vars);
    assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("'HEAD~5' is not in this clone")
            && stderr(&out).contains("fetch-depth: 0"),
        "{}",
        stderr(&out)
    );
    assert!(!summary.exists(), "nothing measured, nothing summarised");
}
