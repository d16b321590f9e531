//! `perflab ab` decides with the procedure the decision simulation validates:
//! the real `run_ab`, fed recorded timings through the fake executor, reaches
//! the verdict, interval and run count of perflab-stats' `SequentialTest`
//! pushed the same pairs (the i-th run of each variant: one block of the
//! schedule, whatever order the block ran in).

mod common;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use perflab_cli::ab::run_ab;

use perflab_cli::engine::NoProgress;
use perflab_cli::experiment::Experiment;
use perflab_runner::FakeExecutor;
use perflab_stats::{Better, Decision, SequentialConfig, SequentialTest, Verdict};

/// A run limit other than the default, so that tuning the confidence
/// sequence to the wrong run limit changes the intervals.
const MAX_RUNS: usize = 24;

fn experiment() -> Experiment {
    common::scripted_ab(|s| {
        s.seed = Some(3);
        s.warmup = Some(0);
        s.max_runs = Some(MAX_RUNS);
    })
    .into_experiment()
    .unwrap()
}

/// Recorded wall times: `pairs` of (A, B), B `factor` times A, with noise of about `noise`.
fn recording(seed: u64, factor: f64, noise: f64) -> Vec<(f64, f64)> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut time = |level: f64| {
        let u: f64 = (0..12).map(|_| rng.f64()).sum::<f64>() - 6.0; // ≈ N(0, 1)
        level * (1.0 + noise * u)
    };
    (0..MAX_RUNS)
        .map(|_| (time(0.1), time(0.1 * factor)))
        .collect()
}

/// What `perflab ab` concludes from the recording: (verdict, interval, runs, runs needed).
fn ab_on(pairs: &[(f64, f64)]) -> Decision {
    let queues = Rc::new(RefCell::new([
        pairs.iter().map(|p| p.0).collect::<VecDeque<_>>(),
        pairs.iter().map(|p| p.1).collect::<VecDeque<_>>(),
    ]));
    let mut exec = FakeExecutor::new(move |spec, _| {
        let side = usize::from(spec.command.display() == "b");
        let wall = queues.borrow_mut()[side]
            .pop_front()
            .expect("recording long enough");
        Ok(FakeExecutor::outcome(wall))
    });
    let ab = run_ab(&experiment(), &mut exec, None, &mut NoProgress).unwrap();
    let e = ab.evaluation.expect("an evaluation");
    assert_eq!(ab.runs[0].len(), e.pairs);
    assert_eq!(ab.runs[1].len(), e.pairs);
    Decision {
        verdict: e.verdict,
        primary: e.verdict,
        interval: e.interval,
        runs: e.pairs,
        runs_needed: e.runs_needed,
        guards: Vec::new(),
    }
}

/// What the simulated procedure concludes from the same pairs.
fn simulated_on(pairs: &[(f64, f64)]) -> Decision {
    let config = SequentialConfig::new(Better::Lower).with_max_runs(MAX_RUNS);
    let mut test = SequentialTest::new(config).unwrap();
    for (a, b) in pairs {
        if let Some(d) = test.push(*a, *b).unwrap() {
            return d;
        }
    }
    panic!("the procedure stops by max_runs")
}

fn same_verdict(seed: u64, factor: f64, noise: f64, expected: Verdict) {
    let pairs = recording(seed, factor, noise);
    let (ab, simulated) = (ab_on(&pairs), simulated_on(&pairs));
    assert_eq!(simulated.verdict, expected, "{simulated:?}");
    assert_eq!(ab, simulated);
}

#[test]
fn a_faster_candidate_gets_the_go_the_simulated_procedure_gives() {
    same_verdict(1, 0.95, 0.02, Verdict::Go);
}

#[test]
fn a_slower_candidate_gets_the_no_go_the_simulated_procedure_gives() {
    same_verdict(2, 1.05, 0.02, Verdict::NoGo);
}

#[test]
fn an_equal_candidate_gets_the_neutral_the_simulated_procedure_gives() {
    same_verdict(3, 1.0, 0.002, Verdict::Neutral);
}

#[test]
fn a_change_too_small_for_the_noise_is_inconclusive_at_the_same_run_limit() {
    let pairs = recording(4, 0.99, 0.03);
    let simulated = simulated_on(&pairs);
    assert_eq!(simulated.runs, MAX_RUNS);
    same_verdict(4, 0.99, 0.03, Verdict::Inconclusive);
}
