//! tinybench's tasks written as JSON. tinybench keeps its samples in
//! memory only and prints summaries, so a benchmark file writes them
//! itself, in the few lines docs/guide/importing.md gives:
//!
//! ```js
//! const bench = new Bench({ retainSamples: true });
//! // ... bench.add(...), await bench.run() ...
//! writeFileSync('tinybench.json', JSON.stringify({
//!   tasks: bench.tasks.map(({ name, result }) => ({ name, result })),
//! }));
//! ```
//!
//! Each task's `result.latency.samples` (tinybench 3 and later;
//! `result.samples` before) holds the time of every call in milliseconds,
//! read into the metric `wall` in seconds. tinybench sorts them, so their
//! order is not the order they were measured in. Without `retainSamples`
//! tinybench 6 keeps only the summaries, which are refused with the line
//! to add.

use std::path::Path;

use super::{Benchmark, Format, Imported, Importer, Input};
use crate::error::{Error, Result};

/// tinybench's tasks, written as the guide shows.
pub(super) struct TinybenchJson;

/// What a benchmark file writes for perflab, said in every refusal.
const WHAT_TO_WRITE: &str = "create the bench with new Bench({ retainSamples: true }) and, after \
     await bench.run(), write writeFileSync('tinybench.json', JSON.stringify({ tasks: \
     bench.tasks.map(({ name, result }) => ({ name, result })) }))";

impl Importer for TinybenchJson {
    fn format(&self) -> Format {
        Format::Tinybench
    }

    fn recognises(&self, input: &Input) -> bool {
        input.json.as_ref().is_some_and(|j| {
            j.get("tasks")
                .and_then(|t| t.as_array())
                .and_then(|t| t.first())
                .is_some_and(|t| t.get("result").is_some())
        })
    }

    fn read(&self, input: &Input) -> Result<Imported> {
        let path = &input.path;
        let tasks = input
            .json
            .as_ref()
            .and_then(|j| j.get("tasks"))
            .and_then(|t| t.as_array())
            .ok_or_else(|| {
                Error::input(
                    path,
                    format!("is not tinybench's tasks: it has no \"tasks\" array; {WHAT_TO_WRITE}"),
                )
            })?;
        let mut benchmarks = Vec::new();
        let mut runtime = None;
        for task in tasks {
            let name = task
                .get("name")
                .and_then(|n| n.as_str())
                .ok_or_else(|| Error::input(path, "a tinybench task has no \"name\""))?;
            let result = task.get("result").filter(|r| !r.is_null()).ok_or_else(|| {
                Error::input(
                    path,
                    format!(
                        "tinybench task '{name}' has no \"result\": it did not run; {WHAT_TO_WRITE}"
                    ),
                )
            })?;
            let values = task_samples(path, name, result)?;
            runtime = runtime.or_else(|| task_runtime(result));
            let seconds = values.iter().map(|ms| ms / 1e3).collect();
            benchmarks.push(Benchmark::with_metric(name, "wall", "s", seconds));
        }
        Ok(Imported {
            path: path.clone(),
            format: Format::Tinybench,
            benchmarks,
            default_metric: Some("wall".into()),
            alternatives: false,
            machine: None,
            runtime,
        })
    }
}

/// A task's latency samples in milliseconds, or what it holds instead.
fn task_samples(path: &Path, name: &str, result: &serde_json::Value) -> Result<Vec<f64>> {
    if let Some(error) = result.get("error").filter(|e| !e.is_null()) {
        let message = super::error_message(error);
        return Err(Error::input(
            path,
            format!("tinybench task '{name}' failed in this run ({message}); fix it and run again"),
        ));
    }
    let samples = result
        .get("latency")
        .and_then(|l| l.get("samples"))
        .or_else(|| result.get("samples"))
        .and_then(|s| s.as_array())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            Error::input(
                path,
                format!(
                    "tinybench task '{name}' has summary statistics only, not its samples \
                     (\"result.latency.samples\"), from which no comparison can be made; \
                     {WHAT_TO_WRITE}"
                ),
            )
        })?;
    samples
        .iter()
        .map(|x| x.as_f64())
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| {
            Error::input(
                path,
                format!(
                    "tinybench task '{name}': \"result.latency.samples\" is not an array of numbers"
                ),
            )
        })
}

/// The runtime tinybench names in a result: "node 20.20.2".
fn task_runtime(result: &serde_json::Value) -> Option<String> {
    let name = result.get("runtime")?.as_str()?.trim();
    if name.is_empty() || name == "unknown" {
        return None;
    }
    Some(
        match result
            .get("runtimeVersion")
            .and_then(|v| v.as_str())
            .map(str::trim)
            .filter(|v| !v.is_empty() && *v != "unknown")
        {
            Some(version) => format!("{name} {version}"),
            None => name.to_string(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: serde_json::Value) -> Result<Imported> {
        TinybenchJson.read(&Input {
            path: "t.json".into(),
            selector: None,
            text: Some(json.to_string()),
            json: Some(json),
        })
    }

    #[test]
    fn latency_samples_are_seconds_per_call() {
        let json = serde_json::json!({"tasks": [{"name": "sum", "result": {
            "state": "completed", "runtime": "node", "runtimeVersion": "20.20.2",
            "latency": {"mean": 1.5, "samples": [1.0, 2.0]}}}]});
        let imported = read(json).unwrap();
        assert_eq!(
            imported.benchmarks[0].metrics["wall"].values,
            vec![1e-3, 2e-3]
        );
        assert_eq!(imported.runtime.as_deref(), Some("node 20.20.2"));
    }

    #[test]
    fn summaries_without_samples_are_refused_with_what_to_write() {
        let json = serde_json::json!({"tasks": [{"name": "sum", "result": {
            "state": "completed", "latency": {"mean": 1.5, "p50": 1.0}}}]});
        let err = read(json).unwrap_err().to_string();
        assert!(err.contains("retainSamples: true"), "{err}");
    }
}
