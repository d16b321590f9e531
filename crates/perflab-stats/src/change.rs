//! Orientation and the log scale: turning two measurements into a "gain".
//!
//! Convention for the whole crate: a relative change is a fraction (0.03 means
//! +3 %) oriented so that POSITIVE MEANS BETTER.
//!
//! * [`Better::Higher`] (throughput, operations per second):
//!   change = candidate / baseline - 1.
//! * [`Better::Lower`] (time, memory, instructions): change = baseline / candidate - 1,
//!   which is the change of the *rate* 1/value. A run that drops from 10 s to 8 s
//!   is a change of +25 % (it does 25 % more work per second), not +20 %.
//!
//! Inference works on the log scale: per pair the *log gain* is
//! g = ln(candidate / baseline) for `Higher` and g = ln(baseline / candidate) for
//! `Lower`, so the two orientations are exact mirror images, ratios compose by
//! addition, and an interval [lo, hi] for a mean (or shift) of log gains maps to
//! relative change by exp(x) - 1. That map is increasing, so interval endpoints
//! map to endpoints; the estimate becomes a ratio of geometric means (Fleming &
//! Wallace, "How not to lie with statistics: the correct way to summarize
//! benchmark results", CACM 29(3), 1986).

use perflab_format::vocabulary::Better;
use serde::{Deserialize, Serialize};

use crate::error::{SampleRole, StatsError};
use crate::sample::PositiveSample;

/// A confidence interval for a relative change (fractions, positive = better).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Point estimate (a ratio of geometric means, the exp of a Huber location of
    /// log gains, or the Hodges-Lehmann shift, minus one).
    pub estimate: f64,
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Confidence level, for example 0.95.
    pub confidence: f64,
}

/// A confidence interval on the log scale (for a mean, location or shift of log gains).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LogInterval {
    /// Point estimate of the log gain.
    pub estimate: f64,
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Confidence level, for example 0.95.
    pub confidence: f64,
}

impl LogInterval {
    /// Maps every field through exp(x) - 1 (monotone, so ends stay ends).
    ///
    /// # Errors
    /// [`StatsError::ChangeOutOfRange`] if an end overflows (a ratio beyond e^709).
    pub fn to_change(&self) -> Result<Interval, StatsError> {
        Ok(Interval {
            estimate: change_from_log_gain(self.estimate)?,
            lo: change_from_log_gain(self.lo)?,
            hi: change_from_log_gain(self.hi)?,
            confidence: self.confidence,
        })
    }
}

/// Log gain of one pair; both values must already be known finite and > 0.
///
/// Computed as a difference of logarithms rather than the log of a ratio so
/// that it is finite for every pair of positive finite doubles and swapping
/// the arguments negates it exactly.
pub(crate) fn log_gain_unchecked(baseline: f64, candidate: f64, better: Better) -> f64 {
    match better {
        Better::Higher => candidate.ln() - baseline.ln(),
        Better::Lower => baseline.ln() - candidate.ln(),
    }
}

/// Per-pair log gains of paired samples (see the module documentation).
///
/// Method: g_i = ln(candidate_i) - ln(baseline_i) for [`Better::Higher`], the
/// negation for [`Better::Lower`]. Reference: Fleming & Wallace (1986).
///
/// Assumptions: `baseline[i]` and `candidate[i]` were measured as a pair (for
/// example in the same interleaved block).
///
/// # Errors
/// [`StatsError::LengthMismatch`] if the lengths differ; [`StatsError::NonFinite`]
/// or [`StatsError::NonPositive`] naming the first bad value and its sample.
pub fn log_gains(
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
    if baseline.is_empty() {
        // No pairs, no gains (a sample has at least one value).
        return Ok(Vec::new());
    }
    let baseline = PositiveSample::new(baseline, SampleRole::Baseline)?;
    let candidate = PositiveSample::new(candidate, SampleRole::Candidate)?;
    Ok(log_gains_of(&baseline, &candidate, better))
}

/// The log gains of two positive samples of equal length, pair by pair.
pub(crate) fn log_gains_of(
    baseline: &PositiveSample<'_>,
    candidate: &PositiveSample<'_>,
    better: Better,
) -> Vec<f64> {
    baseline
        .values()
        .iter()
        .zip(candidate.values())
        .map(|(&b, &c)| log_gain_unchecked(b, c, better))
        .collect()
}

/// Relative change (positive = better) between two single positive values,
/// for example two means or two medians.
///
/// Method: candidate/baseline - 1 for `Higher`, baseline/candidate - 1 for
/// `Lower`, computed as exp(g) - 1 from the log gain g. Reference: Fleming &
/// Wallace (1986). Assumes nothing about variability: it is a point figure,
/// not an inference; use [`crate::sequential::paired::paired_change`] or
/// [`crate::fixed_sample::hodges_lehmann::hodges_lehmann_change`] for an interval.
///
/// # Errors
/// [`StatsError::NonFinite`] / [`StatsError::NonPositive`] (index 0) if a value is
/// not finite and > 0; [`StatsError::ChangeOutOfRange`] if the ratio overflows.
pub fn relative_change(baseline: f64, candidate: f64, better: Better) -> Result<f64, StatsError> {
    PositiveSample::new(&[baseline], SampleRole::Baseline)?;
    PositiveSample::new(&[candidate], SampleRole::Candidate)?;
    change_from_log_gain(log_gain_unchecked(baseline, candidate, better))
}

/// Maps a log gain (or an interval endpoint on the log scale) to a relative
/// change: exp(g) - 1, computed with `exp_m1` for accuracy near zero.
///
/// # Errors
/// [`StatsError::ChangeOutOfRange`] if `g` is NaN or the result overflows
/// (g > ln(f64::MAX), a ratio no real measurement produces).
pub(crate) fn change_from_log_gain(g: f64) -> Result<f64, StatsError> {
    let c = g.exp_m1();
    if c.is_finite() {
        Ok(c)
    } else {
        Err(StatsError::ChangeOutOfRange { log_gain: g })
    }
}

/// Maps a relative change to the log scale: ln(1 + change), the inverse of
/// [`change_from_log_gain`], computed with `ln_1p`. Returns `None` unless
/// `change` is finite and > -1 (a change of -100 % or less is impossible).
#[cfg(test)]
pub(crate) fn log_gain_from_change(change: f64) -> Option<f64> {
    (change.is_finite() && change > -1.0).then(|| change.ln_1p())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn higher_is_better_change_is_ratio_minus_one() {
        let c = relative_change(100.0, 103.0, Better::Higher).unwrap();
        assert!((c - 0.03).abs() < 1e-12);
    }

    #[test]
    fn lower_is_better_change_is_the_change_in_rate() {
        // 10 s -> 8 s does 25 % more work per second.
        let c = relative_change(10.0, 8.0, Better::Lower).unwrap();
        assert!((c - 0.25).abs() < 1e-12);
    }

    #[test]
    fn log_gains_reject_zero_and_name_the_sample() {
        let err = log_gains(&[1.0, 2.0], &[1.0, 0.0], Better::Higher).unwrap_err();
        assert_eq!(
            err,
            StatsError::NonPositive {
                sample: SampleRole::Candidate,
                index: 1,
                value: 0.0
            }
        );
    }

    #[test]
    fn log_gains_reject_unequal_lengths() {
        let err = log_gains(&[1.0, 2.0], &[1.0], Better::Lower).unwrap_err();
        assert!(matches!(err, StatsError::LengthMismatch { .. }));
    }

    #[test]
    fn extreme_ratio_is_an_error_not_infinity() {
        let err = relative_change(f64::MIN_POSITIVE, f64::MAX, Better::Higher).unwrap_err();
        assert!(matches!(err, StatsError::ChangeOutOfRange { .. }));
    }

    #[test]
    fn log_gain_from_change_inverts_change_from_log_gain() {
        for &c in &[-0.5, -0.005, 0.0, 0.01, 3.0] {
            let g = log_gain_from_change(c).unwrap();
            assert!((change_from_log_gain(g).unwrap() - c).abs() < 1e-15);
        }
        assert_eq!(log_gain_from_change(-1.0), None);
        assert_eq!(log_gain_from_change(f64::NAN), None);
    }
}
