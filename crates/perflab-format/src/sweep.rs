//! The result of `perflab sweep`: a `perflab-result/1` document (kind
//! `sweep`, one variant per point and command, named like `bench n=1000`, so
//! that `perflab compare` can read any two of them) with a `sweep` section
//! for the points, ratios, growth exponents and cliffs, and per curve the
//! split of its cost into a fixed part and a marginal cost per item (absent
//! in documents written before that split; they still read).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::interval::PositiveIntervalDoc;
use crate::result::{FormatError, RESULT_FORMAT, ResultDocument, parse_tagged};
use crate::vocabulary::SweepStop;

/// A sweep's result: the shared result document plus the sweep section.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SweepDocument {
    /// The `perflab-result/1` fields; `variants` holds every point and command.
    #[serde(flatten)]
    pub result: ResultDocument,
    /// What only a sweep has.
    pub sweep: SweepDoc,
}

impl SweepDocument {
    /// Parses a sweep's result, refusing other formats by name and a result
    /// without a `sweep` section as not valid for this format.
    pub fn from_json_str(text: &str) -> Result<Self, FormatError> {
        parse_tagged(text, RESULT_FORMAT)
    }

    /// Reads a stored result as a sweep document, if it is one.
    pub fn from_result_json(text: &str) -> Option<Self> {
        let value: serde_json::Value = serde_json::from_str(text).ok()?;
        value.get("sweep")?;
        serde_json::from_value(value).ok()
    }
}

/// The sweep section.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SweepDoc {
    /// Parameters and their values, in the order given.
    pub parameters: Vec<ParameterDoc>,
    /// Commands, the reference last.
    pub commands: Vec<CommandDoc>,
    /// The size parameter, if any.
    pub size: Option<String>,
    /// What the per-item cost is, e.g. `wall / n`.
    pub per_item: Option<String>,
    /// Target relative half-width of a point's intervals.
    pub precision: f64,
    /// Confidence level of every interval.
    pub confidence: f64,
    /// Smallest jump beyond the trend reported as a cliff (fraction).
    pub cliff: f64,
    /// Run limits per command and point.
    pub min_runs: usize,
    /// Run limits per command and point.
    pub max_runs: usize,
    /// Why it stopped.
    pub stop: SweepStop,
    /// Every point, in parameter order.
    pub points: Vec<PointDoc>,
    /// Curves along the size parameter.
    pub series: Vec<SeriesDoc>,
}

/// A parameter.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ParameterDoc {
    /// Name.
    pub name: String,
    /// Values as substituted.
    pub values: Vec<String>,
}

/// A command.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CommandDoc {
    /// Name.
    pub name: String,
    /// Template.
    pub template: String,
    /// True for the reference.
    pub reference: bool,
}

/// One point.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PointDoc {
    /// `n=1000 threads=4`.
    pub label: String,
    /// Parameter values.
    pub params: BTreeMap<String, String>,
    /// The size parameter's value.
    pub size: Option<f64>,
    /// One result per command, in command order.
    pub results: Vec<PointResultDoc>,
}

/// One command at one point.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PointResultDoc {
    /// The command's name.
    pub command: String,
    /// The variant's name in `variants` (`bench n=1000`).
    pub variant: String,
    /// Measured runs.
    pub runs: usize,
    /// Geometric mean of the metric with its interval.
    pub value: Option<PositiveIntervalDoc>,
    /// Cost per item with its interval.
    pub per_item: Option<PositiveIntervalDoc>,
    /// Ratio to the reference (this command / reference) with its interval.
    pub ratio: Option<PositiveIntervalDoc>,
    /// Whether every interval of the point reached the precision.
    pub precise: bool,
}

/// A curve along the size parameter.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SeriesDoc {
    /// The command.
    pub command: String,
    /// The other parameters' values (`threads=4`), empty with one parameter.
    pub fixed: String,
    /// Indices of its points, by size.
    pub points: Vec<usize>,
    /// Growth exponent of the total cost (cost ≈ a·size^b), if 3+ sizes.
    pub fit: Option<PowerLawFitDoc>,
    /// Why there is no fit.
    pub fit_note: Option<String>,
    /// Cliffs of the per-item cost (`index` refers to `points` of the sweep).
    pub cliffs: Vec<CliffDoc>,
    /// cost = fixed + marginal · size, if 3+ sizes of a total were measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linear: Option<LinearCostFitDoc>,
    /// What `fit` and `cliffs` describe: the total cost, or what is left
    /// above a significant fixed part (written only when it is the latter,
    /// so documents without a fixed part read as they always did).
    #[serde(default, skip_serializing_if = "CostBasis::is_total")]
    pub basis: CostBasis,
    /// With the marginal basis, per point of `points` the cost per item
    /// above the fixed part, (total - fixed) / size, with the point's
    /// interval shifted alike; None where that part is not above zero.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marginal_per_item: Vec<Option<PositiveIntervalDoc>>,
}

/// What a curve's growth exponent and cliffs are computed on.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CostBasis {
    /// The total cost; its cost per item is total / size (no significant fixed part).
    #[default]
    Total,
    /// The total minus the fixed part: a significant fixed part would
    /// otherwise bend the exponent toward 0 and the per-item cost toward
    /// fixed / size.
    Marginal,
}

impl CostBasis {
    /// True for [`CostBasis::Total`].
    pub(crate) fn is_total(&self) -> bool {
        *self == CostBasis::Total
    }
}

/// cost = fixed + marginal · size, fitted by weighted least squares on the
/// points' geometric means, with intervals for both parts.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LinearCostFitDoc {
    /// The fixed part (cost at size 0, in the metric's unit; < 0 when the cost grows faster than linearly).
    pub fixed: f64,
    /// Lower end of the interval for the fixed part.
    pub fixed_lo: f64,
    /// Upper end of the interval for the fixed part.
    pub fixed_hi: f64,
    /// The marginal cost: what one more item adds.
    pub marginal: f64,
    /// Lower end of the interval for the marginal cost.
    pub marginal_lo: f64,
    /// Upper end of the interval for the marginal cost.
    pub marginal_hi: f64,
    /// Confidence level of both intervals.
    pub confidence: f64,
    /// How far the points scatter around the line relative to what their runs explain (1 = as expected).
    pub scatter: f64,
    /// Number of points the fit rests on.
    pub points: usize,
    /// Whether the fixed part's interval lies above zero.
    pub has_fixed_part: bool,
}

impl LinearCostFitDoc {
    /// The share of the fitted total at `size` that is the fixed part.
    pub fn fixed_share(&self, size: f64) -> f64 {
        self.fixed / (self.fixed + self.marginal * size)
    }
}

/// The fit cost ≈ a · size^b of a curve, with an interval for b.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PowerLawFitDoc {
    /// The exponent b (1 = linear, 2 = quadratic, 0 = constant).
    pub exponent: f64,
    /// Lower end of the interval for b.
    pub lo: f64,
    /// Upper end of the interval for b.
    pub hi: f64,
    /// Confidence level of the interval.
    pub confidence: f64,
    /// ln a: the fitted log cost at size 1.
    pub ln_intercept: f64,
    /// Residual standard deviation on the log scale (0.05 ≈ points 5 % off the line).
    pub residual_sd: f64,
    /// Number of points the fit rests on.
    pub points: usize,
}

/// A jump of the cost per item beyond the curve's trend.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CliffDoc {
    /// Index in the sweep's `points` of the point after the jump.
    pub index: usize,
    /// The size before the jump.
    pub size_before: f64,
    /// The size where the higher cost is first seen.
    pub size: f64,
    /// Cost per item after / before (estimates).
    pub ratio: f64,
    /// The smallest ratio both intervals allow: lo after / hi before.
    pub ratio_lo: f64,
    /// The largest ratio both intervals allow: hi after / lo before.
    pub ratio_hi: f64,
}
