//! The decision on two samples that already exist, of fixed size.

use perflab_format::vocabulary::{Better, Verdict};
use serde::{Deserialize, Serialize};

use crate::change::Interval;
use crate::decision::rule::{Thresholds, classify};
use crate::decision::runs_needed::RunsNeeded;
use crate::error::StatsError;
use crate::fixed_sample::hodges_lehmann::LogDifferences;
use crate::fixed_sample::runs_needed::projected_runs_needed;
use crate::sample::{PositiveSample, SortedSample, check_confidence};

/// The decision on two fixed samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FixedSampleDecision {
    /// [`classify`] on `interval`.
    pub verdict: Verdict,
    /// The Hodges-Lehmann change with its Moses interval.
    pub interval: Interval,
    /// For INCONCLUSIVE: the projected further runs per variant a new
    /// comparison would need, never 0 ([`runs_needed_independent`](crate::fixed_sample::runs_needed::runs_needed_independent)).
    pub runs_needed: Option<RunsNeeded>,
}

/// Decides between two samples measured earlier (imported files, or two
/// steps of a history): the procedure of `perflab compare` and `perflab history`.
///
/// Method: [`hodges_lehmann_change`](crate::fixed_sample::hodges_lehmann::hodges_lehmann_change) (Hodges-Lehmann shift of the log values
/// with the distribution-free Moses interval; Hodges & Lehmann, Ann. Math.
/// Statist. 34(2), 1963; Bauer, JASA 67(339), 1972), then [`classify`]; for an
/// INCONCLUSIVE verdict, [`runs_needed_independent`](crate::fixed_sample::runs_needed::runs_needed_independent).
///
/// Assumptions: as [`hodges_lehmann_change`](crate::fixed_sample::hodges_lehmann::hodges_lehmann_change): two independent samples of
/// fixed size, each i.i.d., differing by a shift on the log scale. Nothing is
/// assumed about how the sizes were chosen; adding runs until it decides is
/// not covered (use [`crate::sequential::procedure::SequentialTest`] for that).
///
/// # Errors
/// As [`hodges_lehmann_change`](crate::fixed_sample::hodges_lehmann::hodges_lehmann_change).
pub fn decide_fixed_samples(
    baseline: &[f64],
    candidate: &[f64],
    better: Better,
    thresholds: &Thresholds,
    confidence: f64,
) -> Result<FixedSampleDecision, StatsError> {
    check_confidence(confidence)?;
    let (checked_baseline, checked_candidate) = PositiveSample::pair(baseline, candidate, 2)?;
    decide_fixed_sorted_samples(
        &checked_baseline.sample().sorted(),
        &checked_candidate.sample().sorted(),
        better,
        thresholds,
        confidence,
    )
}

/// [`decide_fixed_samples`] on samples already sorted once: the same
/// decision and figures (the shift, its interval and the runs needed are
/// computed once, from one pair of sorted log arrays), so that a caller that
/// needs the order for other statistics too sorts each sample only once.
///
/// # Errors
/// As [`decide_fixed_samples`].
pub fn decide_fixed_sorted_samples(
    baseline: &SortedSample<'_>,
    candidate: &SortedSample<'_>,
    better: Better,
    thresholds: &Thresholds,
    confidence: f64,
) -> Result<FixedSampleDecision, StatsError> {
    check_confidence(confidence)?;
    let checked = PositiveSample::pair(baseline.values(), candidate.values(), 2)?;
    let differences = LogDifferences::new(baseline, candidate, better)?;
    let log_interval = differences.shift_and_interval(confidence).1?;
    drop(differences);
    let interval = log_interval.to_change()?;
    let verdict = classify(&interval, thresholds);
    let runs_needed = if verdict == Verdict::Inconclusive {
        let (b, c) = checked;
        projected_runs_needed(
            (&b, &c),
            log_interval.estimate,
            Some(log_interval),
            thresholds,
            confidence,
        )
        .ok()
    } else {
        None
    };
    Ok(FixedSampleDecision {
        verdict,
        interval,
        runs_needed,
    })
}
