//! Sweep curves on log-log axes: per-item cost against size with error bars
//! and cliffs marked (and, where a curve has a fixed part, its per-item cost
//! above that part, dashed), the ratio to the reference, or (without a size)
//! each point's value.

use std::fmt::{self, Write};

use perflab_format::interval::PositiveIntervalDoc;
use perflab_format::vocabulary::Better;

use super::super::escape::esc;
use super::super::svg::{Plot, Scale, colour, figure};
use super::{tick, with_unit};
use crate::units::number_text;
use crate::units::{format_interval, format_ratio, format_value};
use perflab_format::sweep::{CostBasis, SeriesDoc, SweepDocument};

/// A point with its interval as drawn: a dot and a vertical error bar.
fn error_bar(
    plot: &mut Plot,
    x: f64,
    y: &Scale,
    iv: &PositiveIntervalDoc,
    c: &str,
    tip: &str,
) -> fmt::Result {
    let (ylo, yhi, ym) = (y.map(iv.lo), y.map(iv.hi), y.map(iv.estimate));
    write!(
        plot.body,
        r#"<g class="mark"><title>{}</title><line x1="{x:.1}" y1="{ylo:.1}" x2="{x:.1}" y2="{yhi:.1}" stroke="{c}" stroke-width="1.5"/><line x1="{:.1}" y1="{ylo:.1}" x2="{:.1}" y2="{ylo:.1}" stroke="{c}"/><line x1="{:.1}" y1="{yhi:.1}" x2="{:.1}" y2="{yhi:.1}" stroke="{c}"/><circle cx="{x:.1}" cy="{ym:.1}" r="3.5" fill="{c}"/></g>"#,
        esc(tip),
        x - 4.0,
        x + 4.0,
        x - 4.0,
        x + 4.0,
    )?;
    Ok(())
}

fn polyline(plot: &mut Plot, points: &[(f64, f64)], c: &str) -> fmt::Result {
    styled_polyline(plot, points, c, "")?;
    Ok(())
}

fn styled_polyline(plot: &mut Plot, points: &[(f64, f64)], c: &str, style: &str) -> fmt::Result {
    let path: Vec<String> = points
        .iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect();
    write!(
        plot.body,
        r#"<polyline class="series" points="{}" fill="none" stroke="{c}" stroke-width="2"{style}/>"#,
        path.join(" ")
    )?;
    Ok(())
}

/// A series' per-item cost above its fixed part, per point with a size.
fn above_fixed_part<'a>(
    doc: &'a SweepDocument,
    series: &'a SeriesDoc,
) -> impl Iterator<Item = (&'a str, f64, PositiveIntervalDoc)> + 'a {
    let shown = series.basis == CostBasis::Marginal;
    series
        .points
        .iter()
        .zip(&series.marginal_per_item)
        .filter(move |_| shown)
        .filter_map(|(&i, iv)| {
            let point = doc.sweep.points.get(i)?;
            Some((point.label.as_str(), point.size?, (*iv)?))
        })
}

fn series_label(command: &str, fixed: &str) -> String {
    if fixed.is_empty() {
        command.to_string()
    } else {
        format!("{command} {fixed}")
    }
}

/// The charts of a sweep.
pub(crate) fn sweep_charts(out: &mut dyn Write, doc: &SweepDocument) -> fmt::Result {
    match &doc.sweep.size {
        Some(size) if !doc.sweep.series.is_empty() => {
            per_item_chart(out, doc, size)?;
            ratio_chart(out, doc, size)
        }
        _ => points_chart(out, doc),
    }
}

fn per_item_chart(out: &mut dyn Write, doc: &SweepDocument, size: &str) -> fmt::Result {
    let s = &doc.sweep;
    let unit = if doc.result.metric.better == Better::Higher {
        ""
    } else {
        doc.result.metric.unit.as_str()
    };
    let mut plot = Plot::new(760.0, 380.0, (86.0, 24.0, 40.0, 50.0));
    let measured = || {
        s.series.iter().flat_map(|series| {
            series.points.iter().filter_map(move |&i| {
                let r = &s.points[i]
                    .results
                    .iter()
                    .find(|r| r.command == series.command)?;
                Some((s.points[i].size?, r.per_item?))
            })
        })
    };
    let above = || {
        s.series
            .iter()
            .flat_map(|series| above_fixed_part(doc, series).map(|(_, n, iv)| (n, iv)))
    };
    let x = Scale::log_around(measured().map(|(n, _)| n), plot.left, plot.right);
    let y = Scale::log_around(
        measured().chain(above()).flat_map(|(_, iv)| [iv.lo, iv.hi]),
        plot.bottom,
        plot.top,
    );
    let per_item = s.per_item.clone().unwrap_or_default();
    plot.x_axis(&x, &format!("{size} (log scale)"), &|v| number_text(v))?;
    plot.y_axis(
        &y,
        &with_unit(&format!("per-item cost, {per_item}"), unit),
        &tick(unit),
    )?;
    let mut legend = Vec::new();
    for (k, series) in s.series.iter().enumerate() {
        let c = colour(k);
        let mut line = Vec::new();
        for &i in &series.points {
            let point = &s.points[i];
            let Some(r) = point.results.iter().find(|r| r.command == series.command) else {
                continue;
            };
            let (Some(n), Some(iv)) = (point.size, r.per_item) else {
                continue;
            };
            line.push((x.map(n), y.map(iv.estimate)));
            let tip = format!(
                "{} at {}: {} per item {}, {} runs",
                series.command,
                point.label,
                format_value(iv.estimate, unit),
                format_interval(format_value(iv.lo, unit), format_value(iv.hi, unit)),
                r.runs
            );
            error_bar(&mut plot, x.map(n), &y, &iv, c, &tip)?;
        }
        polyline(&mut plot, &line, c)?;
        let mut dashed = Vec::new();
        for (label, n, iv) in above_fixed_part(doc, series) {
            dashed.push((x.map(n), y.map(iv.estimate)));
            let tip = format!(
                "{} at {label}: {} per item above the fixed part {}",
                series.command,
                format_value(iv.estimate, unit),
                format_interval(format_value(iv.lo, unit), format_value(iv.hi, unit)),
            );
            error_bar(&mut plot, x.map(n), &y, &iv, c, &tip)?;
        }
        styled_polyline(&mut plot, &dashed, c, r#" stroke-dasharray="6 4""#)?;
        for cliff in &series.cliffs {
            let cx = x.map(cliff.size);
            // The label goes on the side of the line with more room.
            let (tx, anchor) = if cx > (plot.left + plot.right) / 2.0 {
                (cx - 5.0, "end")
            } else {
                (cx + 5.0, "start")
            };
            write!(
                plot.body,
                r##"<g class="cliff"><line x1="{cx:.1}" y1="{:.1}" x2="{cx:.1}" y2="{:.1}" stroke="#c62828" stroke-width="1.5" stroke-dasharray="5 4"/><text x="{tx:.1}" y="{:.1}" text-anchor="{anchor}" fill="#c62828">{}: cliff at {}={}, x{:.2}</text></g>"##,
                plot.top,
                plot.bottom,
                plot.top + 14.0 + 14.0 * k as f64,
                esc(&series_label(&series.command, &series.fixed)),
                esc(size),
                number_text(cliff.size),
                cliff.ratio
            )?;
        }
        let growth = series
            .fit
            .map(|f| format!(" (b = {:.2})", f.exponent))
            .unwrap_or_default();
        legend.push((
            c,
            format!("{}{growth}", series_label(&series.command, &series.fixed)),
        ));
    }
    plot.legend(&legend)?;
    let title = format!("Per-item cost ({per_item}) against {size}");
    let caption = format!(
        "Log-log axes. Each point is the geometric mean of its runs with its {:.0}% interval; b is the growth exponent of the total cost (1 = linear), or of the cost above the fixed part for a curve that has one: its per-item cost above that part is the dashed line of its colour. Dashed red lines mark cliffs: the per-item cost jumps by more than both intervals and the curve's trend allow (at least {:.0}%).",
        s.confidence * 100.0,
        s.cliff * 100.0
    );
    out.write_str(&figure("sweep", &title, &plot.finish(&title), &caption))
}

fn ratio_chart(out: &mut dyn Write, doc: &SweepDocument, size: &str) -> fmt::Result {
    let s = &doc.sweep;
    let Some(reference) = s.commands.iter().find(|c| c.reference) else {
        return Ok(());
    };
    let ratios: Vec<(usize, &str, f64, PositiveIntervalDoc, usize)> =
        s.points
            .iter()
            .flat_map(|p| {
                p.results.iter().enumerate().filter_map(move |(c, r)| {
                    Some((c, p.label.as_str(), p.size?, r.ratio?, r.runs))
                })
            })
            .collect();
    if ratios.is_empty() {
        return Ok(());
    }
    let mut plot = Plot::new(760.0, 300.0, (86.0, 24.0, 40.0, 50.0));
    let x = Scale::log_around(ratios.iter().map(|r| r.2), plot.left, plot.right);
    let y = Scale::log_around(
        ratios.iter().flat_map(|r| [r.3.lo, r.3.hi]).chain([1.0]),
        plot.bottom,
        plot.top,
    );
    plot.x_axis(&x, &format!("{size} (log scale)"), &|v| number_text(v))?;
    plot.y_axis(&y, &format!("ratio to {} (x)", reference.name), &|v| {
        format!("{v:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
            + "x"
    })?;
    let one = y.map(1.0);
    write!(
        plot.body,
        r#"<line class="reference-line" x1="{:.1}" y1="{one:.1}" x2="{:.1}" y2="{one:.1}"/>"#,
        plot.left, plot.right
    )?;
    let mut legend = Vec::new();
    for (c, command) in s.commands.iter().enumerate().filter(|(_, c)| !c.reference) {
        let mut line = Vec::new();
        for r in ratios.iter().filter(|r| r.0 == c) {
            line.push((x.map(r.2), y.map(r.3.estimate)));
            let tip = format!(
                "{} at {}: {} the reference, {} runs",
                command.name,
                r.1,
                format_ratio(r.3.estimate, r.3.lo, r.3.hi),
                r.4
            );
            error_bar(&mut plot, x.map(r.2), &y, &r.3, colour(c), &tip)?;
        }
        polyline(&mut plot, &line, colour(c))?;
        legend.push((colour(c), command.name.clone()));
    }
    plot.legend(&legend)?;
    let title = format!(
        "Ratio of {} to {} against {size}",
        doc.result.metric.name, reference.name
    );
    let caption = format!(
        "Each command's {} divided by the reference's, run in pairs at the same point, with its {:.0}% interval; the grey line is 1x (as fast as the reference).",
        doc.result.metric.name,
        s.confidence * 100.0
    );
    out.write_str(&figure("ratio", &title, &plot.finish(&title), &caption))
}

fn points_chart(out: &mut dyn Write, doc: &SweepDocument) -> fmt::Result {
    let s = &doc.sweep;
    let unit = doc.result.metric.unit.as_str();
    let mut plot = Plot::new(760.0, 360.0, (86.0, 24.0, 40.0, 70.0));
    let values: Vec<f64> = s
        .points
        .iter()
        .flat_map(|p| {
            p.results
                .iter()
                .filter_map(|r| r.value)
                .flat_map(|v| [v.lo, v.hi])
        })
        .collect();
    let y = Scale::log_around(values, plot.bottom, plot.top);
    let step = (plot.right - plot.left) / s.points.len().max(1) as f64;
    plot.y_axis(&y, &with_unit(&doc.result.metric.name, unit), &tick(unit))?;
    for (i, p) in s.points.iter().enumerate() {
        let cx = plot.left + step * (i as f64 + 0.5);
        write!(
            plot.body,
            r#"<text class="tick" x="{cx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            plot.bottom + 16.0,
            esc(&p.label)
        )?;
        let commands = p.results.len().max(1) as f64;
        for (c, r) in p.results.iter().enumerate() {
            let Some(v) = r.value else { continue };
            let x = cx + (c as f64 - (commands - 1.0) / 2.0) * 12.0;
            let tip = format!(
                "{} at {}: {} ({} runs)",
                r.command,
                p.label,
                format_value(v.estimate, unit),
                r.runs
            );
            error_bar(&mut plot, x, &y, &v, colour(c), &tip)?;
        }
    }
    write!(
        plot.body,
        r#"<text class="axis-label" x="{:.1}" y="{:.1}" text-anchor="middle">point</text><line class="axis" x1="{:.1}" y1="{b:.1}" x2="{:.1}" y2="{b:.1}"/>"#,
        (plot.left + plot.right) / 2.0,
        plot.bottom + 40.0,
        plot.left,
        plot.right,
        b = plot.bottom
    )?;
    let legend: Vec<(&str, String)> = s
        .commands
        .iter()
        .enumerate()
        .map(|(c, cmd)| (colour(c), cmd.name.clone()))
        .collect();
    plot.legend(&legend)?;
    let title = format!("{} at each point", doc.result.metric.name);
    let caption = format!(
        "Log scale. Each point is the geometric mean of its runs with its {:.0}% interval.",
        s.confidence * 100.0
    );
    out.write_str(&figure("sweep", &title, &plot.finish(&title), &caption))
}
