//! mitata's JSON (`await run({ format: 'json' })`, printed to standard
//! output): `layout` (the groups), `benchmarks` (one trial per `bench()`,
//! each with its `runs`, one per argument combination) and `context` (the
//! runtime and CPU).
//!
//! Each run's `stats.samples` holds the time per iteration of every batch
//! mitata timed, in nanoseconds, read into the metric `wall` in seconds.
//! mitata sorts them and drops the two fastest and two slowest before it
//! writes them, so their order is not the order they were measured in (no
//! drift over time can be read from them). A run is named as mitata names
//! it (`sum 100` for `bench('sum $n', ...).args('n', [100])`), after its
//! group's name if it is in one (`group/sum 100`), and with its arguments
//! when two runs would otherwise share a name.
//!
//! mitata names no host: the runtime and the CPU it names are the runtime
//! of the samples.

use std::path::Path;

use super::{Benchmark, Format, Imported, Importer, Input};
use crate::error::{Error, Result};

/// mitata's JSON output.
pub(super) struct MitataJson;

impl Importer for MitataJson {
    fn format(&self) -> Format {
        Format::Mitata
    }

    fn recognises(&self, input: &Input) -> bool {
        input.json.as_ref().is_some_and(|j| {
            j.get("layout").is_some_and(|l| l.is_array())
                && j.get("benchmarks").is_some_and(|b| b.is_array())
        })
    }

    fn read(&self, input: &Input) -> Result<Imported> {
        let path = &input.path;
        let json = input.json.as_ref();
        let trials = json
            .and_then(|j| j.get("benchmarks"))
            .and_then(|b| b.as_array())
            .ok_or_else(|| {
                Error::input(
                    path,
                    "is not mitata's JSON: it has no \"benchmarks\" array; run the benchmarks with \
                     await run({ format: 'json' }) and save what it prints",
                )
            })?;
        let groups: Vec<Option<String>> = json
            .and_then(|j| j.get("layout"))
            .and_then(|l| l.as_array())
            .map(|l| {
                l.iter()
                    .map(|g| g.get("name").and_then(|n| n.as_str()).map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let mut read: Vec<(String, String, Vec<f64>)> = Vec::new();
        for trial in trials {
            let group = trial
                .get("group")
                .and_then(|g| g.as_u64())
                .and_then(|g| groups.get(g as usize).cloned().flatten());
            let runs = trial
                .get("runs")
                .and_then(|r| r.as_array())
                .ok_or_else(|| Error::input(path, "a mitata benchmark has no \"runs\" array"))?;
            for run in runs {
                let name = run
                    .get("name")
                    .and_then(|n| n.as_str())
                    .ok_or_else(|| Error::input(path, "a mitata run has no \"name\""))?;
                let name = match &group {
                    Some(g) => format!("{g}/{name}"),
                    None => name.to_string(),
                };
                let values = run_samples(path, &name, run)?;
                read.push((name, arguments(run), values));
            }
        }
        let benchmarks = read
            .iter()
            .map(|(name, args, values)| {
                let shared = read.iter().filter(|(n, _, _)| n == name).count() > 1;
                let name = if shared && !args.is_empty() {
                    format!("{name}[{args}]")
                } else {
                    name.clone()
                };
                let seconds = values.iter().map(|ns| ns / 1e9).collect();
                Benchmark::with_metric(name, "wall", "s", seconds)
            })
            .collect();
        Ok(Imported {
            path: path.clone(),
            format: Format::Mitata,
            benchmarks,
            default_metric: Some("wall".into()),
            alternatives: false,
            machine: None,
            runtime: json.and_then(|j| j.get("context")).and_then(runtime),
        })
    }
}

/// A run's samples in nanoseconds, or what it holds instead.
fn run_samples(path: &Path, name: &str, run: &serde_json::Value) -> Result<Vec<f64>> {
    if let Some(error) = run.get("error").filter(|e| !e.is_null()) {
        let message = super::error_message(error);
        return Err(Error::input(
            path,
            format!(
                "mitata benchmark '{name}' failed in this run ({message}); fix it and run again"
            ),
        ));
    }
    let samples = run
        .get("stats")
        .and_then(|s| s.get("samples"))
        .filter(|s| !s.is_null())
        .ok_or_else(|| {
            Error::input(
                path,
                format!(
                    "mitata benchmark '{name}' has summary statistics only, not its samples \
                     (\"stats.samples\"), from which no comparison can be made; run with \
                     await run({{ format: 'json' }}) (not {{ json: {{ samples: false }} }}) and \
                     save what it prints"
                ),
            )
        })?;
    samples
        .as_array()
        .and_then(|a| a.iter().map(|x| x.as_f64()).collect::<Option<Vec<_>>>())
        .ok_or_else(|| {
            Error::input(
                path,
                format!("mitata benchmark '{name}': \"stats.samples\" is not an array of numbers"),
            )
        })
}

/// A run's arguments as `n=100,size=8`, sorted by name.
fn arguments(run: &serde_json::Value) -> String {
    let Some(args) = run.get("args").and_then(|a| a.as_object()) else {
        return String::new();
    };
    let mut pairs: Vec<String> = args
        .iter()
        .map(|(k, v)| match v.as_str() {
            Some(s) => format!("{k}={s}"),
            None => format!("{k}={v}"),
        })
        .collect();
    pairs.sort();
    pairs.join(",")
}

/// The runtime and CPU of mitata's `context`: "node 20.20.2 (x64-linux) on
/// AMD EPYC".
fn runtime(context: &serde_json::Value) -> Option<String> {
    fn text(v: Option<&serde_json::Value>) -> Option<&str> {
        v.and_then(|v| v.as_str())
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }
    let name = text(context.get("runtime"))?;
    let mut described = name.to_string();
    if let Some(version) = text(context.get("version")) {
        described = format!("{described} {version}");
    }
    if let Some(arch) = text(context.get("arch")) {
        described = format!("{described} ({arch})");
    }
    if let Some(cpu) = text(context.get("cpu").and_then(|c| c.get("name"))) {
        described = format!("{described} on {cpu}");
    }
    Some(described)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: serde_json::Value) -> Result<Imported> {
        MitataJson.read(&Input {
            path: "m.json".into(),
            selector: None,
            text: Some(json.to_string()),
            json: Some(json),
        })
    }

    #[test]
    fn runs_are_named_with_their_group_and_arguments_when_names_repeat() {
        let run = |n: u64| serde_json::json!({"name": "sum", "args": {"n": n}, "stats": {"samples": [1000.0, 2000.0]}});
        let json = serde_json::json!({
            "layout": [{"name": null, "types": []}, {"name": "g", "types": ["g"]}],
            "benchmarks": [{"alias": "sum", "group": 1, "runs": [run(1), run(2)]}],
            "context": {"runtime": "node", "version": "20.1.0", "arch": "x64-linux", "cpu": {"name": "AMD EPYC"}}
        });
        let imported = read(json).unwrap();
        let names: Vec<&str> = imported
            .benchmarks
            .iter()
            .map(|b| b.name.as_str())
            .collect();
        assert_eq!(names, vec!["g/sum[n=1]", "g/sum[n=2]"]);
        assert_eq!(
            imported.benchmarks[0].metrics["wall"].values,
            vec![1e-6, 2e-6]
        );
        assert_eq!(
            imported.runtime.as_deref(),
            Some("node 20.1.0 (x64-linux) on AMD EPYC")
        );
    }

    #[test]
    fn a_run_without_samples_is_refused_with_what_to_write() {
        let json = serde_json::json!({"layout": [], "benchmarks": [
            {"alias": "a", "group": 0, "runs": [{"name": "a", "args": {}, "stats": {"avg": 1.0, "samples": null}}]}
        ]});
        let err = read(json).unwrap_err().to_string();
        assert!(
            err.contains("summary statistics only") && err.contains("format: 'json'"),
            "{err}"
        );
    }
}
