//! A sweep's figures in words, for every format: values with their
//! precision, ratios to the reference, fixed and marginal cost, growth
//! exponents and cliffs, and the rows of its table.

use crate::units::{format_interval, format_ratio, format_value, plural};
use perflab_format::change_words::ChangeWords;
use perflab_format::interval::PositiveIntervalDoc;
use perflab_format::sweep::{CostBasis, PointDoc, SeriesDoc, SweepDocument};

use super::fixed_cost::{
    FIXED_SHARE_DOMINATES, describe_cost_split, series_sizes, shown_fixed_part,
};
use crate::units::number_text;
use perflab_format::vocabulary::{Better, ResultStatus};

/// "1.234 ms ±1.1%".
pub(crate) fn value_with_precision(iv: &PositiveIntervalDoc, unit: &str) -> String {
    format!(
        "{} ±{:.1}%",
        format_value(iv.estimate, unit),
        iv.relative_half_width() * 100.0
    )
}

/// "takes 3.80× as long (+280.0%) [3.61×, 3.98×]": a point's value over
/// the reference's in the one wording of a change (see
/// [`perflab_format::change_words`]), or "same within noise" when the
/// interval holds 1.
pub(crate) fn describe_ratio(ratio: &PositiveIntervalDoc, metric: &str) -> String {
    if ratio.lo <= 1.0 && ratio.hi >= 1.0 {
        return format!(
            "same within noise: {}",
            format_ratio(ratio.estimate, ratio.lo, ratio.hi)
        );
    }
    ChangeWords::from_ratio(metric, ratio.estimate, Some([ratio.lo, ratio.hi])).ratio_cell()
}

/// "cost grows as n^1.02 [0.97, 1.07], 5 sizes" (or "cost above the fixed
/// part grows as ...") or the reason there is no exponent.
pub(crate) fn describe_growth(series: &SeriesDoc, size: &str) -> String {
    let what = match series.basis {
        CostBasis::Total => "cost",
        CostBasis::Marginal => "cost above the fixed part",
    };
    match &series.fit {
        Some(fit) => format!(
            "{what} grows as {size}^{:.2} {}, {} sizes",
            fit.exponent,
            format_interval(format!("{:.2}", fit.lo), format!("{:.2}", fit.hi)),
            fit.points
        ),
        None => series.fit_note.clone().unwrap_or_default(),
    }
}

/// "cliff at n=50000 (after 20000): per-item cost x1.92 [1.85, 2.00]".
pub(crate) fn describe_cliffs(series: &SeriesDoc, size: &str) -> String {
    if series.cliffs.is_empty() {
        return "no cliff".into();
    }
    let what = match series.basis {
        CostBasis::Total => "per-item cost",
        CostBasis::Marginal => "per-item cost above the fixed part",
    };
    series
        .cliffs
        .iter()
        .map(|c| {
            format!(
                "cliff at {size}={} (after {}): {what} x{:.2} {}",
                crate::units::number_text(c.size),
                crate::units::number_text(c.size_before),
                c.ratio,
                format_interval(format!("{:.2}", c.ratio_lo), format!("{:.2}", c.ratio_hi))
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Everything known about a curve in one line: the cost split, growth and cliffs.
pub(crate) fn describe_series(doc: &SweepDocument, series: &SeriesDoc, size: &str) -> String {
    let growth = format!(
        "{}; {}",
        describe_growth(series, size),
        describe_cliffs(series, size)
    );
    match describe_cost_split(doc, series, size) {
        Some(split) if shown_fixed_part(series).is_some() => format!("{split}; {growth}"),
        Some(split) => format!("{growth}; {split}"),
        None => growth,
    }
}

/// The curves whose fixed part dominates the per-item quotient at some
/// size swept: total / size there is mostly the fixed part divided by the
/// size, not the cost of an item.
pub(crate) fn fixed_part_warnings(doc: &SweepDocument) -> Vec<String> {
    let Some(size) = &doc.sweep.size else {
        return Vec::new();
    };
    let unit = &doc.result.metric.unit;
    let per_item = doc.sweep.per_item.as_deref().unwrap_or("the per-item cost");
    doc.sweep
        .series
        .iter()
        .filter_map(|series| {
            let fit = shown_fixed_part(series)?;
            let dominated: Vec<f64> = series_sizes(doc, series)
                .into_iter()
                .filter(|&n| fit.fixed_share(n) >= FIXED_SHARE_DOMINATES)
                .collect();
            let largest = *dominated.last()?;
            let smallest = dominated[0];
            Some(format!(
                "{}: the fixed part ({}) is more than half of the total up to {size}={} ({:.0}% at {size}={}), so {per_item} there mostly measures the fixed part divided by {size}, not an item; one more item costs {}",
                series_name(series),
                format_value(fit.fixed, unit),
                number_text(largest),
                fit.fixed_share(smallest) * 100.0,
                number_text(smallest),
                format_value(fit.marginal, unit),
            ))
        })
        .collect()
}

/// The heading over the curves: what their growth and cliffs are about.
pub(crate) fn series_heading(doc: &SweepDocument, size: &str) -> String {
    if doc
        .sweep
        .series
        .iter()
        .any(|s| s.basis == CostBasis::Marginal)
    {
        format!(
            "along {size}: fixed part + cost per item (cost = fixed + marginal·{size}), growth (≈ a·{size}^b; 1 is linear) and cliffs of the per-item cost, both above the fixed part where there is one"
        )
    } else {
        format!(
            "growth along {size} (total cost ≈ a·{size}^b; 1 is linear) and cliffs of the per-item cost"
        )
    }
}

/// The series' command with its fixed parameters.
pub(crate) fn series_name(series: &SeriesDoc) -> String {
    if series.fixed.is_empty() {
        series.command.clone()
    } else {
        format!("{} {}", series.command, series.fixed)
    }
}

/// One row of a sweep's table, every cell in words.
pub struct Row {
    /// The point's label, on its first command's row only.
    pub point: String,
    /// The command.
    pub command: String,
    /// Runs, `*` when the point did not reach its precision.
    pub runs: String,
    /// The value with its precision.
    pub value: String,
    /// The cost per item.
    pub per_item: String,
    /// The ratio to the reference in words.
    pub ratio: String,
}

/// The rows of a sweep's table: a point's commands under it.
pub fn rows(doc: &SweepDocument) -> Vec<Row> {
    let unit = &doc.result.metric.unit;
    let metric = &doc.result.metric;
    let mut rows = Vec::new();
    for point in &doc.sweep.points {
        for (i, r) in point.results.iter().enumerate() {
            rows.push(Row {
                point: if i == 0 {
                    point.label.clone()
                } else {
                    String::new()
                },
                command: r.command.clone(),
                runs: format!("{}{}", r.runs, if r.precise { "" } else { "*" }),
                value: r
                    .value
                    .map(|v| value_with_precision(&v, unit))
                    .unwrap_or_else(|| "(no interval below 2 runs)".into()),
                per_item: r
                    .per_item
                    .map(|v| per_item_text(&v, unit, doc))
                    .unwrap_or_default(),
                ratio: r
                    .ratio
                    .map(|v| describe_ratio(&v, &metric.name))
                    .unwrap_or_default(),
            });
        }
    }
    rows
}

/// The cost per item: scientific for a higher-is-better metric.
pub(crate) fn per_item_text(iv: &PositiveIntervalDoc, unit: &str, doc: &SweepDocument) -> String {
    if doc.result.metric.better == Better::Higher {
        format!("{:.4e}", iv.estimate)
    } else {
        format_value(iv.estimate, unit)
    }
}

/// The points that did not reach the target precision.
pub fn imprecise(doc: &SweepDocument) -> Vec<&PointDoc> {
    doc.sweep
        .points
        .iter()
        .filter(|p| p.results.iter().any(|r| !r.precise))
        .collect()
}

/// The sweep in one line: metric, size, intervals, precision.
pub fn header(doc: &SweepDocument) -> String {
    let s = &doc.sweep;
    format!(
        "{} ({} is better), {} x {}, {:.0}% intervals, target ±{}%",
        doc.result.metric.name,
        doc.result.metric.better,
        plural(s.points.len(), "point"),
        plural(s.commands.len(), "command"),
        s.confidence * 100.0,
        s.precision * 100.0
    )
}

/// What a reader must know: imprecise points, an incomplete sweep.
pub fn notes(doc: &SweepDocument) -> Vec<String> {
    let mut notes = Vec::new();
    let imprecise = imprecise(doc);
    if !imprecise.is_empty() {
        notes.push(format!(
            "* marks {} point(s) whose intervals did not reach ±{}% within {} runs (or before the sweep stopped); they rest on the runs shown",
            imprecise.len(),
            doc.sweep.precision * 100.0,
            doc.sweep.max_runs
        ));
    }
    if doc.result.status != ResultStatus::Complete {
        notes.push(format!(
            "this sweep is {} (it stopped: {}); it rests only on the points and runs listed",
            doc.result.status, doc.sweep.stop
        ));
    }
    notes
}
