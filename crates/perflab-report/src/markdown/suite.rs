//! A suite as Markdown: the verdict, then the matrix of cells as a table.

use std::fmt::Write;

use perflab_format::suite::SuiteDocument;
use perflab_format::vocabulary::ResultStatus;

use super::cell;
use crate::sections::machine::machine_state_lines;
use crate::sections::suite::{cell_meaning, row_word, suite_headline, suite_matrix, verdict_rule};

/// The suite's Markdown without a heading.
pub fn suite_markdown_body(doc: &SuiteDocument) -> String {
    let mut out = String::new();
    let headline = suite_headline(doc);
    let (verdict, rest) = headline.split_once(": ").unwrap_or((&headline, ""));
    let _ = writeln!(out, "**{verdict}**: {}.\n", cell(rest));
    let matrix = suite_matrix(doc);
    let _ = write!(out, "| {} |", row_word(doc));
    for c in &matrix.candidates {
        let _ = write!(out, " {} |", cell(c));
    }
    let _ = write!(out, "\n| --- |");
    for _ in &matrix.candidates {
        out.push_str(" ---: |");
    }
    out.push('\n');
    for (scenario, cells) in &matrix.rows {
        let _ = write!(out, "| {} |", cell(scenario));
        for c in cells {
            let _ = write!(out, " {} |", cell(&c.line()));
        }
        out.push('\n');
    }
    out.push_str("| **geometric mean** |");
    for c in &matrix.summary {
        let _ = write!(out, " **{}** |", cell(&c.line()));
    }
    let _ = writeln!(
        out,
        "\n\nMetric: {} ({} is better). {}. {}.",
        cell(&doc.result.metric.name),
        doc.result.metric.better,
        cell_meaning(doc),
        verdict_rule(doc)
    );
    for line in crate::sections::cpu_wait::cpu_wait_lines(&doc.result) {
        let _ = writeln!(out, "\n{}", cell(&line));
    }
    for w in &doc.result.warnings {
        let _ = writeln!(out, "\n> Warning: {}", cell(w));
    }
    for w in doc.result.machine.iter().flat_map(machine_state_lines) {
        let _ = writeln!(out, "\n> Machine state: {}", cell(&w));
    }
    if doc.result.status != ResultStatus::Complete {
        let _ = writeln!(
            out,
            "\n> This result is {}: it rests only on the runs made.",
            doc.result.status
        );
    }
    out
}

/// The suite's Markdown with a heading, as `--markdown` writes it.
pub fn suite_markdown(doc: &SuiteDocument) -> String {
    let title = doc
        .result
        .name
        .as_deref()
        .map(|n| format!(": {}", cell(n)))
        .unwrap_or_default();
    format!(
        "### perflab {}{title}\n\n{}",
        doc.result.kind,
        suite_markdown_body(doc)
    )
}
