//! A guard with an absolute floor (`peak-memory:10%+8MiB`): simulations of
//! known truth (fixed seeds) showing that it vetoes a worsening beyond both
//! allowances no more often than the confidence level allows, and lets one
//! within the floor through; and properties that hold on any data.

use perflab_stats::{
    Better, GuardLimit, GuardStatus, SequentialConfig, SequentialTest, Thresholds, Verdict,
};
use proptest::prelude::*;

/// 8 MiB in KiB, the unit of `peak-memory`.
const FLOOR_KIB: f64 = 8192.0;

fn floored() -> GuardLimit {
    GuardLimit {
        floor: Some(FLOOR_KIB),
        ..GuardLimit::relative(Better::Lower, 0.10)
    }
}

/// How often each guard status ends `experiments` A/Bs whose decision
/// metric clearly improves (so every stop is the guard's doing), the
/// guarded metric's baseline at `baseline` KiB, the candidate's at
/// `baseline + growth`, each run with Gaussian noise of `noise` KiB plus
/// `relative_noise` of its value.
fn simulate(
    seed: u64,
    experiments: usize,
    baseline: f64,
    growth: f64,
    noise: f64,
    relative_noise: f64,
) -> [usize; 3] {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut gauss = move || {
        // Box-Muller: two uniforms give one standard normal value.
        let (u, v) = (1.0 - rng.f64(), rng.f64());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    };
    let mut counts = [0; 3];
    for _ in 0..experiments {
        let config = SequentialConfig::tuned(Better::Lower, Thresholds::default(), 0.95, 10, 60);
        let mut test = SequentialTest::with_guards(config, vec![floored()]).unwrap();
        let decision = loop {
            let a = 100.0 * (1.0 + 0.01 * gauss());
            let b = 80.0 * (1.0 + 0.01 * gauss());
            let mut value = |mean: f64| mean + noise * gauss() + relative_noise * mean * gauss();
            let guard = (value(baseline).max(1.0), value(baseline + growth).max(1.0));
            if let Some(d) = test.push_with_guards(a, b, &[guard]).unwrap() {
                break d;
            }
        };
        assert_eq!(decision.primary, Verdict::Go, "{decision:?}");
        counts[match decision.guards[0].status {
            GuardStatus::Pass => 0,
            GuardStatus::Violated => 1,
            GuardStatus::Uncertain => 2,
        }] += 1;
    }
    counts
}

#[test]
fn a_small_baseline_growing_within_the_floor_passes() {
    // 1.3 MiB → 6.8 MiB: +423% of the baseline, but 5.5 MiB of an 8 MiB floor.
    let [pass, violated, _] = simulate(26, 400, 1331.0, 5632.0, 300.0, 0.0);
    assert_eq!(violated, 0, "a growth within the floor was vetoed");
    assert!(pass >= 380, "only {pass} of 400 passed");
}

#[test]
fn a_growth_just_beyond_both_allowances_rarely_passes() {
    // The hardest truth for a false pass: a growth just beyond the floor
    // (and far beyond 10% of the baseline). The guard may pass it only
    // when its absolute interval misses the truth.
    let [pass, violated, _] = simulate(27, 400, 1331.0, FLOOR_KIB + 10.0, 600.0, 0.0);
    assert!(pass <= 20, "{pass} of 400 passed a violation (5% allowed)");
    assert!(violated > 0);
}

#[test]
fn a_clear_growth_beyond_both_allowances_is_vetoed() {
    let [pass, violated, _] = simulate(28, 400, 1331.0, 3.0 * FLOOR_KIB, 300.0, 0.0);
    assert_eq!(pass, 0);
    assert!(violated >= 380, "only {violated} of 400 vetoed");
}

#[test]
fn a_large_baseline_is_held_to_its_relative_limit() {
    // 200 MiB: 10% (20 MiB) is the larger allowance.
    let baseline = 200.0 * 1024.0;
    let [pass, violated, _] = simulate(29, 400, baseline, 0.05 * baseline, 0.0, 0.01);
    assert_eq!(violated, 0, "a 5% growth was vetoed");
    assert!(pass >= 380, "only {pass} of 400 passed a 5% growth");
    let [pass, violated, _] = simulate(30, 400, baseline, 0.10 * baseline * 1.01, 0.0, 0.02);
    assert!(
        pass <= 20,
        "{pass} of 400 passed a growth beyond both allowances"
    );
    assert!(violated > 0);
    let [pass, violated, _] = simulate(31, 400, baseline, 0.25 * baseline, 0.0, 0.01);
    assert_eq!(pass, 0);
    assert!(
        violated >= 380,
        "only {violated} of 400 vetoed a 25% growth"
    );
}

fn pairs(within: bool) -> impl Strategy<Value = Vec<(f64, f64)>> {
    // Baselines of 1 KiB to 1 GiB; candidates whose growth stays within
    // the floor (or, when not `within`, beyond both allowances) in every pair.
    prop::collection::vec((1.0f64..1.0e6, 0.0f64..1.0), 2..40).prop_map(move |v| {
        v.into_iter()
            .map(|(b, share)| {
                let c = if within {
                    b + share * FLOOR_KIB
                } else {
                    b + (0.10 * b).max(FLOOR_KIB) * (1.01 + share)
                };
                (b, c)
            })
            .collect()
    })
}

fn status_of(values: &[(f64, f64)]) -> Option<GuardStatus> {
    let config = SequentialConfig::tuned(
        Better::Lower,
        Thresholds::default(),
        0.95,
        2,
        values.len().max(2),
    );
    let mut test = SequentialTest::with_guards(config, vec![floored()]).unwrap();
    for (b, c) in values {
        test.record(100.0, 90.0, &[(*b, *c)]).unwrap();
    }
    test.evaluate().ok().map(|d| d.guards[0].status)
}

proptest! {
    #[test]
    fn a_guard_never_vetoes_data_that_stay_within_the_floor(values in pairs(true)) {
        if let Some(status) = status_of(&values) {
            prop_assert_ne!(status, GuardStatus::Violated);
        }
    }

    #[test]
    fn a_guard_never_passes_data_that_exceed_both_allowances(values in pairs(false)) {
        if let Some(status) = status_of(&values) {
            prop_assert_ne!(status, GuardStatus::Pass);
        }
    }
}

#[test]
fn a_floor_that_is_negative_or_not_finite_is_refused() {
    let config = SequentialConfig::new(Better::Lower);
    for floor in [-1.0, f64::NAN, f64::INFINITY] {
        let guard = GuardLimit {
            floor: Some(floor),
            ..floored()
        };
        assert!(SequentialTest::with_guards(config, vec![guard]).is_err());
    }
}
