//! Workload expectations through the real binary: `expect = { ... }` in an
//! experiment file is checked on every measured run of every variant, from
//! `PERFLAB_COUNT` lines, `PERFLAB_METRIC` lines and the counters of the
//! profile an instrumented run writes.

mod common;

use common::{Scratch, assert_exit, assert_reached_a_result};

/// Runs stored in the scratch store, and the status of its one experiment.
fn stored(s: &Scratch) -> (i64, String) {
    let db = rusqlite::Connection::open(s.store()).unwrap();
    let runs = db
        .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    let status = db
        .query_row("SELECT status FROM experiments", [], |r| r.get(0))
        .unwrap();
    (runs, status)
}

/// A payments-like experiment: both variants report 1000 transactions and
/// 200 disputes, except that "new" reports only 5 disputes from its third
/// run on (a workload whose dispute mix stopped happening).
fn payments(s: &Scratch) {
    s.write(
        "perflab.toml",
        r#"name = "payments"
warmup = 0
min_runs = 5
max_runs = 8
seed = 7
# The runs count themselves: a block measured again on a busy machine
# would move "the third run" into another block.
max_cpu_wait = "off"
expect = { disputes = "> 0", "disputes / transactions" = "15%..25%" }

[[variant]]
name = "old"
command = "echo PERFLAB_COUNT transactions 1K; echo PERFLAB_METRIC disputes 200"

[[variant]]
name = "new"
command = "c=$(cat new.count 2>/dev/null || echo 0); echo $((c+1)) > new.count; if [ $c -ge 2 ]; then d=5; else d=200; fi; echo PERFLAB_COUNT transactions 1000; echo PERFLAB_COUNT disputes $d"
"#,
    );
}

#[test]
fn a_run_breaking_an_expectation_fails_the_experiment_and_keeps_the_finished_runs() {
    let s = Scratch::new();
    payments(&s);
    let out = s
        .perflab()
        .args(["ab", "-f", "perflab.toml"])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "run 3 of variant \"new\": the experiment expects \"disputes / transactions\" = \"15%..25%\", \
             but disputes / transactions = 5 / 1000 = 0.005."
        ),
        "{err}"
    );
    assert!(err.contains("does not produce the declared mix"), "{err}");
    assert!(err.contains("--ignore-failure"), "{err}");
    assert!(err.contains("marked incomplete"), "{err}");
    let (runs, status) = stored(&s);
    assert_eq!(status, "incomplete");
    // Two whole blocks, then the third run of "new" (stored before it was checked).
    assert!(runs >= 5, "{runs} runs kept");
}

#[test]
fn with_ignore_failure_a_broken_expectation_does_not_stop_the_experiment() {
    let s = Scratch::new();
    payments(&s);
    let out = s
        .perflab()
        .args(["ab", "-f", "perflab.toml", "--ignore-failure"])
        .output()
        .unwrap();
    assert_reached_a_result(&out);
    let (runs, status) = stored(&s);
    assert_ne!(status, "incomplete");
    assert!(runs >= 10, "{runs} runs");
}

#[test]
fn counters_of_an_instrumented_run_are_checked_from_its_profile() {
    let s = Scratch::new();
    let profile = common::fixture("spans-baseline.json");
    let profile = profile.display();
    // The recorded profile counted 52 malformed lines and no path over the error budget.
    let file = |expect: &str| {
        format!(
            "warmup = 0\nmin_runs = 2\nmax_runs = 3\nexpect = {{ {expect} }}\n\
             [[variant]]\nname = \"a\"\ncommand = \"cp '{profile}' \\\"$PERFLAB_PROFILE\\\"; echo PERFLAB_COUNT lines 104\"\n\
             [[variant]]\nname = \"b\"\ncommand = \"cp '{profile}' \\\"$PERFLAB_PROFILE\\\"; echo PERFLAB_COUNT lines 104\"\n"
        )
    };
    s.write(
        "met.toml",
        &file(r#"malformed_lines = ">= 52", "malformed_lines/lines" = "== 50%""#),
    );
    let out = s.perflab().args(["ab", "-f", "met.toml"]).output().unwrap();
    assert_reached_a_result(&out);

    s.write("broken.toml", &file(r#"paths_over_error_budget = "> 0""#));
    let out = s
        .perflab()
        .args(["ab", "-f", "broken.toml"])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "the experiment expects \"paths_over_error_budget\" = \"> 0\", but paths_over_error_budget = 0."
        ),
        "{err}"
    );
}

#[test]
fn a_figure_no_run_reports_is_named_with_the_figures_it_did_report() {
    let s = Scratch::new();
    s.write(
        "perflab.toml",
        "warmup = 0\nexpect = { disputes = \"> 0\" }\n\
         [[variant]]\ncommand = \"echo PERFLAB_COUNT transactions 10\"\n\
         [[variant]]\ncommand = \"echo PERFLAB_COUNT transactions 10\"\n",
    );
    let out = s
        .perflab()
        .args(["ab", "-f", "perflab.toml"])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the run did not report 'disputes'"), "{err}");
    assert!(
        err.contains("It reported: wall, cpu, user, sys, peak-memory, ")
            && err.contains(", transactions"),
        "{err}"
    );
}

#[test]
fn a_malformed_expectation_is_refused_with_its_line_before_any_run() {
    let s = Scratch::new();
    s.write(
        "perflab.toml",
        "name = \"x\"\nexpect = { \"disputes / \" = \"> 0\" }\n\
         [[variant]]\ncommand = \"touch ran\"\n[[variant]]\ncommand = \"touch ran\"\n",
    );
    let out = s
        .perflab()
        .args(["ab", "-f", "perflab.toml"])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("perflab.toml:2:")
            && err.contains("expect: expectation \"disputes / \" = \"> 0\""),
        "{err}"
    );
    assert!(err.contains("a figure name is missing"), "{err}");
    assert!(!s.path("ran").exists());
}
