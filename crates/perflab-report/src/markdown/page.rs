//! The whole report as Markdown, for a pull request: per experiment its
//! provenance, result, sweep or sampling profile, instruction counts, span
//! breakdown and history.

use std::fmt::Write;

use super::history::history_markdown;
use super::instructions::instructions_markdown;
use super::sampling::sampling_markdown;
use super::span_grid::span_grid_markdown;
use super::spans::variant_spans_markdown;
use super::suite::suite_markdown_body;
use super::sweep::sweep_markdown_body;
use super::{cell, markdown_body, warnings_markdown};
use crate::page::{ExperimentReport, ReportData};
use crate::sections::duet::duet_line;
use crate::sections::machine::machine_line;
use crate::sections::provenance::provenance_line;
use crate::sections::span_grid::span_grid;

fn experiment_markdown(e: &ExperimentReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### {}\n", cell(&e.title()));
    if let Some(line) = e.provenance().and_then(provenance_line) {
        let _ = writeln!(out, "{}.\n", line.replace('\n', " "));
    }
    if let Some(machine) = e.result.as_ref().and_then(|r| r.machine.as_ref()) {
        let _ = writeln!(out, "{}\n", machine_line(machine));
    }
    if let Some(duet) = e.result.as_ref().and_then(|r| r.duet.as_ref()) {
        let _ = writeln!(out, "{}\n", duet_line(duet));
    }
    if let Some(why) = &e.missing {
        let _ = writeln!(out, "> No result to show: {}.\n", cell(why));
    }
    for w in &e.warnings {
        let _ = writeln!(out, "> warning: {}\n", cell(w));
    }
    match (&e.sweep, &e.suite, &e.result, &e.sampling) {
        (Some(sweep), _, _, _) => out.push_str(&sweep_markdown_body(sweep)),
        (None, Some(suite), _, _) => out.push_str(&suite_markdown_body(suite)),
        (None, None, Some(result), _) => out.push_str(&markdown_body(result)),
        (None, None, None, Some(sampling)) => out.push_str(&sampling_markdown(&sampling.doc)),
        (None, None, None, None) => {}
    }
    if let Some(doc) = &e.instructions {
        let _ = write!(
            out,
            "\n#### Instruction counts\n\n{}",
            instructions_markdown(doc)
        );
    }
    if !e.spans.is_empty() {
        let _ = write!(out, "\n#### Where the time goes\n");
        if e.sweep.is_some() {
            let _ = write!(out, "\n{}", span_grid_markdown(&span_grid(&e.spans)));
        } else {
            for v in &e.spans {
                let _ = write!(out, "\n{}", variant_spans_markdown(v));
            }
        }
        out.push_str(&warnings_markdown(&e.span_warnings));
    }
    if let Some((history, unit)) = &e.history {
        let _ = writeln!(out, "\n{}", history_markdown(history, unit, 4).trim_end());
    }
    out
}

/// The report as Markdown.
pub fn report_markdown(data: &ReportData) -> String {
    let mut out = String::from("## perflab report\n\n");
    for (i, e) in data.experiments.iter().enumerate() {
        if i > 0 {
            out.push_str("\n---\n\n");
        }
        out.push_str(&experiment_markdown(e));
    }
    out
}
