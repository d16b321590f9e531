//! Relative change from interleaved pairs, valid under optional stopping.

use crate::{
    Better, ConfidenceSequence, Interval, LogInterval, Sample, StatsError, log_gains, validate,
};

/// Relative change from paired runs, with a confidence-sequence interval.
///
/// Method: per pair the log gain g_i (see [`crate::log_gains`]); the asymptotic
/// confidence sequence of [`ConfidenceSequence`] (Waudby-Smith et al., Annals of
/// Statistics 2024) for the mean of the g_i; the estimate and both ends mapped
/// by exp(x) - 1, so the estimate is the ratio of geometric means minus one.
///
/// Assumptions: `baseline[i]` and `candidate[i]` were run as a pair (interleaved
/// in a randomised block, so drift of the machine falls on both), and the pairs
/// are i.i.d. with finite variance. The interval stays valid if the caller looks
/// after every pair and stops when it decides (optional stopping), with the
/// asymptotic caveat documented on [`ConfidenceSequence`].
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

/// The interval of [`paired_change`] on the log scale (mean log gain), before
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
    if baseline.len() != candidate.len() {
        return Err(StatsError::LengthMismatch {
            baseline: baseline.len(),
            candidate: candidate.len(),
        });
    }
    validate::at_least(baseline, 2, Sample::Baseline)?;
    let gains = log_gains(baseline, candidate, better)?;
    cs.log_interval_for(&gains, Sample::Values)
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
                sample: Sample::Baseline,
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
