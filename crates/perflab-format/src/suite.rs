//! The result of a suite (`perflab ab -f` with `[[scenario]]` tables): a
//! `perflab-result/1` document of kind `suite` whose `verdict` is the whole
//! experiment's, with one variant per cell run (named `scenario / variant`,
//! so that `perflab compare` can read any two of them), plus the matrix of
//! cells and a summary per candidate across scenarios.

use serde::{Deserialize, Serialize};

use crate::result::{FormatError, RESULT_FORMAT, ResultDocument, parse_tagged};
use crate::vocabulary::Verdict;

/// A suite's result: the shared result document plus the cells.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SuiteDocument {
    /// The `perflab-result/1` fields; `verdict` is the experiment's,
    /// `variants` holds every (scenario, variant) with its runs.
    #[serde(flatten)]
    pub result: ResultDocument,
    /// Scenario names, in the file's order.
    pub scenarios: Vec<String>,
    /// The baseline variant's name.
    pub baseline: String,
    /// The confidence level that holds for all cells at once.
    pub confidence: f64,
    /// The confidence level of each cell's interval: the experiment's level
    /// split over the cells (and their guards), so that it holds for all.
    pub cell_confidence: f64,
    /// One entry per (scenario, candidate); the baseline's cells are left out.
    pub cells: Vec<CellDoc>,
    /// Per candidate, its change across scenarios.
    pub candidates: Vec<CandidateDoc>,
}

impl SuiteDocument {
    /// Parses a suite's result, refusing other formats by name.
    pub fn from_json_str(text: &str) -> Result<Self, FormatError> {
        parse_tagged(text, RESULT_FORMAT)
    }

    /// Reads a stored result as a suite document, if it is one.
    pub fn from_result_json(text: &str) -> Option<Self> {
        let value: serde_json::Value = serde_json::from_str(text).ok()?;
        value.get("cells")?;
        serde_json::from_value(value).ok()
    }
}

/// One candidate in one scenario, compared with the scenario's baseline.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CellDoc {
    /// The scenario.
    pub scenario: String,
    /// The candidate variant.
    pub variant: String,
    /// The cell's verdict.
    pub verdict: Verdict,
    /// Relative change (fraction, positive is better); `None` before 2 pairs.
    pub change: Option<f64>,
    /// Interval for the change at [`SuiteDocument::cell_confidence`].
    pub ci: Option<[f64; 2]>,
    /// Pairs (baseline run, candidate run) the cell rests on.
    pub runs: usize,
    /// Why, in one sentence.
    pub reason: String,
}

/// A candidate's summary across scenarios.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CandidateDoc {
    /// The candidate variant.
    pub variant: String,
    /// Its cells' verdicts combined (NO-GO if any is NO-GO, ...).
    pub verdict: Verdict,
    /// Geometric-mean change across its scenarios (fraction, positive is
    /// better); `None` while a cell has no interval.
    pub change: Option<f64>,
    /// Interval for the geometric-mean change.
    pub ci: Option<[f64; 2]>,
    /// Confidence level of that interval (simultaneous over its cells).
    pub confidence: Option<f64>,
}
