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

use std::fmt::Write;

use perflab_format::result::ResultDocument;
use perflab_format::vocabulary::ResultStatus;

pub use page::report_markdown;

use super::Render;
use crate::sections::cpu_wait::cpu_wait_lines;
use crate::sections::guard::GuardWords;
use crate::sections::machine::machine_state_lines;
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
    fn render(&self, doc: &ResultDocument) -> String {
        let title = doc
            .name
            .as_deref()
            .map(|n| format!(": {}", cell(n)))
            .unwrap_or_default();
        format!("### perflab {}{title}\n\n{}", doc.kind, markdown_body(doc))
    }
}

/// The Markdown of a result without its heading: verdict, variants, guards, method.
pub fn markdown_body(doc: &ResultDocument) -> String {
    {
        let mut out = String::new();
        if let Some(d) = &doc.decision {
            let _ = writeln!(
                out,
                "**{}**: {}, {} runs per variant. {}.\n",
                d.verdict,
                cell(&decision_sentence(doc, d)),
                d.runs,
                cell(&sentence(&d.reason))
            );
        }
        let _ = writeln!(
            out,
            "| variant | command | runs | median | mean ± sd | min … max | outliers |"
        );
        let _ = writeln!(out, "| --- | --- | ---: | ---: | ---: | ---: | ---: |");
        for v in &doc.variants {
            let s = &v.summary;
            let env: Vec<String> = v.env.iter().map(|(k, val)| format!("{k}={val}")).collect();
            let command = v
                .command
                .as_deref()
                .map(|c| format!("`{}`", cell(format!("{} {c}", env.join(" ")).trim())))
                .unwrap_or_default();
            let _ = writeln!(
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
            );
        }
        if !doc.guards.is_empty() {
            let _ = writeln!(
                out,
                "\n| guard | A → B | growth | growth (%) | limit | status |\n| --- | ---: | ---: | ---: | --- | --- |"
            );
            for g in &doc.guards {
                let w = GuardWords::new(g);
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} |",
                    cell(&g.metric),
                    w.values,
                    w.difference,
                    w.relative,
                    w.limit_clause(),
                    g.status
                );
            }
        }
        out.push_str(&spans::markdown_spans(doc));
        if let Some(d) = &doc.decision {
            let _ = writeln!(
                out,
                "\nMetric: {} ({} is better). Thresholds (B relative to A): {}. Method: {}.",
                cell(&doc.metric.name),
                doc.metric.better,
                thresholds(doc, d),
                cell(&d.method)
            );
            if let Some(note) = &d.runs_needed_note {
                let _ = writeln!(out, "Next: {note}.");
            }
        }
        for line in cpu_wait_lines(doc) {
            let _ = writeln!(out, "\n{}", cell(&line));
        }
        for w in &doc.warnings {
            let _ = writeln!(out, "\n> Warning: {}", cell(w));
        }
        for w in doc.machine.iter().flat_map(machine_state_lines) {
            let _ = writeln!(out, "\n> Machine state: {}", cell(&w));
        }
        if doc.status != ResultStatus::Complete {
            let _ = writeln!(
                out,
                "\n> This result is {}: it rests only on the runs listed.",
                doc.status
            );
        }
        out
    }
}

/// Warnings as Markdown quotes, one each.
pub fn warnings_markdown(warnings: &[String]) -> String {
    warnings
        .iter()
        .map(|w| format!("\n> warning: {}\n", cell(w)))
        .collect()
}
