//! The history of a metric over commits on the terminal.

use std::fmt::{self, Write};

use crate::changes::StoreChanges;
use crate::sections::history::{
    change_points_line, describe_change_point, describe_confirmation, describe_judgement, header,
    level, series_title,
};
use perflab_format::history::MetricHistory;

/// The metric history for a terminal.
pub fn write_history_terminal(out: &mut dyn Write, e: &MetricHistory, unit: &str) -> fmt::Result {
    writeln!(out, "perflab history: {}", header(e))?;
    if e.series.iter().all(|s| s.steps.is_empty()) {
        writeln!(
            out,
            "  no runs with metric '{}' found; check --metric, --name and --variant against `perflab history`",
            e.metric
        )?;
        return Ok(());
    }
    for s in &e.series {
        writeln!(out, "  {}", series_title(e, s))?;
        writeln!(
            out,
            "    {:10}  {:20}  {:>5}  {:>22}  change point: segment before → from here",
            "commit", "started", "runs", "median"
        )?;
        for step in &s.steps {
            let change = step
                .change
                .as_ref()
                .map(|j| describe_judgement(&e.metric, e.better, j))
                .unwrap_or_default();
            let line = format!(
                "    {:10}  {:20}  {:>5}  {:>22}  {change}",
                step.label,
                step.started_at,
                step.values.len(),
                level(step, unit)
            );
            writeln!(out, "{}", line.trim_end())?;
        }
        if let (Some(total), Some(first), Some(last)) = (&s.total, s.steps.first(), s.steps.last())
        {
            writeln!(
                out,
                "    total {} → {}: {}",
                first.label,
                last.label,
                describe_judgement(&e.metric, e.better, total)
            )?;
        }
        writeln!(out, "    {}", change_points_line(s))?;
        for c in &s.change_points {
            writeln!(
                out,
                "      {}",
                describe_change_point(&e.metric, e.better, c)
            )?;
            if let Some(confirmation) = &c.confirmation {
                writeln!(
                    out,
                    "        {}",
                    describe_confirmation(&e.metric, e.better, confirmation)
                )?;
            }
        }
    }
    Ok(())
}

/// [`write_history_terminal`] as a `String`.
pub fn history_terminal(e: &MetricHistory, unit: &str) -> String {
    crate::render_to_string(|out| write_history_terminal(out, e, unit))
}

/// The change points of every series in the store, newest first (with
/// each one's host when the series come from more than one).
pub fn write_changes_terminal(out: &mut dyn Write, c: &StoreChanges) -> fmt::Result {
    let many_hosts = c.newest_steps.len() > 1;
    let watched = match (c.newest_steps.values().next(), many_hosts) {
        (None, _) => "none watched".into(),
        (Some(step), false) => format!(
            "{} of them watched (measured at the newest commit, {step})",
            c.watched_series
        ),
        (Some(_), true) => format!(
            "{} of them watched (measured at the newest commit of their host: {})",
            c.watched_series,
            c.newest_steps
                .iter()
                .map(|(host, step)| format!("{} {step}", host_label(host)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    writeln!(
        out,
        "perflab history --changes: {} change {} in {} series (name, metric, variant{}), {watched}; E-divisive means, {:.0}% false alarms per series",
        c.changes.len(),
        if c.changes.len() == 1 {
            "point"
        } else {
            "points"
        },
        c.series,
        if many_hosts { ", host" } else { "" },
        c.false_alarm * 100.0
    )?;
    let host_width = c
        .newest_steps
        .keys()
        .map(|h| host_label(h).len())
        .max()
        .unwrap_or(0)
        .max(4);
    let host_cell = |h: &str| {
        if many_hosts {
            format!("{h:host_width$}  ")
        } else {
            String::new()
        }
    };
    if !c.changes.is_empty() {
        writeln!(
            out,
            "  {:20}  {}{:24}  {:12}  {:16}  change point: segment before → after",
            "measured",
            host_cell("host"),
            "name",
            "metric",
            "variant"
        )?;
    }
    for s in &c.changes {
        let marks = match (s.watched, s.newest) {
            (true, true) => "  [watched, newest]",
            (true, false) => "  [watched]",
            _ => "",
        };
        writeln!(
            out,
            "  {:20}  {}{:24}  {:12}  {:16}  {}{marks}",
            s.change.started_at,
            host_cell(host_label(s.host.as_deref().unwrap_or_default())),
            s.name.as_deref().unwrap_or("(unnamed)"),
            s.metric,
            s.variant,
            describe_change_point(&s.metric, s.better, &s.change)
        )?;
        if let Some(confirmation) = &s.change.confirmation {
            writeln!(
                out,
                "  {:20}  {}",
                "",
                describe_confirmation(&s.metric, s.better, confirmation)
            )?;
        }
    }
    for note in &c.skipped {
        writeln!(out, "  skipped {note}")?;
    }
    for s in c.watched_regressions() {
        let on = match (&s.host, many_hosts) {
            (Some(host), true) => format!(" on {host}"),
            _ => String::new(),
        };
        let confirmed = match &s.change.confirmation {
            Some(c) => format!(
                ", confirmed by an interleaved A/B{}",
                c.experiment
                    .map(|id| format!(" (#{id})"))
                    .unwrap_or_default()
            ),
            None => String::new(),
        };
        writeln!(
            out,
            "regression: the newest change point of {} {} ({}){on} is NO-GO{confirmed}",
            s.name.as_deref().unwrap_or("(unnamed)"),
            s.metric,
            s.variant
        )?;
    }
    // Regressions of the history that an A/B did not confirm: said once
    // more, since they no longer fail the command.
    let unconfirmed = c.changes.iter().filter(|s| {
        s.watched
            && s.newest
            && s.change.judgement.regression
            && s.change.confirmation.as_ref().is_some_and(|k| !k.confirmed)
    });
    for s in unconfirmed {
        let on = match (&s.host, many_hosts) {
            (Some(host), true) => format!(" on {host}"),
            _ => String::new(),
        };
        writeln!(
            out,
            "not a regression: the newest change point of {} {} ({}){on} is NO-GO in the history but was not confirmed by an interleaved A/B{}",
            s.name.as_deref().unwrap_or("(unnamed)"),
            s.metric,
            s.variant,
            s.change
                .confirmation
                .as_ref()
                .and_then(|k| k.experiment)
                .map(|id| format!(" (#{id})"))
                .unwrap_or_default()
        )?;
    }
    Ok(())
}

/// [`write_changes_terminal`] as a `String`.
pub fn changes_terminal(c: &StoreChanges) -> String {
    crate::render_to_string(|out| write_changes_terminal(out, c))
}

/// A host as listed: "(unknown)" for experiments whose host was not read.
pub fn host_label(host: &str) -> &str {
    if host.is_empty() { "(unknown)" } else { host }
}
