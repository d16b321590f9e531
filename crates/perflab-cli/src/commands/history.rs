//! `perflab history`: past experiments, the history of a metric over
//! commits, or the change points of every series in the store; with
//! `--confirm`, change points put to interleaved A/Bs first
//! ([`super::confirm`]).
//!
//! Which change points are confirmed: with `--metric`, every one of the
//! series shown that was judged GO or NO-GO (the reader asked about these
//! series); with `--changes`, only the newest change point of each watched
//! series, and only when it is a regression: exactly those that can fail
//! the command, so that a CI job running it after each commit runs at most
//! one A/B per watched series, not one per change point in the store.
//! With `--notify`, the same regressions, those that fail the command, are
//! posted to a webhook once each ([`crate::webhook`]).

use perflab_runner::Executor;

use super::confirm::{Target, confirm_change_points};
use crate::cli::HistoryArgs;
use crate::error::to_json_pretty;
use crate::error::{EXIT_INTERRUPTED, EXIT_NO_GO, EXIT_OK, Error, Result};
use crate::metric_direction::metric_direction;
use crate::metric_history::{HistoryQuery, metric_history, runs_around};
use crate::metric_history_changes::store_changes;
use crate::metric_history_confirmation::{newest_measured, wants_confirmation};
use crate::webhook::{WebhookUrl, post_new_regressions};
use perflab_format::change_words::ChangeWords;
use perflab_format::vocabulary::{Better, ExperimentKind};
use perflab_report::changes::StoreChanges;
use perflab_report::markdown::history::history_markdown;
use perflab_report::sections::history::series_title;
use perflab_report::terminal::history::{changes_terminal, history_terminal, host_label};
use perflab_store::Store;

/// `perflab history`. `executor_for(perf_events)` gives the executor of
/// the confirming A/Bs' runs (`--confirm`).
pub fn history<E: Executor>(
    args: &HistoryArgs,
    store: &Store,
    executor_for: impl FnOnce(bool) -> Result<E>,
) -> Result<i32> {
    if args.confirm && !args.changes && args.metric.is_none() {
        return Err(Error::usage(
            "--confirm",
            "confirms change points, and the listing of experiments has none; add --metric M \
             (the change points of one metric's series) or --changes (those of every series)",
        ));
    }
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
        let mut changes = store_changes(store, only, args.exchangeable(), thresholds, confidence)?;
        let mut interrupted = false;
        if args.confirm {
            let targets: Vec<Target<'_>> = changes
                .changes
                .iter_mut()
                .filter(|c| c.watched && c.newest && c.change.judgement.regression)
                .map(|c| Target {
                    title: format!(
                        "{} {} (variant {})",
                        c.name.as_deref().unwrap_or("(unnamed)"),
                        c.metric,
                        c.variant
                    ),
                    name: c.name.clone(),
                    metric: c.metric.clone(),
                    better: c.better,
                    variant: c.variant.clone(),
                    experiments_after: c.experiments_after.clone(),
                    runs_around: c.runs_around.clone(),
                    change: &mut c.change,
                })
                .collect();
            if targets.is_empty() {
                eprintln!(
                    "perflab: --confirm: no watched series' newest change point is a regression; \
                     nothing to confirm"
                );
            }
            interrupted = confirm_change_points(targets, args, store, executor_for)?;
        }
        print!("{}", changes_terminal(&changes));
        if interrupted {
            if args.notify.is_some() {
                eprintln!(
                    "perflab: --notify: nothing posted: the confirmation was interrupted, so \
                     which regressions stand is not known; the next run posts them"
                );
            }
            return Ok(EXIT_INTERRUPTED);
        }
        if let Some(url) = &args.notify {
            notify(store, &changes, url)?;
        }
        return Ok(if changes.watched_regressions().next().is_some() {
            EXIT_NO_GO
        } else {
            EXIT_OK
        });
    }
    if let Some(metric) = &args.metric {
        return show_metric_history(args, metric, store, executor_for);
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
        let variants = match (r.kind, r.variants.as_slice()) {
            (ExperimentKind::Sweep, [first, .., last]) => format!(
                "{} point-commands ({} … {})",
                r.variants.len(),
                first.0,
                last.0
            ),
            (ExperimentKind::Suite, [first, .., last]) => format!(
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

/// Posts the new regressions of `changes` to `url`, saying on stderr what
/// was posted and warning about each post that failed. A failed post
/// leaves the exit code alone: there is a regression to post only when
/// the command exits 3 anyway.
fn notify(store: &Store, changes: &StoreChanges, url: &WebhookUrl) -> Result<()> {
    let outcome = post_new_regressions(store, changes, url)?;
    for failure in &outcome.failed {
        eprintln!("perflab: warning: --notify: {failure}");
    }
    let earlier = match outcome.already_posted {
        0 => String::new(),
        n => format!(" ({n} posted by an earlier run)"),
    };
    match outcome.posted {
        0 if outcome.failed.is_empty() => {
            eprintln!("perflab: --notify: no new regression to post{earlier}")
        }
        0 => {}
        n => eprintln!(
            "perflab: --notify: posted {n} new regression{} to {url}{earlier}",
            if n == 1 { "" } else { "s" }
        ),
    }
    Ok(())
}

/// "alpha, beta".
fn hosts_listing(hosts: &[String]) -> String {
    hosts
        .iter()
        .map(|h| host_label(h))
        .collect::<Vec<_>>()
        .join(", ")
}

fn show_metric_history<E: Executor>(
    args: &HistoryArgs,
    metric: &str,
    store: &Store,
    executor_for: impl FnOnce(bool) -> Result<E>,
) -> Result<i32> {
    let (better, unit) = metric_direction(store, metric, args.better.as_deref())?;
    let (thresholds, confidence) = args.decision.decision()?;
    // By default the newest experiment's name; a confirming A/B's is no
    // series to follow.
    let name = match &args.name {
        Some(n) => Some(n.clone()),
        None => newest_measured(store, args.host.as_deref())?.and_then(|e| e.name),
    };
    let mut history = metric_history(
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
    let mut interrupted = false;
    if args.confirm {
        let titles: Vec<String> = history
            .series
            .iter()
            .map(|s| series_title(&history, s))
            .collect();
        let mut targets = Vec::new();
        for (s, title) in history.series.iter_mut().zip(titles) {
            let around: Vec<(Vec<i64>, Vec<Vec<f64>>)> = s
                .change_points
                .iter()
                .map(|c| {
                    let after = s
                        .steps
                        .get(c.step)
                        .map(|step| step.experiments.clone())
                        .unwrap_or_default();
                    (after, runs_around(&s.steps, c))
                })
                .collect();
            for (change, (experiments_after, runs_around)) in s.change_points.iter_mut().zip(around)
            {
                if wants_confirmation(change) {
                    targets.push(Target {
                        name: history.name.clone(),
                        metric: history.metric.clone(),
                        better: history.better,
                        variant: s.variant.clone(),
                        title: title.clone(),
                        experiments_after,
                        runs_around,
                        change,
                    });
                }
            }
        }
        if targets.is_empty() {
            eprintln!("perflab: --confirm: no change point judged GO or NO-GO; nothing to confirm");
        }
        interrupted = confirm_change_points(targets, args, store, executor_for)?;
    }
    print!("{}", history_terminal(&history, &unit));
    if let Some(path) = &args.json {
        let mut text = to_json_pretty("the metric history", &history)?;
        text.push('\n');
        perflab_report::write_text(path, &text)?;
    }
    if let Some(path) = &args.markdown {
        perflab_report::write_text(path, &history_markdown(&history, &unit, 3))?;
    }
    if interrupted {
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(if history.newest_change_regressed() {
        EXIT_NO_GO
    } else {
        EXIT_OK
    })
}
