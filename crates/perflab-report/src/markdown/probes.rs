//! Counters, gauges, futures and locks in Markdown, beside the span table.

use std::fmt::{self, Write};

use perflab_format::result::ResultDocument;

use super::cell;
use crate::sections::probes::{SECTION_KINDS, sections};

/// The counter and gauge tables in Markdown, or nothing without probes.
pub(crate) fn markdown_probes(out: &mut dyn Write, doc: &ResultDocument) -> fmt::Result {
    let variants: Vec<String> = doc.variants.iter().map(|v| cell(&v.name)).collect();
    for ((title, rows), kind) in sections(doc).into_iter().zip(SECTION_KINDS) {
        if rows.is_empty() {
            continue;
        }
        writeln!(out, "\n{}:\n", title[..1].to_uppercase() + &title[1..])?;
        writeln!(out, "| {kind} | {} |", variants.join(" | "))?;
        writeln!(out, "| --- |{}", " ---: |".repeat(variants.len()))?;
        for (name, cells) in rows {
            let cells: Vec<String> = cells.iter().map(|c| cell(c)).collect();
            writeln!(out, "| `{}` | {} |", cell(&name), cells.join(" | "))?;
        }
    }
    Ok(())
}
