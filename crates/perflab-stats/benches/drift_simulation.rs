//! False-alarm rate and power of the drift check over run order
//! (`run_order_trend`, by the procedure perflab's warnings use: p below
//! DRIFT_SIGNIFICANCE and a drift of at least DRIFT_MIN_CHANGE), on series
//! of known truth: a 100 ms command with lognormal noise, drifting linearly
//! from its first run to its last, or not at all. The figures quoted in
//! docs/decision.md ("Drift over run order") are this benchmark's output.
//!
//! Run with `cargo bench -p perflab-stats --bench drift_simulation`.
//! Deterministic: every row uses a fixed seed.

use perflab_stats::{DRIFT_MIN_CHANGE, DRIFT_SIGNIFICANCE, run_order_trend, wilson_interval};

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut fastrand::Rng) -> f64 {
    let u1 = rng.f64().max(f64::MIN_POSITIVE);
    let u2 = rng.f64();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The share of `series` series of `n` runs on which the warning fires.
fn alarm_rate(seed: u64, series: usize, n: usize, noise: f64, drift: f64) -> (u64, u64) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let fired = (0..series)
        .filter(|_| {
            let values: Vec<f64> = (0..n)
                .map(|i| {
                    let level = 1.0 + drift * i as f64 / (n - 1) as f64;
                    0.1 * level * (noise * normal(&mut rng)).exp()
                })
                .collect();
            run_order_trend(&values)
                .expect("finite series of 8 or more")
                .drifts(DRIFT_SIGNIFICANCE, DRIFT_MIN_CHANGE)
        })
        .count();
    (fired as u64, series as u64)
}

fn row(label: &str, (fired, total): (u64, u64)) {
    let iv = wilson_interval(fired, total, 0.95).expect("valid counts");
    println!(
        "{label:<44} {:6.2}% [{:.2}, {:.2}]  ({fired} of {total})",
        100.0 * iv.estimate,
        100.0 * iv.lo,
        100.0 * iv.hi
    );
}

fn main() {
    println!("Drift warning without drift (false alarms; level 1%), 95% Wilson intervals:");
    for n in [8, 15, 30, 100] {
        for noise in [0.02, 0.05, 0.30] {
            let label = format!("  {n:>3} runs, noise {:.0}%", noise * 100.0);
            row(&label, alarm_rate(11, 10_000, n, noise, 0.0));
        }
    }
    println!("Drift warning with drift (power):");
    for (n, drift, noise) in [
        (30, 0.10, 0.02),
        (15, 0.05, 0.02),
        (30, 0.05, 0.05),
        (15, 0.088, 0.05),
        (15, 0.088, 0.14),
    ] {
        let label = format!(
            "  {n:>3} runs, drift {:.1}%, noise {:.0}%",
            drift * 100.0,
            noise * 100.0
        );
        row(&label, alarm_rate(12, 2_000, n, noise, drift));
    }
}
