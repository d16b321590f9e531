//! What each page shows, read from the store on every request: plain data
//! that the JSON API serializes as it is and the pages render. Nothing is
//! cached, so an experiment stored while the server runs is on the next
//! page asked for.
//!
//! Every request holds the store for the time it reads it: one connection,
//! read-only, shared by the requests in turn.

use std::collections::BTreeMap;
use std::sync::Mutex;

use perflab_format::history::{ConfirmationDoc, MetricHistory, Step};
use perflab_format::vocabulary::{Better, ExperimentKind, ResultStatus};
use perflab_report::changes::{SeriesChange, StoreChanges};
use perflab_report::page::ExperimentReport;
use perflab_report::sections::history::describe_judgement;
use perflab_stats::{Thresholds, decide_fixed_samples};
use perflab_store::{ExperimentFilter, ExperimentRow, MAX_PAGE_SIZE, Store};
use serde::Serialize;

use crate::error::PageError;
use crate::filters::{
    CompareQuery, DEFAULT_PAGE_SIZE, HomeQuery, SeriesQuery, date, experiment_id, number, page,
    text,
};
use crate::source::{SeriesKey, StoreSource};

/// Regressions shown per host on the home page (the newest).
pub(crate) const REGRESSIONS_PER_HOST: usize = 20;

/// Series shown under "changed most".
pub(crate) const MOST_CHANGED: usize = 10;

/// Commits of a series listed per page of its table.
pub(crate) const STEPS_PER_PAGE: usize = 50;

/// How many of a series' newest commits "changed most" looks at by default.
pub(crate) const DEFAULT_RECENT_COMMITS: usize = 20;

/// The store, and what computes the pages' figures.
pub struct Site {
    store: Mutex<Store>,
    source: Box<dyn StoreSource>,
    commit_url: Option<String>,
}

/// One change point of one series, as the pages and the API show it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChangeRow {
    /// The series.
    pub series: SeriesKey,
    /// The metric's unit.
    pub unit: String,
    /// Which way the metric is better.
    pub better: Better,
    /// The step label of the last commit at the old level.
    pub from: String,
    /// The step label of the first commit at the new level.
    pub to: String,
    /// Their full commits, when known.
    pub from_commit: Option<String>,
    /// See `from_commit`.
    pub to_commit: Option<String>,
    /// When the first commit at the new level was measured (RFC 3339).
    pub started_at: String,
    /// Commits in the segment before it and after it.
    pub steps_before: usize,
    /// See `steps_before`.
    pub steps_after: usize,
    /// The change-point test's p-value.
    pub p_value: f64,
    /// Relative change between the segments, positive is better.
    pub change: f64,
    /// Its interval, when the segments have runs enough for one.
    pub ci: Option<[f64; 2]>,
    /// GO, NO-GO, NEUTRAL, INCONCLUSIVE or too few runs.
    pub verdict: String,
    /// True when the change is a regression (NO-GO).
    pub regression: bool,
    /// The change in words, with its interval and verdict.
    pub description: String,
    /// Whether its series was measured at its host's newest commit.
    pub watched: bool,
    /// Whether it is its series' newest change point.
    pub newest: bool,
    /// Whether it fails `perflab history --changes` (the newest change point
    /// of a watched series, a regression not refuted by its A/B).
    pub fails_gate: bool,
    /// The A/B that confirmed or refuted it, when one was run.
    pub confirmation: Option<ConfirmationDoc>,
    /// The A/Bs in the store that ran its two commits against each other
    /// (those `perflab history --confirm` stored), newest first.
    pub confirming_abs: Vec<ConfirmingAb>,
}

/// A stored A/B that ran a change point's two commits against each other.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ConfirmingAb {
    /// Its experiment id.
    pub id: i64,
    /// Its verdict, when it reached one.
    pub verdict: Option<String>,
}

/// The regressions of one host.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HostRegressions {
    /// The host (empty when unknown).
    pub host: String,
    /// The step label of the host's newest commit.
    pub newest_step: Option<String>,
    /// Its watched series' regressions, newest first.
    pub changes: Vec<ChangeRow>,
    /// How many there are in all (only the newest are listed).
    pub total: usize,
}

/// One experiment in a listing.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExperimentItem {
    /// Id in the store.
    pub id: i64,
    /// The command that stored it (`ab`, `run`, `compare`, `sweep`,
    /// `suite`, `profile` or `import`).
    pub kind: ExperimentKind,
    /// Name, if given.
    pub name: Option<String>,
    /// `running`, `complete` or `incomplete`.
    pub status: ResultStatus,
    /// The metric decided on.
    pub metric: Option<String>,
    /// The verdict, if decided.
    pub verdict: Option<String>,
    /// Relative change, positive is better, and its interval.
    pub change: Option<[f64; 3]>,
    /// Start time (RFC 3339).
    pub started_at: String,
    /// Host (empty when unknown).
    pub host: String,
    /// Commit, when measured in a git checkout.
    pub commit: Option<String>,
    /// Whether the checkout had uncommitted changes.
    pub dirty: bool,
    /// Measured runs.
    pub runs: i64,
    /// Variant names, baseline first.
    pub variants: Vec<String>,
}

/// A page of experiments.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExperimentList {
    /// The experiments, newest first.
    pub items: Vec<ExperimentItem>,
    /// How many match the filters in all.
    pub total: usize,
    /// This page's number, from 1.
    pub page: usize,
    /// Experiments per page.
    pub per_page: usize,
    /// How many pages there are.
    pub pages: usize,
}

/// The filters a listing was made with (absent: not filtered).
#[derive(Debug, Clone, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Filters {
    /// Name contains.
    pub name: Option<String>,
    /// Host.
    pub host: Option<String>,
    /// Branch or tag of the CI job.
    pub branch: Option<String>,
    /// Started on or after.
    pub since: Option<String>,
    /// Started before.
    pub until: Option<String>,
}

/// The home page.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HomeData {
    /// Regressions of watched series, per host.
    pub regressions: Vec<HostRegressions>,
    /// The newest experiments, with their verdicts.
    pub experiments: ExperimentList,
    /// The series whose newest change point lies within their last
    /// `recent_commits` commits, largest change first.
    pub most_changed: Vec<ChangeRow>,
    /// See `most_changed`.
    pub recent_commits: usize,
    /// How many series were judged, and how many are watched.
    pub series: usize,
    /// See `series`.
    pub watched_series: usize,
    /// The probability that a series without change shows a change point.
    pub false_alarm: f64,
    /// Series left out of the change points, and why.
    pub skipped: Vec<String>,
    /// The filters of the listing.
    pub filters: Filters,
}

/// One commit of a series.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StepRow {
    /// Its position in the series, from 0 (oldest).
    pub index: usize,
    /// The step: its label, commit, experiments, runs' values and level.
    pub step: Step,
    /// The level in words: median and precision.
    pub level: String,
    /// The change point starting here, in words, if one does.
    pub change: Option<String>,
}

/// A series page.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SeriesData {
    /// The series.
    pub key: SeriesKey,
    /// The metric's unit.
    pub unit: String,
    /// The history (one series), as `perflab history --metric --json` writes it.
    pub history: MetricHistory,
    /// Its change points, newest first.
    pub change_points: Vec<ChangeRow>,
    /// A page of its commits, newest first.
    pub steps: Vec<StepRow>,
    /// This page's number, from 1, and how many there are.
    pub page: usize,
    /// See `page`.
    pub pages: usize,
    /// The A/Bs run to confirm the change points of series of this name.
    pub confirmations: Vec<ExperimentItem>,
    /// For each change point (by `to`), the confirming A/Bs of its two commits.
    pub confirmed_by: BTreeMap<String, Vec<i64>>,
}

/// The decision between two experiments' samples.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ComparisonDecision {
    /// GO, NO-GO, NEUTRAL or INCONCLUSIVE.
    pub verdict: String,
    /// Relative change of the candidate, positive is better.
    pub change: f64,
    /// Its interval.
    pub ci: [f64; 2],
    /// The confidence level.
    pub confidence: f64,
    /// The GO and NO-GO thresholds.
    pub go: f64,
    /// See `go`.
    pub nogo: f64,
    /// The change in words.
    pub description: String,
    /// Runs on each side.
    pub runs: [usize; 2],
}

/// The compare page.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CompareData {
    /// The baseline.
    pub a: ExperimentReport,
    /// The candidate.
    pub b: ExperimentReport,
    /// The metric compared.
    pub metric: Option<String>,
    /// The variants compared.
    pub a_variant: Option<String>,
    /// See `a_variant`.
    pub b_variant: Option<String>,
    /// The decision, as `perflab compare` makes it on the two samples.
    pub decision: Option<ComparisonDecision>,
    /// Why there is no decision, if there is none.
    pub note: Option<String>,
}

impl Site {
    /// A site over `store` (opened read-only), computing with `source`;
    /// `commit_url` turns a commit into a link (`{commit}` stands for it).
    pub fn new(store: Store, source: impl StoreSource, commit_url: Option<String>) -> Self {
        Site {
            store: Mutex::new(store),
            source: Box::new(source),
            commit_url,
        }
    }

    /// What computes the pages' figures.
    pub(crate) fn source(&self) -> &dyn StoreSource {
        self.source.as_ref()
    }

    /// The link to `commit`, when a URL pattern is configured.
    pub(crate) fn commit_link(&self, commit: &str) -> Option<String> {
        self.commit_url
            .as_ref()
            .map(|pattern| pattern.replace("{commit}", commit))
    }

    pub(crate) fn with_store<T>(
        &self,
        read: impl FnOnce(&Store) -> Result<T, PageError>,
    ) -> Result<T, PageError> {
        let store = self
            .store
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        read(&store)
    }

    /// The home page.
    pub fn home(&self, q: &HomeQuery) -> Result<HomeData, PageError> {
        let filters = Filters {
            name: text("name", &q.name)?,
            host: text("host", &q.host)?,
            branch: text("branch", &q.branch)?,
            since: date("since", &q.since)?,
            until: date("until", &q.until)?,
        };
        let page = page(&q.page)?;
        let per_page = number("per_page", &q.per_page, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)?;
        let recent_commits = number("commits", &q.commits, DEFAULT_RECENT_COMMITS, 10_000)?;
        self.with_store(|store| {
            let changes = self.source.changes(store)?;
            let listing = store.browse_experiments(&ExperimentFilter {
                name: filters.name.clone(),
                host: filters.host.clone(),
                branch: filters.branch.clone(),
                since: filters.since.clone(),
                until: filters.until.clone(),
                offset: (page - 1).saturating_mul(per_page),
                limit: per_page,
            })?;
            let experiments = ExperimentList {
                items: listing.experiments.into_iter().map(item).collect(),
                total: listing.total,
                page,
                per_page,
                pages: listing.total.div_ceil(per_page).max(1),
            };
            let mut home = home_data(&changes, experiments, filters.clone(), recent_commits);
            let rows = home
                .regressions
                .iter_mut()
                .flat_map(|host| host.changes.iter_mut())
                .chain(home.most_changed.iter_mut());
            for row in rows {
                let confirmations = stored_confirmations(store, &row.series)?;
                row.confirming_abs = confirming_abs(&confirmations, &row.from, &row.to);
            }
            Ok(home)
        })
    }

    /// A series page.
    pub fn series(&self, q: &SeriesQuery) -> Result<SeriesData, PageError> {
        let key = q.key()?;
        let page = page(&q.page)?;
        self.with_store(|store| {
            let found = self.source.series(store, &key)?;
            let confirmations = stored_confirmations(store, &key)?;
            let series = &found.series;
            let (go, nogo, confidence) = found.judged_at;
            let history = MetricHistory {
                format: perflab_format::history::HISTORY_FORMAT.into(),
                metric: key.metric.clone(),
                better: found.better,
                name: key.name.clone(),
                go,
                nogo,
                confidence,
                false_alarm: None,
                permute: None,
                series: vec![series.clone()],
            };
            let count = series.change_points.len();
            let mut change_points: Vec<ChangeRow> = series
                .change_points
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    change_row(&SeriesChange {
                        name: key.name.clone(),
                        metric: key.metric.clone(),
                        unit: found.unit.clone(),
                        better: found.better,
                        variant: key.variant.clone(),
                        host: key.host.clone(),
                        change: c.clone(),
                        experiments_after: Vec::new(),
                        runs_around: Vec::new(),
                        watched: false,
                        newest: i + 1 == count,
                    })
                })
                .collect();
            change_points.reverse();
            let mut confirmed_by = BTreeMap::new();
            for c in &mut change_points {
                c.confirming_abs = confirming_abs(&confirmations, &c.from, &c.to);
                if !c.confirming_abs.is_empty() {
                    confirmed_by.insert(
                        c.to.clone(),
                        c.confirming_abs.iter().map(|ab| ab.id).collect(),
                    );
                }
            }
            let pages = series.steps.len().div_ceil(STEPS_PER_PAGE).max(1);
            let steps = series
                .steps
                .iter()
                .enumerate()
                .rev()
                .skip((page - 1).saturating_mul(STEPS_PER_PAGE))
                .take(STEPS_PER_PAGE)
                .map(|(index, step)| StepRow {
                    index,
                    step: step.clone(),
                    level: perflab_report::sections::history::level(step, &found.unit),
                    change: step
                        .change
                        .as_ref()
                        .map(|j| describe_judgement(&key.metric, found.better, j)),
                })
                .collect();
            Ok(SeriesData {
                key: key.clone(),
                unit: found.unit.clone(),
                history,
                change_points,
                steps,
                page,
                pages,
                confirmations,
                confirmed_by,
            })
        })
    }

    /// An experiment page; `id` as it appears in the URL.
    pub fn experiment(&self, id: &str) -> Result<ExperimentReport, PageError> {
        let id = experiment_id("in the address", id)?;
        self.with_store(|store| Ok(self.source.experiment(store, id)?))
    }

    /// The compare page.
    pub fn compare(&self, q: &CompareQuery) -> Result<CompareData, PageError> {
        let a = experiment_id("parameter 'a'", &crate::filters::required("a", &q.a)?)?;
        let b = experiment_id("parameter 'b'", &crate::filters::required("b", &q.b)?)?;
        let a_variant = text("a_variant", &q.a_variant)?;
        let b_variant = text("b_variant", &q.b_variant)?;
        let (a, b) = self.with_store(|store| {
            Ok((
                self.source.experiment(store, a)?,
                self.source.experiment(store, b)?,
            ))
        })?;
        compare_data(a, b, a_variant, b_variant)
    }
}

/// Whether a confirming A/B ran the commits labelled `from` and `to`: its
/// variants are named after the revisions it built.
/// The A/Bs `perflab history --confirm` stored for a series: named
/// `confirm: NAME`, on the series' host and metric, newest first.
fn stored_confirmations(store: &Store, key: &SeriesKey) -> Result<Vec<ExperimentItem>, PageError> {
    let name = format!("confirm: {}", key.name.as_deref().unwrap_or("(unnamed)"));
    Ok(store
        .browse_experiments(&ExperimentFilter {
            name: Some(name.clone()),
            host: key.host.clone(),
            limit: MAX_PAGE_SIZE,
            ..Default::default()
        })?
        .experiments
        .into_iter()
        .filter(|e| {
            e.name.as_deref() == Some(name.as_str())
                && e.metric.as_deref() == Some(key.metric.as_str())
        })
        .map(item)
        .collect())
}

/// Those of `confirmations` that ran the commits `from` and `to`.
fn confirming_abs(confirmations: &[ExperimentItem], from: &str, to: &str) -> Vec<ConfirmingAb> {
    confirmations
        .iter()
        .filter(|e| runs_both(e, from, to))
        .map(|e| ConfirmingAb {
            id: e.id,
            verdict: e.verdict.clone(),
        })
        .collect()
}

fn runs_both(e: &ExperimentItem, from: &str, to: &str) -> bool {
    let runs = |label: &str| {
        let label = label.trim_end_matches('+');
        e.variants
            .iter()
            .any(|v| v.starts_with(label) || label.starts_with(v.as_str()) && v.len() >= 7)
    };
    runs(from) && runs(to)
}

fn item(row: ExperimentRow) -> ExperimentItem {
    let (commit, dirty) = match row.git {
        Some((c, d)) => (Some(c), d),
        None => (None, false),
    };
    ExperimentItem {
        id: row.id,
        kind: row.kind,
        name: row.name,
        status: row.status,
        metric: row.metric,
        verdict: row.verdict,
        change: row.change.map(|(c, lo, hi)| [c, lo, hi]),
        started_at: row.started_at,
        host: row.host,
        commit,
        dirty,
        runs: row.runs,
        variants: row.variants.into_iter().map(|(name, _)| name).collect(),
    }
}

fn change_row(c: &SeriesChange) -> ChangeRow {
    let j = &c.change.judgement;
    ChangeRow {
        series: SeriesKey {
            name: c.name.clone(),
            metric: c.metric.clone(),
            variant: c.variant.clone(),
            host: c.host.clone(),
        },
        unit: c.unit.clone(),
        better: c.better,
        from: c.change.from.clone(),
        to: c.change.to.clone(),
        from_commit: c.change.from_commit.clone(),
        to_commit: c.change.to_commit.clone(),
        started_at: c.change.started_at.clone(),
        steps_before: c.change.steps_before,
        steps_after: c.change.steps_after,
        p_value: c.change.p_value,
        change: j.change,
        ci: j.ci,
        verdict: j.verdict.to_string(),
        regression: j.regression,
        description: describe_judgement(&c.metric, c.better, j),
        watched: c.watched,
        newest: c.newest,
        fails_gate: c.watched && c.newest && c.change.is_regression(),
        confirmation: c.change.confirmation.clone(),
        confirming_abs: Vec::new(),
    }
}

/// The home page's data from the store's change points and a page of experiments.
pub(crate) fn home_data(
    changes: &StoreChanges,
    experiments: ExperimentList,
    filters: Filters,
    recent_commits: usize,
) -> HomeData {
    let mut by_host: BTreeMap<String, HostRegressions> = BTreeMap::new();
    for c in changes
        .changes
        .iter()
        .filter(|c| c.watched && c.change.judgement.regression)
    {
        let host = c.host.clone().unwrap_or_default();
        if filters.host.as_ref().is_some_and(|h| *h != host) {
            continue;
        }
        let entry = by_host
            .entry(host.clone())
            .or_insert_with(|| HostRegressions {
                newest_step: changes.newest_steps.get(&host).cloned(),
                host,
                changes: Vec::new(),
                total: 0,
            });
        entry.total += 1;
        if entry.changes.len() < REGRESSIONS_PER_HOST {
            entry.changes.push(change_row(c));
        }
    }
    let mut most_changed: Vec<ChangeRow> = changes
        .changes
        .iter()
        .filter(|c| c.newest && c.change.steps_after <= recent_commits)
        .filter(|c| {
            filters
                .host
                .as_ref()
                .is_none_or(|h| c.host.as_deref().unwrap_or("") == h)
        })
        .map(change_row)
        .collect();
    most_changed.sort_by(|a, b| b.change.abs().total_cmp(&a.change.abs()));
    most_changed.truncate(MOST_CHANGED);
    HomeData {
        regressions: by_host.into_values().collect(),
        experiments,
        most_changed,
        recent_commits,
        series: changes.series,
        watched_series: changes.watched_series,
        false_alarm: changes.false_alarm,
        skipped: changes.skipped.clone(),
        filters,
    }
}

/// The decision between two experiments: the samples of one variant of
/// each (the first unless named), decided as `perflab compare` decides on
/// two files (Hodges-Lehmann with the Moses interval, perflab-stats'
/// `decide_fixed_samples`), at the baseline's thresholds and confidence.
fn compare_data(
    a: ExperimentReport,
    b: ExperimentReport,
    a_variant: Option<String>,
    b_variant: Option<String>,
) -> Result<CompareData, PageError> {
    let pick =
        |e: &ExperimentReport,
         wanted: &Option<String>,
         which: &str|
         -> Result<Option<(String, Vec<f64>)>, PageError> {
            let Some(result) = &e.result else {
                return Ok(None);
            };
            let found = match wanted {
            Some(name) => result.variants.iter().find(|v| v.name == *name).ok_or_else(|| {
                let names: Vec<&str> = result.variants.iter().map(|v| v.name.as_str()).collect();
                PageError::BadRequest(format!(
                    "parameter '{which}': experiment #{} has no variant '{name}'; it has {}",
                    e.id,
                    names.join(", ")
                ))
            })?,
            None => match result.variants.first() {
                Some(v) => v,
                None => return Ok(None),
            },
        };
            Ok(Some((found.name.clone(), found.samples.clone())))
        };
    let side_a = pick(&a, &a_variant, "a_variant")?;
    let side_b = pick(&b, &b_variant, "b_variant")?;
    let metric_a = a.result.as_ref().map(|r| r.metric.clone());
    let metric_b = b.result.as_ref().map(|r| r.metric.clone());
    let mut out = CompareData {
        metric: metric_a.as_ref().map(|m| m.name.clone()),
        a_variant: side_a.as_ref().map(|s| s.0.clone()),
        b_variant: side_b.as_ref().map(|s| s.0.clone()),
        decision: None,
        note: None,
        a,
        b,
    };
    let (Some((_, xs)), Some((_, ys)), Some(ma), Some(mb)) = (side_a, side_b, metric_a, metric_b)
    else {
        out.note = Some(
            "both experiments need a stored result with runs to be compared; one of them has none"
                .into(),
        );
        return Ok(out);
    };
    if ma.name != mb.name {
        out.note = Some(format!(
            "the baseline measured {} and the candidate {}: different metrics cannot be compared",
            ma.name, mb.name
        ));
        return Ok(out);
    }
    let (thresholds, confidence) = out
        .a
        .result
        .as_ref()
        .and_then(|r| r.decision.as_ref())
        .and_then(|d| Some((Thresholds::new(d.go, d.nogo).ok()?, d.confidence)))
        .unwrap_or((Thresholds::default(), perflab_stats::DEFAULT_CONFIDENCE));
    match decide_samples((&xs, &ys), (&ma.name, ma.better), thresholds, confidence) {
        Ok(d) => out.decision = Some(d),
        Err(e) => out.note = Some(e),
    }
    Ok(out)
}

/// The decision of `perflab compare` between a baseline's values `xs` and
/// a candidate's `ys` of `metric`: Hodges-Lehmann shift of the log values
/// with the Moses interval (perflab-stats' `decide_fixed_samples`, samples
/// of fixed size), at `thresholds` and `confidence`. Err says why there is
/// none (too few values, no spread).
pub(crate) fn decide_samples(
    (xs, ys): (&[f64], &[f64]),
    (metric, better): (&str, Better),
    thresholds: Thresholds,
    confidence: f64,
) -> Result<ComparisonDecision, String> {
    let d = decide_fixed_samples(xs, ys, better, &thresholds, confidence)
        .map_err(|e| format!("no decision: {e}"))?;
    let judgement = perflab_format::history::Judgement {
        change: d.interval.estimate,
        ci: Some([d.interval.lo, d.interval.hi]),
        verdict: d.verdict.into(),
        regression: d.verdict == perflab_format::vocabulary::Verdict::NoGo,
        note: None,
    };
    Ok(ComparisonDecision {
        verdict: d.verdict.to_string(),
        change: d.interval.estimate,
        ci: [d.interval.lo, d.interval.hi],
        confidence,
        go: thresholds.go,
        nogo: thresholds.nogo,
        description: describe_judgement(metric, better, &judgement),
        runs: [xs.len(), ys.len()],
    })
}
