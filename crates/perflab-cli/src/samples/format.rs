//! The formats perflab reads samples from: their names for `--format`,
//! their descriptions for messages, and the reader of each.

use super::{
    Importer, criterion, go_bench, google_benchmark, hyperfine, perflab_json, pytest_benchmark,
    text,
};
use crate::error::{Error, Result};

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
}

impl Format {
    /// Every format, in the order detection tries them.
    pub const ALL: &'static [Format] = &[
        Format::Criterion,
        Format::Perflab,
        Format::Hyperfine,
        Format::GoogleBenchmark,
        Format::PytestBenchmark,
        Format::GoBench,
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
        }
    }
}
