//! The evolution of a metric over commits as text: the terminal table and
//! the Markdown "evolution by phase" table.

use std::fmt::Write;

use super::markdown::cell;
use crate::units::{format_percent, format_value};
use perflab_format::history::{Evolution, Judgement, Step};

/// "+60.50% (+58.10% … +63.00%) GO" or "+3.00% (too few runs)".
pub fn describe_judgement(j: &Judgement) -> String {
    match j.ci {
        Some([lo, hi]) => format!(
            "{} ({} … {}) {}{}",
            format_percent(j.change),
            format_percent(lo),
            format_percent(hi),
            j.verdict,
            if j.regression { " ← regression" } else { "" }
        ),
        None => format!(
            "{} (medians; too few runs to judge)",
            format_percent(j.change)
        ),
    }
}

fn level(step: &Step, unit: &str) -> String {
    match &step.level {
        Some(l) => format!(
            "{} ±{:.1}%",
            format_value(step.median, unit),
            l.relative_half_width() * 100.0
        ),
        None => format_value(step.median, unit),
    }
}

fn header(e: &Evolution) -> String {
    let name = e
        .name
        .as_deref()
        .map(|n| format!(" of \"{n}\""))
        .unwrap_or_default();
    // A store outside a git checkout has no commits: its steps are experiments.
    let steps = e.series.iter().flat_map(|s| &s.steps);
    let with_commit = steps.clone().filter(|step| step.commit.is_some()).count();
    let over = match (with_commit, steps.count() - with_commit) {
        (_, 0) => "commits",
        (0, _) => "experiments (no git commit recorded)",
        _ => "commits and experiments without one",
    };
    format!(
        "{} ({} is better){name} over {} {over}; each step against the one before, {:.0}% intervals, GO at {} or better, NO-GO at {} or worse",
        e.metric,
        e.better,
        e.longest(),
        e.confidence * 100.0,
        format_percent(e.go),
        format_percent(e.nogo)
    )
}

/// The evolution for a terminal.
pub fn evolution_terminal(e: &Evolution, unit: &str) -> String {
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

/// The evolution as Markdown (`level` is the heading level of its title).
pub fn evolution_markdown(e: &Evolution, unit: &str, heading: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} History of {}\n",
        "#".repeat(heading),
        cell(&e.metric)
    );
    let _ = writeln!(out, "{}.\n", cell(&header(e)));
    for s in &e.series {
        let _ = writeln!(
            out,
            "| {} at commit | experiments | runs | median | change vs previous |\n| --- | --- | ---: | ---: | --- |",
            cell(&s.variant)
        );
        for step in &s.steps {
            let experiments = step
                .experiments
                .iter()
                .map(|id| format!("#{id}"))
                .collect::<Vec<_>>()
                .join(", ");
            let change = step
                .change
                .as_ref()
                .map(|j| {
                    let text = cell(&describe_judgement(j));
                    if j.regression {
                        format!("**{text}**")
                    } else {
                        text
                    }
                })
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} |",
                cell(&step.label),
                experiments,
                step.values.len(),
                cell(&level(step, unit)),
                change
            );
        }
        if let (Some(total), Some(first), Some(last)) = (&s.total, s.steps.first(), s.steps.last())
        {
            let _ = writeln!(
                out,
                "| **total** `{}` → `{}` | | | | {} |",
                cell(&first.label),
                cell(&last.label),
                cell(&describe_judgement(total))
            );
        }
        let _ = writeln!(out);
    }
    out
}
