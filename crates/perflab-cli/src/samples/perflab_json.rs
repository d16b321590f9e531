//! A perflab result (`perflab-result/1`): each variant is an alternative,
//! with the result's own metric and every metric of its runs.

use perflab_format::result::ResultDocument;
use perflab_format::vocabulary::PeakMemorySource;

use super::{Benchmark, Format, Imported, Importer, Input, Series};
use crate::error::{Error, Result};
use perflab_store::machine_description::MachineDescription;

/// A `perflab-result/1` document.
pub(super) struct PerflabResult;

impl Importer for PerflabResult {
    fn format(&self) -> Format {
        Format::Perflab
    }

    fn recognises(&self, input: &Input) -> bool {
        input
            .json
            .as_ref()
            .is_some_and(|j| j.get("format").is_some())
    }

    fn read(&self, input: &Input) -> Result<Imported> {
        let text = input.text.as_deref().unwrap_or_default();
        let doc = ResultDocument::from_json_str(text)
            .map_err(|e| Error::input(&input.path, e.to_string()))?;
        let benchmarks = doc
            .variants
            .iter()
            .map(|variant| {
                let mut b = Benchmark::with_metric(
                    &variant.name,
                    &doc.metric.name,
                    &doc.metric.unit,
                    variant.samples.clone(),
                );
                b.cpu_wait = variant.cpu_wait.clone();
                b.peak_memory_sources = PeakMemorySource::ALL
                    .iter()
                    .copied()
                    .filter(|s| {
                        let runs = &variant.run_details;
                        runs.iter().any(|r| r.peak_memory_source == Some(*s))
                    })
                    .collect();
                let mut add = |name: &str, unit: &str, values: Option<Vec<f64>>| {
                    if let Some(values) = values.filter(|v| !v.is_empty()) {
                        b.metrics.entry(name.to_string()).or_insert(Series {
                            unit: unit.to_string(),
                            values,
                        });
                    }
                };
                let runs = &variant.run_details;
                add("wall", "s", Some(runs.iter().map(|r| r.wall_s).collect()));
                add(
                    "cpu",
                    "s",
                    Some(runs.iter().map(|r| r.user_s + r.sys_s).collect()),
                );
                add(
                    "peak-memory",
                    "KiB",
                    Some(runs.iter().map(|r| r.peak_memory_kib).collect()),
                );
                let names: std::collections::BTreeSet<&String> =
                    runs.iter().flat_map(|r| r.metrics.keys()).collect();
                for name in names {
                    let unit = perflab_runner::builtin_metric(name).map_or("", |(_, u)| u);
                    add(
                        name,
                        unit,
                        runs.iter().map(|r| r.metrics.get(name).copied()).collect(),
                    );
                }
                b
            })
            .collect();
        Ok(Imported {
            path: input.path.clone(),
            format: Format::Perflab,
            benchmarks,
            default_metric: Some(doc.metric.name.clone()),
            alternatives: true,
            machine: doc
                .provenance
                .as_ref()
                .and_then(MachineDescription::from_provenance),
            runtime: doc
                .provenance
                .as_ref()
                .and_then(|p| p.get("runtime")?.as_str().map(str::to_string)),
        })
    }
}
