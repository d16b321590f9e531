//! Building the result document (`perflab-result/1`) that every output
//! format and the store are made from, so that they cannot disagree: the
//! shape every kind shares ([`result_document`]), the parts made from runs
//! and decisions, the A/B document, and the conversions from perflab-stats'
//! figures to the document's own types (perflab-format does not depend on
//! the statistics, so its words and intervals stay fixed on disk).

use crate::machine::containment::containment_warnings;
use crate::machine::warnings::{cpu_wait_warnings, machine_with_warnings};
use perflab_format::contention::ContentionDoc;
use perflab_report::sections::cpu_wait::cpu_wait_doc;
use perflab_report::unreadable_metrics::unreadable_metric_warnings;
use std::collections::BTreeMap;

use perflab_format::interval::PositiveIntervalDoc;
use perflab_format::result::{
    DecisionDoc, MetricInfo, RESULT_FORMAT, ResultDocument, RunDoc, SummaryDoc, VariantDoc,
};
use perflab_format::vocabulary::{ResultKind, ResultStatus};
use perflab_runner::RunOutcome;
use perflab_stats::{Interval, PositiveInterval, Summary, Thresholds, Verdict, summarize};

use crate::ab::AbRun;
use crate::decide::{GuardOutcome, describe_runs_needed};
use crate::engine::StopReason;
use crate::error::Result;
use crate::experiment::{Experiment, MetricChoice};
use perflab_store::provenance::Provenance;

/// Summary statistics of a sample as stored in documents.
pub fn summary_doc(values: &[f64]) -> Result<SummaryDoc> {
    Ok(summary_fields(summarize(values)?))
}

/// A summary as documents store it.
fn summary_fields(s: Summary) -> SummaryDoc {
    SummaryDoc {
        n: s.n,
        mean: s.mean,
        sd: s.sd,
        median: s.median,
        min: s.min,
        max: s.max,
        mad: s.mad,
        q1: s.q1,
        q3: s.q3,
        outliers_mild: s.outliers.mild.len(),
        outliers_severe: s.outliers.severe.len(),
    }
}

/// The metric description of a document.
pub fn metric_info(metric: &MetricChoice, unit_from_runs: Option<&str>) -> MetricInfo {
    MetricInfo {
        name: metric.name.clone(),
        unit: if metric.unit.is_empty() {
            unit_from_runs.unwrap_or_default().to_string()
        } else {
            metric.unit.clone()
        },
        better: metric.better,
    }
}

/// A positive interval as documents store it.
pub fn interval_doc(iv: &PositiveInterval) -> PositiveIntervalDoc {
    PositiveIntervalDoc {
        estimate: iv.estimate,
        lo: iv.lo,
        hi: iv.hi,
        confidence: iv.confidence,
        n: iv.n,
    }
}

/// The fields every result has; the rest (decision, guards, spans, seed,
/// provenance, ...) empty for the caller to fill.
pub fn result_document(
    kind: ResultKind,
    status: ResultStatus,
    name: Option<String>,
    experiment_id: Option<i64>,
    metric: MetricInfo,
    variants: Vec<VariantDoc>,
) -> ResultDocument {
    ResultDocument {
        format: RESULT_FORMAT.to_string(),
        kind,
        name,
        experiment_id,
        status,
        metric,
        decision: None,
        verdict: None,
        change: None,
        ci: None,
        guards: Vec::new(),
        variants,
        spans: Vec::new(),
        warnings: Vec::new(),
        counters: Vec::new(),
        gauges: Vec::new(),
        locks: Vec::new(),
        profile_warnings: Vec::new(),
        seed: None,
        provenance: None,
        machine: None,
        duet: None,
        contention: None,
    }
}

/// Sets the decision and its shortcuts (`verdict`, `change`, `ci`), which
/// repeat it for readers that want only those.
pub fn set_decision(doc: &mut ResultDocument, decision: DecisionDoc) {
    doc.verdict = Some(decision.verdict);
    doc.change = Some(decision.change);
    doc.ci = Some(decision.ci);
    doc.decision = Some(decision);
}

/// One run in detail.
pub fn run_doc(run: &RunOutcome) -> RunDoc {
    RunDoc {
        wall_s: run.wall_s,
        user_s: run.user_s,
        sys_s: run.sys_s,
        peak_memory_kib: run.peak_memory_kib,
        peak_memory_source: run.containment.peak_memory_source,
        exit_code: match run.exit {
            perflab_runner::ExitState::Code(c) => Some(c),
            _ => None,
        },
        metrics: run
            .metrics
            .iter()
            .map(|(k, v)| (k.clone(), v.value))
            .collect(),
    }
}

/// A variant's document from samples that perflab did not run.
pub fn samples_variant_doc(name: &str, values: &[f64]) -> Result<VariantDoc> {
    Ok(VariantDoc {
        name: name.to_string(),
        command: None,
        env: BTreeMap::new(),
        runs: values.len(),
        summary: summary_doc(values)?,
        samples: values.to_vec(),
        run_details: Vec::new(),
        cpu_wait: None,
    })
}

/// [`samples_variant_doc`] with the summary computed already (from a
/// sample sorted once for every statistic), the values moved in.
pub fn samples_variant_doc_with_summary(
    name: &str,
    values: Vec<f64>,
    summary: Summary,
) -> VariantDoc {
    VariantDoc {
        name: name.to_string(),
        command: None,
        env: BTreeMap::new(),
        runs: values.len(),
        summary: summary_fields(summary),
        samples: values,
        run_details: Vec::new(),
        cpu_wait: None,
    }
}

/// A variant's document from its runs.
pub fn variant_doc(
    name: &str,
    command: Option<String>,
    env: &[(String, String)],
    metric: &str,
    runs: &[RunOutcome],
) -> Result<VariantDoc> {
    let samples: Vec<f64> = runs.iter().filter_map(|r| r.metric(metric)).collect();
    Ok(VariantDoc {
        name: name.to_string(),
        command,
        env: env.iter().cloned().collect(),
        runs: runs.len(),
        summary: summary_doc(&samples)?,
        samples,
        run_details: runs.iter().map(run_doc).collect(),
        cpu_wait: cpu_wait_doc(runs),
    })
}

/// The decision part of a document.
#[allow(clippy::too_many_arguments)]
pub fn decision_doc(
    verdict: Verdict,
    reason: String,
    interval: &Interval,
    thresholds: &Thresholds,
    method: &str,
    runs: usize,
    runs_needed: Option<&perflab_stats::RunsNeeded>,
    mann_whitney_p: Option<f64>,
) -> DecisionDoc {
    DecisionDoc {
        verdict,
        reason,
        change: interval.estimate,
        ci: [interval.lo, interval.hi],
        confidence: interval.confidence,
        method: method.to_string(),
        go: thresholds.go,
        nogo: thresholds.nogo,
        runs,
        runs_needed: runs_needed.and_then(|n| match n {
            perflab_stats::RunsNeeded::Additional(k) => Some(*k as u64),
            _ => None,
        }),
        runs_needed_note: runs_needed.map(describe_runs_needed),
        mann_whitney_p,
    }
}

/// Provenance as a JSON map.
pub fn provenance_map(p: &Provenance) -> BTreeMap<String, serde_json::Value> {
    match serde_json::to_value(p) {
        Ok(serde_json::Value::Object(map)) => map.into_iter().collect(),
        _ => BTreeMap::new(),
    }
}

/// The document of an A/B experiment.
pub fn ab_document(exp: &Experiment, ab: &AbRun) -> Result<ResultDocument> {
    let unit = ab.runs[0]
        .iter()
        .find_map(|r| r.metrics.get(&exp.metric.name))
        .map(|m| m.unit.clone());
    let mut variants = Vec::new();
    for (v, runs) in exp.variants.iter().zip(&ab.runs) {
        if runs.is_empty() {
            continue;
        }
        variants.push(variant_doc(
            &v.name,
            Some(v.command.display()),
            &v.env,
            &exp.metric.name,
            runs,
        )?);
    }
    let decision = ab.evaluation.as_ref().map(|e| {
        let mw = mann_whitney_p(&variants);
        let mut reason = e.reason.clone();
        match ab.header.stop {
            StopReason::Interrupted => {
                reason.push_str(" (interrupted: the experiment did not finish)")
            }
            StopReason::MaxTime if e.verdict == Verdict::Inconclusive => {
                reason.push_str(" (stopped at --max-time)")
            }
            StopReason::MaxRuns if e.verdict == Verdict::Inconclusive => {
                reason.push_str(" (stopped at --max-runs)")
            }
            StopReason::OutOfReach => {
                reason.push_str(" (stopped: no verdict was within reach of --max-runs)")
            }
            _ => {}
        }
        decision_doc(
            e.verdict,
            reason,
            &e.interval,
            &exp.thresholds,
            e.method(),
            e.pairs,
            e.runs_needed.as_ref(),
            mw,
        )
    });
    let guards = ab
        .evaluation
        .iter()
        .flat_map(|e| &e.guards)
        .map(GuardOutcome::document)
        .collect();
    let status = ab.header.status();
    let metric = metric_info(&exp.metric, unit.as_deref());
    let mut doc = result_document(
        ResultKind::Ab,
        status,
        exp.name.clone(),
        ab.header.experiment_id,
        metric,
        variants,
    );
    if let Some(decision) = decision {
        set_decision(&mut doc, decision);
    }
    doc.guards = guards;
    doc.seed = Some(ab.header.seed);
    doc.provenance = Some(provenance_map(&ab.header.provenance));
    let cs = exp.confidence_sequence()?;
    let names = [exp.variants[0].name.as_str(), exp.variants[1].name.as_str()];
    attach_spans(&mut doc, &ab.runs, &names, Some(&cs));
    doc.warnings
        .extend(perflab_report::answer_check::differing_answers(
            names,
            [&ab.runs[0], &ab.runs[1]],
        ));
    let variant_runs = [(names[0], &ab.runs[0][..]), (names[1], &ab.runs[1][..])];
    doc.warnings
        .extend(containment_warnings(variant_runs, exp.keep_children));
    doc.warnings
        .extend(unreadable_metric_warnings(variant_runs));
    doc.machine = ab
        .header
        .machine
        .as_ref()
        .map(|m| machine_with_warnings(m, &doc.variants, &doc.metric.name));
    attach_cpu_wait(&mut doc, ab.header.contention.clone());
    if let Some(duet) = &ab.duet {
        doc.warnings.extend(crate::ab::duet::duet_warnings(
            duet,
            &[(names[0], &ab.runs[0]), (names[1], &ab.runs[1])],
            ab.header.machine.as_ref(),
        ));
        doc.duet = Some(duet.clone());
    }
    Ok(doc)
}

/// Adds what the contention rule did, and a warning for each variant whose
/// median run waited for a CPU too long: with the machine's state where it
/// was watched (as its other warnings are), else with the result's own.
pub fn attach_cpu_wait(doc: &mut ResultDocument, contention: Option<ContentionDoc>) {
    doc.contention = contention;
    let warnings = cpu_wait_warnings(&doc.variants);
    match &mut doc.machine {
        Some(machine) => machine.warnings.extend(warnings),
        None => doc.warnings.extend(warnings),
    }
}

/// Adds span figures and profile warnings from the runs' profiles, if any.
pub fn attach_spans(
    doc: &mut ResultDocument,
    runs: &[Vec<RunOutcome>],
    names: &[&str],
    cs: Option<&perflab_stats::ConfidenceSequence>,
) {
    let mut problems = Vec::new();
    let profiles: Vec<Vec<_>> = runs
        .iter()
        .map(|rs| {
            let (p, mut errs) =
                perflab_report::spans::parse_profiles(rs.iter().map(|r| r.profile_json.as_deref()));
            problems.append(&mut errs);
            p
        })
        .collect();
    doc.spans = perflab_report::spans::span_docs(&profiles, cs);
    doc.counters = perflab_report::probes::counter_docs(&profiles);
    doc.gauges = perflab_report::probes::gauge_docs(&profiles);
    doc.locks = perflab_report::probes::lock_docs(&profiles);
    let labelled: Vec<(&str, &[_])> = names
        .iter()
        .copied()
        .zip(profiles.iter().map(Vec::as_slice))
        .collect();
    doc.profile_warnings = perflab_report::spans::profile_warnings(&labelled);
    doc.profile_warnings.extend(problems);
}

/// Mann-Whitney U p-value of the first two variants' samples, for reference.
pub fn mann_whitney_p(variants: &[VariantDoc]) -> Option<f64> {
    match variants {
        [a, b, ..] => perflab_stats::mann_whitney(&a.samples, &b.samples)
            .ok()
            .map(|m| m.p_value),
        _ => None,
    }
}
