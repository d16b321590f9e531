//! Bad and degenerate inputs: every function answers with a typed error or a
//! well-defined value, never a panic or NaN.

use perflab_stats::descriptive::location_and_spread::{mad, mean, quantile_sorted, std_dev};
use perflab_stats::fixed_sample::hodges_lehmann::hodges_lehmann_change;
use perflab_stats::fixed_sample::runs_needed::runs_needed_independent;
use perflab_stats::{
    Better, ConfidenceSequence, SampleRole, SequentialConfig, SequentialTest, StatsError,
    Thresholds, mann_whitney, median, paired_change, summarize, wilson_interval,
};

fn cs() -> ConfidenceSequence {
    ConfidenceSequence::new(0.95, 60).unwrap()
}

#[test]
fn empty_inputs_are_errors_that_say_how_many_values_are_needed() {
    let too_few = |r: Result<f64, StatsError>| matches!(r, Err(StatsError::TooFew { got: 0, .. }));
    assert!(too_few(mean(&[])));
    assert!(too_few(median(&[])));
    assert!(too_few(mad(&[])));
    assert!(too_few(std_dev(&[])));
    assert!(too_few(quantile_sorted(&[], 0.5)));
    assert!(matches!(
        summarize(&[]),
        Err(StatsError::TooFew {
            got: 0,
            needed: 1,
            ..
        })
    ));
    assert!(matches!(
        mann_whitney(&[], &[1.0]),
        Err(StatsError::TooFew {
            sample: SampleRole::Baseline,
            ..
        })
    ));
    assert!(matches!(
        paired_change(&[], &[], Better::Higher, &cs()),
        Err(StatsError::TooFew {
            got: 0,
            needed: 2,
            ..
        })
    ));
    assert!(matches!(
        hodges_lehmann_change(&[1.0, 2.0], &[], Better::Higher, 0.95),
        Err(StatsError::TooFew {
            sample: SampleRole::Candidate,
            got: 0,
            needed: 2
        })
    ));
    assert!(cs().interval_for_mean(&[]).is_err());
}

#[test]
fn one_value_is_enough_for_location_but_not_for_spread_or_intervals() {
    assert_eq!(mean(&[3.0]).unwrap(), 3.0);
    assert_eq!(median(&[3.0]).unwrap(), 3.0);
    assert_eq!(mad(&[3.0]).unwrap(), 0.0);
    assert!(std_dev(&[3.0]).is_err());
    let err = hodges_lehmann_change(&[1.0], &[1.0, 2.0], Better::Higher, 0.95).unwrap_err();
    assert_eq!(
        err.to_string(),
        "baseline sample has 1 value; at least 2 are needed (collect more runs)"
    );
}

#[test]
fn constant_samples_give_zero_spread_and_point_intervals() {
    let xs = [4.0; 12];
    assert_eq!(std_dev(&xs).unwrap(), 0.0);
    assert_eq!(mad(&xs).unwrap(), 0.0);
    let iv = paired_change(&xs, &[5.0; 12], Better::Higher, &cs()).unwrap();
    assert!((iv.estimate - 0.25).abs() < 1e-12);
    assert_eq!((iv.lo, iv.hi), (iv.estimate, iv.estimate));
    let iv = hodges_lehmann_change(&xs, &[5.0; 12], Better::Lower, 0.95).unwrap();
    assert!((iv.estimate - (-0.2)).abs() < 1e-12);
    assert_eq!((iv.lo, iv.hi), (iv.estimate, iv.estimate));
    let mw = mann_whitney(&xs, &xs).unwrap();
    assert_eq!(mw.p_value, 1.0);
}

#[test]
fn zero_and_negative_values_are_rejected_where_logs_are_taken() {
    let err = paired_change(&[1.0, 0.0], &[1.0, 1.0], Better::Higher, &cs()).unwrap_err();
    assert_eq!(
        err,
        StatsError::NonPositive {
            sample: SampleRole::Baseline,
            index: 1,
            value: 0.0
        }
    );
    let err =
        hodges_lehmann_change(&[1.0; 5], &[1.0, 2.0, -3.0, 1.0], Better::Lower, 0.95).unwrap_err();
    assert_eq!(
        err,
        StatsError::NonPositive {
            sample: SampleRole::Candidate,
            index: 2,
            value: -3.0
        }
    );
    // Descriptive statistics accept them.
    assert_eq!(mean(&[-1.0, 0.0, 1.0]).unwrap(), 0.0);
    assert!(summarize(&[-5.0, 0.0, 5.0]).is_ok());
}

#[test]
fn nan_and_infinity_are_rejected_with_sample_and_index() {
    let err = mann_whitney(&[1.0, 2.0], &[1.0, f64::INFINITY]).unwrap_err();
    assert_eq!(
        err,
        StatsError::NonFinite {
            sample: SampleRole::Candidate,
            index: 1,
            value: f64::INFINITY
        }
    );
    assert!(
        err.to_string()
            .contains("candidate value at index 1 is inf")
    );
    let err = paired_change(&[1.0, f64::NAN], &[1.0, 1.0], Better::Lower, &cs()).unwrap_err();
    assert!(matches!(
        err,
        StatsError::NonFinite {
            sample: SampleRole::Baseline,
            index: 1,
            ..
        }
    ));
    assert!(median(&[f64::NEG_INFINITY]).is_err());
    assert!(quantile_sorted(&[1.0, f64::NAN], 0.5).is_err());
    assert!(cs().interval_for_mean(&[1.0, f64::NAN]).is_err());
}

#[test]
fn invalid_confidence_and_thresholds_are_rejected() {
    for c in [0.0, 0.5, 1.0, 1.5, f64::NAN] {
        assert!(matches!(
            hodges_lehmann_change(&[1.0; 8], &[1.0; 8], Better::Higher, c),
            Err(StatsError::InvalidConfidence { .. })
        ));
        assert!(ConfidenceSequence::new(c, 20).is_err());
    }
    let err = Thresholds::new(-0.01, 0.01).unwrap_err();
    assert!(
        err.to_string().contains("nogo must be smaller than go"),
        "{err}"
    );
    let th = Thresholds::default();
    assert!(runs_needed_independent(&[1.0], &[1.0, 2.0], Better::Higher, &th, 0.95).is_err());
}

#[test]
fn sequential_test_cannot_evaluate_before_two_pairs() {
    let mut t = SequentialTest::new(SequentialConfig::new(Better::Higher)).unwrap();
    assert!(t.evaluate().is_err());
    t.push(1.0, 1.1).unwrap();
    assert!(t.evaluate().is_err());
    t.push(1.0, 1.2).unwrap();
    assert!(t.evaluate().is_ok());
}

#[test]
fn wilson_interval_rejects_impossible_counts() {
    assert!(matches!(
        wilson_interval(5, 4, 0.95),
        Err(StatsError::InvalidCount { .. })
    ));
}

#[test]
fn serde_labels_match_the_contract() {
    let v = serde_json::to_string(&perflab_stats::Verdict::NoGo).unwrap();
    assert_eq!(v, "\"NO-GO\"");
    assert_eq!(serde_json::to_string(&Better::Lower).unwrap(), "\"lower\"");
    let r = serde_json::to_string(&perflab_stats::RunsNeeded::MoreThan(5)).unwrap();
    assert_eq!(r, "{\"more_than\":5}");
    let back: perflab_stats::Verdict = serde_json::from_str("\"INCONCLUSIVE\"").unwrap();
    assert_eq!(back, perflab_stats::Verdict::Inconclusive);
}
