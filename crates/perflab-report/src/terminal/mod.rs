//! The terminal summary: per variant runs, median, mean ± sd, range and
//! outliers; the change with its interval; the verdict with its reason.

pub mod history;
pub mod instructions;
pub mod probes;
pub mod side_by_side;
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

use super::Render;
use crate::bisect::BisectDocument;
use crate::changes::StoreChanges;
use crate::page::ReportData;
use crate::sections::cpu_wait::cpu_wait_lines;
use crate::sections::duet::duet_line;
use crate::sections::guard::GuardWords;
use crate::sections::machine::machine_state_lines;
use crate::sections::peak_memory;
use crate::sections::{decision_sentence, value};
use crate::units::format_value;

/// Renders for a terminal (plain text, aligned).
pub struct TerminalReport;

impl Render for TerminalReport {
    fn result(&self, out: &mut dyn Write, doc: &ResultDocument) -> fmt::Result {
        let title = doc
            .name
            .as_deref()
            .map(|n| format!(" {n}"))
            .unwrap_or_default();
        let label = perflab_runner::builtin_metric(&doc.metric.name)
            .map_or(doc.metric.name.as_str(), |(l, _)| l);
        writeln!(
            out,
            "perflab {}{title}: {label} ({} is better)",
            doc.kind, doc.metric.better
        )?;
        let width = doc
            .variants
            .iter()
            .map(|v| v.name.len())
            .max()
            .unwrap_or(1)
            .max(7);
        writeln!(
            out,
            "  {:width$}  {:>5}  {:>12}  {:>26}  {:>27}  outliers",
            "variant", "runs", "median", "mean ± sd", "min … max"
        )?;
        for v in &doc.variants {
            let s = &v.summary;
            let outliers = match (s.outliers_mild, s.outliers_severe) {
                (0, 0) => "none".to_string(),
                (m, 0) => format!("{m} mild"),
                (0, x) => format!("{x} severe"),
                (m, x) => format!("{m} mild, {x} severe"),
            };
            writeln!(
                out,
                "  {:width$}  {:>5}  {:>12}  {:>26}  {:>27}  {outliers}",
                v.name,
                v.runs,
                value(doc, s.median),
                format!("{} ± {}", value(doc, s.mean), value(doc, s.sd)),
                format!("{} … {}", value(doc, s.min), value(doc, s.max)),
            )?;
            if let Some(cmd) = &v.command {
                let env: Vec<String> = v.env.iter().map(|(k, val)| format!("{k}={val}")).collect();
                let env = if env.is_empty() {
                    String::new()
                } else {
                    format!("{} ", env.join(" "))
                };
                writeln!(out, "  {:width$}  $ {env}{cmd}", "")?;
            }
        }
        if let Some(d) = &doc.decision {
            writeln!(
                out,
                "  change: {}, {} runs per variant",
                decision_sentence(doc, d),
                d.runs
            )?;
            for g in &doc.guards {
                writeln!(
                    out,
                    "  guard {}",
                    GuardWords::new(g).line(g.status.as_str())
                )?;
            }
            writeln!(out, "  verdict: {} — {}", d.verdict, d.reason)?;
            if let Some(note) = &d.runs_needed_note {
                writeln!(out, "  next: {note}")?;
            }
        }
        if let Some(duet) = &doc.duet {
            writeln!(out, "  {}", duet_line(duet))?;
        }
        for line in cpu_wait_lines(doc) {
            writeln!(out, "  {line}")?;
        }
        if let Some(line) = peak_memory::document_line(doc) {
            writeln!(out, "  {line}")?;
        }
        warnings_terminal(out, &doc.warnings)?;
        for w in doc.machine.iter().flat_map(machine_state_lines) {
            writeln!(out, "  machine state: {w}")?;
        }
        spans::terminal_spans(out, doc)?;
        if doc.status != ResultStatus::Complete {
            writeln!(
                out,
                "  note: this result is {}: it rests only on the runs listed",
                doc.status
            )?;
        }
        Ok(())
    }

    fn suite(&self, out: &mut dyn Write, doc: &SuiteDocument) -> fmt::Result {
        suite::write_suite_terminal(out, doc)
    }

    fn sweep(&self, out: &mut dyn Write, doc: &SweepDocument) -> fmt::Result {
        sweep::write_sweep_terminal(out, doc)
    }

    fn history(&self, out: &mut dyn Write, history: &MetricHistory, unit: &str) -> fmt::Result {
        history::write_history_terminal(out, history, unit)
    }

    fn changes(&self, out: &mut dyn Write, changes: &StoreChanges) -> fmt::Result {
        history::write_changes_terminal(out, changes)
    }

    fn sampling(&self, out: &mut dyn Write, doc: &SamplingDocument, top: usize) -> fmt::Result {
        crate::sampling::render::sampling_terminal(out, doc, top)
    }

    /// An instruction-count profile's tables, at most `top` functions each.
    fn instructions(
        &self,
        out: &mut dyn Write,
        doc: &InstructionsDocument,
        top: usize,
    ) -> fmt::Result {
        instructions::instructions_terminal(out, doc, top)
    }

    /// Nothing: `perflab bisect` prints each step on the terminal as it is
    /// judged ([`BisectDocument::step_line`]) and the conclusion at the
    /// end; the finished document has no terminal form of its own.
    fn bisection(&self, _out: &mut dyn Write, _doc: &BisectDocument) -> fmt::Result {
        Ok(())
    }

    /// The Markdown page: `perflab report` prints the Markdown when no file
    /// is asked for, since Markdown reads as plain text too.
    fn report_page(&self, out: &mut dyn Write, data: &ReportData) -> fmt::Result {
        crate::MarkdownReport.report_page(out, data)
    }
}

/// Warnings, one line each.
pub(crate) fn warnings_terminal(out: &mut dyn Write, warnings: &[String]) -> fmt::Result {
    for w in warnings {
        writeln!(out, "  warning: {w}")?;
    }
    Ok(())
}

/// A table of every metric of a single command's runs besides wall time.
pub fn write_other_metrics(
    out: &mut dyn Write,
    runs: &[perflab_runner::RunOutcome],
) -> fmt::Result {
    let mut names: Vec<(String, String)> = ["cpu", "user", "sys", "peak-memory"]
        .iter()
        .map(|n| {
            (
                n.to_string(),
                perflab_runner::builtin_metric(n)
                    .map(|(_, u)| u.to_string())
                    .unwrap_or_default(),
            )
        })
        .collect();
    let mut extracted = std::collections::BTreeMap::new();
    for run in runs {
        for (name, value) in &run.metrics {
            extracted
                .entry(name.clone())
                .or_insert_with(|| value.unit.clone());
        }
    }
    names.extend(extracted);
    for (name, unit) in names {
        let values: Vec<f64> = runs.iter().filter_map(|r| r.metric(&name)).collect();
        let Ok(s) = perflab_stats::summarize(&values) else {
            continue;
        };
        writeln!(
            out,
            "  {name:>12}: median {} (min {} … max {}), {} of {} runs",
            format_value(s.median, &unit),
            format_value(s.min, &unit),
            format_value(s.max, &unit),
            values.len(),
            runs.len()
        )?;
    }
    let sources = runs.iter().map(|r| r.containment.peak_memory_source);
    if let Some(line) = peak_memory::source_line(sources) {
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

/// [`write_other_metrics`] as a `String`.
pub fn other_metrics(runs: &[perflab_runner::RunOutcome]) -> String {
    crate::render_to_string(|out| write_other_metrics(out, runs))
}
