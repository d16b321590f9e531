//! The fixed part of a sweep's curves in words: the split of a total into
//! a fixed part and a cost per item, and where the fixed part dominates.

use perflab_format::sweep::{CostBasis, LinearCostFitDoc, SeriesDoc, SweepDocument};

use crate::units::number_text;
use crate::units::{format_interval, format_value};

/// The share of the total at or above which the fixed part "dominates" the
/// per-item quotient: total / size is then more than twice the marginal cost.
pub(crate) const FIXED_SHARE_DOMINATES: f64 = 0.5;

/// The sizes a series measured, smallest first.
pub(crate) fn series_sizes(doc: &SweepDocument, series: &SeriesDoc) -> Vec<f64> {
    let mut sizes: Vec<f64> = series
        .points
        .iter()
        .filter_map(|&i| doc.sweep.points.get(i)?.size)
        .collect();
    sizes.sort_unstable_by(f64::total_cmp);
    sizes.dedup();
    sizes
}

/// The series' fit when the sweep found a fixed part worth separating (its
/// exponent and cliffs are then about the cost above it).
pub(crate) fn shown_fixed_part(series: &SeriesDoc) -> Option<&LinearCostFitDoc> {
    series
        .linear
        .as_ref()
        .filter(|_| series.basis == CostBasis::Marginal)
}

/// "fixed part 115.2 ms [113.0 ms, 117.4 ms] + 0.712 µs [0.690 µs, 0.734 µs]
/// per n (the fixed part is 99% of the total at n=1000, 72% at n=64000)",
/// or "no fixed part: -1.2 µs [-3.4 µs, 1.0 µs]"; None without a fit.
pub(crate) fn describe_cost_split(
    doc: &SweepDocument,
    series: &SeriesDoc,
    size: &str,
) -> Option<String> {
    let fit = series.linear.as_ref()?;
    let unit = &doc.result.metric.unit;
    let value = |v: f64| format_value(v, unit);
    let fixed = format!(
        "{} {}",
        value(fit.fixed),
        format_interval(value(fit.fixed_lo), value(fit.fixed_hi))
    );
    if shown_fixed_part(series).is_none() {
        return Some(format!("no fixed part: {fixed}"));
    }
    let sizes = series_sizes(doc, series);
    let (first, last) = (sizes[0], sizes[sizes.len() - 1]);
    Some(format!(
        "fixed part {fixed} + {} {} per {size} (the fixed part is {:.0}% of the total at {size}={}, {:.0}% at {size}={})",
        value(fit.marginal),
        format_interval(value(fit.marginal_lo), value(fit.marginal_hi)),
        fit.fixed_share(first) * 100.0,
        number_text(first),
        fit.fixed_share(last) * 100.0,
        number_text(last),
    ))
}
