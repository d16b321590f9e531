//! The sequential A/B procedure: add one interleaved pair at a time and stop as
//! soon as the confidence sequence decides.

use perflab_format::vocabulary::{Better, GuardStatus, Verdict};
use serde::{Deserialize, Serialize};

use crate::change::{Interval, LogInterval, log_gains};
use crate::decision::guard::{GuardLimit, combined_status, guard_status};
use crate::decision::rule::classify;
use crate::decision::runs_needed::RunsNeeded;
use crate::error::{SampleRole, StatsError};
use crate::sample::Sample;
use crate::sequential::confidence_sequence::ConfidenceSequence;
use crate::sequential::config::{SequentialConfig, fewest_deciding_pairs};
use crate::sequential::robust_sequence::decision_interval;
use crate::sequential::runs_needed::{runs_needed_floor, runs_needed_guard, runs_needed_paired};

/// A guard's interval and status at one look.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GuardDecision {
    /// The guarded metric's relative change (positive = better).
    pub interval: Interval,
    /// For a guard with a floor, the interval of the paired difference in
    /// the metric's own unit, positive = better (baseline minus candidate
    /// when lower is better): the location of the differences, by the same
    /// procedure as the relative change ([`paired_difference_interval`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absolute: Option<Interval>,
    /// What the intervals say about the limit ([`guard_status`], and
    /// [`combined_status`] with a floor).
    pub status: GuardStatus,
    /// For an uncertain guard, the projected further pairs needed to settle it.
    pub runs_needed: Option<RunsNeeded>,
}

/// Where a sequential test stands, or where it stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The verdict: [`classify`] on `interval`, with the guards applied (a
    /// guard can only take a GO away) and INCONCLUSIVE below `min_runs`.
    pub verdict: Verdict,
    /// The decision metric's own verdict, [`classify`] on `interval`.
    pub primary: Verdict,
    /// Confidence-sequence interval for the relative change.
    pub interval: Interval,
    /// Number of pairs (runs per variant) it rests on.
    pub runs: usize,
    /// For an INCONCLUSIVE verdict, the projected further pairs needed.
    pub runs_needed: Option<RunsNeeded>,
    /// The guards, in the order they were given.
    pub guards: Vec<GuardDecision>,
}

/// The sequential A/B procedure as a pure state machine.
///
/// Method: after each pair (baseline, candidate), once at least `min_runs`
/// pairs exist (and the fewest the simulations validate at this confidence,
/// [`SequentialTest::deciding_floor`]), compute [`crate::sequential::paired::paired_change`] (the
/// confidence sequence for the Huber location of the per-pair log gains,
/// [`crate::sequential::robust_sequence::RobustSequence`], tuned to the run
/// limit: [`SequentialConfig::tuned`]) and [`classify`] it. Guards, if any, are
/// evaluated on their own log gains with the same confidence sequence
/// ([`guard_status`]), a guard with a floor also on its paired differences,
/// both at the split level of [`GuardLimit::interval_confidence`]
/// ([`combined_status`]); a GO stands only when every guard passes: a violated
/// guard turns it into NO-GO, an uncertain one into INCONCLUSIVE (the test goes
/// on). Any verdict but INCONCLUSIVE stops the test. At `max_runs` pairs it
/// stops with whatever the interval says, INCONCLUSIVE with
/// [`runs_needed_paired`] (or [`runs_needed_guard`]) if it is still undecided;
/// a test with the reach rule ([`SequentialConfig::planned`]) stops
/// INCONCLUSIVE earlier, once that projection goes past `max_runs`.
///
/// Assumptions: as [`crate::sequential::paired::paired_change`]: the pairs are i.i.d. (interleaved
/// in randomised order, so drift falls on both variants), their log gains
/// symmetric about the change (both variants' noise alike).
/// Because the interval is a confidence sequence, stopping at the first decisive
/// look keeps the error rate at about 1 - confidence or less; the simulation
/// benchmark `decision_simulation` measures it through [`SequentialTest::push`].
/// Guards look at several intervals at once, each at the same level, with no
/// multiplicity correction: they can only withhold a GO, never create one, so
/// they do not raise the false-GO rate.
#[derive(Debug, Clone)]
pub struct SequentialTest {
    config: SequentialConfig,
    cs: ConfidenceSequence,
    guards: Vec<GuardLimit>,
    /// Each guard's confidence sequence, at its interval level.
    guard_cs: Vec<ConfidenceSequence>,
    baseline: Vec<f64>,
    candidate: Vec<f64>,
    gains: Vec<f64>,
    guard_gains: Vec<Vec<f64>>,
    /// Each guard's paired differences (positive = better), for its floor.
    guard_differences: Vec<Vec<f64>>,
    decision: Option<Decision>,
}

impl SequentialTest {
    /// A test with no pairs yet and no guards.
    ///
    /// # Errors
    /// Whatever [`SequentialConfig::validate`] reports.
    pub fn new(config: SequentialConfig) -> Result<Self, StatsError> {
        Self::with_guards(config, Vec::new())
    }

    /// A test with no pairs yet whose GO also requires every guard to pass.
    ///
    /// # Errors
    /// Whatever [`SequentialConfig::validate`] reports;
    /// [`StatsError::InvalidConfig`] for a limit that is negative or not finite.
    pub fn with_guards(
        config: SequentialConfig,
        guards: Vec<GuardLimit>,
    ) -> Result<Self, StatsError> {
        config.validate()?;
        if let Some(g) = guards
            .iter()
            .find(|g| !(g.max_worsening.is_finite() && g.max_worsening >= 0.0))
        {
            return Err(StatsError::InvalidConfig {
                field: "max_worsening",
                reason: format!(
                    "is {}; a guard's limit is a worsening of 0 or more (0.05 allows 5 %)",
                    g.max_worsening
                ),
            });
        }
        if let Some(floor) = guards
            .iter()
            .filter_map(|g| g.floor)
            .find(|f| !(f.is_finite() && *f >= 0.0))
        {
            return Err(StatsError::InvalidConfig {
                field: "floor",
                reason: format!(
                    "is {floor}; a guard's floor is a worsening of 0 or more in the metric's unit"
                ),
            });
        }
        let cs = config.confidence_sequence()?;
        let guard_cs = guards
            .iter()
            .map(|g| {
                ConfidenceSequence::new(
                    g.interval_confidence(config.confidence),
                    config.optimise_at,
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SequentialTest {
            cs,
            config,
            baseline: Vec::with_capacity(config.max_runs),
            candidate: Vec::with_capacity(config.max_runs),
            gains: Vec::with_capacity(config.max_runs),
            guard_gains: vec![Vec::with_capacity(config.max_runs); guards.len()],
            guard_differences: vec![Vec::with_capacity(config.max_runs); guards.len()],
            guard_cs,
            guards,
            decision: None,
        })
    }

    /// Adds one pair of a test without guards; returns `Some(decision)` when
    /// the test stops.
    ///
    /// # Errors
    /// [`StatsError::NonFinite`] / [`StatsError::NonPositive`] naming the sample
    /// and the index of the pair (the pair is then not recorded: re-run it or
    /// abort); [`StatsError::AlreadyStopped`] after the test has stopped;
    /// [`StatsError::ChangeOutOfRange`] for absurd ratios;
    /// [`StatsError::InvalidConfig`] if the test has guards (use
    /// [`SequentialTest::push_with_guards`]).
    pub fn push(
        &mut self,
        baseline_value: f64,
        candidate_value: f64,
    ) -> Result<Option<Decision>, StatsError> {
        self.push_with_guards(baseline_value, candidate_value, &[])
    }

    /// Adds one pair with the guards' (baseline, candidate) values, in the
    /// order the guards were given; returns `Some(decision)` when the test stops.
    ///
    /// # Errors
    /// As [`SequentialTest::push`]; [`StatsError::InvalidConfig`] unless there
    /// is one value pair per guard.
    pub fn push_with_guards(
        &mut self,
        baseline_value: f64,
        candidate_value: f64,
        guard_values: &[(f64, f64)],
    ) -> Result<Option<Decision>, StatsError> {
        self.record(baseline_value, candidate_value, guard_values)?;
        let runs = self.gains.len();
        if runs < self.deciding_floor() && runs < self.config.max_runs {
            return Ok(None);
        }
        let (decision, iv) = self.evaluate_with_interval()?;
        if decision.verdict != Verdict::Inconclusive
            || decision.runs >= self.config.max_runs
            || self.out_of_reach(&decision, &iv)
        {
            self.decision = Some(decision.clone());
            return Ok(Some(decision));
        }
        Ok(None)
    }

    /// The reach rule ([`SequentialConfig::out_of_reach_from`]): from its
    /// first pair on, true when the undecided `decision`, made from the log
    /// interval `iv`, projects no verdict within `max_runs`.
    ///
    /// Method: [`runs_needed_paired`] from the estimate moved one standard
    /// error (the spread that gives the mean's sequence this interval, over
    /// √n) away from no change, so that a test gives up only when even a
    /// change somewhat larger than its estimate could not be decided in
    /// time: projected from the estimate itself, a true 5% loss at 9% noise
    /// planned for 60 pairs gave up at the plan in one experiment in five,
    /// where more pairs would have decided it. A guard's projection, or an
    /// estimate exactly on a threshold, stops nothing.
    fn out_of_reach(&self, decision: &Decision, iv: &LogInterval) -> bool {
        let Some(from) = self.config.out_of_reach_from else {
            return false;
        };
        let runs = decision.runs;
        if runs < from
            || decision.verdict != Verdict::Inconclusive
            || decision.primary != Verdict::Inconclusive
        {
            return false;
        }
        let sd = self.equivalent_sd(iv, runs);
        let standard_error = sd / (runs as f64).sqrt();
        let away = if iv.estimate < 0.0 { -1.0 } else { 1.0 };
        let hopeful = iv.estimate + away * standard_error;
        match runs_needed_paired(runs, hopeful, sd, &self.config.thresholds, &self.cs) {
            RunsNeeded::Additional(more) => runs + more > self.config.max_runs,
            RunsNeeded::MoreThan(_) => true,
            RunsNeeded::Unknown => false,
        }
    }

    /// Adds one pair without looking at it: for replaying pairs measured
    /// earlier (a stored experiment), then [`SequentialTest::evaluate`].
    ///
    /// # Errors
    /// As [`SequentialTest::push_with_guards`].
    pub fn record(
        &mut self,
        baseline_value: f64,
        candidate_value: f64,
        guard_values: &[(f64, f64)],
    ) -> Result<(), StatsError> {
        if let Some(d) = &self.decision {
            return Err(StatsError::AlreadyStopped {
                runs: d.runs,
                verdict: d.verdict,
            });
        }
        if guard_values.len() != self.guards.len() {
            return Err(StatsError::InvalidConfig {
                field: "guard_values",
                reason: format!(
                    "{} value pairs for {} guards; give one (baseline, candidate) pair per guard",
                    guard_values.len(),
                    self.guards.len()
                ),
            });
        }
        let index = self.gains.len();
        let gain_of = |b: f64, c: f64, better| {
            log_gains(&[b], &[c], better)
                .map(|g| g[0])
                .map_err(|e| with_index(e, index))
        };
        let gain = gain_of(baseline_value, candidate_value, self.config.better)?;
        let guard_gains = self
            .guards
            .iter()
            .zip(guard_values)
            .map(|(g, (b, c))| gain_of(*b, *c, g.better))
            .collect::<Result<Vec<_>, _>>()?;
        self.baseline.push(baseline_value);
        self.candidate.push(candidate_value);
        self.gains.push(gain);
        for (gains, gain) in self.guard_gains.iter_mut().zip(guard_gains) {
            gains.push(gain);
        }
        for ((differences, g), (b, c)) in self
            .guard_differences
            .iter_mut()
            .zip(&self.guards)
            .zip(guard_values)
        {
            differences.push(improvement_difference(*b, *c, g.better));
        }
        Ok(())
    }

    /// The decision with guards for the pairs so far, ignoring `min_runs`.
    fn assess(&self) -> Result<(Decision, LogInterval), StatsError> {
        let iv = self.log_interval(&self.gains, SampleRole::Baseline)?;
        let interval = iv.to_change()?;
        let primary = classify(&interval, &self.config.thresholds);
        let runs = self.gains.len();
        let guards = (0..self.guards.len())
            .map(|i| self.guard_decision(i))
            .collect::<Result<Vec<_>, _>>()?;
        let mut verdict = primary;
        if primary == Verdict::Go {
            if guards.iter().any(|g| g.status == GuardStatus::Violated) {
                verdict = Verdict::NoGo;
            } else if guards.iter().any(|g| g.status == GuardStatus::Uncertain) {
                verdict = Verdict::Inconclusive;
            }
        }
        let runs_needed = match (verdict, primary) {
            (Verdict::Inconclusive, Verdict::Inconclusive) => {
                let sd = self.equivalent_sd(&iv, runs);
                Some(runs_needed_paired(
                    runs,
                    iv.estimate,
                    sd,
                    &self.config.thresholds,
                    &self.cs,
                ))
            }
            (Verdict::Inconclusive, _) => guards
                .iter()
                .filter_map(|g| g.runs_needed)
                .reduce(most_runs_needed),
            _ => None,
        };
        let decision = Decision {
            verdict,
            primary,
            interval,
            runs,
            runs_needed,
            guards,
        };
        Ok((decision, iv))
    }

    fn log_interval(&self, gains: &[f64], role: SampleRole) -> Result<LogInterval, StatsError> {
        decision_interval(&self.cs, &Sample::at_least(gains, 2, role)?)
    }

    /// [`equivalent_sd`] of the decision metric's sequence.
    fn equivalent_sd(&self, iv: &LogInterval, runs: usize) -> f64 {
        equivalent_sd(&self.cs, iv, runs)
    }

    /// The guard `i`'s intervals and status: the relative change's against
    /// its limit and, with a floor, the difference's against the floor,
    /// combined ([`combined_status`]); for an uncertain guard, the further
    /// pairs that would settle it, each interval projected on its own and
    /// the first that settles the combination taken.
    fn guard_decision(&self, i: usize) -> Result<GuardDecision, StatsError> {
        let (g, cs) = (&self.guards[i], &self.guard_cs[i]);
        let gains = &self.guard_gains[i];
        let iv = decision_interval(cs, &Sample::at_least(gains, 2, SampleRole::Values)?)?;
        let interval = iv.to_change()?;
        let relative = guard_status(&interval, g.relative_allowance());
        let n = gains.len();
        let relative_needed = || {
            runs_needed_guard(
                n,
                iv.estimate,
                equivalent_sd(cs, &iv, n),
                g.relative_allowance(),
                cs,
            )
        };
        let Some(floor) = g.floor else {
            return Ok(GuardDecision {
                interval,
                absolute: None,
                status: relative,
                runs_needed: (relative == GuardStatus::Uncertain).then(relative_needed),
            });
        };
        let div = paired_difference_interval(cs, &self.guard_differences[i])?;
        let absolute = Interval {
            estimate: div.estimate,
            lo: div.lo,
            hi: div.hi,
            confidence: div.confidence,
        };
        let status = combined_status(relative, guard_status(&absolute, floor));
        let runs_needed = (status == GuardStatus::Uncertain).then(|| {
            // Where each estimate lies says what its interval will settle
            // to: a pass on either side settles the guard as soon as it
            // comes; a violation only when both have come.
            let absolute_needed =
                runs_needed_floor(n, div.estimate, equivalent_sd(cs, &div, n), floor, cs);
            let relative_passes = interval.estimate >= -g.relative_allowance();
            let absolute_passes = div.estimate >= -floor;
            match (relative_passes, absolute_passes) {
                (true, true) => fewest_runs_needed(relative_needed(), absolute_needed),
                (true, false) => relative_needed(),
                (false, true) => absolute_needed,
                (false, false) => most_runs_needed(relative_needed(), absolute_needed),
            }
        });
        Ok(GuardDecision {
            interval,
            absolute: Some(absolute),
            status,
            runs_needed,
        })
    }

    /// The pairs below which no verdict is given ([`SequentialTest::evaluate`]):
    /// `min_runs`, raised to the fewest pairs from which the decision is
    /// validated at this test's confidence ([`fewest_deciding_pairs`]),
    /// where the asymptotic interval could otherwise decide on too little.
    /// Values that repeat exactly (every pair's gain the same, guards' too:
    /// an instruction count of a deterministic program) have a point
    /// interval, exact at any number of pairs: for them it is `min_runs`.
    pub fn deciding_floor(&self) -> usize {
        let repeats = |gains: &[f64]| gains.windows(2).all(|w| w[0] == w[1]);
        if self.gains.len() >= 2
            && repeats(&self.gains)
            && self.guard_gains.iter().all(|g| repeats(g))
            && self
                .guards
                .iter()
                .zip(&self.guard_differences)
                .all(|(g, d)| g.floor.is_none() || repeats(d))
        {
            return self.config.min_runs;
        }
        self.config
            .min_runs
            .max(fewest_deciding_pairs(self.config.confidence))
    }

    /// The decision if the test stopped now (interrupted, out of time, or
    /// replayed with [`SequentialTest::record`]): the interval and the guards,
    /// which are valid at any look, and the verdict the stopping rule allows.
    /// Below [`SequentialTest::deciding_floor`] pairs, where the asymptotic
    /// interval is not yet trusted to decide, the verdict is INCONCLUSIVE
    /// whatever the interval says, and a projected number of further pairs is
    /// at least what reaching that floor takes.
    ///
    /// # Errors
    /// [`StatsError::TooFew`] with fewer than 2 pairs; [`StatsError::ChangeOutOfRange`].
    pub fn evaluate(&self) -> Result<Decision, StatsError> {
        self.evaluate_with_interval().map(|(decision, _)| decision)
    }

    /// [`SequentialTest::evaluate`], with the decision metric's log
    /// interval it was made from (for the reach rule, which would otherwise
    /// invert the test again).
    fn evaluate_with_interval(&self) -> Result<(Decision, LogInterval), StatsError> {
        let (mut decision, iv) = self.assess()?;
        let missing = self.deciding_floor().saturating_sub(decision.runs);
        if missing > 0 {
            let projected = decision.runs_needed.unwrap_or(RunsNeeded::Additional(0));
            decision.verdict = Verdict::Inconclusive;
            decision.runs_needed =
                Some(most_runs_needed(projected, RunsNeeded::Additional(missing)));
        }
        Ok((decision, iv))
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

    /// The guards in use.
    pub fn guards(&self) -> &[GuardLimit] {
        &self.guards
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

/// The standard deviation that gives the mean's sequence `cs`, at this many
/// pairs, the interval's longer side (the robust interval need not be
/// symmetric about its estimate): what the projection of further pairs
/// scales. The projected interval then contains the current one, so an
/// undecided look never projects 0 further pairs.
fn equivalent_sd(cs: &ConfidenceSequence, iv: &LogInterval, runs: usize) -> f64 {
    let side = (iv.hi - iv.estimate).max(iv.estimate - iv.lo);
    let sd = side / cs.boundary(runs);
    if sd.is_finite() { sd } else { f64::INFINITY }
}

/// The candidate's worsening as a difference in the metric's unit, in the
/// decision's orientation (positive = better): baseline minus candidate
/// when lower is better, candidate minus baseline when higher is.
fn improvement_difference(baseline: f64, candidate: f64, better: Better) -> f64 {
    match better {
        Better::Lower => baseline - candidate,
        Better::Higher => candidate - baseline,
    }
}

/// The confidence-sequence interval for the location of paired differences
/// (in the metric's unit): the interval of the relative change
/// ([`crate::sequential::paired::paired_change`]) computed on the
/// differences instead of the log gains.
///
/// Method: the confidence sequence of
/// [`crate::sequential::robust_sequence::RobustSequence`] (Huber location
/// with the scale of the differences, Lai's boundary) through the same
/// entry point as every paired decision (fewer pairs than it needs are
/// covered as there, by the mean's asymptotic sequence `cs`). Huber's
/// location and the robust scale are equivariant under shifting and
/// scaling, so the procedure is the same whatever the unit.
///
/// Assumptions: as for the relative change, with differences for log gains:
/// the pairs are i.i.d. (interleaved, so drift falls on both sides) and
/// their differences symmetric about the true shift, which holds when A's
/// and B's run-to-run noise has the same distribution on the metric's own
/// scale. Valid under optional stopping. Checked by simulation of known
/// truth in `tests/guard_floor.rs`.
///
/// # Errors
/// [`StatsError::TooFew`] with fewer than 2 differences;
/// [`StatsError::NonFinite`]; [`StatsError::Overflow`].
pub fn paired_difference_interval(
    cs: &ConfidenceSequence,
    differences: &[f64],
) -> Result<LogInterval, StatsError> {
    decision_interval(cs, &Sample::at_least(differences, 2, SampleRole::Values)?)
}

/// The smaller of two projections: a count beats a number beyond the cap
/// or one that cannot be projected.
fn fewest_runs_needed(a: RunsNeeded, b: RunsNeeded) -> RunsNeeded {
    match (a, b) {
        (RunsNeeded::Additional(x), RunsNeeded::Additional(y)) => RunsNeeded::Additional(x.min(y)),
        (n @ RunsNeeded::Additional(_), _) | (_, n @ RunsNeeded::Additional(_)) => n,
        (RunsNeeded::MoreThan(x), RunsNeeded::MoreThan(y)) => RunsNeeded::MoreThan(x.min(y)),
        (m @ RunsNeeded::MoreThan(_), _) | (_, m @ RunsNeeded::MoreThan(_)) => m,
        _ => RunsNeeded::Unknown,
    }
}

/// The larger of two projections: a number beyond the cap or one that cannot
/// be projected outweighs any count.
fn most_runs_needed(a: RunsNeeded, b: RunsNeeded) -> RunsNeeded {
    match (a, b) {
        (RunsNeeded::Additional(x), RunsNeeded::Additional(y)) => RunsNeeded::Additional(x.max(y)),
        (RunsNeeded::MoreThan(x), RunsNeeded::MoreThan(y)) => RunsNeeded::MoreThan(x.max(y)),
        (m @ RunsNeeded::MoreThan(_), _) | (_, m @ RunsNeeded::MoreThan(_)) => m,
        _ => RunsNeeded::Unknown,
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
