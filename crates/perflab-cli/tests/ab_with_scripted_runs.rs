//! The A/B engine with a scripted executor: deterministic stopping, guards,
//! interleaving and run limits.

mod common;

use perflab_cli::ab::run_ab;
use perflab_cli::engine::NoProgress;
use perflab_cli::engine::StopReason;
use perflab_cli::experiment::{Experiment, GuardSettings, Settings};
use perflab_runner::{FakeExecutor, RunSpec};
use perflab_stats::Verdict;
use perflab_store::Store;

fn experiment(tweak: impl FnOnce(&mut Settings)) -> Experiment {
    common::scripted_ab(|s| {
        s.warmup = Some(2);
        tweak(s);
    })
    .into_experiment()
    .unwrap()
}

fn is_b(spec: &RunSpec) -> bool {
    spec.command.display() == "b"
}

/// Multiplicative noise of about `sd` from a seeded generator.
fn noisy(rng: &mut fastrand::Rng, mean: f64, sd: f64) -> f64 {
    let u: f64 = (0..12).map(|_| rng.f64()).sum::<f64>() - 6.0; // ≈ N(0, 1)
    mean * (1.0 + sd * u)
}

#[test]
fn a_clear_improvement_stops_at_the_minimum_number_of_runs_with_go() {
    let exp = experiment(|_| {});
    let mut rng = fastrand::Rng::with_seed(3);
    let mut exec = FakeExecutor::new(move |spec, _| {
        Ok(FakeExecutor::outcome(noisy(
            &mut rng,
            if is_b(spec) { 0.8 } else { 1.0 },
            0.01,
        )))
    });
    let store = Store::in_memory().unwrap();
    let ab = run_ab(&exp, &mut exec, Some(&store), &mut NoProgress).unwrap();
    let e = ab.evaluation.unwrap();
    assert_eq!(e.verdict, Verdict::Go);
    assert_eq!(ab.header.stop, StopReason::Decided);
    assert_eq!(ab.runs[0].len(), 10);
    assert_eq!(
        exec.performed(),
        2 * 2 + 2 * 10,
        "warm-ups are run but not counted"
    );
    assert!(
        e.interval.lo > 0.2 && e.interval.hi < 0.3,
        "{:?}",
        e.interval
    );
    assert_eq!(
        store.count_runs(ab.header.experiment_id.unwrap()).unwrap(),
        20
    );
}

#[test]
fn a_change_too_small_for_the_noise_runs_to_the_limit_and_says_how_many_more_runs() {
    let exp = experiment(|s| s.max_runs = Some(30));
    let mut rng = fastrand::Rng::with_seed(5);
    let mut exec = FakeExecutor::new(move |spec, _| {
        Ok(FakeExecutor::outcome(noisy(
            &mut rng,
            if is_b(spec) { 0.99 } else { 1.0 },
            0.03,
        )))
    });
    let ab = run_ab(&exp, &mut exec, None, &mut NoProgress).unwrap();
    let e = ab.evaluation.unwrap();
    assert_eq!(e.verdict, Verdict::Inconclusive);
    assert_eq!(ab.header.stop, StopReason::MaxRuns);
    assert_eq!(ab.runs[1].len(), 30);
    assert!(e.runs_needed.is_some());
}

#[test]
fn a_guard_that_worsens_beyond_its_limit_vetoes_a_go() {
    let exp = experiment(|s| s.guards = vec![GuardSettings::relative("peak-memory", 0.05)]);
    let mut rng = fastrand::Rng::with_seed(7);
    let mut exec = FakeExecutor::new(move |spec, _| {
        let mut o =
            FakeExecutor::outcome(noisy(&mut rng, if is_b(spec) { 0.8 } else { 1.0 }, 0.01));
        o.peak_memory_kib = if is_b(spec) { 5000.0 } else { 4000.0 };
        Ok(o)
    });
    let ab = run_ab(&exp, &mut exec, None, &mut NoProgress).unwrap();
    let e = ab.evaluation.unwrap();
    assert_eq!(e.verdict, Verdict::NoGo, "{}", e.reason);
    assert!(e.reason.contains("guard peak-memory"), "{}", e.reason);
}

#[test]
fn a_small_baselines_growth_within_the_floor_lets_a_go_stand() {
    // 1.3 MiB → 6.8 MiB: +423% of the baseline, but within a floor of 8 MiB.
    let outcome = |guard: &str| {
        let guard = perflab_cli::experiment::parse_guard(guard).unwrap();
        let exp = experiment(|s| s.guards = vec![guard.clone()]);
        let mut rng = fastrand::Rng::with_seed(7);
        let mut exec = FakeExecutor::new(move |spec, _| {
            let mut o =
                FakeExecutor::outcome(noisy(&mut rng, if is_b(spec) { 0.8 } else { 1.0 }, 0.01));
            let memory = if is_b(spec) { 6963.0 } else { 1331.0 };
            o.peak_memory_kib = memory + 100.0 * rng.f64();
            Ok(o)
        });
        run_ab(&exp, &mut exec, None, &mut NoProgress).unwrap()
    };
    let relative = outcome("peak-memory:10%").evaluation.unwrap();
    assert_eq!(relative.verdict, Verdict::NoGo, "{}", relative.reason);
    assert!(
        relative.reason.contains("MiB → 6.8 MiB (+5.5 MiB, +4"),
        "{}",
        relative.reason
    );
    let floored = outcome("peak-memory:10%+8MiB");
    let e = floored.evaluation.as_ref().unwrap();
    assert_eq!(e.verdict, Verdict::Go, "{}", e.reason);
    let doc = e.guards[0].document();
    assert_eq!(doc.floor, Some(8192.0));
    let [lo, hi] = doc.difference_ci.unwrap();
    assert!(lo > 5000.0 && hi < 6000.0, "{lo} {hi}");
}

#[test]
fn runs_are_interleaved_in_blocks_of_both_orders() {
    let exp = experiment(|s| {
        s.max_runs = Some(20);
        s.warmup = Some(0);
    });
    let order = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let seen = order.clone();
    let mut exec = FakeExecutor::new(move |spec, _| {
        seen.borrow_mut().push(is_b(spec));
        Ok(FakeExecutor::outcome(1.0))
    });
    // Equal, noise-free timings: the interval is the point 0, which is NEUTRAL.
    let ab = run_ab(&exp, &mut exec, None, &mut NoProgress).unwrap();
    assert_eq!(ab.evaluation.unwrap().verdict, Verdict::Neutral);
    let order = order.borrow();
    let blocks: Vec<_> = order.chunks(2).collect();
    assert!(
        blocks.iter().all(|b| b[0] != b[1]),
        "each block runs A and B once"
    );
    assert!(
        blocks.iter().any(|b| b[0]) && blocks.iter().any(|b| !b[0]),
        "both orders occur"
    );
}

#[test]
fn a_missing_metric_stops_with_an_error_naming_the_run() {
    let exp = experiment(|s| {
        s.measure = Some("tp".into());
        s.better = Some(perflab_stats::Better::Higher);
    });
    let mut exec = FakeExecutor::new(|_, _| Ok(FakeExecutor::outcome(1.0)));
    let store = Store::in_memory().unwrap();
    let err = run_ab(&exp, &mut exec, Some(&store), &mut NoProgress)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("run 1 of variant") && err.contains("'tp'"),
        "{err}"
    );
    assert!(err.contains("marked incomplete"), "{err}");
}
