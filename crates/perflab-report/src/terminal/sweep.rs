//! A sweep on the terminal: each number with its interval and its run count.

use std::fmt::{self, Write};

use crate::sections::machine::machine_state_lines;
use crate::sections::sweep::{
    Row, describe_series, fixed_part_warnings, header, notes, rows, series_heading, series_name,
};
use perflab_format::sweep::SweepDocument;

/// The sweep for a terminal.
pub fn write_sweep_terminal(out: &mut dyn Write, doc: &SweepDocument) -> fmt::Result {
    let title = doc
        .result
        .name
        .as_deref()
        .map(|n| format!(" {n}"))
        .unwrap_or_default();
    writeln!(out, "perflab sweep{title}: {}", header(doc))?;
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
    writeln!(out, "{}", line.trim_end())?;
    for r in &rows {
        let line = format!(
            "  {:wp$}  {:wc$}  {:>5}  {:wv$}  {:wi$}  {}",
            r.point, r.command, r.runs, r.value, r.per_item, r.ratio
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    if let Some(size) = &doc.sweep.size {
        if !doc.sweep.series.is_empty() {
            writeln!(out, "  {}:", series_heading(doc, size))?;
        }
        for series in &doc.sweep.series {
            writeln!(
                out,
                "    {}: {}",
                series_name(series),
                describe_series(doc, series, size)
            )?;
        }
    }
    for line in crate::sections::cpu_wait::cpu_wait_lines(&doc.result) {
        writeln!(out, "  {line}")?;
    }
    for warning in fixed_part_warnings(doc) {
        writeln!(out, "  warning: {warning}")?;
    }
    for warning in &doc.result.warnings {
        writeln!(out, "  warning: {warning}")?;
    }
    for note in notes(doc) {
        writeln!(out, "  note: {note}")?;
    }
    for line in doc.result.machine.iter().flat_map(machine_state_lines) {
        writeln!(out, "  machine state: {line}")?;
    }
    Ok(())
}

/// [`write_sweep_terminal`] as a `String`.
pub fn sweep_terminal(doc: &SweepDocument) -> String {
    crate::render_to_string(|out| write_sweep_terminal(out, doc))
}
