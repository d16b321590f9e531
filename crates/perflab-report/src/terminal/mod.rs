//! The terminal summary: per variant runs, median, mean ± sd, range and
//! outliers; the change with its interval; the verdict with its reason.

pub mod history;
pub mod probes;
pub mod side_by_side;
pub mod spans;
pub mod suite;
pub mod sweep;

use std::fmt::Write;

use perflab_format::result::ResultDocument;
use perflab_format::vocabulary::ResultStatus;

use super::Render;
use crate::sections::cpu_wait::cpu_wait_lines;
use crate::sections::duet::duet_line;
use crate::sections::guard::GuardWords;
use crate::sections::machine::machine_state_lines;
use crate::sections::{decision_sentence, value};
use crate::units::format_value;

/// Renders for a terminal (plain text, aligned).
pub struct TerminalReport;

impl Render for TerminalReport {
    fn render(&self, doc: &ResultDocument) -> String {
        let mut out = String::new();
        let title = doc
            .name
            .as_deref()
            .map(|n| format!(" {n}"))
            .unwrap_or_default();
        let label = perflab_runner::builtin_metric(&doc.metric.name)
            .map_or(doc.metric.name.as_str(), |(l, _)| l);
        let _ = writeln!(
            out,
            "perflab {}{title}: {label} ({} is better)",
            doc.kind, doc.metric.better
        );
        let width = doc
            .variants
            .iter()
            .map(|v| v.name.len())
            .max()
            .unwrap_or(1)
            .max(7);
        let _ = writeln!(
            out,
            "  {:width$}  {:>5}  {:>12}  {:>26}  {:>27}  outliers",
            "variant", "runs", "median", "mean ± sd", "min … max"
        );
        for v in &doc.variants {
            let s = &v.summary;
            let outliers = match (s.outliers_mild, s.outliers_severe) {
                (0, 0) => "none".to_string(),
                (m, 0) => format!("{m} mild"),
                (0, x) => format!("{x} severe"),
                (m, x) => format!("{m} mild, {x} severe"),
            };
            let _ = writeln!(
                out,
                "  {:width$}  {:>5}  {:>12}  {:>26}  {:>27}  {outliers}",
                v.name,
                v.runs,
                value(doc, s.median),
                format!("{} ± {}", value(doc, s.mean), value(doc, s.sd)),
                format!("{} … {}", value(doc, s.min), value(doc, s.max)),
            );
            if let Some(cmd) = &v.command {
                let env: Vec<String> = v.env.iter().map(|(k, val)| format!("{k}={val}")).collect();
                let env = if env.is_empty() {
                    String::new()
                } else {
                    format!("{} ", env.join(" "))
                };
                let _ = writeln!(out, "  {:width$}  $ {env}{cmd}", "");
            }
        }
        if let Some(d) = &doc.decision {
            let _ = writeln!(
                out,
                "  change: {}, {} runs per variant",
                decision_sentence(doc, d),
                d.runs
            );
            for g in &doc.guards {
                let _ = writeln!(
                    out,
                    "  guard {}",
                    GuardWords::new(g).line(g.status.as_str())
                );
            }
            let _ = writeln!(out, "  verdict: {} — {}", d.verdict, d.reason);
            if let Some(note) = &d.runs_needed_note {
                let _ = writeln!(out, "  next: {note}");
            }
        }
        if let Some(duet) = &doc.duet {
            let _ = writeln!(out, "  {}", duet_line(duet));
        }
        for line in cpu_wait_lines(doc) {
            let _ = writeln!(out, "  {line}");
        }
        out.push_str(&warnings_terminal(&doc.warnings));
        for w in doc.machine.iter().flat_map(machine_state_lines) {
            let _ = writeln!(out, "  machine state: {w}");
        }
        out.push_str(&spans::terminal_spans(doc));
        if doc.status != ResultStatus::Complete {
            let _ = writeln!(
                out,
                "  note: this result is {}: it rests only on the runs listed",
                doc.status
            );
        }
        out
    }
}

/// Warnings, one line each.
pub fn warnings_terminal(warnings: &[String]) -> String {
    warnings
        .iter()
        .map(|w| format!("  warning: {w}\n"))
        .collect()
}

/// A table of every metric of a single command's runs besides wall time.
pub fn other_metrics(runs: &[perflab_runner::RunOutcome]) -> String {
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
    let mut out = String::new();
    for (name, unit) in names {
        let values: Vec<f64> = runs.iter().filter_map(|r| r.metric(&name)).collect();
        let Ok(s) = perflab_stats::summarize(&values) else {
            continue;
        };
        let _ = writeln!(
            out,
            "  {name:>12}: median {} (min {} … max {}), {} of {} runs",
            format_value(s.median, &unit),
            format_value(s.min, &unit),
            format_value(s.max, &unit),
            values.len(),
            runs.len()
        );
    }
    out
}
