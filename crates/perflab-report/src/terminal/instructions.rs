//! An instruction-count profile on the terminal.

use std::fmt::{self, Write};

use perflab_format::instructions::InstructionsDocument;

use crate::units::format_count;

/// The terminal tables: how the counts were taken, whether they repeat, and
/// the functions (one variant) or the changes (two variants).
pub(crate) fn instructions_terminal(
    out: &mut dyn Write,
    doc: &InstructionsDocument,
    rows: usize,
) -> fmt::Result {
    writeln!(
        out,
        "instructions (callgrind; environment cleared except {}; address randomisation off):",
        doc.environment.join(", ")
    )?;
    for v in &doc.variants {
        let repeat = match (v.counts.len(), v.identical) {
            (1, _) => "1 run: repeatability not checked".to_string(),
            (n, true) => format!("identical in all {n} runs: exact"),
            (n, false) => format!(
                "differ across {n} runs ({} … {}): treated as samples",
                format_count(*v.counts.iter().min().unwrap_or(&0) as f64),
                format_count(*v.counts.iter().max().unwrap_or(&0) as f64)
            ),
        };
        let first = v.counts.first().copied().unwrap_or(0) as f64;
        writeln!(out, "  {}: {} ({repeat})", v.name, format_count(first))?;
    }
    if doc.variants.len() == 2 {
        if doc.changes.is_empty() {
            writeln!(out, "  no function's count changed")?;
            return Ok(());
        }
        writeln!(
            out,
            "  functions whose counts changed most (own code, first run of each):"
        )?;
        writeln!(
            out,
            "    {:<40} {:>15} {:>15} {:>15} {:>9}",
            "function", doc.variants[0].name, doc.variants[1].name, "change", "relative"
        )?;
        for c in doc.changes.iter().take(rows) {
            writeln!(
                out,
                "    {:<40} {:>15} {:>15} {:>15} {:>9}",
                cut(&c.name),
                format_count(c.instructions[0] as f64),
                format_count(c.instructions[1] as f64),
                format!(
                    "{}{}",
                    if c.change > 0 { "+" } else { "" },
                    format_count(c.change as f64)
                ),
                c.relative
                    .map_or("new".to_string(), |r| format!("{:+.1}%", r * 100.0)),
            )?;
        }
    } else if let Some(v) = doc.variants.first() {
        writeln!(
            out,
            "  functions with the most instructions (own code, first run):"
        )?;
        let total = v.counts.first().copied().unwrap_or(0).max(1) as f64;
        for f in v.functions.iter().take(rows) {
            writeln!(
                out,
                "    {:<40} {:>15} {:>6.1}%",
                cut(&f.name),
                format_count(f.instructions as f64),
                f.instructions as f64 / total * 100.0
            )?;
        }
    }
    Ok(())
}

fn cut(name: &str) -> String {
    if name.chars().count() <= 40 {
        name.to_string()
    } else {
        format!("{}…", name.chars().take(39).collect::<String>())
    }
}
