//! Intervals on the multiplicative scale: the typical value of one series of
//! runs (a geometric mean) and the ratio of two series run in pairs, both
//! valid when runs are added until the interval is narrow enough.

use perflab_format::vocabulary::Better;
use serde::{Deserialize, Serialize};

use crate::error::{SampleRole, StatsError};
use crate::sample::{PositiveSample, Sample};
use crate::sequential::confidence_sequence::ConfidenceSequence;
use crate::sequential::paired::paired_mean_log_interval;

/// A confidence interval for a positive quantity (a geometric mean or a ratio).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PositiveInterval {
    /// Point estimate (> 0).
    pub estimate: f64,
    /// Lower end (> 0).
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Confidence level, for example 0.95.
    pub confidence: f64,
    /// Number of values (or pairs) it rests on.
    pub n: usize,
}

impl PositiveInterval {
    /// Half the width of the interval relative to the estimate:
    /// (hi - lo) / (2 · estimate). 0.02 reads as "±2 %".
    pub fn relative_half_width(&self) -> f64 {
        (self.hi - self.lo) / (2.0 * self.estimate)
    }

    /// The interval on the log scale: (ln estimate, ln lo, ln hi).
    pub fn ln(&self) -> (f64, f64, f64) {
        (self.estimate.ln(), self.lo.ln(), self.hi.ln())
    }
}

/// The geometric mean of a series of runs with a confidence interval that
/// stays valid under optional stopping.
///
/// Method: the asymptotic confidence sequence of [`ConfidenceSequence`]
/// (Waudby-Smith et al., Annals of Statistics 2024) for the mean of ln(x_i),
/// mapped back by exp, so the estimate is the geometric mean (Fleming &
/// Wallace, CACM 29(3), 1986) and the interval is multiplicative around it.
///
/// Assumptions: the values are i.i.d. with finite variance on the log scale
/// (multiplicative noise, as timings have). The caller may evaluate after every
/// run and stop once [`PositiveInterval::relative_half_width`] is small enough:
/// that is what the confidence sequence allows, with its asymptotic caveat (do
/// not stop before a few runs). A constant series gives a point interval.
///
/// # Errors
/// [`StatsError::TooFew`] with fewer than 2 values; [`StatsError::NonFinite`] /
/// [`StatsError::NonPositive`] naming the first bad value;
/// [`StatsError::Overflow`] if the interval does not fit in f64.
pub fn geometric_mean_interval(
    values: &[f64],
    cs: &ConfidenceSequence,
) -> Result<PositiveInterval, StatsError> {
    let logs = PositiveSample::at_least(values, 2, SampleRole::Values)?.logs();
    let iv = cs.log_interval_for(&Sample::derived(&logs, SampleRole::Values))?;
    exp_interval(iv.estimate, iv.lo, iv.hi, cs.confidence(), values.len())
}

/// The ratio candidate / reference of runs made in pairs (the same block of
/// an interleaved schedule), with a confidence interval valid under optional
/// stopping. A ratio of 3.8 reads "the candidate takes 3.8 times as long".
///
/// Method: the asymptotic confidence sequence of Waudby-Smith et al. 2024
/// ([`ConfidenceSequence`]) for the mean of the pairs' log ratios
/// ln(candidate_i / reference_i), mapped back by exp: the estimate is the
/// ratio of geometric means. (The A/B decision, [`crate::sequential::paired::paired_change`],
/// estimates a robust location instead; a sweep's ratio is a description of
/// its points, not a verdict.)
///
/// Assumptions: as [`crate::sequential::paired::paired_change`]: pairs i.i.d. with finite variance,
/// run close together so that drift of the machine falls on both.
///
/// # Errors
/// [`StatsError::LengthMismatch`]; [`StatsError::TooFew`] with fewer than 2
/// pairs; [`StatsError::NonFinite`] / [`StatsError::NonPositive`];
/// [`StatsError::Overflow`].
pub fn paired_ratio(
    reference: &[f64],
    candidate: &[f64],
    cs: &ConfidenceSequence,
) -> Result<PositiveInterval, StatsError> {
    let iv = paired_mean_log_interval(reference, candidate, Better::Higher, cs)?;
    exp_interval(iv.estimate, iv.lo, iv.hi, iv.confidence, reference.len())
}

fn exp_interval(
    mean: f64,
    lo: f64,
    hi: f64,
    confidence: f64,
    n: usize,
) -> Result<PositiveInterval, StatsError> {
    let interval = PositiveInterval {
        estimate: mean.exp(),
        lo: lo.exp(),
        hi: hi.exp(),
        confidence,
        n,
    };
    if interval.hi.is_finite() && interval.lo > 0.0 {
        Ok(interval)
    } else {
        Err(StatsError::Overflow {
            statistic: "multiplicative interval",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cs() -> ConfidenceSequence {
        ConfidenceSequence::new(0.95, 30).unwrap()
    }

    #[test]
    fn a_constant_series_has_a_point_interval() {
        let iv = geometric_mean_interval(&[2.0; 5], &cs()).unwrap();
        assert_eq!((iv.estimate, iv.lo, iv.hi, iv.n), (2.0, 2.0, 2.0, 5));
        assert_eq!(iv.relative_half_width(), 0.0);
    }

    #[test]
    fn the_geometric_mean_is_the_estimate() {
        let iv = geometric_mean_interval(&[1.0, 4.0], &cs()).unwrap();
        assert!((iv.estimate - 2.0).abs() < 1e-12);
        assert!(iv.lo < 2.0 && iv.hi > 2.0);
    }

    #[test]
    fn zero_is_refused_with_its_index() {
        let err = geometric_mean_interval(&[1.0, 0.0], &cs()).unwrap_err();
        assert!(matches!(err, StatsError::NonPositive { index: 1, .. }));
    }

    #[test]
    fn a_candidate_four_times_slower_has_ratio_four() {
        let reference = [1.0, 1.1, 0.9, 1.05];
        let candidate: Vec<f64> = reference.iter().map(|r| r * 4.0).collect();
        let iv = paired_ratio(&reference, &candidate, &cs()).unwrap();
        assert!((iv.estimate - 4.0).abs() < 1e-12);
        assert!((iv.lo - 4.0).abs() < 1e-12 && (iv.hi - 4.0).abs() < 1e-12);
    }

    fn series() -> impl Strategy<Value = Vec<f64>> {
        prop::collection::vec(0.5f64..2.0, 2..40)
    }

    proptest! {
        #[test]
        fn the_interval_holds_its_estimate(values in series()) {
            let iv = geometric_mean_interval(&values, &cs()).unwrap();
            prop_assert!(iv.lo <= iv.estimate * (1.0 + 1e-12));
            prop_assert!(iv.estimate <= iv.hi * (1.0 + 1e-12));
            prop_assert!(iv.relative_half_width() >= 0.0);
        }

        #[test]
        fn scaling_the_values_scales_the_interval(values in series(), scale in 1e-6f64..1e6) {
            let base = geometric_mean_interval(&values, &cs()).unwrap();
            let scaled: Vec<f64> = values.iter().map(|v| v * scale).collect();
            let iv = geometric_mean_interval(&scaled, &cs()).unwrap();
            for (a, b) in [(iv.estimate, base.estimate), (iv.lo, base.lo), (iv.hi, base.hi)] {
                prop_assert!((a / (b * scale) - 1.0).abs() < 1e-9);
            }
            prop_assert!((iv.relative_half_width() - base.relative_half_width()).abs() < 1e-9);
        }

        #[test]
        fn swapping_reference_and_candidate_inverts_the_ratio(
            pairs in prop::collection::vec((0.5f64..2.0, 0.5f64..2.0), 2..30)
        ) {
            let (a, b): (Vec<f64>, Vec<f64>) = pairs.into_iter().unzip();
            let forward = paired_ratio(&a, &b, &cs()).unwrap();
            let backward = paired_ratio(&b, &a, &cs()).unwrap();
            prop_assert!((forward.estimate * backward.estimate - 1.0).abs() < 1e-9);
            prop_assert!((forward.lo * backward.hi - 1.0).abs() < 1e-9);
            prop_assert!((forward.hi * backward.lo - 1.0).abs() < 1e-9);
        }
    }
}
