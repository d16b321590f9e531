//! Counters and gauges on the terminal, beside the span table.

use std::fmt::{self, Write};

use perflab_format::result::ResultDocument;

use crate::sections::probes::sections;

/// The counter and gauge tables for a terminal, or nothing without probes.
pub(crate) fn terminal_probes(out: &mut dyn Write, doc: &ResultDocument) -> fmt::Result {
    let variants: Vec<&str> = doc.variants.iter().map(|v| v.name.as_str()).collect();
    for (title, rows) in sections(doc) {
        if rows.is_empty() {
            continue;
        }
        writeln!(out, "  {title}:")?;
        let mut widths = vec![
            rows.iter()
                .map(|(n, _)| n.chars().count())
                .max()
                .unwrap_or(0),
        ];
        for (column, variant) in variants.iter().enumerate() {
            let widest = rows
                .iter()
                .filter_map(|(_, cells)| cells.get(column))
                .map(|cell| cell.chars().count())
                .chain([variant.chars().count()])
                .max()
                .unwrap_or(0);
            widths.push(widest);
        }
        let line = |name: &str, cells: &[String]| {
            let cells: String = cells
                .iter()
                .zip(&widths[1..])
                .map(|(cell, width)| format!("  {cell:>width$}"))
                .collect();
            format!("    {name:<w$}{cells}", w = widths[0])
        };
        if variants.len() > 1 {
            let header: Vec<String> = variants.iter().map(|v| v.to_string()).collect();
            writeln!(out, "{}", line("", &header))?;
        }
        for (name, cells) in &rows {
            writeln!(out, "{}", line(name, cells))?;
        }
    }
    Ok(())
}
