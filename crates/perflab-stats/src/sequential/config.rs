//! The defaults and the configuration of the sequential A/B procedure: the
//! one place where perflab's decision defaults are written down.

use perflab_format::vocabulary::Better;
use serde::{Deserialize, Serialize};

use crate::decision::rule::Thresholds;
use crate::error::StatsError;
use crate::sequential::confidence_sequence::ConfidenceSequence;

/// Default confidence level (README, "The decision").
pub const DEFAULT_CONFIDENCE: f64 = 0.95;
/// Default minimum number of pairs before a verdict may stop the experiment.
///
/// The confidence sequence is only asymptotically valid. Chosen with the
/// mean's asymptotic sequence, whose time-uniform miss rate (nominal 5 %) was
/// 3.6 % with looks from 10 pairs but 5.7 % from 5. With the robust sequence
/// the decision now uses (tuning table of the simulation benchmark, 10 000
/// experiments per cell): 2.1 % from 10 pairs, 2.7 % from 5, 1.9 % from 15
/// or 20; false GO or NO-GO at 10 % noise 1.0 %, 1.7 %, 1.0 % and 0.8 %; a
/// clear change (-3 % at 2 % noise) is decided at a median of 16 pairs from
/// 10, 17 from 15, 20 from 20.
pub const DEFAULT_MIN_RUNS: usize = 10;
/// Default minimum number of pairs per cell of a suite ([`crate::sequential::suite::SuiteTest`]).
///
/// A suite's cells decide at a smaller error rate each (1 - confidence split
/// over the cells), further in the tail, where the confidence sequence's
/// asymptotic promise needs more pairs. Chosen with the mean's asymptotic
/// sequence, under which 12 unchanged cells at 95 % for the experiment had
/// some interval miss its truth in 8.8 to 9.6 % of experiments with looks
/// from 10 pairs (4.2 to 5.2 % from 20). With the robust sequence the
/// decision now uses, the simulation benchmark gives 2.7 to 3.5 % from 10
/// pairs and 1.5 to 2.8 % from 20, false GO or NO-GO at most 1.1 % and
/// 0.7 %; 20 is kept as the safer default, at a cost of 6 or 7 pairs for a
/// clear change (median 13 to 15 pairs from 10).
pub const DEFAULT_SUITE_MIN_RUNS: usize = 20;
/// The fewest pairs from which a test at `confidence` may decide: the
/// smallest `min_runs` at which the decision simulation (benchmark
/// `decision_simulation -- min-pairs`) kept the promised error rate, for
/// the level one test decides at (a suite's cells decide at a split level,
/// 1 - (1 - confidence) / cells). Below it the confidence sequence, valid
/// only asymptotically, could decide on too little: with 2 pairs, 6 of 60
/// A = A experiments of `true` against `true` decided at a promised 5%.
///
/// Method: a table of the error rates simulated, each row the level of one
/// test in a 95% experiment of 1, 12 or 1,000 cells (error 5%, 0.42%,
/// 0.005%). Each row's pairs are the smallest `min_runs` at which the share
/// of A = A experiments in which some interval missed the truth at some
/// look stayed at most 5%, with Gaussian noise of 2% and with 5% of runs
/// 20% slower (4,000, 1,000 and 100 experiments): 1 cell, 4 pairs (3.8%
/// and 3.2%; 3 pairs: 6.6%, 5.2%); 12 cells, 8 (3.0%, 2.5%; 5: 9.0%,
/// 6.8%); 1,000 cells, 30 (1.0%, 3.0%; 20: 7.0%, 7.0%). A level between
/// two rows takes the stricter row's pairs; a level stricter than the last
/// row (more than 1,000 cells at 95%) takes the last row's, which no
/// simulation has checked.
pub fn fewest_deciding_pairs(confidence: f64) -> usize {
    let error = 1.0 - confidence;
    VALIDATED_MIN_PAIRS
        .iter()
        // A little slack: 1 - 0.95 is not exactly 0.05 in floating point.
        .find(|(row_error, _)| error >= row_error * (1.0 - 1e-9))
        .map_or(
            VALIDATED_MIN_PAIRS[VALIDATED_MIN_PAIRS.len() - 1].1,
            |&(_, pairs)| pairs,
        )
}

/// (error rate of one test, fewest pairs validated at it), loosest first;
/// see [`fewest_deciding_pairs`].
const VALIDATED_MIN_PAIRS: [(f64, usize); 3] = [(0.05, 4), (0.05 / 12.0, 8), (0.05 / 1000.0, 30)];

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
/// guards, span changes, sweep points); see
/// [`crate::sequential::confidence_sequence::DEFAULT_OPTIMISE_AT`] for the
/// simulation that chose it. Tight at the end is where the hard cases, effects
/// near a threshold, are decided; any tuning gives a valid sequence.
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

/// Configuration of a [`crate::sequential::procedure::SequentialTest`].
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
    /// [`tuned_confidence_sequence`]), or to the planned pairs of a test
    /// sized for a known change ([`SequentialConfig::planned`]).
    pub optimise_at: usize,
    /// Which direction of the metric is better.
    pub better: Better,
    /// The reach rule: from this many pairs on, an undecided test also stops
    /// once its projection of the further pairs it needs
    /// ([`crate::sequential::runs_needed::runs_needed_paired`], from its
    /// estimate moved one standard error away from no change) goes past
    /// `max_runs`. None (every constructor but [`SequentialConfig::planned`]):
    /// an undecided test runs to `max_runs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out_of_reach_from: Option<usize>,
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

    /// The defaults for a suite ([`crate::sequential::suite::SuiteTest`]): as
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
    /// Not checked here: [`crate::sequential::procedure::SequentialTest::new`] validates.
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
            out_of_reach_from: None,
        }
    }

    /// A test planned to decide by `planned` pairs (a confirmation sized
    /// for the change it confirms, [`crate::confirmation_size`]) that may go
    /// on to `max_runs`: the confidence sequence is tightest at `planned`,
    /// and from there on the test stops as soon as its own projection puts
    /// a verdict beyond `max_runs` (the reach rule, `out_of_reach_from`).
    ///
    /// Why it keeps the error rates: the interval is a confidence sequence,
    /// valid at every look whatever decides when to look again, so going on
    /// past the plan while a verdict looks near cannot make a wrong verdict
    /// likelier than the level allows; the rule only ever stops a test
    /// without a verdict. What it costs is power, when a projection made
    /// from an estimate that happens to sit near a threshold gives up on a
    /// change that more pairs would have decided; `cargo bench -p
    /// perflab-stats --bench decision_simulation -- confirmation` measures
    /// both.
    pub fn planned(mut self, planned: usize) -> Self {
        let planned = planned.clamp(self.min_runs.max(1), self.max_runs.max(1));
        self.optimise_at = planned;
        self.out_of_reach_from = Some(planned);
        self
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
