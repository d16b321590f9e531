//! A suite as Markdown: the verdict, then the matrix of cells as a table.

use std::fmt::{self, Write};

use perflab_format::suite::SuiteDocument;
use perflab_format::vocabulary::ResultStatus;

use super::cell;
use crate::sections::machine::machine_state_lines;
use crate::sections::suite::{cell_meaning, row_word, suite_headline, suite_matrix, verdict_rule};

/// The suite's Markdown without a heading.
pub(crate) fn suite_markdown_body(out: &mut dyn Write, doc: &SuiteDocument) -> fmt::Result {
    let headline = suite_headline(doc);
    let (verdict, rest) = headline.split_once(": ").unwrap_or((&headline, ""));
    writeln!(out, "**{verdict}**: {}.\n", cell(rest))?;
    let matrix = suite_matrix(doc);
    write!(out, "| {} |", row_word(doc))?;
    for c in &matrix.candidates {
        write!(out, " {} |", cell(c))?;
    }
    write!(out, "\n| --- |")?;
    for _ in &matrix.candidates {
        out.write_str(" ---: |")?;
    }
    out.write_char('\n')?;
    for (scenario, cells) in &matrix.rows {
        write!(out, "| {} |", cell(scenario))?;
        for c in cells {
            write!(out, " {} |", cell(&c.line()))?;
        }
        out.write_char('\n')?;
    }
    out.write_str("| **geometric mean** |")?;
    for c in &matrix.summary {
        write!(out, " **{}** |", cell(&c.line()))?;
    }
    writeln!(
        out,
        "\n\nMetric: {} ({} is better). {}. {}.",
        cell(&doc.result.metric.name),
        doc.result.metric.better,
        cell_meaning(doc),
        verdict_rule(doc)
    )?;
    for line in crate::sections::cpu_wait::cpu_wait_lines(&doc.result) {
        writeln!(out, "\n{}", cell(&line))?;
    }
    for w in &doc.result.warnings {
        writeln!(out, "\n> Warning: {}", cell(w))?;
    }
    for w in doc.result.machine.iter().flat_map(machine_state_lines) {
        writeln!(out, "\n> Machine state: {}", cell(&w))?;
    }
    if doc.result.status != ResultStatus::Complete {
        writeln!(
            out,
            "\n> This result is {}: it rests only on the runs made.",
            doc.result.status
        )?;
    }
    Ok(())
}

/// The suite's Markdown with a heading, as `--markdown` writes it.
pub fn write_suite_markdown(out: &mut dyn Write, doc: &SuiteDocument) -> fmt::Result {
    let title = doc
        .result
        .name
        .as_deref()
        .map(|n| format!(": {}", cell(n)))
        .unwrap_or_default();
    write!(out, "### perflab {}{title}\n\n", doc.result.kind)?;
    suite_markdown_body(out, doc)
}

/// [`write_suite_markdown`] as a `String`.
pub fn suite_markdown(doc: &SuiteDocument) -> String {
    crate::render_to_string(|out| write_suite_markdown(out, doc))
}
