//! pytest-benchmark's JSON (`--benchmark-json=FILE`, or a saved run under
//! `.benchmarks/`), written with `--benchmark-save-data` so that each
//! benchmark carries its rounds in `stats.data`: seconds per iteration, one
//! sample per round. Without that flag only summary statistics are saved,
//! from which no comparison can be made.

use super::{Benchmark, Format, Imported, Importer, Input};
use crate::error::{Error, Result};
use perflab_store::machine_description::MachineDescription;

/// pytest-benchmark's JSON.
pub(super) struct PytestBenchmarkJson;

impl Importer for PytestBenchmarkJson {
    fn format(&self) -> Format {
        Format::PytestBenchmark
    }

    fn recognises(&self, input: &Input) -> bool {
        input.json.as_ref().is_some_and(|j| {
            j.get("benchmarks").is_some_and(|b| {
                j.get("machine_info").is_some()
                    || b.as_array()
                        .and_then(|a| a.first())
                        .is_some_and(|f| f.get("stats").is_some())
            })
        })
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
                    "is not pytest-benchmark's JSON: it has no \"benchmarks\" array; run pytest with \
                     --benchmark-json=FILE --benchmark-save-data",
                )
            })?;
        let mut benchmarks = Vec::new();
        for row in rows {
            // The full name (file::test[params]) is what stays the same
            // from one run to the next; the short one may repeat across files.
            let name = row
                .get("fullname")
                .or_else(|| row.get("name"))
                .and_then(|n| n.as_str())
                .ok_or_else(|| Error::input(path, "a benchmark has no \"fullname\" or \"name\""))?;
            let data = row.get("stats").and_then(|s| s.get("data")).ok_or_else(|| {
                Error::input(
                    path,
                    format!(
                        "benchmark '{name}' has summary statistics only, not its rounds: run pytest with \
                         --benchmark-save-data as well as --benchmark-json, so that each round is kept"
                    ),
                )
            })?;
            let values = data
                .as_array()
                .and_then(|a| a.iter().map(|x| x.as_f64()).collect::<Option<Vec<_>>>())
                .ok_or_else(|| {
                    Error::input(
                        path,
                        format!("benchmark '{name}': \"stats.data\" is not an array of numbers"),
                    )
                })?;
            benchmarks.push(Benchmark::with_metric(name, "wall", "s", values));
        }
        Ok(Imported {
            path: path.clone(),
            format: Format::PytestBenchmark,
            benchmarks,
            default_metric: Some("wall".into()),
            alternatives: false,
            machine: input.json.as_ref().and_then(machine_info),
            runtime: None,
        })
    }
}

/// The machine of the run's `machine_info` (host name, CPU model and
/// count, kernel release; pytest-benchmark records no memory size).
fn machine_info(json: &serde_json::Value) -> Option<MachineDescription> {
    let info = json.get("machine_info")?;
    let text = |v: Option<&serde_json::Value>| {
        v.and_then(|v| v.as_str())
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let cpu = info.get("cpu");
    Some(MachineDescription {
        host: text(info.get("node"))?,
        cpu_model: text(cpu.and_then(|c| c.get("brand_raw"))),
        logical_cores: cpu
            .and_then(|c| c.get("count"))
            .and_then(|n| n.as_u64())
            .map(|n| n as usize),
        kernel: text(info.get("release")),
        ..MachineDescription::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_info_names_the_machine() {
        let json = serde_json::json!({"machine_info": {
            "node": "alpha", "processor": "x86_64", "release": "6.1.0-18-amd64", "system": "Linux",
            "cpu": {"brand_raw": "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz", "count": 28}
        }});
        let machine = machine_info(&json).unwrap();
        assert_eq!(machine.host, "alpha");
        assert_eq!(
            machine.cpu_model.as_deref(),
            Some("Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz")
        );
        assert_eq!(
            (machine.logical_cores, machine.kernel.as_deref()),
            (Some(28), Some("6.1.0-18-amd64"))
        );
        assert_eq!(machine_info(&serde_json::json!({"machine_info": {}})), None);
    }
}
