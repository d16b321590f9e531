//! The text `go test -bench` prints, run with `-count N` (benchstat's input):
//! a line per run of a benchmark, `BenchmarkName-8  N  value unit ...`.
//! `ns/op` is the metric `wall` in seconds per iteration; every other unit
//! (`B/op`, `allocs/op`, `MB/s`, units of `b.ReportMetric`) is a metric of
//! that name.

use std::path::Path;

use super::{Benchmark, Format, Imported, Importer, Input, Series};
use crate::error::{Error, Result};

/// `go test -bench` output.
pub(super) struct GoBenchText;

impl Importer for GoBenchText {
    fn format(&self) -> Format {
        Format::GoBench
    }

    fn recognises(&self, input: &Input) -> bool {
        input.json.is_none()
            && input
                .text
                .as_deref()
                .is_some_and(|t| t.lines().any(|l| result_line(l).is_some()))
    }

    fn read(&self, input: &Input) -> Result<Imported> {
        let path = &input.path;
        let text = input.text.as_deref().ok_or_else(|| {
            Error::input(path, "is a folder; go test -bench output is a text file")
        })?;
        let mut lines = Vec::new();
        let mut package = None;
        let mut packages = std::collections::BTreeSet::new();
        for (number, line) in text.lines().enumerate() {
            if let Some(p) = line.strip_prefix("pkg: ") {
                package = Some(p.trim().to_string());
                continue;
            }
            if let Some((name, pairs)) = result_line(line) {
                packages.insert(package.clone());
                lines.push((number + 1, package.clone(), name, pairs));
            }
        }
        if lines.is_empty() {
            return Err(Error::input(
                path,
                "has no benchmark result lines (BenchmarkName-8  N  value ns/op); run \
                 go test -run '^$' -bench . -count 10 and save what it prints",
            ));
        }
        let mut benchmarks: Vec<Benchmark> = Vec::new();
        for (number, package, name, pairs) in lines {
            // Names repeat across packages; benchstat tells them apart by package too.
            let name = match (&package, packages.len() > 1) {
                (Some(p), true) => format!("{p}.{name}"),
                _ => name.to_string(),
            };
            let index = match benchmarks.iter().position(|b| b.name == name) {
                Some(i) => i,
                None => {
                    benchmarks.push(Benchmark {
                        name: name.clone(),
                        ..Benchmark::default()
                    });
                    benchmarks.len() - 1
                }
            };
            for (value, unit) in pairs {
                let (metric, unit, value) = match unit {
                    "ns/op" => ("wall", "s", value / 1e9),
                    other => (other, other, value),
                };
                let series = benchmarks[index]
                    .metrics
                    .entry(metric.to_string())
                    .or_insert_with(|| Series {
                        unit: unit.to_string(),
                        values: Vec::new(),
                    });
                series.values.push(value);
            }
            check_line(path, number, &benchmarks[index])?;
        }
        Ok(Imported {
            path: path.clone(),
            format: Format::GoBench,
            benchmarks,
            default_metric: Some("wall".into()),
            alternatives: false,
            machine: None,
            runtime: None,
        })
    }
}

/// A result line's name and (value, unit) pairs.
pub(super) fn result_line(line: &str) -> Option<(&str, Vec<(f64, &str)>)> {
    let mut fields = line.split_whitespace();
    let name = fields.next().filter(|n| n.starts_with("Benchmark"))?;
    fields.next()?.parse::<u64>().ok()?;
    let rest: Vec<&str> = fields.collect();
    if rest.is_empty() || rest.len() % 2 != 0 {
        return None;
    }
    let pairs = rest
        .chunks(2)
        .map(|p| Some((p[0].parse::<f64>().ok().filter(|v| v.is_finite())?, p[1])))
        .collect::<Option<Vec<_>>>()?;
    Some((name, pairs))
}

/// Every metric of a benchmark must have a value on every line, or the
/// samples of different metrics would not belong to the same runs.
fn check_line(path: &Path, number: usize, benchmark: &Benchmark) -> Result<()> {
    let counts: Vec<usize> = benchmark.metrics.values().map(|s| s.values.len()).collect();
    if counts.windows(2).any(|w| w[0] != w[1]) {
        return Err(Error::input(
            format!("{}:{number}", path.display()),
            format!(
                "benchmark '{}' reports other metrics here than on its earlier lines; \
                 keep the flags (-benchmem) the same for every run in one file",
                benchmark.name
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_line_gives_its_metrics() {
        let (name, pairs) =
            result_line("BenchmarkSort-8   \t  12345\t  95012 ns/op\t 8192 B/op\t 1 allocs/op")
                .unwrap();
        assert_eq!(name, "BenchmarkSort-8");
        assert_eq!(
            pairs,
            vec![(95012.0, "ns/op"), (8192.0, "B/op"), (1.0, "allocs/op")]
        );
    }

    #[test]
    fn a_name_line_without_results_is_not_a_result() {
        assert!(result_line("BenchmarkSort-8").is_none());
        assert!(result_line("BenchmarkSort-8 --- FAIL").is_none());
    }
}
