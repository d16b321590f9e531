//! The history of a metric over commits on the terminal.

use std::fmt::Write;

use crate::report::blocks::history::{describe_judgement, header, level};
use perflab_format::history::MetricHistory;

/// The metric history for a terminal.
pub fn history_terminal(e: &MetricHistory, unit: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "perflab history: {}", header(e));
    if e.series.iter().all(|s| s.steps.is_empty()) {
        let _ = writeln!(
            out,
            "  no runs with metric '{}' found; check --metric, --name and --variant against `perflab history`",
            e.metric
        );
        return out;
    }
    for s in &e.series {
        let _ = writeln!(out, "  variant {}", s.variant);
        let _ = writeln!(
            out,
            "    {:10}  {:20}  {:>5}  {:>22}  change vs previous",
            "commit", "started", "runs", "median"
        );
        for step in &s.steps {
            let change = step
                .change
                .as_ref()
                .map(describe_judgement)
                .unwrap_or_default();
            let line = format!(
                "    {:10}  {:20}  {:>5}  {:>22}  {change}",
                step.label,
                step.started_at,
                step.values.len(),
                level(step, unit)
            );
            let _ = writeln!(out, "{}", line.trim_end());
        }
        if let (Some(total), Some(first), Some(last)) = (&s.total, s.steps.first(), s.steps.last())
        {
            let _ = writeln!(
                out,
                "    total {} → {}: {}",
                first.label,
                last.label,
                describe_judgement(total)
            );
        }
    }
    out
}
