//! `perflab compare`: the decision on samples that already exist.

use crate::error::{to_json, to_json_pretty};
use perflab_format::contention::CpuWaitDoc;
use perflab_format::result::MetricInfo;
use perflab_format::vocabulary::PeakMemorySource;
use perflab_format::vocabulary::{Better, ResultKind, ResultStatus};
use perflab_report::sections::cpu_wait::share;
use perflab_report::sections::peak_memory::{PEAK_MEMORY, describe_sources};
use perflab_stats::{
    DEFAULT_MAX_CPU_WAIT, Sample, SampleRole, decide_fixed_sorted_samples, mann_whitney_sorted,
    summarize_sorted,
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
    // Each side's CPU wait, where its input recorded one (a perflab
    // result), goes into the comparison's own document.
    variants[0].cpu_wait = a.cpu_wait;
    variants[1].cpu_wait = b.cpu_wait;
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
    doc.warnings.extend(sides_cpu_wait_warning(
        (&args.baseline, doc.variants[0].cpu_wait.as_ref()),
        (&args.candidate, doc.variants[1].cpu_wait.as_ref()),
    ));
    doc.warnings.extend(sides_peak_memory_warning(
        &doc.metric.name,
        (&args.baseline, &a.peak_memory_sources),
        (&args.candidate, &b.peak_memory_sources),
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
        Some(result_json),
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

/// The warning when the two sides' runs waited for a CPU differently: one
/// side's median run waited for more than the contention rule's threshold
/// share of its wall time ([`DEFAULT_MAX_CPU_WAIT`], the share at which
/// `perflab ab` measures a block again) and the other's did not, or their
/// median shares lie more than that threshold apart. A CPU-bound run's
/// wall time is its CPU time plus its CPU wait, so the side that waited the
/// larger share was slowed by about that much more: a difference the
/// machine made, as large as the changes a comparison is meant to find,
/// which no statistic on the two samples can take back out. Inputs without
/// a CPU wait (other harnesses, older perflab results) give none.
fn sides_cpu_wait_warning(
    (a_path, a): (&str, Option<&CpuWaitDoc>),
    (b_path, b): (&str, Option<&CpuWaitDoc>),
) -> Option<String> {
    let (a, b) = (a?.median_share, b?.median_share);
    let limit = DEFAULT_MAX_CPU_WAIT;
    let differ = (a > limit) != (b > limit) || (a - b).abs() > limit;
    if !differ {
        return None;
    }
    let baseline = ("baseline", a_path, a);
    let candidate = ("candidate", b_path, b);
    let (busier, quieter) = if b > a {
        (candidate, baseline)
    } else {
        (baseline, candidate)
    };
    Some(format!(
        "the {}'s runs ({}) waited for a CPU a median {} of their wall time, the {}'s ({}) {}: \
         the machine was busier while the {} ran, so the difference between them includes the \
         machine's, not only the code's; measure both interleaved (perflab ab) on a quiet machine",
        busier.0,
        busier.1,
        share(busier.2),
        quieter.0,
        quieter.1,
        share(quieter.2),
        busier.0
    ))
}

/// The warning when peak memory is compared and the two sides read it
/// from different sources: a memory cgroup's peak charge counts the whole
/// process tree with its page cache and kernel memory, rusage the largest
/// process's resident set, so the same command gives two different figures
/// (a two-process pipeline, about twice as much from its cgroup). Inputs
/// that do not say where (other harnesses, older perflab results) give none.
fn sides_peak_memory_warning(
    metric: &str,
    (a_path, a): (&str, &[PeakMemorySource]),
    (b_path, b): (&str, &[PeakMemorySource]),
) -> Option<String> {
    if metric != PEAK_MEMORY || a.is_empty() || b.is_empty() || a == b {
        return None;
    }
    Some(format!(
        "the baseline's peak memory ({a_path}) is {}, the candidate's ({b_path}) {}: these are \
         different figures, so the difference between them is the measurement's as much as the \
         code's; measure both sides where the same one is read (see docs/guide/metrics.md)",
        describe_sources(a),
        describe_sources(b)
    ))
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
        Some(json),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_memory_compared_from_two_sources_is_warned_of_naming_both() {
        fn memory_warning(
            metric: &str,
            a: &[PeakMemorySource],
            b: &[PeakMemorySource],
        ) -> Option<String> {
            sides_peak_memory_warning(metric, ("a.json", a), ("b.json", b))
        }
        let cgroup: &[PeakMemorySource] = &[PeakMemorySource::Cgroup];
        let rusage: &[PeakMemorySource] = &[PeakMemorySource::Rusage];
        let text = memory_warning("peak-memory", cgroup, rusage).unwrap();
        assert!(
            text.starts_with(
                "the baseline's peak memory (a.json) is the process tree's peak cgroup memory charge"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "the candidate's (b.json) the largest process's maximum resident set (rusage)"
            ),
            "{text}"
        );
        assert_eq!(memory_warning("peak-memory", rusage, rusage), None);
        assert_eq!(
            memory_warning("wall", cgroup, rusage),
            None,
            "another metric"
        );
        assert_eq!(
            memory_warning("peak-memory", cgroup, &[]),
            None,
            "a side that does not say"
        );
    }

    fn waited(median_share: f64) -> CpuWaitDoc {
        CpuWaitDoc {
            runs: 10,
            median_share,
            worst_share: median_share * 1.5,
        }
    }

    fn warning(baseline: Option<f64>, candidate: Option<f64>) -> Option<String> {
        let (a, b) = (baseline.map(waited), candidate.map(waited));
        sides_cpu_wait_warning(("a.json", a.as_ref()), ("b.json", b.as_ref()))
    }

    #[test]
    fn a_side_that_waited_beyond_the_threshold_beside_one_that_did_not_is_named_with_both_figures()
    {
        assert_eq!(
            warning(Some(0.003), Some(0.382)).unwrap(),
            "the candidate's runs (b.json) waited for a CPU a median 38% of their wall time, the \
             baseline's (a.json) 0.3%: the machine was busier while the candidate ran, so the \
             difference between them includes the machine's, not only the code's; measure both \
             interleaved (perflab ab) on a quiet machine"
        );
        let busier_baseline = warning(Some(0.062), Some(0.041)).unwrap();
        assert!(
            busier_baseline.starts_with(
                "the baseline's runs (a.json) waited for a CPU a median 6.2% of their wall time, \
                 the candidate's (b.json) 4.1%: the machine was busier while the baseline ran"
            ),
            "{busier_baseline}"
        );
    }

    #[test]
    fn sides_both_beyond_the_threshold_are_named_when_their_shares_lie_further_apart_than_it() {
        assert!(warning(Some(0.30), Some(0.20)).is_some());
        assert!(warning(Some(0.30), Some(0.27)).is_none());
    }

    #[test]
    fn sides_both_within_the_threshold_or_without_a_cpu_wait_give_no_warning() {
        assert!(warning(Some(0.01), Some(0.03)).is_none());
        assert!(warning(Some(0.0), Some(DEFAULT_MAX_CPU_WAIT)).is_none());
        assert!(warning(None, Some(0.9)).is_none());
        assert!(warning(Some(0.9), None).is_none());
        assert!(warning(None, None).is_none());
    }
}
