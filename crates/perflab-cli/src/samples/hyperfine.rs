//! A hyperfine export (`hyperfine --export-json`): each command is an
//! alternative, with the wall time of each run.

use super::{Benchmark, Format, Imported, Importer, Input};
use crate::error::{Error, Result};

/// `hyperfine --export-json`.
pub(super) struct HyperfineExport;

impl Importer for HyperfineExport {
    fn format(&self) -> Format {
        Format::Hyperfine
    }

    fn recognises(&self, input: &Input) -> bool {
        input
            .json
            .as_ref()
            .is_some_and(|j| j.get("results").is_some_and(|r| r.is_array()))
    }

    fn read(&self, input: &Input) -> Result<Imported> {
        let path = &input.path;
        let results = input
            .json
            .as_ref()
            .and_then(|j| j.get("results"))
            .and_then(|r| r.as_array())
            .ok_or_else(|| {
                Error::input(path, "is not a hyperfine export: it has no \"results\" array; export it with hyperfine --export-json")
            })?;
        let mut benchmarks = Vec::new();
        for result in results {
            let name = result
                .get("command")
                .and_then(|c| c.as_str())
                .unwrap_or("?");
            let times = result.get("times").and_then(|t| t.as_array()).ok_or_else(|| {
                Error::input(path, "this hyperfine export has no \"times\" array; export it with hyperfine --export-json")
            })?;
            let values = times
                .iter()
                .map(|t| t.as_f64())
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| Error::input(path, "a value in \"times\" is not a number"))?;
            benchmarks.push(Benchmark::with_metric(name, "wall", "s", values));
        }
        Ok(Imported {
            path: path.clone(),
            format: Format::Hyperfine,
            benchmarks,
            default_metric: Some("wall".into()),
            alternatives: true,
            machine: None,
            runtime: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::samples::read_source;

    #[test]
    fn a_hyperfine_export_needs_a_selector_when_it_has_two_commands() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.json");
        std::fs::write(
            &path,
            r#"{"results":[{"command":"a","times":[1.0,2.0]},{"command":"b","times":[3.0,4.0]}]}"#,
        )
        .unwrap();
        let input = path.display().to_string();
        let source = read_source(&input, None).unwrap();
        let err = crate::samples::one_series(&source, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("#0 a, #1 b"), "{err}");
        let s = crate::samples::read_samples(&format!("{input}#b"), None).unwrap();
        assert_eq!(s.values, vec![3.0, 4.0]);
    }
}
