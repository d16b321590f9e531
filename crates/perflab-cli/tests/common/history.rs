//! A git repository whose "code" is a file holding a cost, measured commit
//! after commit: what `perflab history` is tested on.

use super::{Scratch, assert_exit, git, init_git_repository};

/// A scratch folder made a repository that ignores perflab's files.
pub fn repository() -> Scratch {
    let s = Scratch::new();
    init_git_repository(s.dir.path());
    std::fs::write(s.path(".gitignore"), ".perflab/\ncounter\n*.json\n*.md\n").unwrap();
    s
}

/// Commits a change of the "code" (a file holding the cost), then measures
/// the same command under the name `name`, which prints `cost` from that
/// file with a small deterministic ripple (1%).
pub fn commit_and_measure_named(s: &Scratch, name: &str, step: usize, value: f64) {
    commit_and_measure_as(s, (name, None), step, value);
}

/// [`commit_and_measure_named`] under the name `insert-10K`, as if on the
/// machine `host` (`PERFLAB_HOST`).
pub fn commit_and_measure_on(s: &Scratch, host: &str, step: usize, value: f64) {
    commit_and_measure_as(s, ("insert-10K", Some(host)), step, value);
}

fn commit_and_measure_as(s: &Scratch, (name, host): (&str, Option<&str>), step: usize, value: f64) {
    std::fs::write(s.path("cost.txt"), value.to_string()).unwrap();
    git(s.dir.path(), &["add", "cost.txt"]);
    git(
        s.dir.path(),
        &["commit", "-qm", &format!("phase {step}"), "--allow-empty"],
    );
    let command = "c=$(cat counter 2>/dev/null || echo 0); echo $((c+1)) > counter; \
         awk -v c=$c -v v=$(cat cost.txt) 'BEGIN { printf \"PERFLAB_METRIC cost %.4f ns\\n\", v * (1 + 0.01 * sin(c * 7.3)) }'";
    let mut perflab = s.perflab();
    if let Some(host) = host {
        perflab.env("PERFLAB_HOST", host);
    }
    let out = perflab
        .args(["run", "--name", name, "-r", "12", command])
        .output()
        .unwrap();
    assert_exit(&out, 0);
}

/// [`commit_and_measure_named`] under the name `insert-10K`.
pub fn commit_and_measure(s: &Scratch, step: usize, value: f64) {
    commit_and_measure_named(s, "insert-10K", step, value);
}

/// Records in the store that lower values of `cost` are better (an A/B
/// decided on it), as a first experiment under the name `calibration`.
pub fn cost_is_lower_better(s: &Scratch) {
    let out = s
        .perflab()
        .args([
            "ab",
            "--quiet",
            "--name",
            "calibration",
            "--measure",
            "cost",
            "--better",
            "lower",
            "echo PERFLAB_METRIC cost 100 ns",
            "echo PERFLAB_METRIC cost 50 ns",
        ])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 3 | 4)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
