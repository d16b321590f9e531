//! The history of a metric over commits (`perflab-history/1`), written by
//! `perflab history --metric ... --json`: per variant, one step per commit
//! with its runs' values, each step judged against the one before.

use serde::{Deserialize, Serialize};

use crate::interval::PositiveIntervalDoc;
use crate::result::{FormatError, parse_tagged};
use crate::vocabulary::{Better, StepVerdict};

/// The format tag of this version.
pub const HISTORY_FORMAT: &str = "perflab-history/1";

/// The history of a metric, per variant.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MetricHistory {
    /// Always [`HISTORY_FORMAT`].
    pub format: String,
    /// The metric.
    pub metric: String,
    /// Which way is better.
    pub better: Better,
    /// The experiments' name.
    pub name: Option<String>,
    /// GO threshold (fraction).
    pub go: f64,
    /// NO-GO threshold (fraction).
    pub nogo: f64,
    /// Confidence level.
    pub confidence: f64,
    /// One line per variant.
    pub series: Vec<VariantHistory>,
}

impl MetricHistory {
    /// Parses a metric history, refusing other formats with a message saying what was found.
    pub fn from_json_str(text: &str) -> Result<Self, FormatError> {
        parse_tagged(text, HISTORY_FORMAT)
    }

    /// True when the newest step of some variant is a regression.
    pub fn newest_step_regressed(&self) -> bool {
        self.series.iter().any(|s| {
            s.steps
                .last()
                .and_then(|step| step.change.as_ref())
                .is_some_and(|c| c.regression)
        })
    }

    /// The most steps any variant has.
    pub fn longest(&self) -> usize {
        self.series.iter().map(|s| s.steps.len()).max().unwrap_or(0)
    }
}

/// One variant over commits.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct VariantHistory {
    /// The variant's name.
    pub variant: String,
    /// One step per commit, oldest first.
    pub steps: Vec<Step>,
    /// First step against the last.
    pub total: Option<Judgement>,
}

/// The metric at one commit.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Step {
    /// `a1b2c3d4`, `a1b2c3d4+` (dirty) or `#12` (no git).
    pub label: String,
    /// Full commit hash, if any.
    pub commit: Option<String>,
    /// Experiments whose runs it pools.
    pub experiments: Vec<i64>,
    /// When its first experiment started.
    pub started_at: String,
    /// Its values, in run order.
    pub values: Vec<f64>,
    /// Median of the values.
    pub median: f64,
    /// Geometric mean with its interval (from 2 values on).
    pub level: Option<PositiveIntervalDoc>,
    /// Against the previous step.
    pub change: Option<Judgement>,
}

/// A change between two steps, judged.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Judgement {
    /// Relative change, positive is better.
    pub change: f64,
    /// Its interval (none when the steps have too few runs for one).
    pub ci: Option<[f64; 2]>,
    /// The verdict, or that the steps have too few runs for one.
    pub verdict: StepVerdict,
    /// True for NO-GO: the step made things worse beyond the threshold.
    pub regression: bool,
    /// Why there is no interval, if there is none.
    pub note: Option<String>,
}
