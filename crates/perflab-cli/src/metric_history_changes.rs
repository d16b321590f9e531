//! `perflab history --changes`: the change points of every series in the
//! store (each experiment name, metric and variant), newest first, and
//! whether a watched series has just regressed.
//!
//! Each host's experiments make series of their own (a series never mixes
//! two machines). A series is *watched* when it was measured at the newest
//! commit of its host (the commit of the host's newest experiment; without
//! git, that experiment itself): it is still being measured, as a CI job
//! measures every commit, so its newest change point is news. A series nobody has
//! measured since (an experiment name given up, a metric no longer reported)
//! is listed but cannot fail the command.
//!
//! The A/Bs that confirm change points (`--confirm`,
//! [`crate::metric_history_confirmation`]) are neither series nor the newest
//! experiment of their host.

use std::collections::BTreeMap;

use perflab_stats::{ChangePointConfig, Exchangeable, Thresholds};

use perflab_report::changes::{SeriesChange, StoreChanges};

use crate::error::Result;
use crate::metric_direction::metric_direction;
use crate::metric_history::{HistoryQuery, metric_history_from, runs_around, step_label};
use crate::metric_history_confirmation::{is_confirmation, newest_measured};
use perflab_store::Store;

/// The change points of every series in the store, or only of those of
/// `only`'s metric, experiment name and host when given.
pub fn store_changes(
    store: &Store,
    only: (Option<&str>, Option<&str>, Option<&str>),
    exchangeable: Exchangeable,
    thresholds: Thresholds,
    confidence: f64,
) -> Result<StoreChanges> {
    let hosts = match only.2 {
        Some(host) => vec![host.to_string()],
        None => store.hosts()?,
    };
    let mut newest_steps = BTreeMap::new();
    for host in hosts {
        // The A/Bs confirming change points are not what a CI job measures.
        if let Some(e) = newest_measured(store, Some(&host))? {
            let step = match &e.git {
                Some((commit, dirty)) => step_label(Some(commit), *dirty, e.id),
                None => step_label(None, false, e.id),
            };
            newest_steps.insert(host, step);
        }
    }
    let mut out = StoreChanges {
        changes: Vec::new(),
        series: 0,
        watched_series: 0,
        newest_steps: newest_steps.clone(),
        false_alarm: ChangePointConfig::new(confidence).false_alarm,
        skipped: Vec::new(),
    };
    let mut judged_hosts = std::collections::BTreeSet::new();
    // The A/Bs confirming change points make no series of their own; nor
    // does the runs' CPU wait unless asked for: it is the machine's, not
    // the code's, and a busier machine is no regression of the code.
    let machine_metric =
        |metric: &str| [perflab_runner::CPU_WAIT, perflab_runner::CPU_WAIT_FULL].contains(&metric);
    let wanted = |name: &Option<String>, metric: &str| {
        !is_confirmation(name.as_deref())
            && only.0.map_or(!machine_metric(metric), |m| m == metric)
            && only.1.is_none_or(|n| name.as_deref() == Some(n))
    };
    // The series' names by metric: each metric's direction is looked up
    // once and its values read in one query, not once per name.
    let mut names_by_metric: BTreeMap<String, Vec<Option<String>>> = BTreeMap::new();
    for (name, metric) in store.named_metrics()? {
        if wanted(&name, &metric) {
            names_by_metric.entry(metric).or_default().push(name);
        }
    }
    // The metrics whose direction no stored result gives: one line per
    // metric, however many experiment names report it.
    let mut undirected: Vec<String> = Vec::new();
    for (metric, names) in names_by_metric {
        let Ok((better, unit)) = metric_direction(store, &metric, None) else {
            undirected.push(undirected_metric(&metric, &names));
            continue;
        };
        for chunk in names.chunks(SERIES_PER_QUERY) {
            let mut values = store.metric_values_of_names(chunk, &metric)?;
            for name in chunk {
                let experiments = values.remove(name).unwrap_or_default();
                let history = metric_history_from(
                    &experiments,
                    &HistoryQuery {
                        metric: metric.clone(),
                        better,
                        name: name.clone(),
                        variants: Vec::new(),
                        reference: None,
                        host: only.2.map(str::to_string),
                        thresholds,
                        confidence,
                        exchangeable,
                    },
                );
                for s in history.series {
                    if s.steps.is_empty() {
                        continue;
                    }
                    let host = s.host.clone().unwrap_or_default();
                    let watched = s.steps.last().map(|step| &step.label) == newest_steps.get(&host);
                    judged_hosts.insert(host);
                    out.series += 1;
                    out.watched_series += usize::from(watched);
                    let count = s.change_points.len();
                    for (i, change) in s.change_points.into_iter().enumerate() {
                        let experiments_after = s
                            .steps
                            .get(change.step)
                            .map(|step| step.experiments.clone())
                            .unwrap_or_default();
                        let runs_around = runs_around(&s.steps, &change);
                        out.changes.push(SeriesChange {
                            experiments_after,
                            runs_around,
                            name: name.clone(),
                            metric: metric.clone(),
                            unit: unit.clone(),
                            better: history.better,
                            variant: s.variant.clone(),
                            host: s.host.clone(),
                            change,
                            watched,
                            newest: i + 1 == count,
                        });
                    }
                }
            }
        }
    }
    out.skipped = undirected;
    // Only the hosts of the series judged are the reader's concern.
    out.newest_steps
        .retain(|host, _| judged_hosts.contains(host));
    // Newest first: by when the first commit at the new level was measured.
    out.changes
        .sort_by(|a, b| b.change.started_at.cmp(&a.change.started_at));
    Ok(out)
}

/// How many series' values are read in one query: few queries (each a
/// round trip on PostgreSQL), yet not the whole store in memory at once.
const SERIES_PER_QUERY: usize = 100;

/// How many experiment names a line about a metric without a direction
/// lists before it counts the rest.
const NAMES_LISTED: usize = 3;

/// The line saying that `metric`, reported by the experiments of `names`,
/// was left out because no stored result says which way is better.
fn undirected_metric(metric: &str, names: &[Option<String>]) -> String {
    let mut listed: Vec<String> = names
        .iter()
        .take(NAMES_LISTED)
        .map(|n| match n {
            Some(n) => format!("\"{n}\""),
            None => "unnamed experiments".to_string(),
        })
        .collect();
    if names.len() > NAMES_LISTED {
        listed.push(format!("{} more", names.len() - NAMES_LISTED));
    }
    let of = match listed.as_slice() {
        [] => String::new(),
        [one] => format!(" of {one}"),
        [first @ .., last] => format!(" of {} and {last}", first.join(", ")),
    };
    format!(
        "'{metric}'{of}: no stored result says which way is better; see `perflab history --metric {metric} --better higher|lower`"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metric_without_a_direction_is_one_line_however_many_names_report_it() {
        let names: Vec<Option<String>> = (0..14).map(|i| Some(format!("bench-{i}"))).collect();
        let line = undirected_metric("allocations", &names);
        assert!(
            line.starts_with(
                "'allocations' of \"bench-0\", \"bench-1\", \"bench-2\" and 11 more: no stored result"
            ),
            "{line}"
        );
        assert_eq!(
            undirected_metric("ops", &[Some("a".into())]),
            "'ops' of \"a\": no stored result says which way is better; see `perflab history --metric ops --better higher|lower`"
        );
        assert!(
            undirected_metric("ops", &[None, Some("b".into())])
                .starts_with("'ops' of unnamed experiments and \"b\":")
        );
    }
}
