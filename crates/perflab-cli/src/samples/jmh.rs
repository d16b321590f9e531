//! JMH's JSON (`-rf json -rff FILE`): an array of benchmark runs, one per
//! benchmark method, mode and `@Param` combination.
//!
//! Each run's `primaryMetric.rawData` holds the score of every measurement
//! iteration of every fork (`[fork][iteration]`); each is one sample, so a
//! run of `-f 2 -i 10` gives 20. In `sample` mode JMH keeps, per iteration,
//! a histogram of single invocations (`rawDataHistogram`, `[fork][iteration]
//! [[value, count], ...]`); its sample is that iteration's mean, the score
//! JMH itself computes, so that every mode gives one sample per iteration.
//!
//! Modes are honoured: `avgt`, `ss` and `sample` measure time per operation,
//! read into the metric `wall` in seconds (lower is better); `thrpt`
//! measures operations per time, read into the metric `throughput` in
//! operations per second (higher is better). Secondary metrics (the
//! profilers', such as `-prof gc`'s `gc.alloc.rate.norm` in B/op) are
//! metrics of their own name and unit, read from their `rawData` the same
//! way. A benchmark with `@Param` values is named with them,
//! `pkg.Class.method[n=10,kind=a]` (sorted by parameter name); a benchmark
//! measured in more than one mode in the file is also named with its mode
//! (`pkg.Class.method/thrpt`). The metric compared by default is the one
//! most benchmarks of the file measure (`wall` on a tie).
//!
//! JMH names no host: the JVM it ran on (`vmName`, `vmVersion`) is the
//! runtime of the samples.

use std::path::Path;

use super::{Benchmark, Format, Imported, Importer, Input, Series};
use crate::error::{Error, Result};

/// JMH's JSON result file.
pub(super) struct JmhJson;

/// The metric of a time per operation (`avgt`, `ss`, `sample`).
const TIME_METRIC: &str = "wall";
/// The metric of operations per time (`thrpt`).
pub(super) const THROUGHPUT_METRIC: &str = "throughput";

impl Importer for JmhJson {
    fn format(&self) -> Format {
        Format::Jmh
    }

    fn recognises(&self, input: &Input) -> bool {
        input
            .json
            .as_ref()
            .and_then(|j| j.as_array())
            .and_then(|a| a.first())
            .is_some_and(|f| f.get("jmhVersion").is_some() || f.get("primaryMetric").is_some())
    }

    fn read(&self, input: &Input) -> Result<Imported> {
        let path = &input.path;
        let runs = input
            .json
            .as_ref()
            .and_then(|j| j.as_array())
            .ok_or_else(|| {
                Error::input(
                    path,
                    "is not JMH's JSON: JMH writes an array of benchmark runs; run the benchmarks \
                     with -rf json -rff FILE",
                )
            })?;
        let mut read = Vec::new();
        for run in runs {
            read.push(read_run(path, run)?);
        }
        // A method measured in several modes is told apart by its mode.
        let names: Vec<String> = read
            .iter()
            .map(|r| {
                let modes = read
                    .iter()
                    .filter(|o| o.benchmark.name == r.benchmark.name && o.mode != r.mode)
                    .count();
                if modes > 0 {
                    format!("{}/{}", r.benchmark.name, r.mode)
                } else {
                    r.benchmark.name.clone()
                }
            })
            .collect();
        // The metric most benchmarks measure, time per operation on a tie.
        let throughputs = read
            .iter()
            .filter(|r| r.primary == THROUGHPUT_METRIC)
            .count();
        let default_metric = if throughputs > read.len() - throughputs {
            THROUGHPUT_METRIC
        } else {
            TIME_METRIC
        };
        let runtime = runs.first().and_then(jvm);
        let benchmarks = read
            .into_iter()
            .zip(names)
            .map(|(r, name)| Benchmark {
                name,
                ..r.benchmark
            })
            .collect();
        Ok(Imported {
            path: path.clone(),
            format: Format::Jmh,
            benchmarks,
            default_metric: Some(default_metric.into()),
            alternatives: false,
            machine: None,
            runtime,
        })
    }
}

/// One run of the file, read.
struct Run {
    benchmark: Benchmark,
    mode: String,
    primary: &'static str,
}

/// One benchmark run: its name with its parameters, its primary metric and
/// its secondary metrics.
fn read_run(path: &Path, run: &serde_json::Value) -> Result<Run> {
    let method = run
        .get("benchmark")
        .and_then(|b| b.as_str())
        .ok_or_else(|| Error::input(path, "a JMH run has no \"benchmark\" name"))?;
    let name = match run.get("params").and_then(|p| p.as_object()) {
        Some(params) if !params.is_empty() => {
            let mut pairs: Vec<String> = params
                .iter()
                .map(|(k, v)| match v.as_str() {
                    Some(s) => format!("{k}={s}"),
                    None => format!("{k}={v}"),
                })
                .collect();
            pairs.sort();
            format!("{method}[{}]", pairs.join(","))
        }
        _ => method.to_string(),
    };
    let mode = run
        .get("mode")
        .and_then(|m| m.as_str())
        .ok_or_else(|| Error::input(path, format!("JMH benchmark '{name}' has no \"mode\"")))?
        .to_string();
    let primary = run.get("primaryMetric").ok_or_else(|| {
        Error::input(
            path,
            format!(
                "JMH benchmark '{name}' has no \"primaryMetric\"; write the results with -rf json"
            ),
        )
    })?;
    let unit = primary
        .get("scoreUnit")
        .and_then(|u| u.as_str())
        .unwrap_or("");
    let values = if mode == "sample" {
        iteration_means(path, &name, primary)?
    } else {
        raw_data(path, &name, "primaryMetric", primary)?
    };
    if values.len() < 2 {
        return Err(Error::input(
            path,
            format!(
                "JMH benchmark '{name}' has {} measurement iteration(s); perflab takes one sample \
                 per iteration of every fork: run it with -i 10 (or more) so that the noise can be \
                 estimated",
                values.len()
            ),
        ));
    }
    let (metric, series) = primary_series(path, &name, &mode, unit, values)?;
    let mut benchmark = Benchmark {
        name,
        ..Benchmark::default()
    };
    benchmark.metrics.insert(metric.to_string(), series);
    if let Some(secondary) = run.get("secondaryMetrics").and_then(|s| s.as_object()) {
        for (label, m) in secondary {
            // Percentiles of `sample` mode and profilers' figures alike;
            // one without raw data is a summary and is left out.
            let Some(values) = raw_data(path, &benchmark.name, label, m).ok() else {
                continue;
            };
            let label = label.trim_start_matches('·').to_string();
            if label == TIME_METRIC || label == THROUGHPUT_METRIC {
                continue;
            }
            let unit = m.get("scoreUnit").and_then(|u| u.as_str()).unwrap_or("");
            benchmark.metrics.insert(
                label,
                Series {
                    unit: unit.to_string(),
                    values,
                },
            );
        }
    }
    Ok(Run {
        benchmark,
        mode,
        primary: metric,
    })
}

/// The primary metric's samples in perflab's units: seconds per operation
/// under `wall`, operations per second under `throughput`.
fn primary_series(
    path: &Path,
    name: &str,
    mode: &str,
    unit: &str,
    values: Vec<f64>,
) -> Result<(&'static str, Series)> {
    let bad_unit = || {
        Error::input(
            path,
            format!(
                "JMH benchmark '{name}' in mode {mode} has the unit '{unit}'; JMH writes a time \
                 per op (ns/op ... s/op) for avgt, ss and sample, and ops per time (ops/s ...) for \
                 thrpt: check that the file is JMH's own output"
            ),
        )
    };
    match mode {
        "avgt" | "ss" | "sample" => {
            let time = unit.strip_suffix("/op").ok_or_else(bad_unit)?;
            let seconds = seconds_in(time).ok_or_else(bad_unit)?;
            let values = values.iter().map(|v| v * seconds).collect();
            Ok((
                TIME_METRIC,
                Series {
                    unit: "s".into(),
                    values,
                },
            ))
        }
        "thrpt" => {
            let time = unit.strip_prefix("ops/").ok_or_else(bad_unit)?;
            let seconds = seconds_in(time).ok_or_else(bad_unit)?;
            let values = values.iter().map(|v| v / seconds).collect();
            Ok((
                THROUGHPUT_METRIC,
                Series {
                    unit: "ops/s".into(),
                    values,
                },
            ))
        }
        other => Err(Error::input(
            path,
            format!(
                "JMH benchmark '{name}' has the mode '{other}'; JMH writes thrpt, avgt, sample or ss"
            ),
        )),
    }
}

/// Seconds in one of JMH's time units (`TimeUnit` as JMH prints it).
fn seconds_in(unit: &str) -> Option<f64> {
    Some(match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" | "sec" => 1.0,
        "min" => 60.0,
        "hr" => 3600.0,
        "day" => 86400.0,
        _ => return None,
    })
}

/// Every iteration's score of a metric, forks one after the other.
fn raw_data(path: &Path, name: &str, label: &str, metric: &serde_json::Value) -> Result<Vec<f64>> {
    let forks = metric
        .get("rawData")
        .and_then(|r| r.as_array())
        .ok_or_else(|| {
            Error::input(
                path,
                format!(
                    "JMH benchmark '{name}' has its {label} score only, without \"rawData\" (the \
                     score of each measurement iteration), from which no comparison can be made; \
                     write the results with JMH 1.x's -rf json -rff FILE and give perflab that \
                     file unedited"
                ),
            )
        })?;
    let mut values = Vec::new();
    for fork in forks {
        let fork = fork
            .as_array()
            .ok_or_else(|| raw_not_numbers(path, name, label))?;
        for v in fork {
            values.push(
                v.as_f64()
                    .ok_or_else(|| raw_not_numbers(path, name, label))?,
            );
        }
    }
    Ok(values)
}

fn raw_not_numbers(path: &Path, name: &str, label: &str) -> Error {
    Error::input(
        path,
        format!(
            "JMH benchmark '{name}': the {label} \"rawData\" is not an array of forks of numbers"
        ),
    )
}

/// `sample` mode: the mean of each iteration's histogram of invocations.
fn iteration_means(path: &Path, name: &str, metric: &serde_json::Value) -> Result<Vec<f64>> {
    let Some(forks) = metric.get("rawDataHistogram").and_then(|r| r.as_array()) else {
        return Err(Error::input(
            path,
            format!(
                "JMH benchmark '{name}' in sample mode has no \"rawDataHistogram\" (the times of \
                 each iteration's invocations), from which no comparison can be made; write the \
                 results with JMH 1.x's -rf json -rff FILE and give perflab that file unedited"
            ),
        ));
    };
    let bad = || {
        Error::input(
            path,
            format!(
                "JMH benchmark '{name}': \"rawDataHistogram\" is not [fork][iteration][[value, count], ...]"
            ),
        )
    };
    let mut means = Vec::new();
    for fork in forks {
        for iteration in fork.as_array().ok_or_else(bad)? {
            let (mut total, mut count) = (0.0, 0.0);
            for bin in iteration.as_array().ok_or_else(bad)? {
                let pair = bin.as_array().filter(|p| p.len() == 2).ok_or_else(bad)?;
                let (value, n) = (
                    pair[0].as_f64().ok_or_else(bad)?,
                    pair[1].as_f64().ok_or_else(bad)?,
                );
                total += value * n;
                count += n;
            }
            if count > 0.0 {
                means.push(total / count);
            }
        }
    }
    Ok(means)
}

/// The JVM of a run, as "OpenJDK 64-Bit Server VM 17.0.15+6 (JDK 17.0.15)".
fn jvm(run: &serde_json::Value) -> Option<String> {
    let text = |key: &str| {
        run.get(key)
            .and_then(|v| v.as_str())
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let vm = match (text("vmName"), text("vmVersion")) {
        (Some(n), Some(v)) => format!("{n} {v}"),
        (Some(n), None) => n.to_string(),
        (None, Some(v)) => format!("JVM {v}"),
        (None, None) => return text("jdkVersion").map(|j| format!("JDK {j}")),
    };
    Some(match text("jdkVersion") {
        Some(jdk) => format!("{vm} (JDK {jdk})"),
        None => vm,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: serde_json::Value) -> Result<Imported> {
        JmhJson.read(&Input {
            path: "jmh.json".into(),
            selector: None,
            text: Some(json.to_string()),
            json: Some(json),
        })
    }

    fn run(mode: &str, unit: &str, raw: serde_json::Value) -> serde_json::Value {
        serde_json::json!({"jmhVersion": "1.37", "benchmark": "b.W.m", "mode": mode,
            "vmName": "OpenJDK 64-Bit Server VM", "vmVersion": "17.0.15", "jdkVersion": "17.0.15",
            "params": {"n": "10", "a": "x"},
            "primaryMetric": {"score": 1.0, "scoreUnit": unit, "rawData": raw},
            "secondaryMetrics": {"gc.alloc.rate.norm": {"scoreUnit": "B/op", "rawData": [[8.0, 8.0], [16.0, 8.0]]},
                                 "gc.count": {"scoreUnit": "counts"}}})
    }

    #[test]
    fn every_iteration_of_every_fork_is_a_sample_in_seconds() {
        let imported = read(serde_json::json!([run(
            "avgt",
            "us/op",
            serde_json::json!([[1.0, 2.0], [3.0, 4.0]])
        )]))
        .unwrap();
        let b = &imported.benchmarks[0];
        assert_eq!(b.name, "b.W.m[a=x,n=10]");
        assert_eq!(b.metrics["wall"].values, vec![1e-6, 2e-6, 3e-6, 4e-6]);
        assert_eq!(b.metrics["gc.alloc.rate.norm"].values.len(), 4);
        assert!(!b.metrics.contains_key("gc.count"));
        assert_eq!(imported.default_metric.as_deref(), Some("wall"));
        assert_eq!(
            imported.runtime.as_deref(),
            Some("OpenJDK 64-Bit Server VM 17.0.15 (JDK 17.0.15)")
        );
    }

    #[test]
    fn throughput_is_in_operations_per_second_and_modes_name_a_method_twice() {
        let imported = read(serde_json::json!([
            run("thrpt", "ops/ms", serde_json::json!([[1.0, 2.0]])),
            run("ss", "ms/op", serde_json::json!([[1.0, 2.0]]))
        ]))
        .unwrap();
        let thrpt = &imported.benchmarks[0];
        assert_eq!(thrpt.name, "b.W.m[a=x,n=10]/thrpt");
        assert_eq!(thrpt.metrics["throughput"].values, vec![1000.0, 2000.0]);
        assert_eq!(thrpt.metrics["throughput"].unit, "ops/s");
        assert_eq!(
            imported.benchmarks[1].metrics["wall"].values,
            vec![1e-3, 2e-3]
        );
    }

    #[test]
    fn sample_mode_gives_the_mean_of_each_iteration() {
        let mut r = run("sample", "ns/op", serde_json::Value::Null);
        r["primaryMetric"] = serde_json::json!({"scoreUnit": "ns/op",
            "rawDataHistogram": [[[[10.0, 1], [20.0, 3]], [[30.0, 2]]]]});
        let imported = read(serde_json::json!([r])).unwrap();
        let values = &imported.benchmarks[0].metrics["wall"].values;
        assert_eq!(values.len(), 2);
        assert!((values[0] - 17.5e-9).abs() < 1e-20 && (values[1] - 30e-9).abs() < 1e-20);
    }

    #[test]
    fn a_score_without_raw_data_is_refused_with_what_to_write() {
        let mut r = run("avgt", "ns/op", serde_json::Value::Null);
        r["primaryMetric"] = serde_json::json!({"score": 1.0, "scoreUnit": "ns/op"});
        let err = read(serde_json::json!([r])).unwrap_err().to_string();
        assert!(err.contains("rawData") && err.contains("-rf json"), "{err}");
    }

    #[test]
    fn one_iteration_asks_for_more() {
        let err = read(serde_json::json!([run(
            "avgt",
            "ns/op",
            serde_json::json!([[1.0]])
        )]))
        .unwrap_err()
        .to_string();
        assert!(err.contains("-i 10"), "{err}");
    }
}
