//! The terminal summary: per variant runs, median, mean ± sd, range and
//! outliers; the change with its interval; the verdict with its reason.

use std::fmt::Write;

use perflab_format::result::ResultDocument;
use perflab_format::vocabulary::ResultStatus;

use super::{Render, direction_words, value};
use crate::units::format_percent;

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
                "  change: {} ({}) [{:.0}% interval {} … {}], {} runs per variant",
                format_percent(d.change),
                direction_words(doc, d.change),
                d.confidence * 100.0,
                format_percent(d.ci[0]),
                format_percent(d.ci[1]),
                d.runs
            );
            for g in &doc.guards {
                let _ = writeln!(
                    out,
                    "  guard {}: {} [{} … {}], may worsen by at most {}: {}",
                    g.metric,
                    format_percent(g.change),
                    format_percent(g.ci[0]),
                    format_percent(g.ci[1]),
                    format_percent(g.max_worsening).trim_start_matches('+'),
                    g.status
                );
            }
            let _ = writeln!(out, "  verdict: {} — {}", d.verdict, d.reason);
            if let Some(note) = &d.runs_needed_note {
                let _ = writeln!(out, "  next: {note}");
            }
        }
        for w in &doc.warnings {
            let _ = writeln!(out, "  warning: {w}");
        }
        out.push_str(&super::span_table::terminal_spans(doc));
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
