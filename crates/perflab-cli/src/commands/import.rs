//! `perflab import`: a benchmark harness's results into the store, as an
//! experiment whose variants are the benchmarks and whose runs are their
//! samples, so that `perflab history` and `perflab report` show them.

use crate::error::to_json;
use std::collections::BTreeMap;

use perflab_format::result::MetricInfo;
use perflab_format::vocabulary::{Better, ExperimentKind, ResultKind, ResultStatus};
use perflab_runner::{ExitState, MetricValue, RunOutcome};

use crate::cli::ImportArgs;
use crate::error::{EXIT_OK, Error, Result};
use crate::result_document::{provenance_map, result_document, samples_variant_doc};
use crate::samples::{Benchmark, Format, Imported, read_source};
use perflab_report::{Render, TerminalReport};
use perflab_store::provenance::Provenance;
use perflab_store::{Store, VariantRecord};

/// `perflab import`.
pub fn import(args: &ImportArgs, store: &Store) -> Result<i32> {
    let format = args.format.as_deref().map(Format::from_name).transpose()?;
    let imported = read_source(&args.input, format)?.narrowed();
    if imported.benchmarks.is_empty() {
        return Err(Error::input(
            &imported.path,
            format!(
                "holds no benchmark: it is {} without results",
                imported.format.describe()
            ),
        ));
    }
    let metric = imported
        .metric(args.measure.as_deref())
        .unwrap_or("value")
        .to_string();
    let command = format!(
        "imported from {} ({})",
        imported.path.display(),
        imported.format.name()
    );
    // A file may measure its benchmarks in different metrics (JMH's thrpt
    // and avgt modes): every benchmark is stored with all of its metrics,
    // and the result shows those that have the one shown.
    let has_metric = |b: &Benchmark| b.metrics.contains_key(&metric);
    let any_has_metric = imported.benchmarks.iter().any(has_metric);
    let mut variants = Vec::new();
    let mut other_metrics = Vec::new();
    for (index, b) in imported.benchmarks.iter().enumerate() {
        if any_has_metric && !has_metric(b) {
            other_metrics.push(b.name.as_str());
            continue;
        }
        let series = imported.series(index, Some(&metric))?;
        let mut doc = samples_variant_doc(&b.name, &series.values)?;
        doc.command = Some(command.clone());
        variants.push(doc);
    }
    let records: Vec<VariantRecord<'_>> = imported
        .benchmarks
        .iter()
        .map(|b| VariantRecord {
            name: &b.name,
            command: &command,
            env: &[],
            cwd: None,
        })
        .collect();
    let mut provenance = Provenance::collect(std::path::Path::new("."));
    // Results belong to the machine that measured them, as far as the file says.
    if let Some(machine) = &imported.machine {
        provenance = provenance.measured_on(machine);
    }
    let mut config = serde_json::json!({
        "path": imported.path.display().to_string(),
        "format": imported.format.name(),
    });
    if let Some(runtime) = &imported.runtime {
        config["runtime"] = runtime.clone().into();
    }
    let (id, variant_ids) = store.begin_experiment(
        ExperimentKind::Import,
        Some(&args.name),
        Some(&metric),
        &provenance,
        &config.to_string(),
        &records,
    )?;
    let mut sequence = 0;
    for (b, variant_id) in imported.benchmarks.iter().zip(variant_ids) {
        for (index, run) in sample_runs(b).iter().enumerate() {
            store.record_run(id, variant_id, sequence, index, false, run)?;
            sequence += 1;
        }
    }
    let unit = unit_of(&imported, &metric);
    let better = imported.format.better(&metric).unwrap_or(Better::Lower);
    let mut doc = result_document(
        ResultKind::Run,
        ResultStatus::Complete,
        Some(args.name.clone()),
        Some(id),
        MetricInfo {
            name: metric,
            unit,
            better,
        },
        variants,
    );
    let mut provenance_doc = provenance_map(&provenance);
    // The runtime the file names (JMH's JVM, a JavaScript runtime) is the
    // measuring machine's, as its host is.
    if let Some(runtime) = &imported.runtime {
        provenance_doc.insert("runtime".into(), runtime.clone().into());
    }
    doc.provenance = Some(provenance_doc);
    store.finish_experiment(
        id,
        ResultStatus::Complete,
        None,
        None,
        Some(to_json("the result document", &doc)?),
    )?;
    print!("{}", TerminalReport.render(&doc));
    if !other_metrics.is_empty() {
        eprintln!(
            "perflab: stored without {}, so not shown here: {}; show them with --measure \
             and one of their metrics",
            doc.metric.name,
            other_metrics.join(", ")
        );
    }
    eprintln!(
        "perflab: imported {} benchmark(s) from {} ({}) as experiment #{id} '{}'",
        imported.benchmarks.len(),
        imported.path.display(),
        imported.format.describe(),
        args.name
    );
    Ok(EXIT_OK)
}

fn unit_of(imported: &Imported, metric: &str) -> String {
    imported
        .benchmarks
        .iter()
        .find_map(|b| b.metrics.get(metric))
        .map(|s| s.unit.clone())
        .unwrap_or_default()
}

/// A benchmark's samples as stored runs: sample i of every metric is run i.
/// Times per iteration are the run's wall (and, where the harness measured
/// it, CPU) time, so that `history --metric wall` reads them like measured
/// runs; every metric is also kept by name. What a harness does not measure
/// (its peak memory, a CPU time it does not report) is stored as 0, the
/// store's columns having no empty value.
fn sample_runs(b: &Benchmark) -> Vec<RunOutcome> {
    let count = b
        .metrics
        .values()
        .map(|s| s.values.len())
        .max()
        .unwrap_or(0);
    (0..count)
        .map(|i| {
            let value = |m: &str| b.metrics.get(m).and_then(|s| s.values.get(i)).copied();
            let metrics: BTreeMap<String, MetricValue> = b
                .metrics
                .iter()
                .filter_map(|(name, s)| {
                    Some((
                        name.clone(),
                        MetricValue {
                            value: *s.values.get(i)?,
                            unit: s.unit.clone(),
                        },
                    ))
                })
                .collect();
            RunOutcome {
                wall_s: value("wall").unwrap_or(0.0),
                user_s: value("cpu").unwrap_or(0.0),
                sys_s: 0.0,
                peak_memory_kib: 0.0,
                exit: ExitState::Code(0),
                unreadable_metrics: Default::default(),
                metrics,
                output_tail: String::new(),
                profile_json: None,
                answer: None,
                containment: Default::default(),
            }
        })
        .collect()
}
