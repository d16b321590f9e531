//! The history of a metric over commits: the "history by phase" table of
//! an investigation, computed from the store instead of typed by hand.
//!
//! Experiments are grouped by the commit they ran at (a dirty tree is its own
//! step; without git each experiment is a step), in the order the commits were
//! first measured. Each host's experiments make series of their own: a step
//! between two machines is not a change of the code, and a change point
//! found across them would be the machines' difference. The series is judged as a whole, not step by step (over
//! 100 commits, 99 tests at 95% would raise about five false alarms): E-divisive
//! means over the runs of every commit ([`e_divisive_means`]) finds where the
//! level changed, with a false-alarm rate of 1 - confidence for the whole
//! series. Each change point is then judged between the segments of commits
//! around it with the decision engine for samples of fixed size
//! (Hodges-Lehmann with the Moses interval, as `perflab compare`), so a
//! regression is flagged NO-GO with its interval, never read off two medians.
//! The document it makes is perflab-format's `perflab-history/1`.

use perflab_format::history::{
    ChangePointDoc, HISTORY_FORMAT, Judgement, MetricHistory, Step, VariantHistory,
};
use perflab_format::vocabulary::StepVerdict;
use perflab_stats::{
    Better, ChangePointConfig, Exchangeable, Thresholds, Verdict, decide_fixed_samples,
    e_divisive_means, geometric_mean_interval, median, tuned_confidence_sequence,
};

use crate::error::Result;
use crate::result_document::interval_doc;
use perflab_store::{ExperimentValues, Store};

/// What to follow.
#[derive(Debug, Clone)]
pub struct HistoryQuery {
    /// The metric.
    pub metric: String,
    /// Which way is better.
    pub better: Better,
    /// Experiments with this name (None: unnamed ones).
    pub name: Option<String>,
    /// The variants to follow; empty means those of the reference experiment,
    /// each followed only through experiments that ran it with the same command.
    pub variants: Vec<String>,
    /// The experiment whose variants are followed by default [default: the newest].
    pub reference: Option<i64>,
    /// Only the experiments of this host (None: every host, each in series
    /// of its own).
    pub host: Option<String>,
    /// Thresholds of the verdicts.
    pub thresholds: Thresholds,
    /// Confidence level.
    pub confidence: f64,
    /// What the change-point test shuffles: whole commits or single runs.
    pub exchangeable: Exchangeable,
}

/// The label of the step an experiment belongs to: `a1b2c3d4`,
/// `a1b2c3d4+` (dirty tree) or `#12` (no git).
pub fn step_label(commit: Option<&str>, dirty: bool, id: i64) -> String {
    match commit {
        Some(c) => format!("{}{}", &c[..c.len().min(8)], if dirty { "+" } else { "" }),
        None => format!("#{id}"),
    }
}

fn key(e: &ExperimentValues) -> (String, Option<String>) {
    (
        step_label(e.git_commit.as_deref(), e.git_dirty, e.id),
        e.git_commit.clone(),
    )
}

fn judge(before: &[f64], after: &[f64], q: &HistoryQuery) -> Judgement {
    match decide_fixed_samples(before, after, q.better, &q.thresholds, q.confidence) {
        Ok(decided) => {
            let (verdict, iv) = (decided.verdict, decided.interval);
            Judgement {
                change: iv.estimate,
                ci: Some([iv.lo, iv.hi]),
                verdict: verdict.into(),
                regression: verdict == Verdict::NoGo,
                note: None,
            }
        }
        Err(e) => {
            let (a, b) = (
                median(before).unwrap_or(f64::NAN),
                median(after).unwrap_or(f64::NAN),
            );
            let change = match q.better {
                Better::Lower => a / b - 1.0,
                Better::Higher => b / a - 1.0,
            };
            Judgement {
                change,
                ci: None,
                verdict: StepVerdict::TooFewRuns,
                regression: false,
                note: Some(e.to_string()),
            }
        }
    }
}

/// The runs of the commits on either side of a change point (its two
/// segments), by commit: what the A/B that confirms it is sized from.
pub fn runs_around(steps: &[Step], change: &ChangePointDoc) -> Vec<Vec<f64>> {
    let start = change.step.saturating_sub(change.steps_before);
    let end = (change.step + change.steps_after).min(steps.len());
    steps
        .get(start..end)
        .unwrap_or_default()
        .iter()
        .map(|s| s.values.clone())
        .collect()
}

/// Computes the metric history from the store.
pub fn metric_history(store: &Store, q: &HistoryQuery) -> Result<MetricHistory> {
    let experiments = store.metric_values(q.name.as_deref(), &q.metric)?;
    Ok(metric_history_from(&experiments, q))
}

/// Computes the metric history from experiments already read with
/// [`Store::metric_values`] for the query's name and metric.
pub fn metric_history_from(experiments: &[ExperimentValues], q: &HistoryQuery) -> MetricHistory {
    let reference = match q.reference {
        Some(id) => experiments.iter().find(|e| e.id == id),
        None => experiments.last(),
    };
    // Followed by default: the reference's variants, with their commands.
    let variants: Vec<(String, Option<&String>)> = if q.variants.is_empty() {
        reference
            .map(|e| {
                e.values
                    .keys()
                    .map(|v| (v.clone(), e.commands.get(v)))
                    .collect()
            })
            .unwrap_or_default()
    } else {
        q.variants.iter().map(|v| (v.clone(), None)).collect()
    };
    let hosts: Vec<&str> = match &q.host {
        Some(host) => vec![host.as_str()],
        None if experiments.is_empty() => vec![""],
        None => experiments
            .iter()
            .map(|e| e.host.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect(),
    };
    let mut series = Vec::new();
    for (variant, command) in variants {
        for &host in &hosts {
            let steps = steps_of(experiments, (&variant, command), host, q.confidence);
            // A host that never ran the variant has no series, unless it is
            // the only one (the reader is then told there were no runs).
            if steps.is_empty() && hosts.len() > 1 {
                continue;
            }
            series.push(variant_history(&variant, host, steps, q));
        }
    }
    MetricHistory {
        format: HISTORY_FORMAT.into(),
        metric: q.metric.clone(),
        better: q.better,
        name: q.name.clone(),
        go: q.thresholds.go,
        nogo: q.thresholds.nogo,
        confidence: q.confidence,
        false_alarm: Some(change_point_config(q).false_alarm),
        permute: Some(permute_word(q.exchangeable).into()),
        series,
    }
}

/// The steps of one variant (run with `command`, when given) on one host,
/// one per commit, with their levels.
fn steps_of(
    experiments: &[ExperimentValues],
    (variant, command): (&str, Option<&String>),
    host: &str,
    confidence: f64,
) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    for e in experiments.iter().filter(|e| e.host == host) {
        if command.is_some() && e.commands.get(variant) != command {
            continue;
        }
        let Some(values) = e.values.get(variant).filter(|v| !v.is_empty()) else {
            continue;
        };
        let (label, commit) = key(e);
        match steps.iter_mut().find(|s| s.label == label) {
            Some(step) => {
                step.experiments.push(e.id);
                step.values.extend(values);
            }
            None => steps.push(Step {
                label,
                commit,
                experiments: vec![e.id],
                started_at: e.started_at.clone(),
                values: values.clone(),
                median: 0.0,
                level: None,
                change: None,
            }),
        }
    }
    for step in &mut steps {
        let values = &step.values;
        step.median = median(values).unwrap_or(f64::NAN);
        // A stored step is a sample of fixed size: its run limit is its size.
        step.level = tuned_confidence_sequence(confidence, values.len().max(1))
            .ok()
            .and_then(|cs| geometric_mean_interval(values, &cs).ok())
            .as_ref()
            .map(interval_doc);
    }
    steps
}

/// One series judged: its change points and its first step against its last.
fn variant_history(
    variant: &str,
    host: &str,
    mut steps: Vec<Step>,
    q: &HistoryQuery,
) -> VariantHistory {
    let (change_points, note) = change_points(&steps, q);
    for c in &change_points {
        steps[c.step].change = Some(c.judgement.clone());
    }
    let total =
        (steps.len() > 2).then(|| judge(&steps[0].values, &steps[steps.len() - 1].values, q));
    VariantHistory {
        variant: variant.to_string(),
        host: (!host.is_empty()).then(|| host.to_string()),
        steps,
        total,
        change_points,
        note,
    }
}

/// The settings of the change-point test of a query.
fn change_point_config(q: &HistoryQuery) -> ChangePointConfig {
    ChangePointConfig {
        exchangeable: q.exchangeable,
        ..ChangePointConfig::new(q.confidence)
    }
}

/// The word of `--permute` for what the change-point test shuffles.
pub fn permute_word(e: Exchangeable) -> &'static str {
    match e {
        Exchangeable::Groups => "commits",
        Exchangeable::Values => "runs",
    }
}

/// The change points of one variant's steps, each judged between the
/// segments around it (from the change point before to the one after); or
/// why there are none when the values cannot be read on the log scale.
fn change_points(steps: &[Step], q: &HistoryQuery) -> (Vec<ChangePointDoc>, Option<String>) {
    let groups: Vec<Vec<f64>> = steps.iter().map(|s| s.values.clone()).collect();
    let found = match e_divisive_means(&groups, &change_point_config(q)) {
        Ok(found) => found,
        Err(e) => return (Vec::new(), Some(e.to_string())),
    };
    let mut bounds: Vec<usize> = vec![0];
    bounds.extend(found.iter().map(|c| c.group));
    bounds.push(steps.len());
    let pooled = |from: usize, to: usize| -> Vec<f64> {
        steps[from..to]
            .iter()
            .flat_map(|s| s.values.iter().copied())
            .collect()
    };
    let docs = found
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (start, at, end) = (bounds[i], bounds[i + 1], bounds[i + 2]);
            ChangePointDoc {
                step: at,
                from: steps[at - 1].label.clone(),
                to: steps[at].label.clone(),
                from_commit: steps[at - 1].commit.clone(),
                to_commit: steps[at].commit.clone(),
                started_at: steps[at].started_at.clone(),
                steps_before: at - start,
                steps_after: end - at,
                p_value: c.p_value,
                judgement: judge(&pooled(start, at), &pooled(at, end), q),
                confirmation: None,
            }
        })
        .collect();
    (docs, None)
}
