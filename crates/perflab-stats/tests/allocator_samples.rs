//! The A/B samples of a real allocator investigation done by hand: throughput
//! in millions of operations per second, higher is better, 10 runs each.

use perflab_stats::fixed_sample::hodges_lehmann::hodges_lehmann_change;
use perflab_stats::{Better, Thresholds, Verdict, classify, mann_whitney, summarize};

const BASELINE: [f64; 10] = [
    45.52, 44.88, 44.95, 45.83, 45.84, 45.32, 45.31, 45.20, 45.55, 45.06,
];
const CANDIDATE: [f64; 10] = [
    48.19, 44.62, 47.32, 46.39, 46.93, 47.42, 47.19, 47.12, 47.32, 46.89,
];

#[test]
fn the_allocator_samples_give_go_with_hodges_lehmann() {
    let th = Thresholds::new(0.01, -0.005).unwrap();
    let iv = hodges_lehmann_change(&BASELINE, &CANDIDATE, Better::Higher, 0.95).unwrap();
    assert_eq!(classify(&iv, &th), Verdict::Go, "{iv:?}");
    // The shift is near the investigation's own +3.5 % mean gain / +4.1 % median gain.
    assert!(iv.estimate > 0.03 && iv.estimate < 0.045, "{iv:?}");
    assert!(iv.lo >= 0.01 && iv.hi < 0.06, "{iv:?}");
}

#[test]
fn the_allocator_samples_summaries_match_the_investigation() {
    let b = summarize(&BASELINE).unwrap();
    let c = summarize(&CANDIDATE).unwrap();
    // The write-up: means 45.35 and 46.94, medians 45.31 and 47.15, sd 0.34 and 0.94.
    assert!((b.mean - 45.346).abs() < 1e-9 && (c.mean - 46.939).abs() < 1e-9);
    assert!((b.median - 45.315).abs() < 1e-9 && (c.median - 47.155).abs() < 1e-9);
    assert!((b.sd - 0.34).abs() < 0.01 && (c.sd - 0.94).abs() < 0.01);
    // 44.62 is the candidate's outlier run.
    assert_eq!(c.outliers.severe, vec![1]);
}

#[test]
fn the_allocator_samples_rank_test_is_significant() {
    let r = mann_whitney(&BASELINE, &CANDIDATE).unwrap();
    assert!(r.p_value < 0.01, "{r:?}");
}
