//! The whole report as Markdown, for a pull request: per experiment its
//! provenance, result, sweep or sampling profile, instruction counts, span
//! breakdown and history.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::evolution::evolution_markdown;
use super::gather::{ExperimentReport, ReportData};
use super::instruction_counts::instructions_markdown;
use super::markdown::{cell, markdown_body};
use super::sampling::sampling_markdown;
use super::span_breakdown::VariantSpans;
use super::span_grid::{span_grid, span_grid_markdown};
use super::sweep::sweep_markdown_body;
use crate::units::{format_number, format_seconds};

/// "Commit `a1b2c3d4` (with uncommitted changes) on host (CPU), Linux 6.1, perflab 0.1.0, 2026-02-01T10:00:00Z."
pub fn provenance_line(p: &BTreeMap<String, serde_json::Value>) -> Option<String> {
    let text = |key: &str| {
        p.get(key)
            .and_then(|v| v.as_str())
            .filter(|s| !s.is_empty())
    };
    let mut parts = Vec::new();
    match text("git_commit") {
        Some(c) => parts.push(format!(
            "commit `{}`{}",
            &c[..c.len().min(12)],
            if p.get("git_dirty").and_then(|v| v.as_bool()) == Some(true) {
                " (with uncommitted changes)"
            } else {
                ""
            }
        )),
        None => parts.push("no git commit".into()),
    }
    if let Some(host) = text("host") {
        match text("cpu_model") {
            Some(cpu) => parts.push(format!("host {host} ({cpu})")),
            None => parts.push(format!("host {host}")),
        }
    }
    if let Some(kernel) = text("kernel") {
        parts.push(format!("kernel {kernel}"));
    }
    if let Some(version) = text("perflab_version") {
        parts.push(format!("perflab {version}"));
    }
    if let Some(at) = text("started_at") {
        parts.push(format!("started {at}"));
    }
    Some(parts.join(", "))
}

/// The span breakdown of one variant as a Markdown table.
pub fn spans_markdown(v: &VariantSpans) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "**{}**: {} profiled runs, {} of thread time per run.\n",
        cell(&v.variant),
        v.runs,
        format_seconds(v.thread_ns * 1e-9)
    );
    let _ = writeln!(
        out,
        "| span | self time per run | share of thread time | calls per run |\n| --- | ---: | ---: | ---: |"
    );
    for s in &v.spans {
        let _ = writeln!(
            out,
            "| `{}` | {} | {:.1}% | {} |",
            cell(&s.name),
            format_seconds(s.self_ns * 1e-9),
            s.share * 100.0,
            format_number(s.calls)
        );
    }
    let _ = writeln!(
        out,
        "| *(unattributed: no span)* | {} | {:.1}% | |",
        format_seconds(v.unattributed_ns * 1e-9),
        v.unattributed_share * 100.0
    );
    for w in &v.warnings {
        let _ = writeln!(out, "\n> warning: {}", cell(w));
    }
    out
}

fn experiment_markdown(e: &ExperimentReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### {}\n", cell(&e.title()));
    if let Some(line) = e.provenance().and_then(provenance_line) {
        let _ = writeln!(out, "{}.\n", line.replace('\n', " "));
    }
    if let Some(why) = &e.missing {
        let _ = writeln!(out, "> No result to show: {}.\n", cell(why));
    }
    for w in &e.warnings {
        let _ = writeln!(out, "> warning: {}\n", cell(w));
    }
    match (&e.sweep, &e.result, &e.sampling) {
        (Some(sweep), _, _) => out.push_str(&sweep_markdown_body(sweep)),
        (None, Some(result), _) => out.push_str(&markdown_body(result)),
        (None, None, Some(sampling)) => out.push_str(&sampling_markdown(&sampling.doc)),
        (None, None, None) => {}
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
                let _ = write!(out, "\n{}", spans_markdown(v));
            }
        }
    }
    if let Some((evolution, unit)) = &e.history {
        let _ = writeln!(
            out,
            "\n{}",
            evolution_markdown(evolution, unit, 4).trim_end()
        );
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
