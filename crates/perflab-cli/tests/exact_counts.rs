//! Decisions on instruction counts with a scripted executor: identical
//! counts make the change exact, varying ones are treated as samples.

mod common;

use perflab_cli::ab::run_ab;
use perflab_cli::engine::NoProgress;
use perflab_cli::engine::StopReason;
use perflab_cli::experiment::{Experiment, GuardSettings, Settings};
use perflab_runner::{FakeExecutor, MetricValue, RunOutcome, RunSpec};
use perflab_stats::Verdict;

fn settings(tweak: impl FnOnce(&mut Settings)) -> Settings {
    common::scripted_ab(|s| {
        s.measure = Some("instructions".into());
        tweak(s);
    })
}

fn experiment(tweak: impl FnOnce(&mut Settings)) -> Experiment {
    settings(tweak).into_experiment().unwrap()
}

fn counted(instructions: f64) -> RunOutcome {
    let mut outcome = FakeExecutor::outcome(0.01);
    outcome.metrics.insert(
        "instructions".into(),
        MetricValue {
            value: instructions,
            unit: "instructions".into(),
        },
    );
    outcome
}

fn is_b(spec: &RunSpec) -> bool {
    spec.command.display() == "b"
}

#[test]
fn identical_counts_decide_exactly_after_two_runs_per_variant_without_warm_up() {
    let exp = experiment(|_| {});
    let mut exec =
        FakeExecutor::new(|spec, _| Ok(counted(if is_b(spec) { 990_000.0 } else { 1_000_000.0 })));
    let ab = run_ab(&exp, &mut exec, None, &mut NoProgress).unwrap();
    let e = ab.evaluation.unwrap();
    assert_eq!(exec.performed(), 4, "no warm-up, two runs each");
    assert_eq!(ab.header.stop, StopReason::Decided);
    assert!(e.exact);
    assert!(e.method().starts_with("exact"));
    let expected = 1_000_000.0 / 990_000.0 - 1.0;
    assert!((e.interval.estimate - expected).abs() < 1e-12);
    assert_eq!(e.interval.lo, e.interval.hi);
    assert_eq!(e.verdict, Verdict::Go);
}

#[test]
fn counts_that_vary_are_treated_as_samples_and_need_more_runs() {
    let exp = experiment(|_| {});
    let mut exec = FakeExecutor::new(|spec, n| {
        let jitter = (n % 3) as f64 * 2_000.0;
        Ok(counted(
            if is_b(spec) { 995_000.0 } else { 1_000_000.0 } + jitter,
        ))
    });
    let ab = run_ab(&exp, &mut exec, None, &mut NoProgress).unwrap();
    let e = ab.evaluation.unwrap();
    assert!(!e.exact);
    assert!(
        ab.runs[0].len() > 2,
        "varying counts cannot decide on two runs"
    );
    assert!(e.interval.lo < e.interval.hi);
}

#[test]
fn one_run_per_variant_decides_when_asked_for() {
    let exp = experiment(|s| s.min_runs = Some(1));
    let mut exec = FakeExecutor::new(|spec, _| {
        Ok(counted(if is_b(spec) { 1_100_000.0 } else { 1_000_000.0 }))
    });
    let ab = run_ab(&exp, &mut exec, None, &mut NoProgress).unwrap();
    let e = ab.evaluation.unwrap();
    assert_eq!(exec.performed(), 2);
    assert_eq!(e.verdict, Verdict::NoGo);
    assert!(
        e.reason.contains("repeatability was not checked"),
        "{}",
        e.reason
    );
}

#[test]
fn one_run_per_variant_is_refused_for_wall_time_and_with_guards() {
    let err = settings(|s| {
        s.measure = None;
        s.min_runs = Some(1);
    })
    .into_experiment()
    .unwrap_err();
    assert!(err.to_string().contains("--measure instructions"), "{err}");
    let err = settings(|s| {
        s.min_runs = Some(1);
        s.guards = vec![GuardSettings::relative("wall", 0.05)];
    })
    .into_experiment()
    .unwrap_err();
    assert!(err.to_string().contains("guard"), "{err}");
}
