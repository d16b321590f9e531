//! Turning the runs of an A/B experiment into a verdict, with perflab-stats.
//!
//! The decision metric's change is estimated over the interleaved pairs
//! with a confidence sequence, so the verdict stays valid although it is
//! evaluated after every pair and the experiment stops at the first
//! decision. Guards are evaluated the same way and can only take a GO away.

use perflab_format::result::GuardDoc;
use perflab_runner::RunOutcome;

mod reason;

pub use reason::verdict_sentence;

use perflab_stats::{Better, Decision, Interval, RunsNeeded, SequentialTest, Verdict, classify};

use crate::engine::{DecisionSoFar, missing_metric};
use crate::error::{Error, Result};
use crate::experiment::{Experiment, Guard, MetricChoice};

pub use perflab_stats::GuardStatus;

/// The method named when every run of each variant gave the same value
/// (instruction counts of a deterministic program): the change is a ratio of
/// two exact numbers and has no sampling uncertainty.
pub const EXACT_METHOD: &str = "exact: every run of each variant gave the same value, so the change is the ratio of the two values, with no sampling uncertainty";

/// The method named in results and reports.
pub const PAIRED_METHOD: &str = "confidence sequence for the Huber location of paired log ratios (Lai 1976 boundary), valid under optional stopping";

/// A guard's evaluation.
#[derive(Debug, Clone)]
pub struct GuardOutcome {
    /// The guard.
    pub guard: Guard,
    /// Its change (positive is better).
    pub interval: Interval,
    /// With a floor: the paired difference in the metric's unit (positive
    /// is better: the baseline's value minus the candidate's when lower is
    /// better).
    pub absolute: Option<Interval>,
    /// The median of the baseline's and the candidate's values over the
    /// pairs the decision rests on (none if a run lacks the metric).
    pub medians: Option<[f64; 2]>,
    /// Its status.
    pub status: GuardStatus,
}

impl GuardOutcome {
    /// The guard as documents record it, its difference turned into the
    /// growth of the metric (the candidate's value minus the baseline's).
    pub fn document(&self) -> GuardDoc {
        let growth = |x: f64| match self.guard.metric.better {
            Better::Lower => -x,
            Better::Higher => x,
        };
        GuardDoc {
            metric: self.guard.metric.name.clone(),
            max_worsening: self.guard.max_worsening,
            better: Some(self.guard.metric.better),
            change: self.interval.estimate,
            ci: [self.interval.lo, self.interval.hi],
            status: self.status,
            floor: self.guard.floor,
            unit: Some(self.guard.metric.unit.clone()),
            medians: self.medians,
            difference: self.absolute.map(|a| growth(a.estimate)),
            difference_ci: self.absolute.map(|a| {
                let (lo, hi) = (growth(a.lo), growth(a.hi));
                [lo.min(hi), lo.max(hi)]
            }),
        }
    }
}

/// The state of the decision after some pairs.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// The verdict, guards included.
    pub verdict: Verdict,
    /// Why, in one sentence.
    pub reason: String,
    /// The decision metric's change.
    pub interval: Interval,
    /// Pairs it rests on.
    pub pairs: usize,
    /// For INCONCLUSIVE: a projection of the further runs needed.
    pub runs_needed: Option<RunsNeeded>,
    /// Guards.
    pub guards: Vec<GuardOutcome>,
    /// True when every run of each variant gave the same value of the
    /// decision metric: the interval is then a point ([`EXACT_METHOD`]).
    pub exact: bool,
}

impl Evaluation {
    /// What a progress display shows of it, for a metric better `better`.
    pub fn so_far(&self, better: Better) -> DecisionSoFar {
        DecisionSoFar {
            interval: self.interval,
            better,
            verdict: self.verdict,
        }
    }

    /// The method of the decision's interval.
    pub fn method(&self) -> &'static str {
        if self.exact {
            EXACT_METHOD
        } else {
            PAIRED_METHOD
        }
    }
}

/// One pair's (baseline, candidate) values of the decision metric, and of
/// each guard's metric.
pub type PairValues = (f64, f64, Vec<(f64, f64)>);

/// An experiment's decision procedure: perflab-stats' [`SequentialTest`],
/// configured from the experiment ([`Experiment::sequential_config`]), fed the
/// runs pair by pair (the i-th run of each variant, from the same block of
/// the schedule).
#[derive(Debug, Clone)]
pub struct Decider<'a> {
    exp: &'a Experiment,
    test: SequentialTest,
}

impl<'a> Decider<'a> {
    /// The procedure before any pair.
    pub fn new(exp: &'a Experiment) -> Result<Self> {
        let guards = exp.guards.iter().map(Guard::limit).collect();
        let test = SequentialTest::with_guards(exp.sequential_config(), guards)?;
        Ok(Decider { exp, test })
    }

    /// Pairs taken so far.
    pub fn pairs(&self) -> usize {
        self.test.runs()
    }

    /// Takes the next complete pair of `runs` (pair [`Decider::pairs`]) and
    /// looks; returns the evaluation when the procedure stops (decided, or at
    /// the run limit).
    pub fn push(&mut self, runs: [&[RunOutcome]; 2]) -> Result<Option<Evaluation>> {
        let (baseline, candidate, guards) = self.pair_values(runs, self.test.runs())?;
        if self.exp.limits.min_runs == 1 && self.test.runs() == 0 {
            // `--min-runs 1` on instruction counts: the user vouches that the
            // program is deterministic, so one pair decides by its exact ratio.
            self.test.record(baseline, candidate, &guards)?;
            let eval = self.single_pair(runs)?;
            let last = self.exp.limits.max_runs <= 1;
            return Ok((eval.verdict != Verdict::Inconclusive || last).then_some(eval));
        }
        match self.test.push_with_guards(baseline, candidate, &guards)? {
            Some(decision) => Ok(Some(self.evaluation(&decision, runs))),
            None => Ok(None),
        }
    }

    /// The evaluation if the experiment stopped now (interrupted, at
    /// `--max-time`, or for progress): INCONCLUSIVE below `--min-runs`. None
    /// before there is an interval (fewer than 2 pairs, except with
    /// `--min-runs 1`).
    pub fn now(&self, runs: [&[RunOutcome]; 2]) -> Result<Option<Evaluation>> {
        if let Some(decision) = self.test.decision() {
            return Ok(Some(self.evaluation(decision, runs)));
        }
        match self.test.runs() {
            0 => Ok(None),
            1 if self.exp.limits.min_runs == 1 => self.single_pair(runs).map(Some),
            1 => Ok(None),
            _ => Ok(Some(self.evaluation(&self.test.evaluate()?, runs))),
        }
    }

    fn pair_values(&self, runs: [&[RunOutcome]; 2], index: usize) -> Result<PairValues> {
        pair_values(self.exp, runs, self.names(), index)
    }

    fn names(&self) -> [&str; 2] {
        [
            self.exp.variants[0].name.as_str(),
            self.exp.variants[1].name.as_str(),
        ]
    }

    /// One pair under `--min-runs 1`: the point interval of its exact ratio.
    fn single_pair(&self, runs: [&[RunOutcome]; 2]) -> Result<Evaluation> {
        let (baseline, candidate) = (self.test.baseline()[0], self.test.candidate()[0]);
        let change = perflab_stats::relative_change(baseline, candidate, self.exp.metric.better)?;
        let interval = Interval {
            estimate: change,
            lo: change,
            hi: change,
            confidence: self.exp.confidence,
        };
        let verdict = classify(&interval, &self.exp.thresholds);
        let decision = Decision {
            verdict,
            primary: verdict,
            interval,
            runs: 1,
            runs_needed: (verdict == Verdict::Inconclusive).then_some(RunsNeeded::Unknown),
            guards: Vec::new(),
        };
        Ok(self.evaluation(&decision, runs))
    }

    fn evaluation(&self, d: &Decision, runs: [&[RunOutcome]; 2]) -> Evaluation {
        evaluation_of(self.exp, d, runs, self.test.config().confidence)
    }
}

/// The evaluation of decision `d` of `exp`, reached on the paired `runs`
/// (the i-th run of each side from the same block) by a test at
/// `test_confidence`: its reason, guards, and whether the values were exact.
pub fn evaluation_of(
    exp: &Experiment,
    d: &Decision,
    runs: [&[RunOutcome]; 2],
    test_confidence: f64,
) -> Evaluation {
    let guards: Vec<GuardOutcome> = exp
        .guards
        .iter()
        .zip(&d.guards)
        .map(|(guard, g)| GuardOutcome {
            guard: guard.clone(),
            interval: g.interval,
            absolute: g.absolute,
            medians: guard_medians(&guard.metric.name, runs, d.runs),
            status: g.status,
        })
        .collect();
    let exact = runs.iter().all(|side| {
        let mut values = side[..d.runs.min(side.len())]
            .iter()
            .filter_map(|r| r.metric(&exp.metric.name));
        values
            .next()
            .is_some_and(|first| values.all(|v| v == first))
    });
    let reason = reason::reason(exp, d, &guards, exact, test_confidence);
    Evaluation {
        verdict: d.verdict,
        reason,
        interval: d.interval,
        pairs: d.runs,
        runs_needed: d.runs_needed,
        guards,
        exact,
    }
}

/// The median of each side's values of `metric` over its first `pairs`
/// runs, or none if a run lacks it.
fn guard_medians(metric: &str, runs: [&[RunOutcome]; 2], pairs: usize) -> Option<[f64; 2]> {
    let median = |side: &[RunOutcome]| {
        let values = side[..pairs.min(side.len())]
            .iter()
            .map(|r| r.metric(metric))
            .collect::<Option<Vec<f64>>>()?;
        perflab_stats::median(&values).ok()
    };
    Some([median(runs[0])?, median(runs[1])?])
}

/// Evaluates the experiment on the runs so far (paired by position), as the
/// procedure would state it if it stopped after the last complete pair.
pub fn evaluate(exp: &Experiment, runs: [&[RunOutcome]; 2]) -> Result<Evaluation> {
    let mut decider = Decider::new(exp)?;
    let pairs = runs[0].len().min(runs[1].len());
    for index in 0..pairs {
        let (baseline, candidate, guards) = decider.pair_values(runs, index)?;
        decider.test.record(baseline, candidate, &guards)?;
    }
    decider.now(runs)?.ok_or_else(|| Error::Run {
        run: format!("experiment with {pairs} pair(s)"),
        message: "an interval needs at least 2 runs of each variant".to_string(),
    })
}

/// The decision metric's and guards' values of pair `index` of the paired
/// `runs` (the i-th run of each side from the same block), named `names`.
pub fn pair_values(
    exp: &Experiment,
    runs: [&[RunOutcome]; 2],
    names: [&str; 2],
    index: usize,
) -> Result<PairValues> {
    let pair = [&runs[0][index..=index], &runs[1][index..=index]];
    let value = |metric: &MetricChoice| -> Result<(f64, f64)> {
        let [b, c] = paired_values(metric, pair, names, index)?;
        Ok((b[0], c[0]))
    };
    let (baseline, candidate) = value(&exp.metric)?;
    let guards = exp
        .guards
        .iter()
        .map(|g| value(&g.metric))
        .collect::<Result<Vec<_>>>()?;
    Ok((baseline, candidate, guards))
}

/// The values of `metric` over paired runs, checked to be usable on a log scale.
/// `first` is the index of the first pair, for naming a bad run.
pub fn paired_values(
    metric: &MetricChoice,
    runs: [&[RunOutcome]; 2],
    names: [&str; 2],
    first: usize,
) -> Result<[Vec<f64>; 2]> {
    let pairs = runs[0].len().min(runs[1].len());
    let mut values = [Vec::with_capacity(pairs), Vec::with_capacity(pairs)];
    for side in 0..2 {
        for (offset, run) in runs[side][..pairs].iter().enumerate() {
            let i = first + offset;
            let value = run
                .metric(&metric.name)
                .ok_or_else(|| missing_metric(&metric.name, names[side], i, run))?;
            if !(value > 0.0 && value.is_finite()) {
                return Err(Error::Run {
                    run: format!("run {} of variant \"{}\"", i + 1, names[side]),
                    message: format!(
                        "metric '{}' is {value}; relative changes need positive values{}",
                        metric.name,
                        if metric.name == "cpu" {
                            " (the run was too short to register CPU time: measure wall time or a longer workload)"
                        } else {
                            ""
                        }
                    ),
                });
            }
            values[side].push(value);
        }
    }
    Ok(values)
}

/// Describes a projection of further runs in words.
pub fn describe_runs_needed(needed: &RunsNeeded) -> String {
    match needed {
        RunsNeeded::Additional(n) => {
            format!("about {n} more runs per variant would likely decide it")
        }
        RunsNeeded::MoreThan(n) => format!(
            "no number of runs within reach is likely to decide it (more than {n} further runs per variant): the change sits too close to a threshold for this noise"
        ),
        RunsNeeded::Unknown => {
            "the estimate sits on a threshold, so no number of runs can be projected".to_string()
        }
    }
}
