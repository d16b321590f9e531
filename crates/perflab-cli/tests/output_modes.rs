//! `--output pipe|null|inherit|FILE`: where the runs' stdout and stderr
//! go. Piped output (the default) is read for metric lines however much a
//! run prints; the other modes leave it unread, and a metric that would
//! have to be read from it is refused with exit 2.

mod common;

use common::{Scratch, assert_exit, stderr_of_refusal, stdout_of_success};

/// `perflab run --runs RUNS [--output OUTPUT] -- COMMAND...` in `s`.
fn perflab_run(
    s: &Scratch,
    runs: usize,
    output: Option<&str>,
    command: &[&str],
) -> std::process::Output {
    let runs = runs.to_string();
    let mut cmd = s.perflab();
    cmd.args(["run", "--runs", &runs]);
    if let Some(output) = output {
        cmd.args(["--output", output]);
    }
    cmd.arg("--").args(command).output().unwrap()
}

/// A run that prints many short lines around its metric line.
const CHATTY: &str = "yes | head -n 300000; echo 'PERFLAB_METRIC items 42'; yes | head -n 300000";

#[test]
fn piped_output_is_read_for_metric_lines_however_much_a_run_prints() {
    let s = Scratch::new();
    let out = perflab_run(&s, 2, None, &["sh", "-c", CHATTY]);
    let stdout = stdout_of_success(&out);
    assert!(stdout.contains("items: median 42"), "{stdout}");
}

#[test]
fn with_output_null_nothing_is_read_and_the_runs_are_measured() {
    let s = Scratch::new();
    let out = perflab_run(&s, 2, Some("null"), &["sh", "-c", CHATTY]);
    let stdout = stdout_of_success(&out);
    assert!(!stdout.contains("items:"), "{stdout}");
    assert!(
        !stdout.contains("\ny\n"),
        "the runs' output reached perflab's"
    );
}

#[test]
fn with_output_inherit_the_runs_print_on_perflabs_own_stdout() {
    let s = Scratch::new();
    let out = perflab_run(&s, 2, Some("inherit"), &["echo", "hello from the run"]);
    let stdout = stdout_of_success(&out);
    let printed = stdout
        .lines()
        .filter(|l| *l == "hello from the run")
        .count();
    assert_eq!(printed, 2, "{stdout}");
}

#[test]
fn with_output_to_a_file_each_run_writes_it_anew() {
    let s = Scratch::new();
    let out = perflab_run(
        &s,
        3,
        Some("runs.log"),
        &["sh", "-c", "echo out; echo err >&2"],
    );
    stdout_of_success(&out);
    let log = std::fs::read_to_string(s.path("runs.log")).unwrap();
    assert_eq!(log, "out\nerr\n");
}

#[test]
fn a_metric_read_from_output_that_is_not_read_is_refused() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            "--measure",
            "items",
            "--better",
            "higher",
            "--output",
            "null",
        ])
        .args([
            "echo 'PERFLAB_METRIC items 1'",
            "echo 'PERFLAB_METRIC items 2'",
        ])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    let stderr = stderr_of_refusal(&out);
    assert!(stderr.contains("--output"), "{stderr}");
    assert!(
        stderr.contains("'items' is read from the runs' output"),
        "{stderr}"
    );
}

#[test]
fn an_output_file_that_cannot_be_written_is_refused_naming_the_flag() {
    let s = Scratch::new();
    let out = perflab_run(&s, 2, Some("no/such/folder/runs.log"), &["true"]);
    assert_exit(&out, 2);
    let stderr = stderr_of_refusal(&out);
    assert!(stderr.contains("--output"), "{stderr}");
    assert!(stderr.contains("no/such/folder/runs.log"), "{stderr}");
}

#[test]
fn the_output_benchmark_script_measures_a_small_output_against_dev_null() {
    let s = Scratch::new();
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/bench-output.sh");
    let out = std::process::Command::new(script)
        .args(["--bytes", "100000", "--pairs", "3"])
        .args(["--perflab", env!("CARGO_BIN_EXE_perflab")])
        .current_dir(s.dir.path())
        .output()
        .unwrap();
    let stdout = stdout_of_success(&out);
    assert!(
        stdout.contains("load average")
            && stdout.contains("B takes ")
            && stdout.contains("longer than A"),
        "{stdout}"
    );
    // The floor, where a C compiler is at hand (the test dependencies have one).
    assert!(
        stdout.contains("C takes ") || stdout.contains("no C compiler"),
        "{stdout}"
    );
}
