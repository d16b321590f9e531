//! Instruction counts as Markdown: whether they repeated exactly, and the
//! functions whose counts changed most.

use std::fmt::{self, Write};

use perflab_format::instructions::InstructionsDocument;

use super::cell;
use crate::sections::instructions::*;
use crate::units::{format_count, format_share};

/// The instruction counts section in Markdown.
pub(crate) fn instructions_markdown(
    out: &mut dyn Write,
    doc: &InstructionsDocument,
) -> fmt::Result {
    let (status, why) = describe_status(doc);
    writeln!(out, "**{status}**: {why}. {}.\n", describe_setup(doc))?;
    writeln!(
        out,
        "| variant | command | instructions (first run) | repeatability |\n| --- | --- | ---: | --- |"
    )?;
    for v in &doc.variants {
        writeln!(
            out,
            "| {} | `{}` | {} | {} |",
            cell(&v.name),
            cell(&v.command),
            v.counts
                .first()
                .map_or("-".to_string(), |c| format_count(*c as f64)),
            describe_repeat(v)
        )?;
    }
    match doc.variants.as_slice() {
        [a, b] if doc.changes.is_empty() => {
            writeln!(
                out,
                "\nNo function's count changed from {} to {}.",
                cell(&a.name),
                cell(&b.name)
            )?;
        }
        [a, b] => {
            writeln!(
                out,
                "\nFunctions whose counts changed most (their own code, first run of each):\n\n| function | object | {} | {} | change | relative |\n| --- | --- | ---: | ---: | ---: | ---: |",
                cell(&a.name),
                cell(&b.name)
            )?;
            for c in doc.changes.iter().take(FUNCTION_ROWS) {
                writeln!(
                    out,
                    "| `{}` | {} | {} | {} | {} | {} |",
                    cell(&c.name),
                    cell(object_name(&c.object)),
                    format_count(c.instructions[0] as f64),
                    format_count(c.instructions[1] as f64),
                    signed_count(c.change),
                    describe_relative(c)
                )?;
            }
        }
        [v] if !v.functions.is_empty() => {
            let total = v.counts.first().copied().unwrap_or(0).max(1) as f64;
            writeln!(
                out,
                "\nFunctions with the most instructions (their own code, first run):\n\n| function | object | instructions | share |\n| --- | --- | ---: | ---: |"
            )?;
            for f in v.functions.iter().take(FUNCTION_ROWS) {
                writeln!(
                    out,
                    "| `{}` | {} | {} | {} |",
                    cell(&f.name),
                    cell(object_name(&f.object)),
                    format_count(f.instructions as f64),
                    format_share(f.instructions as f64 / total)
                )?;
            }
        }
        _ => {}
    }
    Ok(())
}
