//! Relative change from interleaved pairs, valid under optional stopping.

use perflab_format::vocabulary::Better;

use crate::change::{Interval, LogInterval, log_gains_of};
use crate::error::{SampleRole, StatsError};
use crate::sample::{PositiveSample, Sample};
use crate::sequential::confidence_sequence::ConfidenceSequence;
use crate::sequential::robust_sequence::decision_interval;

/// Relative change from paired runs, with a confidence-sequence interval.
///
/// Method: per pair the log gain g_i (see [`crate::change::log_gains`]); the
/// confidence sequence of
/// [`crate::sequential::robust_sequence::RobustSequence`] (Huber location,
/// Lai's boundary) with the level and tuning of `cs` for the location of the
/// g_i; the estimate and both ends mapped by exp(x) - 1. With fewer pairs than
/// that sequence needs to be bounded (about 4 at 95 %), the asymptotic
/// confidence sequence of [`ConfidenceSequence`] for their mean.
///
/// Assumptions: `baseline[i]` and `candidate[i]` were run as a pair (interleaved
/// in a randomised block, so drift of the machine falls on both), and the pairs
/// are i.i.d. Their log gains are symmetric about the true change when both
/// variants' run-to-run noise has the same distribution: then the location is
/// the change of the geometric means (and of the medians). The interval stays
/// valid if the caller looks after every pair and stops when it decides
/// (optional stopping), with the asymptotic caveat documented on
/// [`crate::sequential::robust_sequence::RobustSequence`].
///
/// If every log gain is equal (sd = 0, as with exact counts such as instruction
/// counts of a deterministic program), the interval is the single point of the
/// estimate: there is no variability left to be uncertain about.
///
/// # Errors
/// [`StatsError::LengthMismatch`]; [`StatsError::TooFew`] with fewer than 2
/// pairs; [`StatsError::NonFinite`] / [`StatsError::NonPositive`] naming the first
/// bad value and its sample; [`StatsError::ChangeOutOfRange`].
pub fn paired_change(
    baseline: &[f64],
    candidate: &[f64],
    better: Better,
    cs: &ConfidenceSequence,
) -> Result<Interval, StatsError> {
    paired_log_interval(baseline, candidate, better, cs)?.to_change()
}

/// The interval of [`paired_change`] on the log scale (location of the log gains), before
/// the exp(x) - 1 map. Same method, assumptions and errors.
///
/// # Errors
/// As [`paired_change`], except [`StatsError::ChangeOutOfRange`].
pub fn paired_log_interval(
    baseline: &[f64],
    candidate: &[f64],
    better: Better,
    cs: &ConfidenceSequence,
) -> Result<LogInterval, StatsError> {
    let gains = checked_gains(baseline, candidate, better)?;
    decision_interval(cs, &Sample::derived(&gains, SampleRole::Values))
}

/// The asymptotic confidence sequence `cs` for the mean of the pairs' log
/// gains (Waudby-Smith et al., Annals of Statistics 2024): the ratio of
/// geometric means, for callers that report one ([`crate::sweep::multiplicative::paired_ratio`]).
/// Errors as [`paired_log_interval`].
pub(crate) fn paired_mean_log_interval(
    baseline: &[f64],
    candidate: &[f64],
    better: Better,
    cs: &ConfidenceSequence,
) -> Result<LogInterval, StatsError> {
    let gains = checked_gains(baseline, candidate, better)?;
    cs.log_interval_for(&Sample::derived(&gains, SampleRole::Values))
}

/// The pairs' log gains (at least 2), after checking that the samples pair up.
fn checked_gains(
    baseline: &[f64],
    candidate: &[f64],
    better: Better,
) -> Result<Vec<f64>, StatsError> {
    if baseline.len() != candidate.len() {
        return Err(StatsError::LengthMismatch {
            baseline: baseline.len(),
            candidate: candidate.len(),
        });
    }
    let (baseline, candidate) = PositiveSample::pair(baseline, candidate, 2)?;
    Ok(log_gains_of(&baseline, &candidate, better))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cs() -> ConfidenceSequence {
        ConfidenceSequence::new(0.95, 20).unwrap()
    }

    #[test]
    fn exact_counts_give_a_point_interval() {
        let base = [1000.0, 2000.0, 1500.0];
        let cand = [990.0, 1980.0, 1485.0];
        let iv = paired_change(&base, &cand, Better::Lower, &cs()).unwrap();
        let expected = 1000.0 / 990.0 - 1.0;
        assert!((iv.estimate - expected).abs() < 1e-12);
        assert!((iv.lo - expected).abs() < 1e-12 && (iv.hi - expected).abs() < 1e-12);
    }

    #[test]
    fn one_pair_is_not_enough() {
        let err = paired_change(&[1.0], &[1.0], Better::Higher, &cs()).unwrap_err();
        assert_eq!(
            err,
            StatsError::TooFew {
                sample: SampleRole::Baseline,
                got: 1,
                needed: 2
            }
        );
    }

    #[test]
    fn unequal_lengths_are_rejected_before_anything_else() {
        let err = paired_change(&[1.0, f64::NAN], &[1.0], Better::Higher, &cs()).unwrap_err();
        assert!(matches!(
            err,
            StatsError::LengthMismatch {
                baseline: 2,
                candidate: 1
            }
        ));
    }
}
