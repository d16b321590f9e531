//! A sweep as text: the terminal table and the Markdown section, each number
//! with its interval and its run count.

use std::fmt::Write;

use perflab_format::interval::PositiveIntervalDoc;

use super::markdown::cell;
use crate::units::{format_value, plural};
use perflab_format::sweep::{PointDoc, SeriesDoc, SweepDocument};
use perflab_format::vocabulary::{Better, ResultStatus};

/// "1.234 ms ±1.1%".
pub fn value_with_precision(iv: &PositiveIntervalDoc, unit: &str) -> String {
    format!(
        "{} ±{:.1}%",
        format_value(iv.estimate, unit),
        iv.relative_half_width() * 100.0
    )
}

/// "3.80x slower (3.61–3.98)": a ratio to the reference in words.
pub fn describe_ratio(ratio: &PositiveIntervalDoc, metric: &str, better: &str) -> String {
    let time = matches!(metric, "wall" | "cpu" | "user" | "sys");
    if ratio.lo <= 1.0 && ratio.hi >= 1.0 {
        return format!(
            "same within noise: {:.2}x ({:.2}–{:.2})",
            ratio.estimate, ratio.lo, ratio.hi
        );
    }
    let above = ratio.estimate > 1.0;
    let worse = if better == "higher" { !above } else { above };
    let word = match (time, worse) {
        (true, true) => "slower",
        (true, false) => "faster",
        (false, true) => "worse",
        (false, false) => "better",
    };
    let (factor, lo, hi) = if above {
        (ratio.estimate, ratio.lo, ratio.hi)
    } else {
        (1.0 / ratio.estimate, 1.0 / ratio.hi, 1.0 / ratio.lo)
    };
    format!("{factor:.2}x {word} ({lo:.2}–{hi:.2})")
}

/// "n^1.02 (0.97–1.07)" or the reason there is no exponent.
pub fn describe_growth(series: &SeriesDoc, size: &str) -> String {
    match &series.fit {
        Some(fit) => format!(
            "cost grows as {size}^{:.2} ({:.2}–{:.2}), {} sizes",
            fit.exponent, fit.lo, fit.hi, fit.points
        ),
        None => series.fit_note.clone().unwrap_or_default(),
    }
}

/// "cliff at n=50000 (after 20000): per-item cost x1.92 (1.85–2.00)".
pub fn describe_cliffs(series: &SeriesDoc, size: &str) -> String {
    if series.cliffs.is_empty() {
        return "no cliff".into();
    }
    series
        .cliffs
        .iter()
        .map(|c| {
            format!(
                "cliff at {size}={} (after {}): per-item cost x{:.2} ({:.2}–{:.2})",
                crate::sweep::params::number_text(c.size),
                crate::sweep::params::number_text(c.size_before),
                c.ratio,
                c.ratio_lo,
                c.ratio_hi
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn series_name(series: &SeriesDoc) -> String {
    if series.fixed.is_empty() {
        series.command.clone()
    } else {
        format!("{} {}", series.command, series.fixed)
    }
}

struct Row {
    point: String,
    command: String,
    runs: String,
    value: String,
    per_item: String,
    ratio: String,
}

fn rows(doc: &SweepDocument) -> Vec<Row> {
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
                    .map(|v| describe_ratio(&v, &metric.name, metric.better.as_str()))
                    .unwrap_or_default(),
            });
        }
    }
    rows
}

fn per_item_text(iv: &PositiveIntervalDoc, unit: &str, doc: &SweepDocument) -> String {
    if doc.result.metric.better == Better::Higher {
        format!("{:.4e}", iv.estimate)
    } else {
        format_value(iv.estimate, unit)
    }
}

fn imprecise(doc: &SweepDocument) -> Vec<&PointDoc> {
    doc.sweep
        .points
        .iter()
        .filter(|p| p.results.iter().any(|r| !r.precise))
        .collect()
}

fn header(doc: &SweepDocument) -> String {
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

/// The sweep for a terminal.
pub fn sweep_terminal(doc: &SweepDocument) -> String {
    let mut out = String::new();
    let title = doc
        .result
        .name
        .as_deref()
        .map(|n| format!(" {n}"))
        .unwrap_or_default();
    let _ = writeln!(out, "perflab sweep{title}: {}", header(doc));
    let rows = rows(doc);
    let per_item = doc.sweep.per_item.clone().unwrap_or_default();
    let width = |f: fn(&Row) -> &str, min: usize| {
        rows.iter()
            .map(|r| f(r).chars().count())
            .max()
            .unwrap_or(0)
            .max(min)
    };
    let (wp, wc, wv) = (
        width(|r| &r.point, 5),
        width(|r| &r.command, 7),
        width(|r| &r.value, 5),
    );
    let per_item_header = if per_item.is_empty() {
        String::new()
    } else {
        format!("per item ({per_item})")
    };
    let wi = width(|r| &r.per_item, per_item_header.chars().count());
    let reference = if doc.sweep.commands.iter().any(|c| c.reference) {
        "vs reference"
    } else {
        ""
    };
    let line = format!(
        "  {:wp$}  {:wc$}  {:>5}  {:wv$}  {:wi$}  {reference}",
        "point", "command", "runs", "value", per_item_header
    );
    let _ = writeln!(out, "{}", line.trim_end());
    for r in &rows {
        let line = format!(
            "  {:wp$}  {:wc$}  {:>5}  {:wv$}  {:wi$}  {}",
            r.point, r.command, r.runs, r.value, r.per_item, r.ratio
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    if let Some(size) = &doc.sweep.size {
        if !doc.sweep.series.is_empty() {
            let _ = writeln!(
                out,
                "  growth along {size} (total cost ≈ a·{size}^b) and cliffs of the per-item cost:"
            );
        }
        for series in &doc.sweep.series {
            let _ = writeln!(
                out,
                "    {}: {}; {}",
                series_name(series),
                describe_growth(series, size),
                describe_cliffs(series, size)
            );
        }
    }
    for note in notes(doc) {
        let _ = writeln!(out, "  note: {note}");
    }
    out
}

fn notes(doc: &SweepDocument) -> Vec<String> {
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

/// The sweep as a Markdown section (`level` is the heading level of its title).
pub fn sweep_markdown(doc: &SweepDocument, level: usize) -> String {
    let title = doc
        .result
        .name
        .as_deref()
        .map(|n| format!(": {}", cell(n)))
        .unwrap_or_default();
    format!(
        "{} perflab sweep{title}\n\n{}",
        "#".repeat(level),
        sweep_markdown_body(doc)
    )
}

/// The sweep's Markdown without its heading.
pub fn sweep_markdown_body(doc: &SweepDocument) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}.\n", cell(&header(doc)));
    let _ = writeln!(out, "| command | template |\n| --- | --- |");
    for c in &doc.sweep.commands {
        let _ = writeln!(
            out,
            "| {}{} | `{}` |",
            cell(&c.name),
            if c.reference { " (reference)" } else { "" },
            cell(&c.template)
        );
    }
    let per_item = doc.sweep.per_item.clone();
    let has_reference = doc.sweep.commands.iter().any(|c| c.reference);
    let _ = write!(out, "\n| point | command | runs | value |");
    if let Some(p) = &per_item {
        let _ = write!(out, " per item ({}) |", cell(p));
    }
    if has_reference {
        let _ = write!(out, " vs reference |");
    }
    let _ = write!(out, "\n| --- | --- | ---: | ---: |");
    if per_item.is_some() {
        let _ = write!(out, " ---: |");
    }
    if has_reference {
        let _ = write!(out, " --- |");
    }
    let _ = writeln!(out);
    for r in rows(doc) {
        let _ = write!(
            out,
            "| {} | {} | {} | {} |",
            cell(&r.point),
            cell(&r.command),
            r.runs,
            cell(&r.value)
        );
        if per_item.is_some() {
            let _ = write!(out, " {} |", cell(&r.per_item));
        }
        if has_reference {
            let _ = write!(out, " {} |", cell(&r.ratio));
        }
        let _ = writeln!(out);
    }
    if let Some(size) = &doc.sweep.size {
        if !doc.sweep.series.is_empty() {
            let _ = writeln!(
                out,
                "\nGrowth along {} (total cost ≈ a·{}^b; 1 is linear) and cliffs of the per-item cost:\n",
                cell(size),
                cell(size)
            );
            for series in &doc.sweep.series {
                let _ = writeln!(
                    out,
                    "- **{}**: {}; {}",
                    cell(&series_name(series)),
                    cell(&describe_growth(series, size)),
                    cell(&describe_cliffs(series, size))
                );
            }
        }
    }
    let notes = notes(doc);
    if !notes.is_empty() {
        let _ = writeln!(out);
        for note in notes {
            let _ = writeln!(out, "> {}", cell(&note));
        }
    }
    out
}
