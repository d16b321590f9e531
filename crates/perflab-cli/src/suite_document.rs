//! A suite's outcome as its `perflab-result/1` document (kind `suite`):
//! the matrix of cells, each candidate's summary across scenarios and the
//! experiment's verdict, from which every output format and the store are
//! made.

use crate::machine::containment::containment_warnings;
use crate::machine::warnings::machine_with_warnings;
use perflab_format::result::VariantDoc;
use perflab_format::suite::{CandidateDoc, CellDoc, SuiteDocument};
use perflab_format::vocabulary::ResultKind;
use perflab_report::unreadable_metrics::unreadable_metric_warnings;
use perflab_stats::{Verdict, combine_verdicts, summary_change};

use crate::ab::SuiteRun;
use crate::ab::duet::duet_warnings;
use crate::engine::StopReason;
use crate::error::Result;
use crate::experiment::Suite;
use crate::result_document::{
    attach_cpu_wait, attach_spans, metric_info, provenance_map, result_document, variant_doc,
};
use perflab_runner::RunOutcome;

/// The document of a suite.
pub fn suite_document(suite: &Suite, run: &SuiteRun) -> Result<SuiteDocument> {
    let exp = &suite.exp;
    let unit = run
        .runs
        .iter()
        .flatten()
        .flatten()
        .find_map(|r| r.metrics.get(&exp.metric.name))
        .map(|m| m.unit.clone());
    let mut variants: Vec<VariantDoc> = Vec::new();
    let mut names = Vec::new();
    let mut runs = Vec::new();
    for (s, scenario) in suite.scenarios.iter().enumerate() {
        for (v, cell) in scenario.cells.iter().enumerate() {
            let cell_runs = &run.runs[s][v];
            if cell_runs.is_empty() {
                continue;
            }
            let name = suite.cell_name(s, v);
            variants.push(variant_doc(
                &name,
                Some(cell.command.display()),
                &cell.env,
                &exp.metric.name,
                cell_runs,
            )?);
            names.push(name);
            runs.push(cell_runs.clone());
        }
    }
    let mut cells = Vec::new();
    for (s, scenario) in suite.scenarios.iter().enumerate() {
        for v in 1..exp.variants.len() {
            let evaluation = run.evaluations[suite.cell(s, v)].as_ref();
            let reason = match evaluation {
                Some(e) => format!("{}{}", e.reason, stop_note(run.header.stop, e.verdict)),
                None => "fewer than 2 pairs were measured: no interval yet".to_string(),
            };
            cells.push(CellDoc {
                scenario: scenario.name.clone(),
                variant: exp.variants[v].name.clone(),
                verdict: evaluation.map_or(Verdict::Inconclusive, |e| e.verdict),
                change: evaluation.map(|e| e.interval.estimate),
                ci: evaluation.map(|e| [e.interval.lo, e.interval.hi]),
                runs: evaluation.map_or(0, |e| e.pairs),
                reason,
            });
        }
    }
    let candidates = (1..exp.variants.len())
        .map(|v| candidate_doc(suite, run, v))
        .collect();
    let mut result = result_document(
        ResultKind::Suite,
        run.header.status(),
        exp.name.clone(),
        run.header.experiment_id,
        metric_info(&exp.metric, unit.as_deref()),
        variants,
    );
    result.verdict = Some(combine_verdicts(&run.verdicts()));
    result.seed = Some(run.header.seed);
    result.provenance = Some(provenance_map(&run.header.provenance));
    result.machine = run
        .header
        .machine
        .as_ref()
        .map(|m| machine_with_warnings(m, &result.variants, &result.metric.name));
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    attach_spans(
        &mut result,
        &runs,
        &name_refs,
        Some(&exp.confidence_sequence()?),
    );
    result.warnings.extend(differing_answers(suite, run));
    let cell_runs = || {
        name_refs
            .iter()
            .copied()
            .zip(runs.iter().map(Vec::as_slice))
    };
    result
        .warnings
        .extend(containment_warnings(cell_runs(), exp.keep_children));
    result
        .warnings
        .extend(unreadable_metric_warnings(cell_runs()));
    attach_cpu_wait(&mut result, run.header.contention.clone());
    if let Some(duet) = &run.duet {
        let named: Vec<(&str, &[RunOutcome])> = name_refs
            .iter()
            .copied()
            .zip(runs.iter().map(Vec::as_slice))
            .collect();
        result
            .warnings
            .extend(duet_warnings(duet, &named, run.header.machine.as_ref()));
        result.duet = Some(duet.clone());
    }
    Ok(SuiteDocument {
        result,
        scenarios: suite.scenarios.iter().map(|s| s.name.clone()).collect(),
        baseline: exp.variants[0].name.clone(),
        confidence: exp.confidence,
        cell_confidence: run.cell_confidence,
        cells,
        candidates,
    })
}

/// The answer check of every cell against its scenario's baseline: a
/// candidate whose runs all print one output and the baseline's all another
/// may not do the same work, which a suite must say as an A/B does.
fn differing_answers(suite: &Suite, run: &SuiteRun) -> Vec<String> {
    let mut warnings = Vec::new();
    for s in 0..suite.scenarios.len() {
        let baseline = suite.cell_name(s, 0);
        for v in 1..suite.exp.variants.len() {
            let candidate = suite.cell_name(s, v);
            warnings.extend(perflab_report::answer_check::differing_answers(
                [&baseline, &candidate],
                [&run.runs[s][0], &run.runs[s][v]],
            ));
        }
    }
    warnings
}

/// One candidate's row combined: its verdict and geometric-mean change.
fn candidate_doc(suite: &Suite, run: &SuiteRun, v: usize) -> CandidateDoc {
    let row: Vec<_> = (0..suite.scenarios.len())
        .map(|s| run.evaluations[suite.cell(s, v)].as_ref())
        .collect();
    let verdicts: Vec<Verdict> = row
        .iter()
        .map(|e| e.map_or(Verdict::Inconclusive, |e| e.verdict))
        .collect();
    let intervals: Option<Vec<_>> = row.iter().map(|e| e.map(|e| e.interval)).collect();
    let summary = intervals.and_then(|ivs| summary_change(&ivs).ok());
    CandidateDoc {
        variant: suite.exp.variants[v].name.clone(),
        verdict: combine_verdicts(&verdicts),
        change: summary.map(|iv| iv.estimate),
        ci: summary.map(|iv| [iv.lo, iv.hi]),
        confidence: summary.map(|iv| iv.confidence),
    }
}

/// What a cell's reason must add about an early stop.
fn stop_note(stop: StopReason, verdict: Verdict) -> &'static str {
    match stop {
        StopReason::Interrupted => " (interrupted: the experiment did not finish)",
        StopReason::MaxTime if verdict == Verdict::Inconclusive => " (stopped at --max-time)",
        StopReason::MaxRuns if verdict == Verdict::Inconclusive => " (stopped at --max-runs)",
        _ => "",
    }
}
