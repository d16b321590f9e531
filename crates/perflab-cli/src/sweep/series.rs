//! The curves of a sweep along its size parameter: per command and
//! combination of the other parameters, the split of a measured total into
//! a fixed part and a marginal cost, the growth exponent and the cliffs of
//! the per-item cost (above the fixed part where there is one).

use std::collections::BTreeMap;

use perflab_format::sweep::CostBasis;
use perflab_stats::{
    Better, Cliff, LinearCostFit, PositiveInterval, PowerLawFit, SizedInterval, SizedRuns,
    find_cliffs, linear_cost_fit, power_law_fit,
};

use super::config::Sweep;
use crate::error::Result;

/// What the curves need of one point.
#[derive(Debug, Clone)]
pub struct PointFigures {
    /// Parameter values.
    pub params: BTreeMap<String, String>,
    /// The size parameter's value.
    pub size: Option<f64>,
    /// Cost per item of each command, from 2 runs on.
    pub per_item: Vec<Option<PositiveInterval>>,
    /// The value (geometric mean) of each command, from 2 runs on.
    pub values: Vec<Option<PositiveInterval>>,
    /// The metric's values of each command's runs.
    pub runs: Vec<Vec<f64>>,
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
    /// Growth exponent of the cost along `basis`, if 3+ sizes were measured.
    pub fit: Option<PowerLawFit>,
    /// Why there is no fit.
    pub fit_note: Option<String>,
    /// Cliffs of the per-item cost along `basis` (`index` refers to the sweep's points).
    pub cliffs: Vec<Cliff>,
    /// cost = fixed + marginal · size, for a measured total with 3+ sizes.
    pub linear: Option<LinearCostFit>,
    /// What `fit` and `cliffs` are computed on.
    pub basis: CostBasis,
    /// With [`CostBasis::Marginal`], per entry of `points` the cost per item
    /// above the fixed part, where that part is above zero.
    pub marginal_per_item: Vec<Option<PositiveInterval>>,
}

/// The curves along the size parameter: one per command and combination of
/// the other parameters, each with its fixed and marginal cost, growth
/// exponent and cliffs.
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
    for ((c, fixed_params), mut indices) in groups {
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
        let linear = if totals_measured(sweep) {
            let runs: Vec<SizedRuns<'_>> = measured
                .iter()
                .map(|m| SizedRuns {
                    size: m.1,
                    runs: &points[m.0].runs[c],
                })
                .collect();
            // Fewer than 3 sizes leave nothing to fit; every point's runs
            // were already summarised by the point's own analysis, so no
            // other error can come from them.
            linear_cost_fit(&runs, sweep.confidence).ok()
        } else {
            None
        };
        let smallest = measured.iter().map(|m| m.1).fold(f64::INFINITY, f64::min);
        let fixed = linear
            .filter(|l| l.has_fixed_part() && l.fixed_share(smallest) >= FIXED_SHARE_SHOWN)
            .map(|l| l.fixed);
        // Per point: its index, size and the per-item cost the curve is about.
        let curve: Vec<(usize, f64, PositiveInterval)> = match fixed {
            None => measured.clone(),
            Some(fixed) => measured
                .iter()
                .filter_map(|&(i, n, _)| Some((i, n, above_fixed(points[i].values[c]?, fixed, n)?)))
                .collect(),
        };
        let marginal_per_item = match fixed {
            None => Vec::new(),
            Some(_) => indices
                .iter()
                .map(|&i| curve.iter().find(|m| m.0 == i).map(|m| m.2))
                .collect(),
        };
        let (fit, fit_note) = growth(sweep, &curve, measured.len(), fixed.is_some())?;
        let sized: Vec<SizedInterval> = curve
            .iter()
            .map(|m| SizedInterval {
                size: m.1,
                cost: m.2,
            })
            .collect();
        let cliffs = find_cliffs(&sized, sweep.cliff)?
            .into_iter()
            .map(|mut cliff| {
                cliff.index = curve[cliff.index].0;
                cliff
            })
            .collect();
        out.push(Series {
            command: c,
            fixed: fixed_params,
            points: indices,
            fit,
            fit_note,
            cliffs,
            linear,
            basis: if fixed.is_some() {
                CostBasis::Marginal
            } else {
                CostBasis::Total
            },
            marginal_per_item,
        });
    }
    Ok(out)
}

/// The smallest share of the total at the smallest size swept for which a
/// significant fixed part changes the view: below 1 % the quotient
/// total / size is off by less than the 2 % a point is measured to by
/// default, so the per-item view stays (and rounding cannot give an exact
/// line a fixed part of 10⁻¹⁵ s).
pub const FIXED_SHARE_SHOWN: f64 = 0.01;

/// Whether the metric is a total cost measured at each size (a lower-is-better
/// metric not already per item): only then is cost = fixed + marginal · size.
fn totals_measured(sweep: &Sweep) -> bool {
    sweep.metric.better == Better::Lower && !sweep.per_item
}

/// The cost per item above the fixed part, (total - fixed) / size, with the
/// point's interval shifted alike (the fixed part is common to all points, so
/// its own uncertainty moves them together and is left out); None when the
/// point's lower end is not above the fixed part: a part that may be zero
/// has no logarithm to fit.
fn above_fixed(total: PositiveInterval, fixed: f64, size: f64) -> Option<PositiveInterval> {
    let lo = total.lo - fixed;
    (lo > 0.0).then(|| PositiveInterval {
        estimate: (total.estimate - fixed) / size,
        lo: lo / size,
        hi: (total.hi - fixed) / size,
        ..total
    })
}

/// The growth exponent of a curve's total (per item × size) with 3+ sizes,
/// or why there is none.
fn growth(
    sweep: &Sweep,
    curve: &[(usize, f64, PositiveInterval)],
    measured: usize,
    above_fixed: bool,
) -> Result<(Option<PowerLawFit>, Option<String>)> {
    let sizes: Vec<f64> = curve.iter().map(|m| m.1).collect();
    let totals: Vec<f64> = curve.iter().map(|m| m.2.estimate * m.1).collect();
    let mut distinct = sizes.clone();
    distinct.sort_unstable_by(f64::total_cmp);
    distinct.dedup();
    if distinct.len() >= 3 {
        return Ok((
            Some(power_law_fit(&sizes, &totals, sweep.confidence)?),
            None,
        ));
    }
    let count = distinct.len();
    Ok((
        None,
        Some(if above_fixed {
            format!(
                "the cost above the fixed part is resolved (its interval above zero) at {count} of {measured} sizes; a growth exponent needs 3: sweep larger sizes"
            )
        } else {
            format!(
                "a growth exponent with an interval needs 3 or more sizes with measurements; this curve has {count}"
            )
        }),
    ))
}
