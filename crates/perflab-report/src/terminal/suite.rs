//! A suite in the terminal: the verdict, then the matrix of cells.

use std::fmt::{self, Write};

use perflab_format::suite::SuiteDocument;
use perflab_format::vocabulary::{ResultStatus, Verdict};

use crate::sections::machine::machine_state_lines;
use crate::sections::suite::{cell_meaning, row_word, suite_headline, suite_matrix, verdict_rule};

/// The suite as aligned text.
pub fn write_suite_terminal(out: &mut dyn Write, doc: &SuiteDocument) -> fmt::Result {
    let title = doc
        .result
        .name
        .as_deref()
        .map(|n| format!(" {n}"))
        .unwrap_or_default();
    let label = perflab_runner::builtin_metric(&doc.result.metric.name)
        .map_or(doc.result.metric.name.as_str(), |(l, _)| l);
    writeln!(
        out,
        "perflab {}{title}: {label} ({} is better)",
        doc.result.kind, doc.result.metric.better
    )?;
    writeln!(out, "{}.\n", suite_headline(doc))?;
    let matrix = suite_matrix(doc);
    let mut table: Vec<Vec<String>> = vec![
        std::iter::once(row_word(doc).to_string())
            .chain(matrix.candidates.iter().cloned())
            .collect(),
    ];
    for (scenario, cells) in &matrix.rows {
        table.push(
            std::iter::once(scenario.clone())
                .chain(cells.iter().map(|c| c.line()))
                .collect(),
        );
    }
    table.push(
        std::iter::once("geometric mean".to_string())
            .chain(matrix.summary.iter().map(|c| c.line()))
            .collect(),
    );
    let columns = table[0].len();
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            table
                .iter()
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in &table {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(text, w)| format!("{text:<w$}"))
            .collect();
        writeln!(out, "  {}", line.join("   ").trim_end())?;
    }
    writeln!(out, "\n{}. {}.", cell_meaning(doc), verdict_rule(doc))?;
    // Why a cell did not decide is what the user acts on (more runs, a
    // quieter machine), so it is said here and not only in the JSON. So is
    // a NO-GO beside an improvement: only a guard's veto gives one, and the
    // matrix alone would read as a contradiction.
    for cell in doc.cells.iter().filter(|c| {
        c.verdict == Verdict::Inconclusive
            || (c.verdict == Verdict::NoGo && c.change.is_some_and(|x| x > 0.0))
    }) {
        writeln!(
            out,
            "{} / {}: {}.",
            cell.scenario, cell.variant, cell.reason
        )?;
    }
    if let Some(duet) = &doc.result.duet {
        writeln!(out, "{}", crate::sections::duet::duet_line(duet))?;
    }
    for line in crate::sections::cpu_wait::cpu_wait_lines(&doc.result) {
        writeln!(out, "{line}")?;
    }
    for w in &doc.result.warnings {
        writeln!(out, "warning: {w}")?;
    }
    for w in doc.result.machine.iter().flat_map(machine_state_lines) {
        writeln!(out, "machine state: {w}")?;
    }
    if doc.result.status != ResultStatus::Complete {
        writeln!(
            out,
            "This result is {}: it rests only on the runs made.",
            doc.result.status
        )?;
    }
    Ok(())
}

/// [`write_suite_terminal`] as a `String`.
pub fn suite_terminal(doc: &SuiteDocument) -> String {
    crate::render_to_string(|out| write_suite_terminal(out, doc))
}
