//! From a sweep's runs to numbers with intervals: each point's value and
//! per-item cost and each command's ratio to the reference (perflab-stats
//! does the math; [`super::series`] builds the curves along the size).

use perflab_runner::RunOutcome;
use perflab_stats::{
    Better, ConfidenceSequence, PositiveInterval, PrecisionRule, StatsError,
    geometric_mean_interval, paired_ratio,
};

use super::config::Sweep;
use crate::error::{Error, Result};

/// The stopping rule of every point: perflab-stats' sequential estimation
/// to the sweep's precision, within its run limits.
pub fn precision_rule(sweep: &Sweep) -> PrecisionRule {
    PrecisionRule {
        precision: sweep.precision,
        confidence: sweep.confidence,
        min_runs: sweep.limits.min_runs,
        max_runs: sweep.limits.max_runs,
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
