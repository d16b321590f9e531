//! `perflab compare`: the decision on samples that already exist.

use perflab_format::result::MetricInfo;
use perflab_format::vocabulary::{ResultKind, ResultStatus};
use perflab_stats::decide_fixed_samples;

use crate::cli::CompareArgs;
use crate::decide::verdict_sentence;
use crate::error::{Error, Result};
use crate::experiment::parse_better;
use crate::provenance::Provenance;
use crate::report::{Render, TerminalReport, write_requested};
use crate::result_document::{
    better_word, decision_doc, mann_whitney_p, provenance_map, result_document,
    samples_variant_doc, set_decision,
};
use crate::samples::read_samples;
use crate::store::{Store, VariantRecord};

use super::exit_code_for;

/// `perflab compare`.
pub fn compare(args: &CompareArgs, store: &Store) -> Result<i32> {
    let better = parse_better(&args.better, "--better")?;
    let (thresholds, confidence) = args.decision.decision()?;
    let a = read_samples(&args.baseline, args.measure.as_deref())?;
    let b = read_samples(&args.candidate, args.measure.as_deref())?;
    if let (Some(metric_a), Some(metric_b)) = (&a.metric, &b.metric) {
        if metric_a != metric_b {
            return Err(Error::usage(
                "BASELINE/CANDIDATE",
                format!(
                    "the baseline holds {metric_a} and the candidate {metric_b}: different metrics cannot be compared; \
                     pick one both have with --measure"
                ),
            ));
        }
    }
    let spread = |v: &[f64]| {
        v.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
            - v.iter().cloned().fold(f64::INFINITY, f64::min)
    };
    if spread(&a.values) == 0.0 && spread(&b.values) == 0.0 {
        return Err(Error::Stats(format!(
            "both samples are constant ({} values of {} in {}, {} values of {} in {}): there is no noise to judge a change against. \
             If these are exact counts, their difference is exact; if they are timings, check that the files hold measurements",
            a.values.len(),
            a.values[0],
            args.baseline,
            b.values.len(),
            b.values[0],
            args.candidate
        )));
    }
    let decided = decide_fixed_samples(&a.values, &b.values, better, &thresholds, confidence)?;
    let (verdict, interval, runs_needed) = (decided.verdict, decided.interval, decided.runs_needed);
    let reason = verdict_sentence(verdict, &interval, &thresholds, "samples");
    let runs = a.values.len().min(b.values.len());
    let method = "Hodges-Lehmann shift of log values with the Moses/Bauer distribution-free interval (fixed samples, no optional stopping)";
    let unit = if a.unit.is_empty() {
        b.unit.clone()
    } else {
        a.unit.clone()
    };
    let mut variants = vec![
        samples_variant_doc(&a.name, &a.values)?,
        samples_variant_doc(&b.name, &b.values)?,
    ];
    if variants[0].name == variants[1].name {
        variants[0].name = format!("{} (A)", variants[0].name);
        variants[1].name = format!("{} (B)", variants[1].name);
    }
    let decision = decision_doc(
        verdict,
        reason,
        &interval,
        &thresholds,
        method,
        runs,
        runs_needed.as_ref(),
        mann_whitney_p(&variants),
    );
    let metric = MetricInfo {
        name: args
            .measure
            .clone()
            .or_else(|| a.metric.clone().filter(|m| b.metric.as_ref() == Some(m)))
            .unwrap_or_else(|| "value".into()),
        unit,
        better: better_word(better),
    };
    let mut doc = result_document(
        ResultKind::Compare,
        ResultStatus::Complete,
        None,
        None,
        metric,
        variants,
    );
    set_decision(&mut doc, decision);
    let provenance = Provenance::collect(std::path::Path::new("."));
    let records: Vec<VariantRecord<'_>> = doc
        .variants
        .iter()
        .map(|v| VariantRecord {
            name: &v.name,
            command: "",
            env: &[],
            cwd: None,
        })
        .collect();
    let (id, _) = store.begin_experiment(
        "compare",
        None,
        Some(&doc.metric.name),
        &provenance,
        "{}",
        &records,
    )?;
    doc.experiment_id = Some(id);
    doc.provenance = Some(provenance_map(&provenance));
    store.finish_experiment(
        id,
        "complete",
        doc.verdict.map(|v| v.as_str()),
        Some((interval.estimate, interval.lo, interval.hi)),
        Some(&serde_json::to_string(&doc).unwrap_or_default()),
    )?;
    print!("{}", TerminalReport.render(&doc));
    write_requested(&doc, args.json.as_deref(), args.markdown.as_deref())?;
    Ok(exit_code_for(Some(verdict)))
}
