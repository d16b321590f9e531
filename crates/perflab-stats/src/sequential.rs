//! The sequential A/B procedure: add one interleaved pair at a time and stop as
//! soon as the confidence sequence decides.

use serde::{Deserialize, Serialize};

use crate::descriptive::std_dev_unchecked;
use crate::{
    Better, ConfidenceSequence, DEFAULT_OPTIMISE_AT, Interval, RunsNeeded, Sample, StatsError,
    Thresholds, Verdict, classify, log_gains, runs_needed_paired,
};

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
/// Default maximum number of pairs (runs per variant).
pub const DEFAULT_MAX_RUNS: usize = 60;

/// Configuration of a [`SequentialTest`].
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
    /// Pair count at which the confidence sequence is tightest; recommended:
    /// equal to `max_runs` (see [`DEFAULT_OPTIMISE_AT`]).
    pub optimise_at: usize,
    /// Which direction of the metric is better.
    pub better: Better,
}

impl SequentialConfig {
    /// The defaults: thresholds +1 % / -0.5 %, 95 %, 10 to 60 pairs,
    /// [`DEFAULT_OPTIMISE_AT`].
    pub fn new(better: Better) -> Self {
        SequentialConfig {
            thresholds: Thresholds::default(),
            confidence: DEFAULT_CONFIDENCE,
            min_runs: DEFAULT_MIN_RUNS,
            max_runs: DEFAULT_MAX_RUNS,
            optimise_at: DEFAULT_OPTIMISE_AT,
            better,
        }
    }

    /// Sets `max_runs` and, as recommended (see [`DEFAULT_OPTIMISE_AT`]),
    /// `optimise_at` to the same value.
    pub fn with_max_runs(mut self, max_runs: usize) -> Self {
        self.max_runs = max_runs;
        self.optimise_at = max_runs.max(1);
        self
    }

    /// Checks every field.
    ///
    /// # Errors
    /// [`StatsError::InvalidThresholds`], [`StatsError::InvalidConfidence`] or
    /// [`StatsError::InvalidConfig`] naming the field and the fix.
    pub fn validate(&self) -> Result<(), StatsError> {
        self.thresholds.validate()?;
        ConfidenceSequence::new(self.confidence, self.optimise_at)?;
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

/// Where a sequential test stands, or where it stopped.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The verdict of [`classify`] on `interval`.
    pub verdict: Verdict,
    /// Confidence-sequence interval for the relative change.
    pub interval: Interval,
    /// Number of pairs (runs per variant) it rests on.
    pub runs: usize,
    /// For an INCONCLUSIVE verdict, the projected further pairs needed.
    pub runs_needed: Option<RunsNeeded>,
}

/// The sequential A/B procedure as a pure state machine.
///
/// Method: after each pair (baseline, candidate), once at least `min_runs`
/// pairs exist, compute [`crate::paired_change`] (the asymptotic confidence
/// sequence of Waudby-Smith et al., Annals of Statistics 2024, on per-pair log
/// gains) and [`classify`] it; any verdict but INCONCLUSIVE stops the test. At
/// `max_runs` pairs it stops with whatever the interval says, INCONCLUSIVE with
/// [`runs_needed_paired`] if it still straddles a threshold.
///
/// Assumptions: as [`crate::paired_change`]: the pairs are i.i.d. (interleaved
/// in randomised order, so drift falls on both variants) with finite variance.
/// Because the interval is a confidence sequence, stopping at the first decisive
/// look keeps the error rate at about 1 - confidence or less; the simulation
/// benchmark `decision_simulation` measures it.
#[derive(Debug, Clone)]
pub struct SequentialTest {
    config: SequentialConfig,
    cs: ConfidenceSequence,
    baseline: Vec<f64>,
    candidate: Vec<f64>,
    gains: Vec<f64>,
    decision: Option<Decision>,
}

impl SequentialTest {
    /// A test with no pairs yet.
    ///
    /// # Errors
    /// Whatever [`SequentialConfig::validate`] reports.
    pub fn new(config: SequentialConfig) -> Result<Self, StatsError> {
        config.validate()?;
        Ok(SequentialTest {
            cs: ConfidenceSequence::new(config.confidence, config.optimise_at)?,
            config,
            baseline: Vec::with_capacity(config.max_runs),
            candidate: Vec::with_capacity(config.max_runs),
            gains: Vec::with_capacity(config.max_runs),
            decision: None,
        })
    }

    /// Adds one pair; returns `Some(decision)` when the test stops.
    ///
    /// # Errors
    /// [`StatsError::NonFinite`] / [`StatsError::NonPositive`] naming the sample
    /// and the index of the pair (the pair is then not recorded: re-run it or
    /// abort); [`StatsError::AlreadyStopped`] after the test has stopped;
    /// [`StatsError::ChangeOutOfRange`] for absurd ratios.
    pub fn push(
        &mut self,
        baseline_value: f64,
        candidate_value: f64,
    ) -> Result<Option<Decision>, StatsError> {
        if let Some(d) = &self.decision {
            return Err(StatsError::AlreadyStopped {
                runs: d.runs,
                verdict: d.verdict,
            });
        }
        let index = self.gains.len();
        let gain = log_gains(&[baseline_value], &[candidate_value], self.config.better)
            .map_err(|e| with_index(e, index))?[0];
        self.baseline.push(baseline_value);
        self.candidate.push(candidate_value);
        self.gains.push(gain);
        let n = self.gains.len();
        if n < self.config.min_runs {
            return Ok(None);
        }
        let (interval, verdict, estimate) = self.current()?;
        if verdict != Verdict::Inconclusive || n >= self.config.max_runs {
            let decision = self.decision_from(interval, verdict, estimate);
            self.decision = Some(decision);
            return Ok(Some(decision));
        }
        Ok(None)
    }

    /// Interval, verdict and mean log gain for the pairs so far.
    fn current(&self) -> Result<(Interval, Verdict, f64), StatsError> {
        let iv = self.cs.log_interval_for(&self.gains, Sample::Baseline)?;
        let interval = iv.to_change()?;
        Ok((
            interval,
            classify(&interval, &self.config.thresholds),
            iv.estimate,
        ))
    }

    fn decision_from(&self, interval: Interval, verdict: Verdict, estimate: f64) -> Decision {
        let runs = self.gains.len();
        let runs_needed = (verdict == Verdict::Inconclusive).then(|| {
            let sd = std_dev_unchecked(&self.gains, estimate).unwrap_or(f64::INFINITY);
            runs_needed_paired(runs, estimate, sd, &self.config.thresholds, &self.cs)
        });
        Decision {
            verdict,
            interval,
            runs,
            runs_needed,
        }
    }

    /// The decision if the test stopped now (ignoring `min_runs`): the interval,
    /// its verdict, and for INCONCLUSIVE the projected further pairs needed.
    /// The interval is valid at any look, so this is also what to report when an
    /// experiment is interrupted.
    ///
    /// # Errors
    /// [`StatsError::TooFew`] with fewer than 2 pairs; [`StatsError::ChangeOutOfRange`].
    pub fn evaluate(&self) -> Result<Decision, StatsError> {
        let (interval, verdict, estimate) = self.current()?;
        Ok(self.decision_from(interval, verdict, estimate))
    }

    /// Pairs recorded so far.
    pub fn runs(&self) -> usize {
        self.gains.len()
    }

    /// The decision the test stopped with, if it has stopped.
    pub fn decision(&self) -> Option<&Decision> {
        self.decision.as_ref()
    }

    /// Whether the test has stopped.
    pub fn is_finished(&self) -> bool {
        self.decision.is_some()
    }

    /// The configuration in use.
    pub fn config(&self) -> &SequentialConfig {
        &self.config
    }

    /// Baseline values recorded so far, in order.
    pub fn baseline(&self) -> &[f64] {
        &self.baseline
    }

    /// Candidate values recorded so far, in order.
    pub fn candidate(&self) -> &[f64] {
        &self.candidate
    }
}

/// Errors from checking a single pair carry index 0; give them the pair's index.
fn with_index(e: StatsError, index: usize) -> StatsError {
    match e {
        StatsError::NonFinite { sample, value, .. } => StatsError::NonFinite {
            sample,
            index,
            value,
        },
        StatsError::NonPositive { sample, value, .. } => StatsError::NonPositive {
            sample,
            index,
            value,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clear_improvement_stops_with_go_at_the_minimum() {
        let mut t = SequentialTest::new(SequentialConfig::new(Better::Lower)).unwrap();
        let mut last = None;
        for i in 0..10 {
            let base = 100.0 + f64::from(i % 3);
            last = t.push(base, base * 0.8).unwrap();
            if i < 9 {
                assert_eq!(last, None);
            }
        }
        let d = last.expect("decides at min_runs");
        assert_eq!((d.verdict, d.runs, d.runs_needed), (Verdict::Go, 10, None));
        assert!(matches!(
            t.push(1.0, 1.0),
            Err(StatsError::AlreadyStopped { runs: 10, .. })
        ));
    }

    #[test]
    fn noise_without_effect_stops_inconclusive_at_the_maximum_with_a_projection() {
        let mut cfg = SequentialConfig::new(Better::Higher);
        cfg.max_runs = 12;
        let mut t = SequentialTest::new(cfg).unwrap();
        let noise = [
            1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 1.5, -1.5, 1.0, -1.0, 0.3, -0.3,
        ];
        let mut last = None;
        for e in noise {
            last = t.push(100.0, 100.0 + e).unwrap();
        }
        let d = last.expect("stops at max_runs");
        assert_eq!(d.verdict, Verdict::Inconclusive);
        assert_eq!(d.runs, 12);
        assert!(matches!(d.runs_needed, Some(RunsNeeded::Additional(k)) if k > 0));
    }

    #[test]
    fn a_bad_value_names_its_pair_and_is_not_recorded() {
        let mut t = SequentialTest::new(SequentialConfig::new(Better::Higher)).unwrap();
        t.push(1.0, 1.0).unwrap();
        let err = t.push(1.0, -3.0).unwrap_err();
        assert_eq!(
            err,
            StatsError::NonPositive {
                sample: Sample::Candidate,
                index: 1,
                value: -3.0
            }
        );
        assert_eq!(t.runs(), 1);
    }

    #[test]
    fn invalid_configurations_are_rejected() {
        let mut cfg = SequentialConfig::new(Better::Higher);
        cfg.min_runs = 1;
        assert!(SequentialTest::new(cfg).is_err());
        let mut cfg = SequentialConfig::new(Better::Higher);
        cfg.max_runs = 5;
        assert!(SequentialTest::new(cfg).is_err());
        let mut cfg = SequentialConfig::new(Better::Higher);
        cfg.thresholds.nogo = 0.02;
        assert!(SequentialTest::new(cfg).is_err());
    }
}
