//! The defaults and the configuration of the sequential A/B procedure: the
//! one place where perflab's decision defaults are written down.

use serde::{Deserialize, Serialize};

use crate::{Better, ConfidenceSequence, StatsError, Thresholds};

/// Default confidence level (DESIGN.md).
pub const DEFAULT_CONFIDENCE: f64 = 0.95;
/// Default minimum number of pairs before a verdict may stop the experiment.
///
/// The confidence sequence is only asymptotically valid; in the simulation
/// benchmark its time-uniform miss rate (nominal 5 %) was 3.6 % when looks start
/// at 10 pairs but 5.7 % when they start at 5, so 10 is the smallest minimum
/// that keeps the promise (15 lowers the false-decision rate further at a cost
/// of about three pairs for clear effects).
pub const DEFAULT_MIN_RUNS: usize = 10;
/// Default minimum number of pairs per cell of a suite ([`crate::SuiteTest`]).
///
/// A suite's cells decide at a smaller error rate each (1 - confidence split
/// over the cells), further in the tail, where the asymptotic confidence
/// sequence needs more pairs before its promise holds. In the simulation
/// benchmark, 12 unchanged cells at 95 % for the experiment: with looks from
/// 10 pairs, some cell's interval missed its truth in 8.8 to 9.6 % of
/// experiments, and at 10 % noise 5.0 % had a false GO or NO-GO; from 20
/// pairs, 4.2 to 5.2 % and 1.9 %. A clear change is then found at 20 pairs
/// instead of 10.
pub const DEFAULT_SUITE_MIN_RUNS: usize = 20;
/// Default maximum number of pairs (runs per variant).
pub const DEFAULT_MAX_RUNS: usize = 60;
/// Minimum number of pairs for a measurement expected to repeat exactly
/// (instruction counts of a deterministic program): two pairs show whether
/// the values repeat; if they do, the interval is a point and decides.
pub const EXACT_MIN_RUNS: usize = 2;
/// Maximum number of pairs for a measurement expected to repeat exactly: if
/// it does not repeat, each pair is costly (counted under an emulator), so the
/// procedure gives up sooner than [`DEFAULT_MAX_RUNS`].
pub const EXACT_MAX_RUNS: usize = 20;

/// The confidence sequence at `confidence` tuned for an experiment that stops
/// at `run_limit` values at most: tightest at the run limit.
///
/// This is the tuning every perflab procedure uses (the A/B decision, its
/// guards, span changes, sweep points); see [`crate::DEFAULT_OPTIMISE_AT`] for
/// the simulation that chose it. Tight at the end is where the hard cases,
/// effects near a threshold, are decided; any tuning gives a valid sequence.
///
/// # Errors
/// [`StatsError::InvalidConfidence`] unless 0.5 < confidence < 1;
/// [`StatsError::InvalidConfig`] if `run_limit` is 0.
pub fn tuned_confidence_sequence(
    confidence: f64,
    run_limit: usize,
) -> Result<ConfidenceSequence, StatsError> {
    ConfidenceSequence::new(confidence, run_limit)
}

/// Configuration of a [`crate::SequentialTest`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SequentialConfig {
    /// GO / NO-GO thresholds on the relative change.
    pub thresholds: Thresholds,
    /// Confidence level of the confidence sequence, in (0.5, 1).
    pub confidence: f64,
    /// No verdict stops the test before this many pairs (at least 2).
    pub min_runs: usize,
    /// The test stops INCONCLUSIVE at this many pairs (at least `min_runs`).
    pub max_runs: usize,
    /// Pair count at which the confidence sequence is tightest; recommended
    /// and set by every constructor: equal to `max_runs` (see
    /// [`tuned_confidence_sequence`]).
    pub optimise_at: usize,
    /// Which direction of the metric is better.
    pub better: Better,
}

impl SequentialConfig {
    /// The defaults: thresholds +1 % / -0.5 %, 95 %, 10 to 60 pairs,
    /// tightest at 60.
    pub fn new(better: Better) -> Self {
        Self::tuned(
            better,
            Thresholds::default(),
            DEFAULT_CONFIDENCE,
            DEFAULT_MIN_RUNS,
            DEFAULT_MAX_RUNS,
        )
    }

    /// The defaults for a suite ([`crate::SuiteTest`]): as
    /// [`SequentialConfig::new`] but no cell decides before
    /// [`DEFAULT_SUITE_MIN_RUNS`] pairs.
    pub fn for_suite(better: Better) -> Self {
        SequentialConfig {
            min_runs: DEFAULT_SUITE_MIN_RUNS,
            ..Self::new(better)
        }
    }

    /// A configuration with the confidence sequence tuned to the run limit
    /// (`optimise_at = max_runs`), as the simulation benchmark validates.
    /// Not checked here: [`crate::SequentialTest::new`] validates.
    pub fn tuned(
        better: Better,
        thresholds: Thresholds,
        confidence: f64,
        min_runs: usize,
        max_runs: usize,
    ) -> Self {
        SequentialConfig {
            thresholds,
            confidence,
            min_runs,
            max_runs,
            optimise_at: max_runs.max(1),
            better,
        }
    }

    /// Sets `max_runs` and, as recommended, `optimise_at` to the same value.
    pub fn with_max_runs(mut self, max_runs: usize) -> Self {
        self.max_runs = max_runs;
        self.optimise_at = max_runs.max(1);
        self
    }

    /// The confidence sequence this configuration decides with.
    ///
    /// # Errors
    /// As [`ConfidenceSequence::new`].
    pub fn confidence_sequence(&self) -> Result<ConfidenceSequence, StatsError> {
        ConfidenceSequence::new(self.confidence, self.optimise_at)
    }

    /// Checks every field.
    ///
    /// # Errors
    /// [`StatsError::InvalidThresholds`], [`StatsError::InvalidConfidence`] or
    /// [`StatsError::InvalidConfig`] naming the field and the fix.
    pub fn validate(&self) -> Result<(), StatsError> {
        self.thresholds.validate()?;
        self.confidence_sequence()?;
        if self.min_runs < 2 {
            return Err(StatsError::InvalidConfig {
                field: "min_runs",
                reason: format!(
                    "is {}, but at least 2 pairs are needed to measure any spread (10 is a good minimum)",
                    self.min_runs
                ),
            });
        }
        if self.max_runs < self.min_runs {
            return Err(StatsError::InvalidConfig {
                field: "max_runs",
                reason: format!(
                    "is {}, smaller than min_runs {}; raise max_runs or lower min_runs",
                    self.max_runs, self.min_runs
                ),
            });
        }
        Ok(())
    }
}
