//! The history of a metric over commits in words, for every format: a
//! step's judgement with its interval, a level with its precision, the header.

use crate::units::{format_change, format_percent, format_value};
use perflab_format::history::{Judgement, MetricHistory, Step};

/// "+60.50% [+58.10%, +63.00%] GO" or "+3.00% (too few runs)".
pub fn describe_judgement(j: &Judgement) -> String {
    match j.ci {
        Some(ci) => format!(
            "{} {}{}",
            format_change(j.change, ci),
            j.verdict,
            if j.regression { " ← regression" } else { "" }
        ),
        None => format!(
            "{} (medians; too few runs to judge)",
            format_percent(j.change)
        ),
    }
}

/// A step's median with its precision: "99.926 ms ±0.6%".
pub fn level(step: &Step, unit: &str) -> String {
    match &step.level {
        Some(l) => format!(
            "{} ±{:.1}%",
            format_value(step.median, unit),
            l.relative_half_width() * 100.0
        ),
        None => format_value(step.median, unit),
    }
}

/// The metric history in one line: metric, steps, intervals, thresholds.
pub fn header(e: &MetricHistory) -> String {
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
