//! The Markdown form, for a pull request or an issue.

pub mod history;
pub mod instructions;
pub mod page;
pub mod probes;
pub mod sampling;
pub mod span_grid;
pub mod spans;
pub mod suite;
pub mod sweep;

use std::fmt::{self, Write};

use perflab_format::history::MetricHistory;
use perflab_format::instructions::InstructionsDocument;
use perflab_format::result::ResultDocument;
use perflab_format::sampling::SamplingDocument;
use perflab_format::suite::SuiteDocument;
use perflab_format::sweep::SweepDocument;
use perflab_format::vocabulary::ResultStatus;

pub use page::report_markdown;

use super::Render;
use crate::bisect::BisectDocument;
use crate::changes::StoreChanges;
use crate::page::ReportData;
use crate::sections::cpu_wait::cpu_wait_lines;
use crate::sections::guard::GuardWords;
use crate::sections::machine::machine_state_lines;
use crate::sections::peak_memory;
use crate::sections::{decision_sentence, thresholds, value};

/// Renders a Markdown section.
pub struct MarkdownReport;

/// The text with its first letter capitalised, to follow a full stop.
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// Escapes text for a Markdown table cell.
pub(crate) fn cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('\n', " ")
        .replace('`', "'")
}

impl Render for MarkdownReport {
    fn result(&self, out: &mut dyn Write, doc: &ResultDocument) -> fmt::Result {
        let title = doc
            .name
            .as_deref()
            .map(|n| format!(": {}", cell(n)))
            .unwrap_or_default();
        write!(out, "### perflab {}{title}\n\n", doc.kind)?;
        write_markdown_body(out, doc)
    }

    fn suite(&self, out: &mut dyn Write, doc: &SuiteDocument) -> fmt::Result {
        suite::write_suite_markdown(out, doc)
    }

    /// The sweep with a third-level heading, as `perflab sweep --markdown`
    /// writes it.
    fn sweep(&self, out: &mut dyn Write, doc: &SweepDocument) -> fmt::Result {
        sweep::write_sweep_markdown(out, doc, 3)
    }

    /// The history with a third-level heading, as `perflab history
    /// --markdown` writes it.
    fn history(&self, out: &mut dyn Write, history: &MetricHistory, unit: &str) -> fmt::Result {
        history::write_history_markdown(out, history, unit, 3)
    }

    /// Nothing: `perflab history --changes` has no Markdown form; it prints
    /// its table on the terminal only.
    fn changes(&self, _out: &mut dyn Write, _changes: &StoreChanges) -> fmt::Result {
        Ok(())
    }

    /// The profile section; its tables list a fixed number of functions, so
    /// `top` is not used.
    fn sampling(&self, out: &mut dyn Write, doc: &SamplingDocument, _top: usize) -> fmt::Result {
        sampling::sampling_markdown(out, doc)
    }

    /// The instruction counts' section; `top` is not used, as for sampling.
    fn instructions(
        &self,
        out: &mut dyn Write,
        doc: &InstructionsDocument,
        _top: usize,
    ) -> fmt::Result {
        instructions::instructions_markdown(out, doc)
    }

    fn bisection(&self, out: &mut dyn Write, doc: &BisectDocument) -> fmt::Result {
        doc.write_markdown(out)
    }

    fn report_page(&self, out: &mut dyn Write, data: &ReportData) -> fmt::Result {
        page::write_report_markdown(out, data)
    }
}

/// The Markdown of a result without its heading: verdict, variants, guards, method.
pub fn write_markdown_body(out: &mut dyn Write, doc: &ResultDocument) -> fmt::Result {
    if let Some(d) = &doc.decision {
        writeln!(
            out,
            "**{}**: {}, {} runs per variant. {}.\n",
            d.verdict,
            cell(&decision_sentence(doc, d)),
            d.runs,
            cell(&sentence(&d.reason))
        )?;
    }
    writeln!(
        out,
        "| variant | command | runs | median | mean ± sd | min … max | outliers |"
    )?;
    writeln!(out, "| --- | --- | ---: | ---: | ---: | ---: | ---: |")?;
    for v in &doc.variants {
        let s = &v.summary;
        let command = crate::sections::command_line(v)
            .map(|c| format!("`{}`", cell(&c)))
            .unwrap_or_default();
        writeln!(
            out,
            "| {} | {} | {} | {} | {} ± {} | {} … {} | {} |",
            cell(&v.name),
            command,
            v.runs,
            value(doc, s.median),
            value(doc, s.mean),
            value(doc, s.sd),
            value(doc, s.min),
            value(doc, s.max),
            s.outliers_mild + s.outliers_severe
        )?;
    }
    if !doc.guards.is_empty() {
        writeln!(
            out,
            "\n| guard | A → B | growth | growth (%) | limit | status |\n| --- | ---: | ---: | ---: | --- | --- |"
        )?;
        for g in &doc.guards {
            let w = GuardWords::new(g);
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                cell(&g.metric),
                w.values,
                w.difference,
                w.relative,
                w.limit_clause(),
                g.status
            )?;
        }
    }
    spans::markdown_spans(out, doc)?;
    if let Some(d) = &doc.decision {
        writeln!(
            out,
            "\nMetric: {} ({} is better). Thresholds (B relative to A): {}. Method: {}.",
            cell(&doc.metric.name),
            doc.metric.better,
            thresholds(doc, d),
            cell(&d.method)
        )?;
        if let Some(note) = &d.runs_needed_note {
            writeln!(out, "Next: {note}.")?;
        }
    }
    for line in cpu_wait_lines(doc) {
        writeln!(out, "\n{}", cell(&line))?;
    }
    if let Some(line) = peak_memory::document_line(doc) {
        writeln!(out, "\n{}", cell(&line))?;
    }
    for w in &doc.warnings {
        writeln!(out, "\n> Warning: {}", cell(w))?;
    }
    for w in doc.machine.iter().flat_map(machine_state_lines) {
        writeln!(out, "\n> Machine state: {}", cell(&w))?;
    }
    if doc.status != ResultStatus::Complete {
        writeln!(
            out,
            "\n> This result is {}: it rests only on the runs listed.",
            doc.status
        )?;
    }
    Ok(())
}

/// [`write_markdown_body`] as a `String`.
pub fn markdown_body(doc: &ResultDocument) -> String {
    crate::render_to_string(|out| write_markdown_body(out, doc))
}

/// Warnings as Markdown quotes, one each.
pub(crate) fn warnings_markdown(out: &mut dyn Write, warnings: &[String]) -> fmt::Result {
    for w in warnings {
        write!(out, "\n> warning: {}\n", cell(w))?;
    }
    Ok(())
}
