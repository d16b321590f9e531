//! `perflab history`: past experiments, the history of a metric over
//! commits, or the change points of every series in the store.

use crate::cli::HistoryArgs;
use crate::error::to_json_pretty;
use crate::error::{EXIT_NO_GO, EXIT_OK, Error, Result};
use crate::metric_direction::metric_direction;
use crate::metric_history::{HistoryQuery, metric_history};
use crate::metric_history_changes::store_changes;
use perflab_format::change_words::ChangeWords;
use perflab_format::vocabulary::Better;
use perflab_report::markdown::history::history_markdown;
use perflab_report::terminal::history::{changes_terminal, history_terminal, host_label};
use perflab_store::Store;

/// `perflab history`.
pub fn history(args: &HistoryArgs, store: &Store) -> Result<i32> {
    let hosts = store.hosts()?;
    if let Some(host) = &args.host {
        if !hosts.contains(host) {
            return Err(Error::usage(
                "--host",
                format!(
                    "no experiment in {} ran on host '{host}'; it holds experiments of {}",
                    store.path().display(),
                    hosts_listing(&hosts)
                ),
            ));
        }
    }
    let host = args.host.as_deref();
    if args.changes {
        let (thresholds, confidence) = args.decision.decision()?;
        let only = (args.metric.as_deref(), args.name.as_deref(), host);
        let changes = store_changes(store, only, args.exchangeable(), thresholds, confidence)?;
        print!("{}", changes_terminal(&changes));
        return Ok(if changes.watched_regressions().next().is_some() {
            EXIT_NO_GO
        } else {
            EXIT_OK
        });
    }
    if let Some(metric) = &args.metric {
        return show_metric_history(args, metric, store);
    }
    let rows = store.list_experiments(args.limit, host)?;
    // The host column only when there is a choice of hosts to tell apart.
    let show_host = hosts.len() > 1 && host.is_none();
    if rows.is_empty() {
        println!(
            "No experiments in {} yet. Run `perflab ab CMD_A CMD_B` or `perflab run CMD` first.",
            store.path().display()
        );
        return Ok(EXIT_OK);
    }
    let host_width = rows
        .iter()
        .map(|r| host_label(&r.host).len())
        .max()
        .unwrap_or(0)
        .max(4);
    let host_cell = |h: &str| {
        if show_host {
            format!("{h:host_width$}  ")
        } else {
            String::new()
        }
    };
    println!(
        "{:>4}  {:20}  {}{:7}  {:10}  {:12}  {:>5}  {:28}  {:10}  variants",
        "id",
        "started",
        host_cell("host"),
        "kind",
        "status",
        "verdict",
        "runs",
        "B vs A [interval]",
        "commit"
    );
    for r in rows {
        // B relative to A, the one wording of a change; the direction is
        // the one stored with the newest result about the metric.
        let metric = r.metric.as_deref().unwrap_or("wall");
        let better = match store.stored_metric(metric)? {
            Some((word, _)) if word == Better::Higher.as_str() => Better::Higher,
            _ => Better::Lower,
        };
        let change = r
            .change
            .map(|(c, lo, hi)| {
                ChangeWords::from_improvement(metric, better, c, Some([lo, hi])).cell()
            })
            .unwrap_or_default();
        let commit = r
            .git
            .map(|(c, dirty)| format!("{}{}", &c[..c.len().min(8)], if dirty { "+" } else { "" }))
            .unwrap_or_default();
        let variants = match (r.kind.as_str(), r.variants.as_slice()) {
            ("sweep", [first, .., last]) => format!(
                "{} point-commands ({} … {})",
                r.variants.len(),
                first.0,
                last.0
            ),
            ("suite", [first, .., last]) => format!(
                "{} cell variants ({} … {})",
                r.variants.len(),
                first.0,
                last.0
            ),
            _ => r
                .variants
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(" vs "),
        };
        // A run named with --name has one variant of that name: show it once.
        let name = match r.name {
            Some(n) if n != variants => format!("{n}: "),
            _ => String::new(),
        };
        println!(
            "{:>4}  {:20}  {}{:7}  {:10}  {:12}  {:>5}  {:28}  {:10}  {name}{variants}",
            r.id,
            r.started_at,
            host_cell(host_label(&r.host)),
            r.kind,
            r.status,
            r.verdict.unwrap_or_else(|| "-".into()),
            r.runs,
            change,
            commit
        );
    }
    Ok(EXIT_OK)
}

/// "alpha, beta".
fn hosts_listing(hosts: &[String]) -> String {
    hosts
        .iter()
        .map(|h| host_label(h))
        .collect::<Vec<_>>()
        .join(", ")
}

fn show_metric_history(args: &HistoryArgs, metric: &str, store: &Store) -> Result<i32> {
    let (better, unit) = metric_direction(store, metric, args.better.as_deref())?;
    let (thresholds, confidence) = args.decision.decision()?;
    let name = match (&args.name, &args.host) {
        (Some(n), _) => Some(n.clone()),
        (None, None) => store.newest_name()?,
        (None, Some(host)) => store
            .list_experiments(1, Some(host))?
            .into_iter()
            .next()
            .and_then(|e| e.name),
    };
    let history = metric_history(
        store,
        &HistoryQuery {
            metric: metric.to_string(),
            better,
            name,
            variants: args.variants.clone(),
            reference: None,
            host: args.host.clone(),
            thresholds,
            confidence,
            exchangeable: args.exchangeable(),
        },
    )?;
    print!("{}", history_terminal(&history, &unit));
    if let Some(path) = &args.json {
        let mut text = to_json_pretty("the metric history", &history)?;
        text.push('\n');
        perflab_report::write_text(path, &text)?;
    }
    if let Some(path) = &args.markdown {
        perflab_report::write_text(path, &history_markdown(&history, &unit, 3))?;
    }
    Ok(if history.newest_change_regressed() {
        EXIT_NO_GO
    } else {
        EXIT_OK
    })
}
