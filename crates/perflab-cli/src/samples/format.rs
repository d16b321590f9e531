//! The formats perflab reads samples from: their names for `--format`,
//! their descriptions for messages, and the reader of each.

use super::{
    Importer, criterion, go_bench, google_benchmark, hyperfine, jmh, mitata, perflab_json,
    pytest_benchmark, text, tinybench,
};
use crate::error::{Error, Result};
use perflab_stats::Better;

/// The formats perflab reads samples from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Numbers, one or more per line.
    Text,
    /// A `perflab-result/1` document.
    Perflab,
    /// `hyperfine --export-json`.
    Hyperfine,
    /// criterion's `target/criterion` folders or a `sample.json`.
    Criterion,
    /// Google Benchmark's `--benchmark_format=json`.
    GoogleBenchmark,
    /// pytest-benchmark's `--benchmark-json` with `--benchmark-save-data`.
    PytestBenchmark,
    /// The text `go test -bench` prints.
    GoBench,
    /// JMH's `-rf json`.
    Jmh,
    /// mitata's `run({ format: 'json' })`.
    Mitata,
    /// tinybench's tasks with their samples, written as the guide shows.
    Tinybench,
}

impl Format {
    /// Every format, in the order detection tries them.
    pub const ALL: &'static [Format] = &[
        Format::Criterion,
        Format::Perflab,
        Format::Hyperfine,
        // Before Google Benchmark: mitata's JSON also has "context" and "benchmarks".
        Format::Mitata,
        Format::GoogleBenchmark,
        Format::PytestBenchmark,
        Format::GoBench,
        Format::Jmh,
        Format::Tinybench,
        Format::Text,
    ];

    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Perflab => "perflab",
            Format::Hyperfine => "hyperfine",
            Format::Criterion => "criterion",
            Format::GoogleBenchmark => "google-benchmark",
            Format::PytestBenchmark => "pytest-benchmark",
            Format::GoBench => "go",
            Format::Jmh => "jmh",
            Format::Mitata => "mitata",
            Format::Tinybench => "tinybench",
        }
    }

    /// The format in words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Format::Text => "a file of numbers",
            Format::Perflab => "a perflab result",
            Format::Hyperfine => "a hyperfine export",
            Format::Criterion => "criterion",
            Format::GoogleBenchmark => "Google Benchmark",
            Format::PytestBenchmark => "pytest-benchmark",
            Format::GoBench => "go test -bench",
            Format::Jmh => "JMH",
            Format::Mitata => "mitata",
            Format::Tinybench => "tinybench",
        }
    }

    /// The format `--format NAME` names.
    pub fn from_name(name: &str) -> Result<Format> {
        Format::ALL
            .iter()
            .copied()
            .find(|f| f.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                Error::usage(
                    "--format",
                    format!(
                        "'{name}' is not a format perflab reads; use one of {}",
                        names.join(", ")
                    ),
                )
            })
    }

    pub(super) fn importer(self) -> &'static dyn Importer {
        match self {
            Format::Text => &text::PlainNumbers,
            Format::Perflab => &perflab_json::PerflabResult,
            Format::Hyperfine => &hyperfine::HyperfineExport,
            Format::Criterion => &criterion::CriterionFolder,
            Format::GoogleBenchmark => &google_benchmark::GoogleBenchmarkJson,
            Format::PytestBenchmark => &pytest_benchmark::PytestBenchmarkJson,
            Format::GoBench => &go_bench::GoBenchText,
            Format::Jmh => &jmh::JmhJson,
            Format::Mitata => &mitata::MitataJson,
            Format::Tinybench => &tinybench::TinybenchJson,
        }
    }

    /// Which way is better for `metric`, when the harness says: JMH's
    /// throughput (mode `thrpt`) is higher-is-better. `None` leaves it to
    /// `--better` (lower by default, as for every time per iteration).
    pub fn better(self, metric: &str) -> Option<Better> {
        match (self, metric) {
            (Format::Jmh, jmh::THROUGHPUT_METRIC) => Some(Better::Higher),
            _ => None,
        }
    }

    /// Whether the samples are in the order they were measured in, so that
    /// a drift over that order means something. mitata and tinybench write
    /// theirs sorted.
    pub fn samples_in_order(self) -> bool {
        !matches!(self, Format::Mitata | Format::Tinybench)
    }
}
