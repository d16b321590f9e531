//! Google Benchmark's JSON (`--benchmark_format=json` or
//! `--benchmark_out=FILE`), run with `--benchmark_repetitions=N`: each
//! repetition is one sample; the aggregate rows (`_mean`, `_median`,
//! `_stddev`, ...) are statistics of those samples and are left out.
//! `real_time` is the metric `wall`, `cpu_time` the metric `cpu`, both in
//! seconds per iteration whatever `time_unit` the run printed.

use super::{Benchmark, Format, Imported, Importer, Input, Series, number};
use crate::error::{Error, Result};
use perflab_store::machine_description::MachineDescription;

/// Google Benchmark's JSON output.
pub(super) struct GoogleBenchmarkJson;

impl Importer for GoogleBenchmarkJson {
    fn format(&self) -> Format {
        Format::GoogleBenchmark
    }

    fn recognises(&self, input: &Input) -> bool {
        input
            .json
            .as_ref()
            .is_some_and(|j| j.get("context").is_some() && j.get("benchmarks").is_some())
    }

    fn read(&self, input: &Input) -> Result<Imported> {
        let path = &input.path;
        let rows = input
            .json
            .as_ref()
            .and_then(|j| j.get("benchmarks"))
            .and_then(|b| b.as_array())
            .ok_or_else(|| {
                Error::input(
                    path,
                    "is not Google Benchmark's JSON: it has no \"benchmarks\" array; run the \
                     benchmark with --benchmark_format=json --benchmark_repetitions=10",
                )
            })?;
        let mut benchmarks: Vec<Benchmark> = Vec::new();
        let mut aggregates_only = false;
        for row in rows {
            let name = row
                .get("run_name")
                .or_else(|| row.get("name"))
                .and_then(|n| n.as_str())
                .ok_or_else(|| Error::input(path, "a benchmark row has no \"name\""))?;
            if row.get("run_type").and_then(|t| t.as_str()) == Some("aggregate") {
                aggregates_only = true;
                continue;
            }
            if row.get("error_occurred").and_then(|e| e.as_bool()) == Some(true) {
                let message = row
                    .get("error_message")
                    .and_then(|m| m.as_str())
                    .unwrap_or("");
                return Err(Error::input(
                    path,
                    format!(
                        "benchmark '{name}' failed in this run ({message}); fix it and run again"
                    ),
                ));
            }
            let what = format!("benchmark '{name}'");
            let per_second = units_per_second(path, row, &what)?;
            let real = number(path, row, "real_time", &what)? / per_second;
            let cpu = number(path, row, "cpu_time", &what)? / per_second;
            let index = match benchmarks.iter().position(|b| b.name == name) {
                Some(i) => i,
                None => {
                    benchmarks.push(Benchmark {
                        name: name.to_string(),
                        ..Benchmark::default()
                    });
                    benchmarks.len() - 1
                }
            };
            for (metric, value) in [("wall", real), ("cpu", cpu)] {
                let series = benchmarks[index]
                    .metrics
                    .entry(metric.to_string())
                    .or_insert_with(|| Series {
                        unit: "s".into(),
                        values: Vec::new(),
                    });
                series.values.push(value);
            }
        }
        if benchmarks.is_empty() && aggregates_only {
            return Err(Error::input(
                path,
                "holds only aggregates (mean, median, ...), not the repetitions they summarise; \
                 run without --benchmark_report_aggregates_only",
            ));
        }
        if let Some(single) = benchmarks
            .iter()
            .find(|b| b.metrics["wall"].values.len() < 2)
        {
            return Err(Error::input(
                path,
                format!(
                    "benchmark '{}' has {} sample(s): Google Benchmark gives one per repetition; \
                     run it with --benchmark_repetitions=10 (or more) so that the noise can be estimated",
                    single.name,
                    single.metrics["wall"].values.len()
                ),
            ));
        }
        Ok(Imported {
            path: path.clone(),
            format: Format::GoogleBenchmark,
            benchmarks,
            default_metric: Some("wall".into()),
            alternatives: false,
            machine: input.json.as_ref().and_then(context_machine),
            runtime: None,
        })
    }
}

/// The machine of the run's `context` (host name and CPUs; the library
/// does not record the CPU model, memory or kernel).
fn context_machine(json: &serde_json::Value) -> Option<MachineDescription> {
    let context = json.get("context")?;
    Some(MachineDescription {
        host: context
            .get("host_name")?
            .as_str()
            .filter(|h| !h.is_empty())?
            .to_string(),
        logical_cores: context
            .get("num_cpus")
            .and_then(|n| n.as_u64())
            .map(|n| n as usize),
        ..MachineDescription::default()
    })
}

/// Units of the row's `time_unit` per second (nanoseconds when absent, as
/// Google Benchmark's default); dividing by it rounds once.
fn units_per_second(path: &std::path::Path, row: &serde_json::Value, what: &str) -> Result<f64> {
    match row
        .get("time_unit")
        .and_then(|u| u.as_str())
        .unwrap_or("ns")
    {
        "ns" => Ok(1e9),
        "us" => Ok(1e6),
        "ms" => Ok(1e3),
        "s" => Ok(1.0),
        other => Err(Error::input(
            path,
            format!("{what} has the time unit '{other}'; Google Benchmark writes ns, us, ms or s"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: serde_json::Value) -> Result<Imported> {
        GoogleBenchmarkJson.read(&Input {
            path: "g.json".into(),
            selector: None,
            text: Some(json.to_string()),
            json: Some(json),
        })
    }

    #[test]
    fn time_units_are_honoured_and_aggregates_left_out() {
        let row = |t: f64, unit: &str| serde_json::json!({"name": "BM_a", "run_name": "BM_a", "run_type": "iteration", "real_time": t, "cpu_time": t, "time_unit": unit});
        let json = serde_json::json!({"context": {}, "benchmarks": [
            row(2.0, "us"), row(3000.0, "ns"),
            {"name": "BM_a_mean", "run_name": "BM_a", "run_type": "aggregate", "real_time": 1e9, "cpu_time": 1e9, "time_unit": "ns"}
        ]});
        let imported = read(json).unwrap();
        let values = &imported.benchmarks[0].metrics["wall"].values;
        assert_eq!(values.len(), 2);
        assert_eq!(values, &vec![2e-6, 3e-6]);
    }

    #[test]
    fn a_run_without_repetitions_asks_for_them() {
        let json = serde_json::json!({"context": {}, "benchmarks": [
            {"name": "BM_a", "run_type": "iteration", "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ns"}
        ]});
        let err = read(json).unwrap_err().to_string();
        assert!(err.contains("--benchmark_repetitions=10"), "{err}");
    }

    #[test]
    fn the_context_names_the_machine() {
        let row = serde_json::json!({"name": "BM_a", "run_name": "BM_a", "run_type": "iteration", "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ns"});
        let json = serde_json::json!({"context": {"host_name": "alpha", "num_cpus": 8, "mhz_per_cpu": 3000},
            "benchmarks": [row.clone(), row]});
        let machine = read(json).unwrap().machine.unwrap();
        assert_eq!(
            (machine.host.as_str(), machine.logical_cores),
            ("alpha", Some(8))
        );
        let anonymous = serde_json::json!({"context": {}, "benchmarks": []});
        assert_eq!(context_machine(&anonymous), None);
    }
}
