//! Turning the runs of an A/B experiment into a verdict, with perflab-stats.
//!
//! The decision metric's change is estimated over the interleaved pairs
//! with a confidence sequence, so the verdict stays valid although it is
//! evaluated after every pair and the experiment stops at the first
//! decision. Guards are evaluated the same way and can only take a GO away.

use perflab_runner::RunOutcome;
use perflab_stats::{
    Better, ConfidenceSequence, Interval, RunsNeeded, Thresholds, Verdict, classify, paired_change,
    runs_needed_paired,
};

use crate::error::{Error, Result};
use crate::experiment::{Experiment, Guard, MetricChoice};
use crate::units::format_percent;

/// The method named when every run of each variant gave the same value
/// (instruction counts of a deterministic program): the change is a ratio of
/// two exact numbers and has no sampling uncertainty.
pub const EXACT_METHOD: &str = "exact: every run of each variant gave the same value, so the change is the ratio of the two values, with no sampling uncertainty";

/// The method named in results and reports.
pub const PAIRED_METHOD: &str = "asymptotic confidence sequence (Waudby-Smith et al. 2024) on paired log ratios, valid under optional stopping";

/// How a guard came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuardStatus {
    /// The whole interval shows it did not worsen beyond its limit.
    Pass,
    /// The whole interval shows it worsened beyond its limit.
    Violated,
    /// Too noisy to tell yet.
    Uncertain,
}

impl GuardStatus {
    /// Lower-case name for documents.
    pub fn as_str(&self) -> &'static str {
        match self {
            GuardStatus::Pass => "pass",
            GuardStatus::Violated => "violated",
            GuardStatus::Uncertain => "uncertain",
        }
    }
}

/// A guard's evaluation.
#[derive(Debug, Clone)]
pub struct GuardOutcome {
    /// The guard.
    pub guard: Guard,
    /// Its change (positive is better).
    pub interval: Interval,
    /// Its status.
    pub status: GuardStatus,
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
    /// The method of the decision's interval.
    pub fn method(&self) -> &'static str {
        if self.exact {
            EXACT_METHOD
        } else {
            PAIRED_METHOD
        }
    }
}

/// The values of `metric` over paired runs, checked to be usable on a log scale.
pub fn paired_values(
    metric: &MetricChoice,
    runs: [&[RunOutcome]; 2],
    names: [&str; 2],
) -> Result<[Vec<f64>; 2]> {
    let pairs = runs[0].len().min(runs[1].len());
    let mut values = [Vec::with_capacity(pairs), Vec::with_capacity(pairs)];
    for side in 0..2 {
        for (i, run) in runs[side][..pairs].iter().enumerate() {
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

/// The error for a metric a run did not print.
pub fn missing_metric(metric: &str, variant: &str, index: usize, run: &RunOutcome) -> Error {
    let tail = perflab_runner::quote_output(&run.output_tail);
    Error::Run {
        run: format!("run {} of variant \"{variant}\"", index + 1),
        message: format!(
            "metric '{metric}' was not found in its output. It must print 'PERFLAB_METRIC {metric} <value>' \
             or match the --metric pattern for '{metric}'. The end of its output:\n{tail}"
        ),
    }
}

fn log_gains(values: &[Vec<f64>; 2], better: Better) -> Vec<f64> {
    values[0]
        .iter()
        .zip(&values[1])
        .map(|(a, b)| match better {
            Better::Higher => (b / a).ln(),
            Better::Lower => (a / b).ln(),
        })
        .collect()
}

fn change_of(
    metric: &MetricChoice,
    exp: &Experiment,
    runs: [&[RunOutcome]; 2],
    cs: &ConfidenceSequence,
) -> Result<(Interval, Vec<f64>)> {
    let names = [exp.variants[0].name.as_str(), exp.variants[1].name.as_str()];
    let values = paired_values(metric, runs, names)?;
    let gains = log_gains(&values, metric.better);
    if let [gain] = gains.as_slice() {
        // One pair: allowed only for exact counts (`--min-runs 1` with
        // instructions), where a second run would repeat the first.
        let change = perflab_stats::change_from_log_gain(*gain)?;
        let interval = Interval {
            estimate: change,
            lo: change,
            hi: change,
            confidence: cs.confidence(),
        };
        return Ok((interval, gains));
    }
    let interval = paired_change(&values[0], &values[1], metric.better, cs)?;
    Ok((interval, gains))
}

/// Evaluates the experiment on the runs so far (paired by position).
pub fn evaluate(exp: &Experiment, runs: [&[RunOutcome]; 2]) -> Result<Evaluation> {
    let cs = ConfidenceSequence::new(exp.confidence, perflab_stats::DEFAULT_OPTIMISE_AT)?;
    let (interval, gains) = change_of(&exp.metric, exp, runs, &cs)?;
    let pairs = gains.len();
    let primary = classify(&interval, &exp.thresholds);
    let guards = exp
        .guards
        .iter()
        .map(|guard| {
            let (iv, _) = change_of(&guard.metric, exp, runs, &cs)?;
            let status = if iv.lo >= -guard.max_worsening {
                GuardStatus::Pass
            } else if iv.hi < -guard.max_worsening {
                GuardStatus::Violated
            } else {
                GuardStatus::Uncertain
            };
            Ok(GuardOutcome {
                guard: guard.clone(),
                interval: iv,
                status,
            })
        })
        .collect::<Result<Vec<_>>>()?;

    let th = &exp.thresholds;
    let band = format!(
        "[{}, {}]",
        format_percent(interval.lo),
        format_percent(interval.hi)
    );
    let (mut verdict, mut reason) = match primary {
        Verdict::Go => (
            Verdict::Go,
            format!(
                "the whole interval {band} lies at or above the GO threshold {}",
                format_percent(th.go)
            ),
        ),
        Verdict::NoGo => (
            Verdict::NoGo,
            format!(
                "the whole interval {band} lies at or below the NO-GO threshold {}",
                format_percent(th.nogo)
            ),
        ),
        Verdict::Neutral => (
            Verdict::Neutral,
            format!(
                "the whole interval {band} lies inside ({}, {}): equivalent within the band",
                format_percent(th.nogo),
                format_percent(th.go)
            ),
        ),
        Verdict::Inconclusive => (
            Verdict::Inconclusive,
            format!("the interval {band} straddles a threshold; more runs are needed"),
        ),
    };
    if verdict == Verdict::Go {
        if let Some(g) = guards.iter().find(|g| g.status == GuardStatus::Violated) {
            verdict = Verdict::NoGo;
            reason = format!(
                "{} improved, but guard {} worsened by {} [{}, {}], beyond the {} allowed",
                exp.metric.name,
                g.guard.metric.name,
                format_percent(-g.interval.estimate),
                format_percent(-g.interval.hi),
                format_percent(-g.interval.lo),
                format_percent(g.guard.max_worsening)
            );
        } else if let Some(g) = guards.iter().find(|g| g.status == GuardStatus::Uncertain) {
            verdict = Verdict::Inconclusive;
            reason = format!(
                "{} improved ({band}), but guard {} cannot yet be shown to stay within {} of worsening",
                exp.metric.name,
                g.guard.metric.name,
                format_percent(g.guard.max_worsening)
            );
        }
    }
    let runs_needed = (verdict == Verdict::Inconclusive).then(|| {
        let mean = gains.iter().sum::<f64>() / pairs as f64;
        let sd = perflab_stats::std_dev(&gains).unwrap_or(0.0);
        runs_needed_paired(pairs, mean, sd, th, &cs)
    });
    let exact = [runs[0], runs[1]].iter().all(|side| {
        let mut values = side[..pairs]
            .iter()
            .filter_map(|r| r.metric(&exp.metric.name));
        values
            .next()
            .is_some_and(|first| values.all(|v| v == first))
    });
    if exact && pairs == 1 {
        reason = format!(
            "{reason} (exact if the program is deterministic: one run per variant, as --min-runs 1 asks, so repeatability was not checked)"
        );
    } else if exact {
        reason = format!("{reason} (exact: identical values in all {pairs} runs of each variant)");
    }
    Ok(Evaluation {
        verdict,
        reason,
        interval,
        pairs,
        runs_needed,
        guards,
        exact,
    })
}

/// Describes a projection of further runs in words.
pub fn describe_runs_needed(needed: &RunsNeeded) -> String {
    match needed {
        RunsNeeded::Additional(n) => {
            format!("about {n} more runs per variant would likely decide it")
        }
        RunsNeeded::MoreThan(n) => format!(
            "more than {n} further runs per variant would be needed: the change sits too close to a threshold for this noise"
        ),
        RunsNeeded::Unknown => {
            "the estimate sits on a threshold, so no number of runs can be projected".to_string()
        }
    }
}

/// Thresholds as text, for headers.
pub fn describe_thresholds(th: &Thresholds) -> String {
    format!(
        "GO at {} or better, NO-GO at {} or worse",
        format_percent(th.go),
        format_percent(th.nogo)
    )
}
