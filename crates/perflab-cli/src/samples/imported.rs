//! What an input holds once read, whatever its format: named benchmarks,
//! each with samples of one or more metrics.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::Format;
use crate::error::{Error, Result};
use perflab_format::contention::CpuWaitDoc;
use perflab_format::vocabulary::PeakMemorySource;
use perflab_store::machine_description::MachineDescription;

/// The samples of one metric of one benchmark.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Series {
    /// Their unit (`s` for times), empty if the source does not say.
    pub unit: String,
    /// The values, one per sample (a repetition, a round, a run).
    pub values: Vec<f64>,
}

/// One benchmark of an input.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Benchmark {
    /// Its name, as the harness prints it: what OLD and NEW are matched by.
    pub name: String,
    /// Its samples per metric name (`wall`, `cpu`, `B/op`, ...).
    pub metrics: BTreeMap<String, Series>,
    /// How long its runs waited for a CPU, when the input says (a perflab
    /// result's variant): what tells a side measured on a busy machine
    /// from one measured on a quiet one.
    pub cpu_wait: Option<CpuWaitDoc>,
    /// Where its runs' peak memory was read, each source once, when the
    /// input says (a perflab result's runs): a cgroup's charge and rusage's
    /// resident set are not the same figure.
    pub peak_memory_sources: Vec<PeakMemorySource>,
}

impl Benchmark {
    /// A benchmark with one metric.
    pub fn with_metric(
        name: impl Into<String>,
        metric: &str,
        unit: &str,
        values: Vec<f64>,
    ) -> Self {
        let mut metrics = BTreeMap::new();
        metrics.insert(
            metric.to_string(),
            Series {
                unit: unit.to_string(),
                values,
            },
        );
        Benchmark {
            name: name.into(),
            metrics,
            cpu_wait: None,
            peak_memory_sources: Vec::new(),
        }
    }
}

/// Everything one input holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The file or folder read.
    pub path: PathBuf,
    /// Its format, detected or forced.
    pub format: Format,
    /// Its benchmarks, in the file's order.
    pub benchmarks: Vec<Benchmark>,
    /// The metric compared when `--measure` is not given (`None` for plain
    /// numbers, which have no metric name).
    pub default_metric: Option<String>,
    /// Whether the benchmarks are the alternatives of one comparison
    /// (hyperfine's commands, a perflab result's variants), of which one is
    /// picked, rather than separate benchmarks compared by name.
    pub alternatives: bool,
    /// The machine the samples were measured on, when the input says (a
    /// perflab result's provenance, Google Benchmark's context,
    /// pytest-benchmark's machine_info).
    pub machine: Option<MachineDescription>,
    /// The runtime the samples were measured in, when the input names it
    /// (JMH's JVM, mitata's and tinybench's JavaScript runtime, with the
    /// CPU where mitata names it): a runtime's version changes timings as
    /// a machine does, and these harnesses name no host.
    pub runtime: Option<String>,
}

impl Imported {
    /// The benchmarks' names, as the `#INDEX NAME` listing of a message.
    pub fn listing(&self) -> String {
        self.benchmarks
            .iter()
            .enumerate()
            .map(|(i, b)| format!("#{i} {}", b.name))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The index of the benchmark `selector` names (by name or 0-based index).
    pub fn select(&self, selector: &str) -> Result<usize> {
        self.benchmarks
            .iter()
            .position(|b| b.name == selector)
            .or_else(|| {
                selector
                    .parse::<usize>()
                    .ok()
                    .filter(|i| *i < self.benchmarks.len())
            })
            .ok_or_else(|| {
                Error::input(
                    &self.path,
                    format!("has no series '{selector}'; it has {}", self.listing()),
                )
            })
    }

    /// The metric compared: `--measure`, else the input's own.
    pub fn metric<'a>(&'a self, measure: Option<&'a str>) -> Option<&'a str> {
        measure.or(self.default_metric.as_deref())
    }

    /// The samples of `metric` in benchmark `index`.
    pub fn series(&self, index: usize, metric: Option<&str>) -> Result<&Series> {
        let benchmark = &self.benchmarks[index];
        let key = metric.unwrap_or("value");
        benchmark.metrics.get(key).ok_or_else(|| {
            let have: Vec<&str> = benchmark.metrics.keys().map(String::as_str).collect();
            let message = match self.format {
                Format::Hyperfine => format!(
                    "a hyperfine export holds the wall time of each run only, not '{key}'; drop --measure or use --measure wall"
                ),
                Format::Perflab => format!(
                    "variant '{}' has no metric '{key}' in its runs; it has {}",
                    benchmark.name,
                    have.join(", ")
                ),
                _ => format!(
                    "benchmark '{}' has no metric '{key}'; {} gives {}: pick one with --measure",
                    benchmark.name,
                    self.format.describe(),
                    have.join(", ")
                ),
            };
            Error::input(&self.path, message)
        })
    }
}
