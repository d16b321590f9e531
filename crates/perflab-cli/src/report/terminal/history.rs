//! The history of a metric over commits on the terminal.

use std::fmt::Write;

use crate::metric_history_changes::StoreChanges;
use crate::report::blocks::history::{
    change_points_line, describe_change_point, describe_judgement, header, level,
};
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
            "    {:10}  {:20}  {:>5}  {:>22}  change point: segment before → from here",
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
        let _ = writeln!(out, "    {}", change_points_line(s));
        for c in &s.change_points {
            let _ = writeln!(out, "      {}", describe_change_point(c));
        }
    }
    out
}

/// The change points of every series in the store, newest first.
pub fn changes_terminal(c: &StoreChanges) -> String {
    let mut out = String::new();
    let watched = match &c.newest_step {
        Some(step) => format!(
            "{} of them watched (measured at the newest commit, {step})",
            c.watched_series
        ),
        None => "none watched".into(),
    };
    let _ = writeln!(
        out,
        "perflab history --changes: {} change {} in {} series (name, metric, variant), {watched}; E-divisive means, {:.0}% false alarms per series",
        c.changes.len(),
        if c.changes.len() == 1 {
            "point"
        } else {
            "points"
        },
        c.series,
        c.false_alarm * 100.0
    );
    if !c.changes.is_empty() {
        let _ = writeln!(
            out,
            "  {:20}  {:24}  {:12}  {:16}  change point: segment before → after",
            "measured", "name", "metric", "variant"
        );
    }
    for s in &c.changes {
        let marks = match (s.watched, s.newest) {
            (true, true) => "  [watched, newest]",
            (true, false) => "  [watched]",
            _ => "",
        };
        let _ = writeln!(
            out,
            "  {:20}  {:24}  {:12}  {:16}  {}{marks}",
            s.change.started_at,
            s.name.as_deref().unwrap_or("(unnamed)"),
            s.metric,
            s.variant,
            describe_change_point(&s.change)
        );
    }
    for note in &c.skipped {
        let _ = writeln!(out, "  skipped {note}");
    }
    for s in c.watched_regressions() {
        let _ = writeln!(
            out,
            "regression: the newest change point of {} {} ({}) is NO-GO",
            s.name.as_deref().unwrap_or("(unnamed)"),
            s.metric,
            s.variant
        );
    }
    out
}
