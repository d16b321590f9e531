//! Hodges-Lehmann shift with the Moses (Bauer) distribution-free interval, for
//! two independent samples of fixed size.

use perflab_format::vocabulary::Better;

use crate::change::{Interval, LogInterval};
use crate::error::StatsError;
use crate::fixed_sample::mann_whitney_null::moses_rank;
use crate::fixed_sample::pairwise::order_statistics;
use crate::sample::{PositiveSample, SortedSample, check_confidence};

/// Relative change between two independent samples of fixed size, with a
/// distribution-free confidence interval.
///
/// Method: on the log scale (see [`crate::change::log_gains`]) the estimate is the
/// Hodges-Lehmann shift, the median of all m·n pairwise log gains
/// ln(c_j) - ln(b_i) (negated for [`Better::Lower`]); the interval is Moses'
/// interval from order statistics of the same differences, [D_(C), D_(mn+1-C)],
/// with C the critical value of the Mann-Whitney U statistic: the largest C
/// with P(U <= C - 1) <= α/2 under the exact null distribution when
/// m·n <= 4,096 (computed exactly, Harding's algorithm, see
/// [`crate::fixed_sample::mann_whitney_null`]), and above that its normal
/// approximation C = floor(mn/2 - z_(1-α/2) · sqrt(mn(m + n + 1)/12))
/// (rounded down; no tie correction). Both are mapped to relative change by
/// exp(x) - 1, so the estimate is a ratio minus one.
/// References: Hodges & Lehmann, "Estimates of location based on rank tests",
/// Ann. Math. Statist. 34(2), 1963; Bauer, "Constructing confidence sets using
/// rank statistics", JASA 67(339), 1972; Hollander, Wolfe & Chicken,
/// "Nonparametric Statistical Methods", 3rd ed., Wiley 2014, §4.2-4.3.
///
/// Assumptions: the samples are independent, each i.i.d., and the candidate's
/// log-values are the baseline's shifted by a constant (a multiplicative change
/// with the same shape of noise). No normality is assumed and outliers have
/// little influence. The critical values are those of continuous
/// measurements (no ties); tied values are not corrected for. The sample sizes must be fixed in advance: re-running this
/// after adding runs until it decides is NOT covered (use
/// [`crate::sequential::procedure::SequentialTest`] for that).
///
/// # Errors
/// [`StatsError::InvalidConfidence`]; [`StatsError::TooFew`] with fewer than 2
/// values in a sample; [`StatsError::NonFinite`] / [`StatsError::NonPositive`]
/// naming the first bad value; [`StatsError::TooFewForConfidence`] when the
/// samples are too small for any interval at this confidence (fewer than 4 each
/// at 95 %); [`StatsError::TooManyValues`]; [`StatsError::ChangeOutOfRange`].
pub fn hodges_lehmann_change(
    baseline: &[f64],
    candidate: &[f64],
    better: Better,
    confidence: f64,
) -> Result<Interval, StatsError> {
    hodges_lehmann_log_shift(baseline, candidate, better, confidence)?.to_change()
}

/// The Hodges-Lehmann shift and Moses interval of [`hodges_lehmann_change`] on
/// the log scale (before the exp(x) - 1 map). Same method, assumptions and errors.
///
/// # Errors
/// As [`hodges_lehmann_change`], except [`StatsError::ChangeOutOfRange`].
pub fn hodges_lehmann_log_shift(
    baseline: &[f64],
    candidate: &[f64],
    better: Better,
    confidence: f64,
) -> Result<LogInterval, StatsError> {
    check_confidence(confidence)?;
    let (baseline, candidate) = PositiveSample::pair(baseline, candidate, 2)?;
    let (baseline, candidate) = (baseline.sample().sorted(), candidate.sample().sorted());
    LogDifferences::new(&baseline, &candidate, better)?
        .shift_and_interval(confidence)
        .1
}

/// The pairwise log gains of two positive samples, as two sorted arrays of
/// log values whose differences minuend_j - subtrahend_i are the gains: the
/// m·n differences are never built, their order statistics are selected
/// (`pairwise`).
pub(crate) struct LogDifferences {
    minuend: Vec<f64>,
    subtrahend: Vec<f64>,
    baseline_len: usize,
    candidate_len: usize,
    total: usize,
}

impl LogDifferences {
    /// The log gains of the candidate over the baseline, oriented by
    /// `better`, from samples sorted once. Both samples must be positive
    /// (checked by the caller, as a [`PositiveSample`]).
    ///
    /// # Errors
    /// [`StatsError::TooManyValues`] when m·n overflows.
    pub(crate) fn new(
        baseline: &SortedSample<'_>,
        candidate: &SortedSample<'_>,
        better: Better,
    ) -> Result<Self, StatsError> {
        let (m, n) = (baseline.values().len(), candidate.values().len());
        let total = m.checked_mul(n).ok_or(StatsError::TooManyValues {
            baseline: m,
            candidate: n,
        })?;
        let log_b = sorted_logs(baseline.sorted());
        let log_c = sorted_logs(candidate.sorted());
        let (minuend, subtrahend) = match better {
            Better::Higher => (log_c, log_b),
            Better::Lower => (log_b, log_c),
        };
        Ok(LogDifferences {
            minuend,
            subtrahend,
            baseline_len: m,
            candidate_len: n,
            total,
        })
    }

    /// The Hodges-Lehmann shift (the median of the differences) and Moses'
    /// interval at `confidence` (checked by the caller) around it, all
    /// selected together.
    ///
    /// # Errors
    /// The interval is [`StatsError::TooFewForConfidence`] when the samples
    /// are too small for any interval at this confidence.
    pub(crate) fn shift_and_interval(
        &self,
        confidence: f64,
    ) -> (f64, Result<LogInterval, StatsError>) {
        let (m, n, total) = (self.baseline_len, self.candidate_len, self.total);
        let c = moses_rank(m, n, confidence);
        let mut ranks = if total % 2 == 1 {
            vec![total.div_ceil(2)]
        } else {
            vec![total / 2, total / 2 + 1]
        };
        if c >= 1 {
            ranks.extend([c, total + 1 - c]);
        }
        let selected = order_statistics(&self.minuend, &self.subtrahend, &ranks);
        let shift = if total % 2 == 1 {
            selected[0]
        } else {
            (selected[0] + selected[1]) / 2.0
        };
        if c < 1 {
            return (
                shift,
                Err(StatsError::TooFewForConfidence {
                    baseline: m,
                    candidate: n,
                    confidence,
                    needed_each: (2..10_000)
                        .find(|&s| moses_rank(s, s, confidence) >= 1)
                        .unwrap_or(10_000),
                }),
            );
        }
        let ends = &selected[selected.len() - 2..];
        (
            shift,
            Ok(LogInterval {
                estimate: shift,
                lo: ends[0],
                hi: ends[1],
                confidence,
            }),
        )
    }
}

/// The logarithms of ascending positive values, ascending: the logarithm is
/// monotone, so they come out sorted; should rounding ever break that, they
/// are sorted, so the result is always the sorted logarithms.
fn sorted_logs(sorted: &[f64]) -> Vec<f64> {
    let mut logs: Vec<f64> = sorted.iter().map(|x| x.ln()).collect();
    if !logs.is_sorted_by(|a, b| a.total_cmp(b).is_le()) {
        logs.sort_unstable_by(f64::total_cmp);
    }
    logs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_samples_say_how_many_values_are_needed() {
        let err = hodges_lehmann_change(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0], Better::Higher, 0.95)
            .unwrap_err();
        assert!(
            matches!(err, StatsError::TooFewForConfidence { needed_each: 4, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn identical_constant_samples_give_a_zero_point_interval() {
        let iv = hodges_lehmann_change(&[5.0; 6], &[5.0; 7], Better::Lower, 0.95).unwrap();
        assert_eq!((iv.estimate, iv.lo, iv.hi), (0.0, 0.0, 0.0));
    }
}
