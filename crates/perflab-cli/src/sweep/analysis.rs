//! From a sweep's runs to numbers with intervals: each point's value and
//! per-item cost, each command's ratio to the reference, and along the size
//! parameter the growth exponent and the cliffs (perflab-stats does the math).

use std::collections::BTreeMap;

use perflab_runner::RunOutcome;
use perflab_stats::{
    Better, Cliff, ConfidenceSequence, PositiveInterval, PowerLawFit, PrecisionRule, SizedInterval,
    StatsError, find_cliffs, geometric_mean_interval, paired_ratio, power_law_fit,
};

use super::config::Sweep;
use crate::error::{Error, Result};

/// The stopping rule of every point: perflab-stats' sequential estimation
/// to the sweep's precision, within its run limits.
pub fn precision_rule(sweep: &Sweep) -> PrecisionRule {
    PrecisionRule {
        precision: sweep.precision,
        confidence: sweep.confidence,
        min_runs: sweep.min_runs,
        max_runs: sweep.max_runs,
    }
}

/// The confidence sequence behind every interval of a sweep: the one its
/// [`precision_rule`] is valid with, tightest at the run limit, valid however
/// often a point is looked at.
pub fn confidence_sequence(sweep: &Sweep) -> Result<ConfidenceSequence> {
    Ok(precision_rule(sweep).confidence_sequence()?)
}

/// What one point's runs say, per command.
#[derive(Debug, Clone, Default)]
pub struct PointAnalysis {
    /// Geometric mean of the metric with its interval (from 2 runs on).
    pub values: Vec<Option<PositiveInterval>>,
    /// Ratio to the reference (None for the reference itself or without one).
    pub ratios: Vec<Option<PositiveInterval>>,
}

impl PointAnalysis {
    /// The widest relative half-width of the intervals shown for the point,
    /// or None while some command has fewer than 2 runs.
    pub fn widest(&self) -> Option<f64> {
        let mut widest: f64 = 0.0;
        for iv in &self.values {
            widest = widest.max(iv.as_ref()?.relative_half_width());
        }
        for iv in self.ratios.iter().flatten() {
            widest = widest.max(iv.relative_half_width());
        }
        Some(widest)
    }
}

/// The metric's values in `runs` (runs lacking it were refused when they finished).
pub fn metric_values(sweep: &Sweep, runs: &[RunOutcome]) -> Vec<f64> {
    runs.iter()
        .filter_map(|r| r.metric(&sweep.metric.name))
        .collect()
}

fn stats_error(label: &str, command: &str, metric: &str, e: StatsError) -> Error {
    Error::Run {
        run: format!("point {label}, command \"{command}\""),
        message: format!("its '{metric}' values cannot be summarised: {e}"),
    }
}

/// Analyses one point from its runs (`runs[c]` are command c's runs, in block order).
pub fn analyse_point(
    sweep: &Sweep,
    label: &str,
    runs: &[Vec<RunOutcome>],
    cs: &ConfidenceSequence,
) -> Result<PointAnalysis> {
    let values: Vec<Vec<f64>> = runs.iter().map(|r| metric_values(sweep, r)).collect();
    let mut analysis = PointAnalysis::default();
    for (c, v) in values.iter().enumerate() {
        let name = &sweep.commands[c].name;
        analysis.values.push(if v.len() < 2 {
            None
        } else {
            Some(
                geometric_mean_interval(v, cs)
                    .map_err(|e| stats_error(label, name, &sweep.metric.name, e))?,
            )
        });
    }
    let reference = sweep.reference();
    for (c, v) in values.iter().enumerate() {
        let ratio = match reference {
            Some(r) if r != c => {
                let pairs = v.len().min(values[r].len());
                if pairs < 2 {
                    None
                } else {
                    let name = &sweep.commands[c].name;
                    Some(
                        paired_ratio(&values[r][..pairs], &v[..pairs], cs)
                            .map_err(|e| stats_error(label, name, &sweep.metric.name, e))?,
                    )
                }
            }
            _ => None,
        };
        analysis.ratios.push(ratio);
    }
    Ok(analysis)
}

/// The cost per item of a point's value at `size`: value / size for a total
/// of a lower-is-better metric, the value itself with `--per-item`, and
/// 1 / value for a rate (higher is better).
pub fn per_item(sweep: &Sweep, size: f64, value: &PositiveInterval) -> PositiveInterval {
    match (sweep.metric.better, sweep.per_item) {
        (Better::Lower, false) => scale(value, 1.0 / size),
        (Better::Lower, true) => *value,
        (Better::Higher, _) => PositiveInterval {
            estimate: 1.0 / value.estimate,
            lo: 1.0 / value.hi,
            hi: 1.0 / value.lo,
            ..*value
        },
    }
}

fn scale(iv: &PositiveInterval, factor: f64) -> PositiveInterval {
    PositiveInterval {
        estimate: iv.estimate * factor,
        lo: iv.lo * factor,
        hi: iv.hi * factor,
        ..*iv
    }
}

/// In words, what the per-item cost is: "wall / n", "1 / throughput".
pub fn per_item_description(sweep: &Sweep) -> Option<String> {
    let size = sweep.size.as_ref()?;
    let metric = &sweep.metric.name;
    Some(match (sweep.metric.better, sweep.per_item) {
        (Better::Lower, false) => format!("{metric} / {size}"),
        (Better::Lower, true) => format!("{metric} (already per item)"),
        (Better::Higher, _) => format!("1 / {metric}"),
    })
}

/// What the curves need of one point.
#[derive(Debug, Clone)]
pub struct PointFigures {
    /// Parameter values.
    pub params: BTreeMap<String, String>,
    /// The size parameter's value.
    pub size: Option<f64>,
    /// Cost per item of each command, from 2 runs on.
    pub per_item: Vec<Option<PositiveInterval>>,
}

/// A curve along the size parameter.
#[derive(Debug, Clone)]
pub struct Series {
    /// The command's index.
    pub command: usize,
    /// The other parameters' values (`threads=4`), empty with one parameter.
    pub fixed: String,
    /// Indices of its points, by size.
    pub points: Vec<usize>,
    /// Growth exponent of the total cost, if 3+ sizes were measured.
    pub fit: Option<PowerLawFit>,
    /// Why there is no fit.
    pub fit_note: Option<String>,
    /// Cliffs of the per-item cost (`index` refers to the sweep's points).
    pub cliffs: Vec<Cliff>,
}

/// The curves along the size parameter: one per command and combination of
/// the other parameters, each with its growth exponent and cliffs.
pub fn series(sweep: &Sweep, points: &[PointFigures]) -> Result<Vec<Series>> {
    let Some(size) = &sweep.size else {
        return Ok(Vec::new());
    };
    let mut groups: BTreeMap<(usize, String), Vec<usize>> = BTreeMap::new();
    for (i, point) in points.iter().enumerate() {
        let fixed: Vec<String> = point
            .params
            .iter()
            .filter(|(name, _)| *name != size)
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        for c in 0..sweep.commands.len() {
            groups.entry((c, fixed.join(" "))).or_default().push(i);
        }
    }
    let mut out = Vec::new();
    for ((c, fixed), mut indices) in groups {
        indices.sort_by(|a, b| {
            points[*a]
                .size
                .unwrap_or(0.0)
                .total_cmp(&points[*b].size.unwrap_or(0.0))
        });
        let measured: Vec<(usize, f64, PositiveInterval)> = indices
            .iter()
            .filter_map(|&i| Some((i, points[i].size?, points[i].per_item[c]?)))
            .collect();
        let sizes: Vec<f64> = measured.iter().map(|m| m.1).collect();
        let totals: Vec<f64> = measured.iter().map(|m| m.2.estimate * m.1).collect();
        let distinct = {
            let mut d = sizes.clone();
            d.sort_by(f64::total_cmp);
            d.dedup();
            d.len()
        };
        let (fit, fit_note) = if distinct >= 3 {
            (
                Some(power_law_fit(&sizes, &totals, sweep.confidence)?),
                None,
            )
        } else {
            (
                None,
                Some(format!(
                    "a growth exponent with an interval needs 3 or more sizes with measurements; this curve has {distinct}"
                )),
            )
        };
        let sized: Vec<SizedInterval> = measured
            .iter()
            .map(|m| SizedInterval {
                size: m.1,
                cost: m.2,
            })
            .collect();
        let cliffs = find_cliffs(&sized, sweep.cliff)?
            .into_iter()
            .map(|mut cliff| {
                cliff.index = measured[cliff.index].0;
                cliff
            })
            .collect();
        out.push(Series {
            command: c,
            fixed,
            points: indices,
            fit,
            fit_note,
            cliffs,
        });
    }
    Ok(out)
}
