//! The stopping rule for estimation: add runs until every interval of a
//! quantity is as narrow as asked, or the run limit is reached.

use serde::{Deserialize, Serialize};

use crate::error::StatsError;
use crate::sequential::confidence_sequence::ConfidenceSequence;
use crate::sequential::config::tuned_confidence_sequence;

/// Why a [`PrecisionRule`] stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrecisionStop {
    /// Every interval is at least as narrow as the target.
    Precise,
    /// The run limit was reached first.
    RunLimit,
}

/// Sequential estimation to a fixed relative precision.
///
/// Method: the fixed-width sequential confidence interval of Chow & Robbins
/// ("On the asymptotic theory of fixed-width sequential confidence intervals
/// for the mean", Ann. Math. Statist. 36(2), 1965): keep sampling until the
/// interval's half-width falls below the target. Here the intervals come from
/// the confidence sequence of [`PrecisionRule::confidence_sequence`] (on log
/// values: [`crate::sweep::multiplicative::geometric_mean_interval`],
/// [`crate::sweep::multiplicative::paired_ratio`]), which stays valid at the
/// data-dependent stopping time, so the rule needs none of Chow & Robbins'
/// asymptotic coverage argument. The sequence is tuned to the run limit as the
/// A/B decision is ([`tuned_confidence_sequence`]).
///
/// Assumptions: those of the intervals (i.i.d. runs with finite variance on
/// the log scale); no stop before `min_runs`, where the asymptotic interval is
/// not yet trusted.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PrecisionRule {
    /// Target relative half-width (0.02 = ±2 %), above 0.
    pub precision: f64,
    /// Confidence level, in (0.5, 1).
    pub confidence: f64,
    /// No stop for precision before this many runs (at least 2).
    pub min_runs: usize,
    /// Stop at this many runs whatever the intervals say (at least `min_runs`).
    pub max_runs: usize,
}

impl PrecisionRule {
    /// The confidence sequence the intervals must use: tightest at `max_runs`.
    ///
    /// # Errors
    /// As [`tuned_confidence_sequence`].
    pub fn confidence_sequence(&self) -> Result<ConfidenceSequence, StatsError> {
        tuned_confidence_sequence(self.confidence, self.max_runs.max(1))
    }

    /// Whether to stop after `runs` runs whose widest relative half-width is
    /// `widest` (None while some interval cannot be computed yet).
    pub fn stop(&self, runs: usize, widest: Option<f64>) -> Option<PrecisionStop> {
        if runs >= self.min_runs && widest.is_some_and(|w| w <= self.precision) {
            Some(PrecisionStop::Precise)
        } else if runs >= self.max_runs {
            Some(PrecisionStop::RunLimit)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> PrecisionRule {
        PrecisionRule {
            precision: 0.02,
            confidence: 0.95,
            min_runs: 5,
            max_runs: 30,
        }
    }

    #[test]
    fn a_precise_interval_stops_only_from_the_minimum_on() {
        assert_eq!(rule().stop(4, Some(0.001)), None);
        assert_eq!(rule().stop(5, Some(0.02)), Some(PrecisionStop::Precise));
        assert_eq!(rule().stop(5, Some(0.021)), None);
        assert_eq!(rule().stop(5, None), None);
    }

    #[test]
    fn the_run_limit_stops_whatever_the_intervals_say() {
        assert_eq!(rule().stop(30, Some(0.5)), Some(PrecisionStop::RunLimit));
        assert_eq!(rule().stop(30, None), Some(PrecisionStop::RunLimit));
    }

    #[test]
    fn the_intervals_are_tuned_to_the_run_limit() {
        assert_eq!(rule().confidence_sequence().unwrap().optimise_at(), 30);
    }
}
