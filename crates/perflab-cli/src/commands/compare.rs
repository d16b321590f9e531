//! `perflab compare`: the decision on samples that already exist.

use crate::error::{to_json, to_json_pretty};
use perflab_format::result::MetricInfo;
use perflab_format::vocabulary::{Better, ResultKind, ResultStatus};
use perflab_stats::{
    Sample, SampleRole, decide_fixed_sorted_samples, mann_whitney_sorted, summarize_sorted,
};

use crate::benchmark_family::{FamilyQuery, family_document};
use crate::cli::CompareArgs;
use crate::decide::verdict_sentence;
use crate::error::{Error, Result};
use crate::experiment::parse_better;
use crate::machine::warnings::sequential_drift_warnings;
use crate::result_document::{
    decision_doc, provenance_map, result_document, samples_variant_doc_with_summary, set_decision,
};
use crate::samples::{Format, Imported, read_source, take_one_series};
use perflab_report::markdown::suite::suite_markdown;
use perflab_report::terminal::suite::suite_terminal;
use perflab_report::write_text;
use perflab_report::{Render, TerminalReport, write_requested};
use perflab_store::machine_description::different_machines_warning;
use perflab_store::provenance::Provenance;
use perflab_store::{Store, VariantRecord};

use super::exit_code_for;

/// `perflab compare`.
pub fn compare(args: &CompareArgs, store: &Store) -> Result<i32> {
    let (thresholds, confidence) = args.decision.decision()?;
    let format = args.format.as_deref().map(Format::from_name).transpose()?;
    // The two files are read at once (each on a CPU of its own); the
    // baseline's error, if any, is the one reported, as when read in turn.
    let (source_a, source_b) = both(
        || read_source(&args.baseline, format),
        || read_source(&args.candidate, format),
    );
    let (mut source_a, mut source_b) = (source_a?, source_b?);
    let better = direction(args, &source_a.imported)?;
    if source_a.is_family() || source_b.is_family() {
        let query = FamilyQuery {
            measure: args.measure.as_deref(),
            better,
            thresholds,
            confidence,
        };
        let sides = (source_a.narrowed(), source_b.narrowed());
        return compare_families(args, store, (&sides.0, &sides.1), query);
    }
    let a = take_one_series(&mut source_a, args.measure.as_deref())?;
    let b = take_one_series(&mut source_b, args.measure.as_deref())?;
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
    // Each sample sorted once, for the decision, the summaries and the rank test.
    let (sorted_a, sorted_b) = both(
        || Sample::new(&a.values, SampleRole::Baseline).map(Sample::sorted),
        || Sample::new(&b.values, SampleRole::Candidate).map(Sample::sorted),
    );
    let (sorted_a, sorted_b) = (sorted_a?, sorted_b?);
    let decided =
        decide_fixed_sorted_samples(&sorted_a, &sorted_b, better, &thresholds, confidence)?;
    let (verdict, interval, runs_needed) = (decided.verdict, decided.interval, decided.runs_needed);
    let reason = verdict_sentence(verdict, &interval, &thresholds, better, "samples");
    let runs = a.values.len().min(b.values.len());
    let method = "Hodges-Lehmann shift of log values with the Moses/Bauer distribution-free interval (fixed samples, no optional stopping)";
    let unit = if a.unit.is_empty() {
        b.unit.clone()
    } else {
        a.unit.clone()
    };
    let summaries = both(
        || summarize_sorted(&sorted_a),
        || summarize_sorted(&sorted_b),
    );
    let summaries = (summaries.0?, summaries.1?);
    let mann_whitney_p = mann_whitney_sorted(&sorted_a, &sorted_b).p_value;
    drop((sorted_a, sorted_b));
    let mut variants = vec![
        samples_variant_doc_with_summary(&a.name, a.values, summaries.0),
        samples_variant_doc_with_summary(&b.name, b.values, summaries.1),
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
        Some(mann_whitney_p),
    );
    let metric = MetricInfo {
        name: args
            .measure
            .clone()
            .or_else(|| a.metric.clone().filter(|m| b.metric.as_ref() == Some(m)))
            .unwrap_or_else(|| "value".into()),
        unit,
        better,
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
    if samples_in_order(&source_a.imported, &source_b.imported) {
        let drift = both(
            || sequential_drift_warnings(&doc.variants[..1], &doc.metric.name),
            || sequential_drift_warnings(&doc.variants[1..], &doc.metric.name),
        );
        doc.warnings.extend(drift.0.into_iter().chain(drift.1));
    }
    doc.warnings.extend(sides_machines_warning(
        (&args.baseline, &source_a.imported),
        (&args.candidate, &source_b.imported),
    ));
    doc.warnings.extend(sides_runtimes_warning(
        (&args.baseline, &source_a.imported),
        (&args.candidate, &source_b.imported),
    ));
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
        doc.kind.into(),
        None,
        Some(&doc.metric.name),
        &provenance,
        "{}",
        &records,
    )?;
    doc.experiment_id = Some(id);
    doc.provenance = Some(provenance_map(&provenance));
    let result_json = to_json("the result document", &doc)?;
    if args.json.is_none() && args.markdown.is_none() {
        // Nothing below reads the values again (the terminal report shows
        // their summaries): freed before the store copies the document.
        for variant in &mut doc.variants {
            variant.samples = Vec::new();
        }
    }
    store.finish_experiment(
        id,
        ResultStatus::Complete,
        doc.verdict,
        Some((interval.estimate, interval.lo, interval.hi)),
        Some(&result_json),
    )?;
    print!("{}", TerminalReport.render(&doc));
    write_requested(&doc, args.json.as_deref(), args.markdown.as_deref())?;
    Ok(exit_code_for(Some(verdict)))
}

/// `first()` and `second()`, run at once on two threads.
fn both<T: Send>(first: impl FnOnce() -> T + Send, second: impl FnOnce() -> T + Send) -> (T, T) {
    std::thread::scope(|scope| {
        let second = scope.spawn(second);
        let first = first();
        (
            first,
            second
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        )
    })
}

/// The warning when the baseline and the candidate say they were measured
/// on different machines (inputs that do not say give none).
fn sides_machines_warning(
    (a_path, a): (&str, &Imported),
    (b_path, b): (&str, &Imported),
) -> Option<String> {
    let (a_label, b_label) = (
        format!("the baseline ({a_path})"),
        format!("the candidate ({b_path})"),
    );
    different_machines_warning(
        (&a_label, a.machine.as_ref()?),
        (&b_label, b.machine.as_ref()?),
    )
}

/// Which way is better: `--better`, else the baseline harness's own
/// direction for the metric compared (JMH's throughput is higher-is-better),
/// else lower.
fn direction(args: &CompareArgs, baseline: &Imported) -> Result<Better> {
    if let Some(text) = &args.better {
        return parse_better(text, "--better");
    }
    let metric = baseline.metric(args.measure.as_deref()).unwrap_or("value");
    Ok(baseline.format.better(metric).unwrap_or(Better::Lower))
}

/// Whether both sides' samples are in the order they were measured in, so
/// that a drift over that order can be looked for (mitata and tinybench
/// write theirs sorted, where a drift would be an artefact).
fn samples_in_order(a: &Imported, b: &Imported) -> bool {
    a.format.samples_in_order() && b.format.samples_in_order()
}

/// The warning when the baseline and the candidate name different runtimes
/// (JMH's JVM, mitata's JavaScript runtime and CPU): a runtime's version
/// changes timings as much as a code change may.
fn sides_runtimes_warning(
    (a_path, a): (&str, &Imported),
    (b_path, b): (&str, &Imported),
) -> Option<String> {
    let (ra, rb) = (a.runtime.as_ref()?, b.runtime.as_ref()?);
    (ra != rb).then(|| {
        format!(
            "the baseline ({a_path}) and the candidate ({b_path}) ran in different runtimes:              {ra} against {rb}; the difference between them includes the runtimes', not only              the code's: measure both in one runtime to judge the code"
        )
    })
}

/// `perflab compare` on two results of many benchmarks, matched by name.
fn compare_families(
    args: &CompareArgs,
    store: &Store,
    (a, b): (&Imported, &Imported),
    query: FamilyQuery<'_>,
) -> Result<i32> {
    let (mut doc, verdict) = family_document((a, &args.baseline), (b, &args.candidate), query)?;
    if samples_in_order(a, b) {
        let drift = sequential_drift_warnings(&doc.result.variants, &doc.result.metric.name);
        doc.result.warnings.extend(drift);
    }
    let machines = sides_machines_warning((&args.baseline, a), (&args.candidate, b));
    doc.result.warnings.extend(machines);
    let runtimes = sides_runtimes_warning((&args.baseline, a), (&args.candidate, b));
    doc.result.warnings.extend(runtimes);
    let provenance = Provenance::collect(std::path::Path::new("."));
    let records: Vec<VariantRecord<'_>> = doc
        .result
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
        doc.result.kind.into(),
        None,
        Some(&doc.result.metric.name),
        &provenance,
        "{}",
        &records,
    )?;
    doc.result.experiment_id = Some(id);
    doc.result.provenance = Some(provenance_map(&provenance));
    let change = match (doc.result.change, doc.result.ci) {
        (Some(c), Some([lo, hi])) => Some((c, lo, hi)),
        _ => None,
    };
    let json = to_json("the result document", &doc)?;
    store.finish_experiment(
        id,
        ResultStatus::Complete,
        doc.result.verdict,
        change,
        Some(&json),
    )?;
    print!("{}", suite_terminal(&doc));
    if let Some(path) = &args.json {
        let mut text = to_json_pretty("the result document", &doc)?;
        text.push('\n');
        write_text(path, &text)?;
    }
    if let Some(path) = &args.markdown {
        write_text(path, &suite_markdown(&doc))?;
    }
    Ok(exit_code_for(Some(verdict)))
}
