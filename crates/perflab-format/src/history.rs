//! The history of a metric over commits (`perflab-history/1`), written by
//! `perflab history --metric ... --json`: per variant, one step per commit
//! with its runs' values, and the change points of the series, each judged
//! between the segments of commits around it.
//!
//! Documents written before change points (steps judged against the one
//! before) still read: the fields added since default to empty.

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
    /// Probability that a series in which nothing changed shows any change
    /// point (None in documents from before change points).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub false_alarm: Option<f64>,
    /// What the change-point test shuffled: `commits` (whole commits, each
    /// keeping its runs) or `runs` (single runs moved between commits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permute: Option<String>,
    /// One line per variant.
    pub series: Vec<VariantHistory>,
}

impl MetricHistory {
    /// Parses a metric history, refusing other formats with a message saying what was found.
    pub fn from_json_str(text: &str) -> Result<Self, FormatError> {
        parse_tagged(text, HISTORY_FORMAT)
    }

    /// True when the newest change point of some variant is a regression.
    pub fn newest_change_regressed(&self) -> bool {
        self.series
            .iter()
            .any(VariantHistory::newest_change_regressed)
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
    /// The host its experiments ran on: a series never mixes hosts, each
    /// host's experiments make a series of their own (left out in
    /// documents written before, and when the host is unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// One step per commit, oldest first.
    pub steps: Vec<Step>,
    /// First step against the last.
    pub total: Option<Judgement>,
    /// Where the level changed, oldest first (left out when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub change_points: Vec<ChangePointDoc>,
    /// Why there are no change points, when they could not be computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl VariantHistory {
    /// True when this variant's newest change point is a regression.
    pub fn newest_change_regressed(&self) -> bool {
        self.change_points
            .last()
            .is_some_and(|c| c.judgement.regression)
    }
}

/// A change point: the level changed between two consecutive commits.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChangePointDoc {
    /// Index of the first step at the new level.
    pub step: usize,
    /// Label of the last step before the change.
    pub from: String,
    /// Label of the first step after it.
    pub to: String,
    /// Full commit of the last step before the change, if any.
    pub from_commit: Option<String>,
    /// Full commit of the first step after it, if any.
    pub to_commit: Option<String>,
    /// When the first step after it started.
    pub started_at: String,
    /// Steps in the segment before (since the previous change point).
    pub steps_before: usize,
    /// Steps in the segment after (until the next change point).
    pub steps_after: usize,
    /// Permutation p-value of the test that found it.
    pub p_value: f64,
    /// The segment before against the segment after.
    pub judgement: Judgement,
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
    /// At a change point (this step is the first at a new level): the
    /// segment before against the segment from this step on; None elsewhere.
    pub change: Option<Judgement>,
}

/// A change between two steps or segments of steps, judged.
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
