//! The history of a metric over commits as a Markdown table.

use std::fmt::{self, Write};

use super::cell;
use crate::sections::history::{
    change_points_line, describe_change_point, describe_confirmation, describe_judgement, header,
    level, series_title,
};
use perflab_format::history::MetricHistory;

/// The metric history as Markdown (`level` is the heading level of its title).
pub fn write_history_markdown(
    out: &mut dyn Write,
    e: &MetricHistory,
    unit: &str,
    heading: usize,
) -> fmt::Result {
    writeln!(
        out,
        "{} History of {}\n",
        "#".repeat(heading),
        cell(&e.metric)
    )?;
    writeln!(out, "{}.\n", cell(&header(e)))?;
    for s in &e.series {
        writeln!(
            out,
            "| {} at commit | experiments | runs | median | change point: segment before → from here |\n| --- | --- | ---: | ---: | --- |",
            cell(series_title(e, s).trim_start_matches("variant "))
        )?;
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
                    let text = cell(&describe_judgement(&e.metric, e.better, j));
                    if j.regression {
                        format!("**{text}**")
                    } else {
                        text
                    }
                })
                .unwrap_or_default();
            writeln!(
                out,
                "| `{}` | {} | {} | {} | {} |",
                cell(&step.label),
                experiments,
                step.values.len(),
                cell(&level(step, unit)),
                change
            )?;
        }
        if let (Some(total), Some(first), Some(last)) = (&s.total, s.steps.first(), s.steps.last())
        {
            writeln!(
                out,
                "| **total** `{}` → `{}` | | | | {} |",
                cell(&first.label),
                cell(&last.label),
                cell(&describe_judgement(&e.metric, e.better, total))
            )?;
        }
        writeln!(out, "\n{}.", cell(&change_points_line(s)))?;
        for c in &s.change_points {
            let confirmation = c
                .confirmation
                .as_ref()
                .map(|k| {
                    let text = cell(&describe_confirmation(&e.metric, e.better, k));
                    if k.confirmed && c.judgement.regression {
                        format!("; **{text}**")
                    } else {
                        format!("; {text}")
                    }
                })
                .unwrap_or_default();
            writeln!(
                out,
                "- {}{confirmation}",
                cell(&describe_change_point(&e.metric, e.better, c))
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// [`write_history_markdown`] as a `String`.
pub fn history_markdown(e: &MetricHistory, unit: &str, heading: usize) -> String {
    crate::render_to_string(|out| write_history_markdown(out, e, unit, heading))
}
