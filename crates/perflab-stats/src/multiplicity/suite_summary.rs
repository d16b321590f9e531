//! Conclusions drawn from the cells of a suite: one verdict for several
//! cells, and the typical change of a candidate across scenarios.

use perflab_format::vocabulary::Verdict;

use crate::change::{Interval, LogInterval};
use crate::error::{SampleRole, StatsError};

/// One verdict for several cells (a candidate's row of a suite, or the whole
/// suite), from the cells' verdicts:
///
/// * NO-GO if any cell is NO-GO (a regression anywhere is a regression);
/// * otherwise INCONCLUSIVE if any cell is INCONCLUSIVE;
/// * otherwise NEUTRAL if every cell is NEUTRAL;
/// * otherwise (every cell GO or NEUTRAL, at least one GO) GO.
///
/// No cells at all is INCONCLUSIVE: nothing was decided.
///
/// Why it is safe: when the cells' intervals hold simultaneously (what
/// [`crate::sequential::suite::SuiteTest`] guarantees at its confidence level), every cell's
/// verdict is true of that cell, and so is a verdict that only restates them.
pub fn combine_verdicts(verdicts: &[Verdict]) -> Verdict {
    if verdicts.is_empty() {
        Verdict::Inconclusive
    } else if verdicts.contains(&Verdict::NoGo) {
        Verdict::NoGo
    } else if verdicts.contains(&Verdict::Inconclusive) {
        Verdict::Inconclusive
    } else if verdicts.contains(&Verdict::Go) {
        Verdict::Go
    } else {
        Verdict::Neutral
    }
}

/// The geometric mean change of one candidate across scenarios, with an
/// interval, from the cells' own intervals (relative changes, positive =
/// better).
///
/// Method: on the log scale, the estimate is the mean of the cells'
/// ln(1 + estimate) (so exp of it, minus one, is the geometric mean of the
/// cells' ratios: Fleming & Wallace, CACM 29(3), 1986) and the interval runs
/// from the mean of their ln(1 + lo) to the mean of their ln(1 + hi). If every
/// cell's interval contains its true log gain μ_j, then mean(lo_j) <=
/// mean(μ_j) <= mean(hi_j): the interval contains the true geometric mean
/// change. By the union bound that event has probability at least
/// 1 - Σ(1 - confidence_j), which is the `confidence` reported. For intervals
/// from one [`crate::sequential::suite::SuiteTest`] it is at least the suite's level; for
/// confidence sequences it holds at every look, so the summary may be read
/// at any time.
///
/// Assumptions: none beyond the cells' intervals being valid; no
/// independence is needed. The price is width: averaging the ends is the
/// simplest interval valid without knowing how the cells' errors are
/// related, and it is as wide as the cells' average, where independent cells
/// would allow about 1/sqrt(cells) of that. It is conservative, never too
/// narrow.
///
/// # Errors
/// [`StatsError::TooFew`] for no intervals; [`StatsError::InvalidInterval`]
/// naming the first interval whose ends are not finite, not ordered
/// (lo <= estimate <= hi), at or below -100 %, or whose confidence is not
/// strictly between 0 and 1; [`StatsError::NoSimultaneousConfidence`] if
/// 1 - Σ(1 - confidence_j) is 0.5 or less; [`StatsError::ChangeOutOfRange`]
/// if an end overflows when mapped back.
pub fn summary_change(intervals: &[Interval]) -> Result<Interval, StatsError> {
    if intervals.is_empty() {
        return Err(StatsError::TooFew {
            sample: SampleRole::Values,
            got: 0,
            needed: 1,
        });
    }
    for (index, iv) in intervals.iter().enumerate() {
        check_interval(iv).map_err(|reason| StatsError::InvalidInterval { index, reason })?;
    }
    let k = intervals.len() as f64;
    let mean_log = |end: fn(&Interval) -> f64| -> f64 {
        intervals.iter().map(|iv| end(iv).ln_1p()).sum::<f64>() / k
    };
    let error_budget: f64 = intervals.iter().map(|iv| 1.0 - iv.confidence).sum();
    let confidence = 1.0 - error_budget;
    if confidence.is_nan() || confidence <= 0.5 {
        return Err(StatsError::NoSimultaneousConfidence {
            intervals: intervals.len(),
            confidence,
        });
    }
    LogInterval {
        estimate: mean_log(|iv| iv.estimate),
        lo: mean_log(|iv| iv.lo),
        hi: mean_log(|iv| iv.hi),
        confidence,
    }
    .to_change()
}

/// Why an interval cannot be combined, if it cannot.
fn check_interval(iv: &Interval) -> Result<(), String> {
    if !(iv.lo.is_finite() && iv.estimate.is_finite() && iv.hi.is_finite()) {
        Err(format!(
            "has ends {}, {}, {} that are not all finite numbers; give the cell's interval as computed",
            iv.lo, iv.estimate, iv.hi
        ))
    } else if !(iv.lo <= iv.estimate && iv.estimate <= iv.hi) {
        Err(format!(
            "is not ordered (lo {} <= estimate {} <= hi {} fails); give lo, estimate and hi in that order",
            iv.lo, iv.estimate, iv.hi
        ))
    } else if iv.lo <= -1.0 {
        Err(format!(
            "starts at a change of {}, but a change of -100 % or less is impossible; give relative changes as fractions (0.03 for +3 %)",
            iv.lo
        ))
    } else if !(iv.confidence > 0.0 && iv.confidence < 1.0) {
        Err(format!(
            "has confidence {}, but a confidence level is strictly between 0 and 1 (for example 0.95)",
            iv.confidence
        ))
    } else {
        Ok(())
    }
}
