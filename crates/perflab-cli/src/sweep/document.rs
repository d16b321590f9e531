//! The sweep's result document: a `perflab-result/1` document (kind `sweep`,
//! one variant per point and command, named like `bench n=1000`, so that
//! `perflab compare` can read any two of them) with a `sweep` section for
//! the points, ratios, growth exponents and cliffs.

use std::collections::BTreeMap;

use perflab_format::result::{RESULT_FORMAT, ResultDocument};
use perflab_stats::{Cliff, PositiveInterval, PowerLawFit};
use serde::{Deserialize, Serialize};

use super::analysis::{analyse_point, confidence_sequence, per_item, per_item_description, series};
use super::config::Sweep;
use super::driver::{SweepState, SweepStop};
use crate::document::{metric_info, provenance_map, variant_doc};
use crate::error::Result;

/// A sweep's result: the shared result document plus the sweep section.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SweepDocument {
    /// The `perflab-result/1` fields; `variants` holds every point and command.
    #[serde(flatten)]
    pub result: ResultDocument,
    /// What only a sweep has.
    pub sweep: SweepDoc,
}

/// The sweep section.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
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
    /// `finished`, `max-time`, `interrupted`, `failed` or `running`.
    pub stop: String,
    /// Every point, in parameter order.
    pub points: Vec<PointDoc>,
    /// Curves along the size parameter.
    pub series: Vec<SeriesDoc>,
}

/// A parameter.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ParameterDoc {
    /// Name.
    pub name: String,
    /// Values as substituted.
    pub values: Vec<String>,
}

/// A command.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
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
pub struct PointResultDoc {
    /// The command's name.
    pub command: String,
    /// The variant's name in `variants` (`bench n=1000`).
    pub variant: String,
    /// Measured runs.
    pub runs: usize,
    /// Geometric mean of the metric with its interval.
    pub value: Option<PositiveInterval>,
    /// Cost per item with its interval.
    pub per_item: Option<PositiveInterval>,
    /// Ratio to the reference (this command / reference) with its interval.
    pub ratio: Option<PositiveInterval>,
    /// Whether every interval of the point reached the precision.
    pub precise: bool,
}

/// A curve along the size parameter.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SeriesDoc {
    /// The command.
    pub command: String,
    /// The other parameters' values (`threads=4`), empty with one parameter.
    pub fixed: String,
    /// Indices of its points, by size.
    pub points: Vec<usize>,
    /// Growth exponent of the total cost (cost ≈ a·size^b), if 3+ sizes.
    pub fit: Option<PowerLawFit>,
    /// Why there is no fit.
    pub fit_note: Option<String>,
    /// Cliffs of the per-item cost (`index` refers to `points` of the sweep).
    pub cliffs: Vec<Cliff>,
}

impl SweepStop {
    /// The word stored in documents.
    pub fn as_str(&self) -> &'static str {
        match self {
            SweepStop::Running => "running",
            SweepStop::Finished => "finished",
            SweepStop::MaxTime => "max-time",
            SweepStop::Interrupted => "interrupted",
            SweepStop::Failed => "failed",
        }
    }
}

/// The variant name of a command at a point.
pub fn variant_name(command: &str, point_label: &str) -> String {
    format!("{command} {point_label}")
}

/// Builds the document from the state of a sweep (finished or not).
pub fn sweep_document(sweep: &Sweep, state: &SweepState) -> Result<SweepDocument> {
    let cs = confidence_sequence(sweep)?;
    let mut points = Vec::new();
    let mut variants = Vec::new();
    let mut unit = None;
    for (point, ps) in sweep.points.iter().zip(&state.points) {
        let label = point.label();
        let analysis = analyse_point(sweep, &label, &ps.runs, &cs)?;
        let size = sweep
            .size
            .as_ref()
            .and_then(|s| point.get(s))
            .and_then(|v| v.number);
        let mut results = Vec::new();
        for (c, command) in sweep.commands.iter().enumerate() {
            let runs = &ps.runs[c];
            let variant = variant_name(&command.name, &label);
            if !runs.is_empty() {
                unit = unit.or_else(|| {
                    runs.iter()
                        .find_map(|r| r.metrics.get(&sweep.metric.name))
                        .map(|m| m.unit.clone())
                });
                variants.push(variant_doc(
                    &variant,
                    Some(command.template.expand(point)),
                    &[],
                    &sweep.metric.name,
                    runs,
                )?);
            }
            let value = analysis.values[c];
            results.push(PointResultDoc {
                command: command.name.clone(),
                variant,
                runs: runs.len(),
                value,
                per_item: size.zip(value).map(|(s, v)| per_item(sweep, s, &v)),
                ratio: analysis.ratios[c],
                precise: analysis.widest().is_some_and(|w| w <= sweep.precision),
            });
        }
        points.push(PointDoc {
            label,
            params: point
                .values
                .iter()
                .map(|(n, v)| (n.clone(), v.text.clone()))
                .collect(),
            size,
            results,
        });
    }
    let series = series(sweep, &points)?;
    let stop = state.stop;
    let status = match stop {
        SweepStop::Finished | SweepStop::MaxTime => "complete",
        SweepStop::Running => "running",
        SweepStop::Interrupted | SweepStop::Failed => "incomplete",
    };
    let result = ResultDocument {
        format: RESULT_FORMAT.into(),
        kind: "sweep".into(),
        name: sweep.label.clone(),
        experiment_id: state.experiment_id,
        status: status.into(),
        metric: metric_info(&sweep.metric, unit.as_deref()),
        decision: None,
        verdict: None,
        change: None,
        ci: None,
        guards: Vec::new(),
        variants,
        seed: Some(state.seed),
        provenance: Some(provenance_map(&state.provenance)),
        spans: Vec::new(),
        warnings: Vec::new(),
        counters: Vec::new(),
        gauges: Vec::new(),
        profile_warnings: Vec::new(),
    };
    Ok(SweepDocument {
        result,
        sweep: SweepDoc {
            parameters: sweep
                .parameters
                .iter()
                .map(|p| ParameterDoc {
                    name: p.name.clone(),
                    values: p.values.iter().map(|v| v.text.clone()).collect(),
                })
                .collect(),
            commands: sweep
                .commands
                .iter()
                .map(|c| CommandDoc {
                    name: c.name.clone(),
                    template: c.template.source().to_string(),
                    reference: c.is_reference,
                })
                .collect(),
            size: sweep.size.clone(),
            per_item: per_item_description(sweep),
            precision: sweep.precision,
            confidence: sweep.confidence,
            cliff: sweep.cliff,
            min_runs: sweep.min_runs,
            max_runs: sweep.max_runs,
            stop: stop.as_str().into(),
            points,
            series,
        },
    })
}

impl SweepDocument {
    /// Reads a stored result as a sweep document, if it is one.
    pub fn from_result_json(text: &str) -> Option<Self> {
        let value: serde_json::Value = serde_json::from_str(text).ok()?;
        value.get("sweep")?;
        serde_json::from_value(value).ok()
    }
}
