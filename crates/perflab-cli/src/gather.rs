//! Everything a report shows, read from the store once: each experiment's
//! result (or sweep, or sampling profile), its instruction counts, its span
//! breakdowns and its history over commits, so that the Markdown and the
//! HTML page are two views of the same data (perflab-report's `page`).

use perflab_format::history::MetricHistory;
use perflab_format::instructions::InstructionsDocument;
use perflab_format::result::ResultDocument;
use perflab_format::sampling::SamplingDocument;
use perflab_format::suite::SuiteDocument;
use perflab_format::sweep::SweepDocument;
use perflab_format::vocabulary::ExperimentKind;
use perflab_report::page::{ExperimentReport, ReportData};
use perflab_report::sampling::off_cpu::wall_stacks_attachment;
use perflab_report::sections::sampling::SamplingReport;
use perflab_report::sections::spans::{span_breakdowns, variant_spans};
use perflab_stats::Thresholds;
use perflab_store::machine_description::{MachineDescription, different_machines_warning};
use perflab_store::{ExperimentValues, Store};

use crate::error::Result;
use crate::metric_direction::metric_direction;
use crate::metric_history::{HistoryQuery, metric_history_from};

/// Most history lines drawn for one experiment (a sweep has one per point).
pub const MAX_HISTORY_SERIES: usize = 8;

/// Reads the experiments `selectors` name (ids or names; none: the newest).
pub fn gather(store: &Store, selectors: &[String], with_history: bool) -> Result<ReportData> {
    let ids = if selectors.is_empty() {
        vec![store.find_experiment(None)?]
    } else {
        selectors
            .iter()
            .map(|s| store.find_experiment(Some(s)))
            .collect::<perflab_store::Result<Vec<_>>>()?
    };
    let mut experiments = Vec::new();
    let mut values = ValuesCache::default();
    for id in ids {
        experiments.push(experiment(store, id, with_history, &mut values)?);
    }
    warn_of_other_machines(&mut experiments);
    Ok(ReportData { experiments })
}

/// Warns, on each experiment that ran on another machine than the first
/// one reported (another host, or its host described differently), that
/// their figures are not of one machine; the first one names both.
fn warn_of_other_machines(experiments: &mut [ExperimentReport]) {
    let machine =
        |e: &ExperimentReport| e.provenance().and_then(MachineDescription::from_provenance);
    let Some((first, rest)) = experiments.split_first_mut() else {
        return;
    };
    let Some(reference) = machine(first) else {
        return;
    };
    let first_label = first.title();
    for e in rest {
        let Some(theirs) = machine(e) else { continue };
        let label = e.title();
        if let Some(w) = different_machines_warning((&first_label, &reference), (&label, &theirs)) {
            e.warnings.push(w);
        }
    }
}

/// Metric values read once per (name, metric), however many experiments share them.
type ValuesCache = std::collections::HashMap<(Option<String>, String), Vec<ExperimentValues>>;

fn experiment(
    store: &Store,
    id: i64,
    with_history: bool,
    values: &mut ValuesCache,
) -> Result<ExperimentReport> {
    let row = store.experiment_summary(id)?;
    let (mut result, mut sweep, mut sampling, mut missing) = (None, None, None, None);
    let mut suite = None;
    let mut warnings = Vec::new();
    match row.result_json.as_deref() {
        Some(text) if row.kind == ExperimentKind::Profile => {
            match SamplingDocument::from_json_str(text) {
                Ok(doc) => {
                    // Profiles with off-CPU time draw the wall-time stacks.
                    let folded = if !doc.profiles.is_empty()
                        && doc.profiles.iter().all(|p| p.off_cpu.is_some())
                    {
                        doc.profiles
                            .iter()
                            .map(|p| {
                                let kind = wall_stacks_attachment(&p.name);
                                Ok((
                                    p.name.clone(),
                                    store.attachment(id, &kind)?.unwrap_or_default(),
                                ))
                            })
                            .collect::<Result<Vec<_>>>()?
                    } else {
                        store.folded(id)?
                    };
                    sampling = Some(SamplingReport { doc, folded })
                }
                Err(e) => {
                    missing = Some(format!(
                        "its stored sampling profile cannot be read ({e}); profile the command again with this perflab"
                    ))
                }
            }
        }
        Some(text) => {
            // The store's kind says which document to read, so that each is
            // parsed once (a report of many experiments spends its time here).
            let read = match row.kind {
                ExperimentKind::Sweep => SweepDocument::from_result_json(text).map(|doc| {
                    result = Some(doc.result.clone());
                    sweep = Some(doc);
                }),
                // A comparison of many benchmarks is stored as a suite's document.
                ExperimentKind::Suite | ExperimentKind::Compare => {
                    SuiteDocument::from_result_json(text).map(|doc| {
                        result = Some(doc.result.clone());
                        suite = Some(doc);
                    })
                }
                _ => None,
            };
            if read.is_none() {
                match ResultDocument::from_json_str(text) {
                    Ok(doc) => result = Some(doc),
                    Err(e) => missing = Some(format!("its stored result cannot be read: {e}")),
                }
            }
        }
        None => {
            missing = Some(format!(
                "it has no stored result (status {}: it did not finish, or perflab was killed); its {} measured runs are kept in the store",
                row.status,
                store.count_runs(id)?
            ))
        }
    }
    let instructions = match store.attachment(id, "instructions")? {
        Some(text) => match InstructionsDocument::from_json_str(&text) {
            Ok(doc) => Some(doc),
            Err(e) => {
                warnings.push(format!(
                    "its stored instruction counts cannot be read ({e}); measure again with this perflab to see them"
                ));
                None
            }
        },
        None => None,
    };
    let breakdowns = span_breakdowns(&store.runs_of(id)?);
    // A result already names the profiles it could not read among its span
    // warnings; the report says each problem once.
    let stated = result.as_ref().map(|r| r.profile_warnings.as_slice());
    warnings.extend(
        breakdowns
            .problems
            .iter()
            .filter(|p| !stated.is_some_and(|s| s.contains(&p.message)))
            .map(ToString::to_string),
    );
    // The result's span figures are what the terminal showed; a sweep's
    // result has none, so they come from its runs by the same computation.
    let (spans, span_warnings) = match &result {
        Some(r) if !r.spans.is_empty() => {
            let names: Vec<&str> = r.variants.iter().map(|v| v.name.as_str()).collect();
            let mut spans = variant_spans(&r.spans, &names);
            for v in &mut spans {
                v.wall_s = breakdowns
                    .variants
                    .iter()
                    .find(|b| b.variant == v.variant)
                    .and_then(|b| b.wall_s);
            }
            (spans, Vec::new())
        }
        _ => (breakdowns.variants, breakdowns.warnings),
    };
    let history = match (&row.metric, with_history, row.kind) {
        (
            Some(metric),
            true,
            ExperimentKind::Ab
            | ExperimentKind::Run
            | ExperimentKind::Sweep
            | ExperimentKind::Import,
        ) => history_of(store, id, row.name.clone(), metric, result.as_ref(), values)?,
        _ => None,
    };
    Ok(ExperimentReport {
        id,
        kind: row.kind,
        name: row.name,
        status: row.status,
        result,
        sweep,
        suite,
        sampling,
        instructions,
        spans,
        span_warnings,
        history,
        missing,
        warnings,
    })
}

fn history_of(
    store: &Store,
    id: i64,
    name: Option<String>,
    metric: &str,
    result: Option<&ResultDocument>,
    values: &mut ValuesCache,
) -> Result<Option<(MetricHistory, String)>> {
    let better = result.map(|r| r.metric.better.as_str());
    let Ok((better, unit)) = metric_direction(store, metric, better) else {
        return Ok(None);
    };
    let thresholds = result
        .and_then(|r| r.decision.as_ref())
        .and_then(|d| Thresholds::new(d.go, d.nogo).ok())
        .unwrap_or_default();
    let key = (name.clone(), metric.to_string());
    if !values.contains_key(&key) {
        let read = store.metric_values(name.as_deref(), metric)?;
        values.insert(key.clone(), read);
    }
    // The chart follows the experiment's own host: other machines' levels
    // are not steps of its code.
    let host = values[&key]
        .iter()
        .find(|e| e.id == id)
        .map(|e| e.host.clone());
    let mut history = metric_history_from(
        &values[&key],
        &HistoryQuery {
            metric: metric.to_string(),
            better,
            name,
            variants: Vec::new(),
            reference: Some(id),
            host,
            thresholds,
            confidence: perflab_stats::DEFAULT_CONFIDENCE,
            exchangeable: perflab_stats::Exchangeable::Groups,
        },
    );
    history.series.retain(|s| s.steps.len() >= 2);
    history.series.truncate(MAX_HISTORY_SERIES);
    let unit = result.map(|r| r.metric.unit.clone()).unwrap_or(unit);
    Ok((!history.series.is_empty()).then_some((history, unit)))
}
