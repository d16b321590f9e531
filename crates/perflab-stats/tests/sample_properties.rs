//! Property tests of the checked sample types: a `Sample` exists exactly for
//! non-empty finite values, a `PositiveSample` exactly for those also > 0,
//! and the functions that take slices report bad input as the types do.

use perflab_stats::descriptive::location_and_spread::{mean, std_dev};
use perflab_stats::{
    Better, PositiveSample, Sample, SampleRole, StatsError, geometric_mean_interval,
    relative_change, summarize, tuned_confidence_sequence,
};
use proptest::prelude::*;

/// Values of every kind a measurement file can hold: ordinary, zero,
/// negative, NaN and both infinities.
fn any_value() -> impl Strategy<Value = f64> {
    prop_oneof![
        6 => 1e-3f64..1e6,
        1 => Just(0.0),
        1 => -1e6f64..-1e-3,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
    ]
}

fn values() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(any_value(), 0..12)
}

fn role() -> impl Strategy<Value = SampleRole> {
    prop_oneof![
        Just(SampleRole::Baseline),
        Just(SampleRole::Candidate),
        Just(SampleRole::Values),
    ]
}

/// What checking `xs` should say, written out from the rules: the count,
/// then the first value that is not finite, then (for a positive sample) the
/// first value that is not > 0.
fn expected(xs: &[f64], needed: usize, role: SampleRole, positive: bool) -> Option<StatsError> {
    if xs.len() < needed.max(1) {
        return Some(StatsError::TooFew {
            sample: role,
            got: xs.len(),
            needed: needed.max(1),
        });
    }
    if let Some(index) = xs.iter().position(|x| !x.is_finite()) {
        return Some(StatsError::NonFinite {
            sample: role,
            index,
            value: xs[index],
        });
    }
    let index = xs.iter().position(|&x| x <= 0.0).filter(|_| positive)?;
    Some(StatsError::NonPositive {
        sample: role,
        index,
        value: xs[index],
    })
}

/// Errors compared as their messages, so that a NaN value compares equal.
fn message<T>(result: &Result<T, StatsError>) -> Option<String> {
    result.as_ref().err().map(|e| e.to_string())
}

proptest! {
    #[test]
    fn a_sample_is_built_exactly_from_non_empty_finite_values(
        xs in values(),
        needed in 0usize..4,
        role in role(),
    ) {
        let built = Sample::at_least(&xs, needed, role);
        let want = expected(&xs, needed, role, false);
        prop_assert_eq!(message(&built), want.as_ref().map(ToString::to_string));
        if let Ok(sample) = built {
            prop_assert_eq!(sample.values(), &xs[..]);
            prop_assert_eq!(sample.role(), role);
        }
    }

    #[test]
    fn a_positive_sample_is_built_exactly_from_values_that_are_also_above_zero(
        xs in values(),
        needed in 0usize..4,
        role in role(),
    ) {
        let built = PositiveSample::at_least(&xs, needed, role);
        let want = expected(&xs, needed, role, true);
        prop_assert_eq!(message(&built), want.as_ref().map(ToString::to_string));
        if let Ok(sample) = built {
            let logs = sample.logs();
            prop_assert!(logs.iter().all(|l| l.is_finite()));
            prop_assert_eq!(logs.len(), xs.len());
        }
    }

    #[test]
    fn a_pair_reports_either_sample_s_count_before_any_value(
        baseline in values(),
        candidate in values(),
        needed in 1usize..4,
    ) {
        let built = PositiveSample::pair(&baseline, &candidate, needed);
        let counts = [
            expected(&baseline, needed, SampleRole::Baseline, true),
            expected(&candidate, needed, SampleRole::Candidate, true),
        ];
        let want = counts
            .iter()
            .flatten()
            .find(|e| matches!(e, StatsError::TooFew { .. }))
            .or(counts.iter().flatten().next());
        prop_assert_eq!(message(&built), want.map(ToString::to_string));
    }

    #[test]
    fn functions_taking_slices_refuse_what_the_sample_types_refuse(xs in values()) {
        // Values of ordinary magnitude: nothing overflows, so a checked sample
        // is the only thing these functions can refuse.
        let values = SampleRole::Values;
        prop_assert_eq!(message(&mean(&xs)), message(&Sample::new(&xs, values)));
        prop_assert_eq!(message(&summarize(&xs)), message(&Sample::new(&xs, values)));
        prop_assert_eq!(message(&std_dev(&xs)), message(&Sample::at_least(&xs, 2, values)));
        let cs = tuned_confidence_sequence(0.95, 20).unwrap();
        let geometric = geometric_mean_interval(&xs, &cs);
        if let Some(err) = message(&PositiveSample::at_least(&xs, 2, values)) {
            prop_assert_eq!(message(&geometric), Some(err));
        }
        if let [a, b, ..] = xs[..] {
            let (a_alone, b_alone) = ([a], [b]);
            let checked = PositiveSample::new(&a_alone, SampleRole::Baseline)
                .and_then(|_| PositiveSample::new(&b_alone, SampleRole::Candidate));
            if let Some(err) = message(&checked) {
                prop_assert_eq!(message(&relative_change(a, b, Better::Lower)), Some(err));
            }
        }
    }
}
