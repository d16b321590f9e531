//! Property tests: invariants that must hold for every input.

use perflab_stats::fixed_sample::hodges_lehmann::{
    hodges_lehmann_change, hodges_lehmann_log_shift,
};
use perflab_stats::sequential::paired::paired_log_interval;
use perflab_stats::{
    Better, ConfidenceSequence, Interval, SequentialConfig, SequentialTest, Thresholds, Verdict,
    classify, mann_whitney, paired_change, summarize,
};
use proptest::prelude::*;

/// Positive, finite values of realistic magnitude (ops/s, ns, bytes).
fn positive_values(max_len: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(1e-3f64..1e6, 2..max_len)
}

/// Paired samples of equal length.
fn pairs() -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    (2usize..40).prop_flat_map(|n| {
        (
            prop::collection::vec(1e-3f64..1e6, n),
            prop::collection::vec(1e-3f64..1e6, n),
        )
    })
}

/// Independent samples large enough for a 99 % Moses interval.
fn independent() -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    (
        prop::collection::vec(1.0f64..2.0, 6..30),
        prop::collection::vec(1.0f64..2.0, 6..30),
    )
}

fn better() -> impl Strategy<Value = Better> {
    prop_oneof![Just(Better::Higher), Just(Better::Lower)]
}

fn cs(confidence: f64) -> ConfidenceSequence {
    ConfidenceSequence::new(confidence, 60).unwrap()
}

fn finite(iv: &Interval) -> bool {
    iv.estimate.is_finite() && iv.lo.is_finite() && iv.hi.is_finite()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

proptest! {
    #[test]
    fn paired_interval_contains_its_estimate((b, c) in pairs(), better in better()) {
        let iv = paired_change(&b, &c, better, &cs(0.95)).unwrap();
        prop_assert!(finite(&iv));
        prop_assert!(iv.lo <= iv.estimate && iv.estimate <= iv.hi, "{iv:?}");
        prop_assert!(iv.lo > -1.0);
    }

    #[test]
    fn hodges_lehmann_interval_contains_its_estimate((b, c) in independent(), better in better()) {
        let iv = hodges_lehmann_change(&b, &c, better, 0.95).unwrap();
        prop_assert!(finite(&iv));
        prop_assert!(iv.lo <= iv.estimate && iv.estimate <= iv.hi, "{iv:?}");
    }

    #[test]
    fn intervals_are_wider_at_higher_confidence(
        (b, c) in independent(),
        better in better(),
        low in 0.6f64..0.9,
        extra in 0.01f64..0.09,
    ) {
        let high = low + extra;
        let n = b.len().min(c.len());
        let narrow = paired_change(&b[..n], &c[..n], better, &cs(low)).unwrap();
        let wide = paired_change(&b[..n], &c[..n], better, &cs(high)).unwrap();
        prop_assert!(wide.lo <= narrow.lo && narrow.hi <= wide.hi, "{narrow:?} {wide:?}");
        let narrow = hodges_lehmann_change(&b, &c, better, low).unwrap();
        let wide = hodges_lehmann_change(&b, &c, better, high).unwrap();
        prop_assert!(wide.lo <= narrow.lo && narrow.hi <= wide.hi, "{narrow:?} {wide:?}");
    }

    #[test]
    fn scaling_both_samples_leaves_the_change_unchanged(
        (b, c) in pairs(),
        better in better(),
        k in prop_oneof![Just(1e-6), Just(0.37), Just(1000.0), 0.01f64..100.0],
    ) {
        let scale = |xs: &[f64]| xs.iter().map(|x| x * k).collect::<Vec<_>>();
        let a = paired_change(&b, &c, better, &cs(0.95)).unwrap();
        let s = paired_change(&scale(&b), &scale(&c), better, &cs(0.95)).unwrap();
        prop_assert!(close(a.estimate, s.estimate) && close(a.lo, s.lo) && close(a.hi, s.hi), "{a:?} {s:?}");
        if b.len() >= 6 {
            let a = hodges_lehmann_change(&b, &c, better, 0.9).unwrap();
            let s = hodges_lehmann_change(&scale(&b), &scale(&c), better, 0.9).unwrap();
            prop_assert!(close(a.estimate, s.estimate) && close(a.lo, s.lo) && close(a.hi, s.hi), "{a:?} {s:?}");
        }
    }

    #[test]
    fn swapping_baseline_and_candidate_negates_the_log_interval((b, c) in pairs(), better in better()) {
        let fwd = paired_log_interval(&b, &c, better, &cs(0.95)).unwrap();
        let back = paired_log_interval(&c, &b, better, &cs(0.95)).unwrap();
        prop_assert_eq!(back.estimate, -fwd.estimate);
        prop_assert!(close(back.lo, -fwd.hi) && close(back.hi, -fwd.lo), "{fwd:?} {back:?}");
        if b.len() >= 6 {
            let fwd = hodges_lehmann_log_shift(&b, &c, better, 0.9).unwrap();
            let back = hodges_lehmann_log_shift(&c, &b, better, 0.9).unwrap();
            prop_assert_eq!((back.estimate, back.lo, back.hi), (-fwd.estimate, -fwd.hi, -fwd.lo));
        }
    }

    #[test]
    fn lower_is_better_mirrors_higher_is_better((b, c) in pairs()) {
        let lower = paired_log_interval(&b, &c, Better::Lower, &cs(0.95)).unwrap();
        let higher = paired_log_interval(&c, &b, Better::Higher, &cs(0.95)).unwrap();
        prop_assert_eq!(lower, higher);
    }

    #[test]
    fn classify_is_consistent_with_where_the_interval_lies(
        a in -0.1f64..0.1,
        width in 0.0f64..0.1,
        go in 0.0f64..0.05,
        band in 0.001f64..0.05,
    ) {
        let th = Thresholds::new(go, go - band).unwrap();
        let iv = Interval { estimate: a + width / 2.0, lo: a, hi: a + width, confidence: 0.95 };
        let expected = if iv.lo >= th.go {
            Verdict::Go
        } else if iv.hi <= th.nogo {
            Verdict::NoGo
        } else if iv.lo > th.nogo && iv.hi < th.go {
            Verdict::Neutral
        } else {
            Verdict::Inconclusive
        };
        prop_assert_eq!(classify(&iv, &th), expected);
        // Only one decisive region can contain a whole interval.
        let regions = [iv.lo >= th.go, iv.hi <= th.nogo, iv.lo > th.nogo && iv.hi < th.go];
        prop_assert!(regions.iter().filter(|&&r| r).count() <= 1);
    }

    #[test]
    fn summary_quantiles_are_ordered(xs in prop::collection::vec(-1e300f64..1e300, 1..60)) {
        let s = summarize(&xs).unwrap();
        prop_assert!(s.min <= s.q1 && s.q1 <= s.median && s.median <= s.q3 && s.q3 <= s.max, "{s:?}");
        prop_assert!(s.min <= s.mean && s.mean <= s.max);
        prop_assert!(s.sd >= 0.0 && s.mad >= 0.0);
        prop_assert!([s.mean, s.sd, s.median, s.mad, s.q1, s.q3].iter().all(|v| v.is_finite()));
    }

    #[test]
    fn no_nan_for_any_finite_positive_inputs(
        b in prop::collection::vec(1e-100f64..1e100, 2..12),
        c in prop::collection::vec(1e-100f64..1e100, 2..12),
        better in better(),
    ) {
        let n = b.len().min(c.len());
        let iv = paired_change(&b[..n], &c[..n], better, &cs(0.95)).unwrap();
        prop_assert!(finite(&iv), "{iv:?}");
        if b.len() >= 4 && c.len() >= 4 {
            let iv = hodges_lehmann_change(&b, &c, better, 0.95).unwrap();
            prop_assert!(finite(&iv), "{iv:?}");
        }
        let mw = mann_whitney(&b, &c).unwrap();
        prop_assert!(mw.u.is_finite() && mw.z.is_finite() && (0.0..=1.0).contains(&mw.p_value));
        let s = summarize(&b).unwrap();
        prop_assert!([s.mean, s.sd, s.median, s.mad, s.q1, s.q3].iter().all(|v| v.is_finite()));
    }

    #[test]
    fn mann_whitney_is_antisymmetric(a in positive_values(30), b in positive_values(30)) {
        let ab = mann_whitney(&a, &b).unwrap();
        let ba = mann_whitney(&b, &a).unwrap();
        let mn = (a.len() * b.len()) as f64;
        prop_assert!(close(ab.u + ba.u, mn));
        prop_assert!(close(ab.z, -ba.z));
        prop_assert!(close(ab.p_value, ba.p_value));
        prop_assert!((0.0..=1.0).contains(&ab.p_value));
    }

    #[test]
    fn sequential_test_reports_what_paired_change_computes((b, c) in pairs(), better in better()) {
        let mut config = SequentialConfig::new(better);
        config.min_runs = 2;
        config.max_runs = b.len();
        let mut test = SequentialTest::new(config).unwrap();
        let mut stopped = None;
        for (x, y) in b.iter().zip(&c) {
            if let Some(d) = test.push(*x, *y).unwrap() {
                stopped = Some(d);
                break;
            }
        }
        let d = stopped.expect("stops by max_runs");
        let n = d.runs;
        let cs = ConfidenceSequence::new(config.confidence, config.optimise_at).unwrap();
        let iv = paired_change(&b[..n], &c[..n], better, &cs).unwrap();
        prop_assert_eq!(d.interval, iv);
        prop_assert_eq!(d.primary, classify(&iv, &config.thresholds));
        // Below the fewest pairs validated at 95%, no verdict.
        if n >= test.deciding_floor() {
            prop_assert_eq!(d.verdict, d.primary);
        } else {
            prop_assert_eq!(d.verdict, Verdict::Inconclusive);
            prop_assert_eq!(n, b.len());
        }
        prop_assert_eq!(d.runs_needed.is_some(), d.verdict == Verdict::Inconclusive);
        prop_assert!(d.verdict != Verdict::Inconclusive || n == b.len());
    }
}
