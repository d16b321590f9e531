//! The drift check over run order: its properties, and simulations of known
//! truth (fixed seeds) for its false-alarm rate and its power, run through
//! the same procedure perflab's warnings use (`drifts` at
//! DRIFT_SIGNIFICANCE and DRIFT_MIN_CHANGE).

use perflab_stats::{DRIFT_MIN_CHANGE, DRIFT_SIGNIFICANCE, run_order_trend};
use proptest::prelude::*;

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut fastrand::Rng) -> f64 {
    let u1 = rng.f64().max(f64::MIN_POSITIVE);
    let u2 = rng.f64();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// `n` runs of a 100 ms command with `noise` relative sd, drifting by
/// `drift` (a fraction) from the first run to the last.
fn series(rng: &mut fastrand::Rng, n: usize, noise: f64, drift: f64) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let level = 1.0 + drift * i as f64 / (n - 1) as f64;
            0.1 * level * (noise * normal(rng)).exp()
        })
        .collect()
}

/// How many of `trials` series the drift warning fires on.
fn alarms(seed: u64, trials: usize, n: usize, noise: f64, drift: f64) -> usize {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..trials)
        .filter(|_| {
            let trend = run_order_trend(&series(&mut rng, n, noise, drift)).unwrap();
            trend.drifts(DRIFT_SIGNIFICANCE, DRIFT_MIN_CHANGE)
        })
        .count()
}

#[test]
fn series_without_drift_raise_the_alarm_about_as_often_as_its_level_says() {
    // At 1% per series, 2000 series give about 20 alarms; 40 would be twice
    // the level (binomial sd about 4.5). The check must hold at small
    // samples, where the t approximation is weakest, and at large ones.
    for (seed, n) in [(1, 8), (2, 15), (3, 30), (4, 100)] {
        let false_alarms = alarms(seed, 2000, n, 0.05, 0.0);
        assert!(
            false_alarms <= 40,
            "{false_alarms} of 2000 drift-free series of {n} runs raised the alarm"
        );
    }
}

#[test]
fn heavy_noise_without_drift_does_not_raise_the_alarm_more_often() {
    // Noise 30% (lognormal, so skewed): only the order of values counts.
    let false_alarms = alarms(5, 2000, 30, 0.3, 0.0);
    assert!(false_alarms <= 40, "{false_alarms} of 2000");
}

#[test]
fn a_drift_of_ten_percent_over_thirty_runs_with_two_percent_noise_is_found() {
    let found = alarms(6, 500, 30, 0.02, 0.10);
    assert!(
        found >= 475,
        "only {found} of 500 drifting series were found"
    );
}

#[test]
fn the_size_of_a_drift_is_estimated_without_bias() {
    let mut rng = fastrand::Rng::with_seed(7);
    let sizes: Vec<f64> = (0..400)
        .map(|_| {
            run_order_trend(&series(&mut rng, 30, 0.02, 0.08))
                .unwrap()
                .change
        })
        .collect();
    let mean = sizes.iter().sum::<f64>() / sizes.len() as f64;
    // The series' median sits mid-drift (1.04), so the relative size is 0.08/1.04.
    assert!(
        (mean - 0.08 / 1.04).abs() < 0.005,
        "mean estimated size {mean}"
    );
}

fn values() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(0.001f64..10.0, 8..60)
}

proptest! {
    #[test]
    fn rho_lies_in_minus_one_to_one_and_p_in_zero_to_one(v in values()) {
        let t = run_order_trend(&v).unwrap();
        prop_assert!((-1.0..=1.0).contains(&t.rho));
        prop_assert!((0.0..=1.0).contains(&t.p_value));
        prop_assert!(t.change.is_finite());
    }

    #[test]
    fn reversing_the_run_order_reverses_the_trend(v in values()) {
        let forward = run_order_trend(&v).unwrap();
        let reversed: Vec<f64> = v.iter().rev().copied().collect();
        let backward = run_order_trend(&reversed).unwrap();
        prop_assert!((forward.rho + backward.rho).abs() < 1e-9);
        prop_assert!((forward.p_value - backward.p_value).abs() < 1e-9);
        prop_assert!((forward.change + backward.change).abs() < 1e-9);
    }

    #[test]
    fn the_test_depends_only_on_the_order_of_values(v in values(), scale in 0.01f64..100.0) {
        // A monotone transformation (scaling, then log) keeps every rank.
        let transformed: Vec<f64> = v.iter().map(|x| (x * scale).ln()).collect();
        let a = run_order_trend(&v).unwrap();
        let b = run_order_trend(&transformed).unwrap();
        prop_assert!((a.rho - b.rho).abs() < 1e-9);
        prop_assert!((a.p_value - b.p_value).abs() < 1e-9);
    }

    #[test]
    fn a_series_sorted_ascending_has_the_strongest_upward_trend(v in values()) {
        let mut sorted = v.clone();
        sorted.sort_by(f64::total_cmp);
        let t = run_order_trend(&sorted).unwrap();
        let distinct = sorted.windows(2).all(|w| w[0] < w[1]);
        prop_assume!(distinct);
        prop_assert_eq!(t.rho, 1.0);
        prop_assert!(t.change >= 0.0);
    }
}
