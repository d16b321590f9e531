//! The result document written by `perflab ab`, `run` and `compare` with
//! `--json`, and kept in the store (`perflab-result/1`). `perflab sweep`
//! writes it too, with a section of its own ([`crate::sweep`]).
//!
//! Every number says what it rests on: variants carry their run count and
//! all samples, the change carries its interval, confidence and method.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::contention::{ContentionDoc, CpuWaitDoc};
use crate::duet::DuetDoc;
use crate::machine::MachineDoc;
use crate::vocabulary::{Better, GuardStatus, PeakMemorySource, ResultKind, ResultStatus, Verdict};

/// The format tag of this version.
pub const RESULT_FORMAT: &str = "perflab-result/1";

/// A complete result.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ResultDocument {
    /// Always [`RESULT_FORMAT`].
    pub format: String,
    /// The command that made it.
    pub kind: ResultKind,
    /// The experiment's name, if given.
    pub name: Option<String>,
    /// The id in the store, if stored.
    pub experiment_id: Option<i64>,
    /// Complete, or incomplete when stopped early (Ctrl-C, a failed run).
    pub status: ResultStatus,
    /// The metric the result is about.
    pub metric: MetricInfo,
    /// The decision, for comparisons.
    pub decision: Option<DecisionDoc>,
    /// Verdict shortcut (same as `decision.verdict`).
    pub verdict: Option<Verdict>,
    /// Relative change shortcut (fraction, positive is better).
    pub change: Option<f64>,
    /// Interval shortcut `[lo, hi]` for the change.
    pub ci: Option<[f64; 2]>,
    /// Guard metrics that may veto a GO.
    #[serde(default)]
    pub guards: Vec<GuardDoc>,
    /// Each variant with its samples.
    pub variants: Vec<VariantDoc>,
    /// Spans from the runs' profiles, when the program is instrumented.
    #[serde(default)]
    pub spans: Vec<SpanDoc>,
    /// What a reader must know before trusting the result (for example,
    /// variants whose outputs differ), each a sentence that says what to check.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Counters from the runs' profiles (`perflab::count!`), per variant.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<CounterDoc>,
    /// Gauges from the runs' profiles (`perflab::gauge!`), per variant.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gauges: Vec<GaugeDoc>,
    /// Locks from the runs' profiles (`perflab::sync`), per variant.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locks: Vec<LockDoc>,
    /// Warnings from the runs' profiles, each once, with how many runs gave it.
    #[serde(default)]
    pub profile_warnings: Vec<String>,
    /// Seed of the run schedule, to reproduce the order.
    pub seed: Option<u64>,
    /// Where the measurement came from.
    pub provenance: Option<BTreeMap<String, serde_json::Value>>,
    /// The state of the machine during the runs, where perflab made them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<MachineDoc>,
    /// In duet mode (A and B started together, each on a CPU of its own):
    /// the CPUs and how each pair's runs overlapped; absent for runs made
    /// one after the other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duet: Option<DuetDoc>,
    /// What the contention rule did (blocks measured again because a run
    /// waited for a CPU); absent when the rule was off or no run's CPU wait
    /// was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contention: Option<ContentionDoc>,
}

/// What a metric is.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MetricInfo {
    /// `wall`, `cpu`, `peak-memory` or an extracted name.
    pub name: String,
    /// Unit of the samples (`s`, `KiB`, or as printed).
    pub unit: String,
    /// Which way is better.
    pub better: Better,
}

/// A decision with everything it rests on.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DecisionDoc {
    /// The verdict.
    pub verdict: Verdict,
    /// One sentence saying why.
    pub reason: String,
    /// Relative change, positive is better (the decision's orientation;
    /// reports show it as the candidate's value over the baseline's, see
    /// [`crate::change_words`]).
    pub change: f64,
    /// Interval for the change.
    pub ci: [f64; 2],
    /// Confidence level of the interval.
    pub confidence: f64,
    /// The statistical method of the interval.
    pub method: String,
    /// GO threshold (fraction).
    pub go: f64,
    /// NO-GO threshold (fraction).
    pub nogo: f64,
    /// Runs per variant the decision rests on.
    pub runs: usize,
    /// For INCONCLUSIVE: further runs per variant likely to decide, if estimable.
    pub runs_needed: Option<u64>,
    /// For INCONCLUSIVE: the projection in words.
    pub runs_needed_note: Option<String>,
    /// Mann-Whitney U two-sided p-value, for reference only (not used to decide).
    pub mann_whitney_p: Option<f64>,
}

/// A guard's outcome.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GuardDoc {
    /// The metric.
    pub metric: String,
    /// Largest worsening allowed (fraction).
    pub max_worsening: f64,
    /// Which way the guard's metric is better; absent in documents written
    /// before it was recorded (read as lower).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub better: Option<Better>,
    /// Relative change, positive is better (the decision's orientation;
    /// reports show it as the candidate's value over the baseline's, see
    /// [`crate::change_words`]).
    pub change: f64,
    /// Interval for the change.
    pub ci: [f64; 2],
    /// Whether it vetoes.
    pub status: GuardStatus,
    /// The absolute floor in `unit`: the metric may worsen by the larger
    /// of `max_worsening` of the baseline's value and this; absent for a
    /// guard with a relative limit only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor: Option<f64>,
    /// The guarded metric's unit (`KiB`, `s`, empty for a bare number);
    /// absent in documents written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// The median of the baseline's and of the candidate's values over the
    /// pairs the decision rests on, in `unit`; absent in documents written
    /// before they were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub medians: Option<[f64; 2]>,
    /// For a guard with a floor: the candidate's value minus the
    /// baseline's (positive when the metric grew), the location of the
    /// paired differences, in `unit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference: Option<f64>,
    /// The interval of `difference`, in the same orientation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference_ci: Option<[f64; 2]>,
}

/// One variant.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct VariantDoc {
    /// Name.
    pub name: String,
    /// Command, if it was run by perflab.
    pub command: Option<String>,
    /// Environment overrides.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Number of measured runs.
    pub runs: usize,
    /// Summary of the decision metric.
    pub summary: SummaryDoc,
    /// The decision metric of every run, in run order.
    pub samples: Vec<f64>,
    /// Every run in detail, when perflab ran them.
    #[serde(default)]
    pub run_details: Vec<RunDoc>,
    /// How long its runs waited for a CPU; absent when no run's wait was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_wait: Option<CpuWaitDoc>,
}

/// Summary statistics of a sample.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SummaryDoc {
    /// Number of values.
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub sd: f64,
    /// Median.
    pub median: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Median absolute deviation (unscaled).
    pub mad: f64,
    /// First quartile.
    pub q1: f64,
    /// Third quartile.
    pub q3: f64,
    /// Values beyond 1.5 IQR but within 3 IQR of the quartiles (Tukey).
    pub outliers_mild: usize,
    /// Values beyond 3 IQR of the quartiles (Tukey).
    pub outliers_severe: usize,
}

/// One run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunDoc {
    /// Wall time, seconds.
    pub wall_s: f64,
    /// User CPU, seconds.
    pub user_s: f64,
    /// System CPU, seconds.
    pub sys_s: f64,
    /// Peak memory, KiB.
    pub peak_memory_kib: f64,
    /// Where `peak_memory_kib` was read: the run's memory cgroup (the
    /// whole tree's charge) or rusage (its largest process's resident
    /// set); absent in documents written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_memory_source: Option<PeakMemorySource>,
    /// Exit code, if it exited.
    pub exit_code: Option<i32>,
    /// Extracted metrics.
    #[serde(default)]
    pub metrics: BTreeMap<String, f64>,
}

impl ResultDocument {
    /// Parses a result, refusing other formats with a message saying what was found.
    pub fn from_json_str(text: &str) -> Result<Self, FormatError> {
        parse_tagged(text, RESULT_FORMAT)
    }
}

/// Parses a document whose `format` field must be `expected`; another
/// format is refused by name rather than by whichever field it lacks.
pub(crate) fn parse_tagged<T: serde::de::DeserializeOwned>(
    text: &str,
    expected: &'static str,
) -> Result<T, FormatError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| FormatError::Json(e.to_string()))?;
    match value.get("format").and_then(|f| f.as_str()) {
        Some(found) if found == expected => {
            serde_json::from_value(value).map_err(|e| FormatError::Json(e.to_string()))
        }
        Some(other) => Err(FormatError::WrongFormat {
            expected,
            found: other.to_string(),
        }),
        None => Err(FormatError::WrongFormat {
            expected,
            found: "no \"format\" field".into(),
        }),
    }
}

/// Why a document could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// Not JSON, or not the expected shape.
    #[error("not valid JSON for this format: {0}")]
    Json(String),
    /// Another format or version.
    #[error("expected a {expected} document, found {found}")]
    WrongFormat {
        /// The format this reader understands.
        expected: &'static str,
        /// What the document said.
        found: String,
    },
}

/// A span of the instrumentation library, summarised over the runs of each
/// variant that wrote a profile (`perflab-profile/1`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SpanDoc {
    /// Span name; `(unattributed)` is the time of threads outside any top-level span.
    pub name: String,
    /// Per variant, in the order of `variants`; `None` where the span never appeared.
    pub per_variant: Vec<Option<SpanStatsDoc>>,
    /// For comparisons: change of self time, positive when the candidate spends less.
    pub change: Option<f64>,
    /// Interval for `change`.
    pub ci: Option<[f64; 2]>,
    /// True when the interval excludes zero.
    pub moved: Option<bool>,
}

/// One counter across runs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CounterDoc {
    /// Counter name.
    pub name: String,
    /// Per variant, in the order of `variants`; `None` where no profile had it.
    pub per_variant: Vec<Option<CounterStatsDoc>>,
}

/// Medians over runs of one counter in one variant.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CounterStatsDoc {
    /// Runs whose profile had this counter.
    pub runs: usize,
    /// Runs in which it was incremented at least once.
    pub runs_counted: usize,
    /// Median events per run.
    pub events: f64,
    /// Median total per run.
    pub total: f64,
}

/// One gauge across runs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GaugeDoc {
    /// Gauge name.
    pub name: String,
    /// Per variant, in the order of `variants`; `None` where no profile had it.
    pub per_variant: Vec<Option<GaugeStatsDoc>>,
}

/// One gauge in one variant, over the runs that set it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GaugeStatsDoc {
    /// Runs whose profile had this gauge.
    pub runs: usize,
    /// Runs in which it was set at least once (the figures below are of those).
    pub runs_set: usize,
    /// Median over runs of the run's mean value (`None` if never set).
    pub mean: Option<f64>,
    /// Smallest value of any run.
    pub min: Option<f64>,
    /// Largest value of any run.
    pub max: Option<f64>,
}

/// Medians over runs of one span in one variant.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SpanStatsDoc {
    /// Runs whose profile had this span.
    pub runs: usize,
    /// Median calls per run.
    pub calls: f64,
    /// Median self (exclusive) time per run, seconds.
    pub self_s: f64,
    /// Median inclusive time per run, seconds.
    pub inclusive_s: f64,
    /// Median self time as a share of the session's wall time; above 1 when threads overlap.
    pub self_share_of_wall: f64,
    /// Median over runs of the span's own p50 call time, seconds.
    pub p50_s: f64,
    /// Median over runs of the span's own p99 call time, seconds.
    pub p99_s: f64,
    /// For async spans: polls, wake-ups, busy and idle time (medians per run).
    #[serde(rename = "async", default, skip_serializing_if = "Option::is_none")]
    pub async_stats: Option<AsyncSpanStatsDoc>,
    /// Runs in which the span was entered at least once; absent in
    /// documents written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs_entered: Option<usize>,
}

impl SpanStatsDoc {
    /// Whether the span never ran in any of the runs: it exists in the
    /// program (so the profiles list it) but no run entered it. Reports
    /// show such a span as never entered rather than as zero time. In
    /// documents that do not record `runs_entered`, a span whose median
    /// calls and inclusive time are both zero.
    pub fn never_entered(&self) -> bool {
        match self.runs_entered {
            Some(runs) => runs == 0,
            None => self.calls == 0.0 && self.inclusive_s == 0.0,
        }
    }

    /// The runs that entered the span and the runs profiled, when the span
    /// ran in some runs but in too few for its median calls to be above
    /// zero: its medians then read as zeros, so reports say "entered in k
    /// of n runs" instead. `None` for a span entered in most runs, one
    /// never entered, or a document that does not record `runs_entered`.
    pub fn entered_in_few_runs(&self) -> Option<(usize, usize)> {
        match self.runs_entered {
            Some(entered) if entered > 0 && self.calls == 0.0 => Some((entered, self.runs)),
            _ => None,
        }
    }
}

/// Medians over runs of an async span's figures in one variant.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AsyncSpanStatsDoc {
    /// Median polls per run.
    pub polls: f64,
    /// Median wake-ups per run (polls after each future's first), when the profiles have them.
    pub wakeups: Option<f64>,
    /// Median busy time (inside polls) per run, seconds.
    pub busy_s: f64,
    /// Median idle time (lifetimes of completed futures minus their busy
    /// time) per run, seconds, when the profiles have it.
    pub idle_s: Option<f64>,
}

/// One lock in one mode across runs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LockDoc {
    /// Lock name; shared (read) acquisitions of an `RwLock` end in ` (read)`.
    pub name: String,
    /// Per variant, in the order of `variants`; `None` where no profile had it.
    pub per_variant: Vec<Option<LockStatsDoc>>,
}

/// Medians over runs of one lock in one variant.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LockStatsDoc {
    /// Runs whose profile had this lock.
    pub runs: usize,
    /// Median acquisitions per run.
    pub acquisitions: f64,
    /// Median contended acquisitions (that had to wait) per run.
    pub contended: f64,
    /// Median total wait per run, seconds.
    pub wait_s: f64,
    /// Median over runs of the p99 wait of a contended acquisition, seconds.
    pub wait_p99_s: f64,
    /// Median total hold per run, seconds.
    pub hold_s: f64,
    /// Median over runs of the p99 hold, seconds.
    pub hold_p99_s: f64,
}

#[cfg(test)]
mod tests {
    use super::SpanStatsDoc;

    fn span(runs: usize, runs_entered: Option<usize>, calls: f64) -> SpanStatsDoc {
        SpanStatsDoc {
            runs,
            calls,
            self_s: 0.0,
            inclusive_s: 0.0,
            self_share_of_wall: 0.0,
            p50_s: 0.0,
            p99_s: 0.0,
            async_stats: None,
            runs_entered,
        }
    }

    #[test]
    fn a_span_entered_in_too_few_runs_for_its_median_is_told_apart_from_one_never_entered() {
        assert_eq!(span(5, Some(2), 0.0).entered_in_few_runs(), Some((2, 5)));
        assert!(!span(5, Some(2), 0.0).never_entered());
        assert_eq!(span(5, Some(0), 0.0).entered_in_few_runs(), None);
        assert!(span(5, Some(0), 0.0).never_entered());
        assert_eq!(span(5, Some(4), 3.0).entered_in_few_runs(), None);
        assert_eq!(span(5, None, 0.0).entered_in_few_runs(), None);
    }
}
