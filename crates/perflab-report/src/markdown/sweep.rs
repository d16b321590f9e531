//! A sweep as a Markdown section.

use std::fmt::{self, Write};

use super::cell;
use crate::sections::sweep::{
    describe_series, fixed_part_warnings, header, notes, rows, series_heading, series_name,
};
use perflab_format::sweep::SweepDocument;

/// The sweep as a Markdown section (`level` is the heading level of its title).
pub fn write_sweep_markdown(out: &mut dyn Write, doc: &SweepDocument, level: usize) -> fmt::Result {
    let title = doc
        .result
        .name
        .as_deref()
        .map(|n| format!(": {}", cell(n)))
        .unwrap_or_default();
    write!(out, "{} perflab sweep{title}\n\n", "#".repeat(level))?;
    sweep_markdown_body(out, doc)
}

/// [`write_sweep_markdown`] as a `String`.
pub fn sweep_markdown(doc: &SweepDocument, level: usize) -> String {
    crate::render_to_string(|out| write_sweep_markdown(out, doc, level))
}

/// The sweep's Markdown without its heading.
pub(crate) fn sweep_markdown_body(out: &mut dyn Write, doc: &SweepDocument) -> fmt::Result {
    writeln!(out, "{}.\n", cell(&header(doc)))?;
    writeln!(out, "| command | template |\n| --- | --- |")?;
    for c in &doc.sweep.commands {
        writeln!(
            out,
            "| {}{} | `{}` |",
            cell(&c.name),
            if c.reference { " (reference)" } else { "" },
            cell(&c.template)
        )?;
    }
    let per_item = doc.sweep.per_item.clone();
    let has_reference = doc.sweep.commands.iter().any(|c| c.reference);
    write!(out, "\n| point | command | runs | value |")?;
    if let Some(p) = &per_item {
        write!(out, " per item ({}) |", cell(p))?;
    }
    if has_reference {
        write!(out, " vs reference |")?;
    }
    write!(out, "\n| --- | --- | ---: | ---: |")?;
    if per_item.is_some() {
        write!(out, " ---: |")?;
    }
    if has_reference {
        write!(out, " --- |")?;
    }
    writeln!(out)?;
    for r in rows(doc) {
        write!(
            out,
            "| {} | {} | {} | {} |",
            cell(&r.point),
            cell(&r.command),
            r.runs,
            cell(&r.value)
        )?;
        if per_item.is_some() {
            write!(out, " {} |", cell(&r.per_item))?;
        }
        if has_reference {
            write!(out, " {} |", cell(&r.ratio))?;
        }
        writeln!(out)?;
    }
    if let Some(size) = &doc.sweep.size {
        if !doc.sweep.series.is_empty() {
            let heading = series_heading(doc, size);
            writeln!(
                out,
                "\n{}{}:\n",
                heading[..1].to_uppercase(),
                cell(&heading[1..])
            )?;
            for series in &doc.sweep.series {
                writeln!(
                    out,
                    "- **{}**: {}",
                    cell(&series_name(series)),
                    cell(&describe_series(doc, series, size))
                )?;
            }
        }
    }
    for line in crate::sections::cpu_wait::cpu_wait_lines(&doc.result) {
        writeln!(out, "\n{}", cell(&line))?;
    }
    let mut warnings = fixed_part_warnings(doc);
    warnings.extend(doc.result.warnings.iter().cloned());
    if !warnings.is_empty() {
        writeln!(out)?;
        for warning in warnings {
            writeln!(out, "> **Warning**: {}", cell(&warning))?;
        }
    }
    let notes = notes(doc);
    if !notes.is_empty() {
        writeln!(out)?;
        for note in notes {
            writeln!(out, "> {}", cell(&note))?;
        }
    }
    Ok(())
}
