//! criterion's results: a `target/criterion` folder (or a group's, or one
//! benchmark's, or one baseline's), or one `sample.json`.
//!
//! criterion keeps, per benchmark, a folder per baseline (`new` for the
//! latest run, `base` for the one before, or the name given to
//! `--save-baseline`), each with a `sample.json` of per-sample iteration
//! counts and total times in nanoseconds, and a `benchmark.json` naming the
//! benchmark. A sample's value is its time per iteration, in seconds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Benchmark, Format, Imported, Importer, Input};
use crate::error::{Error, Result};

/// criterion's folders or one of its `sample.json` files.
pub(super) struct CriterionFolder;

/// Deeper than `target/criterion/<group>/<bench>/<baseline>/` with room for
/// nested groups; the bound keeps a mistaken `perflab compare /` short.
const MAX_DEPTH: usize = 8;

impl Importer for CriterionFolder {
    fn format(&self) -> Format {
        Format::Criterion
    }

    fn recognises(&self, input: &Input) -> bool {
        // A folder can only be criterion's: no other harness writes one.
        input.text.is_none()
            || input
                .json
                .as_ref()
                .is_some_and(|j| j.get("iters").is_some() && j.get("times").is_some())
    }

    fn read(&self, input: &Input) -> Result<Imported> {
        let path = &input.path;
        let benchmarks = if input.text.is_some() {
            if input.selector.is_some() {
                return Err(Error::input(
                    path,
                    "is one sample.json: a #BASELINE only applies to a criterion folder; remove it",
                ));
            }
            vec![read_sample(path, input.json.as_ref())?]
        } else {
            let mut found = Vec::new();
            sample_files(path, 0, &mut found);
            if found.is_empty() {
                return Err(Error::input(
                    path,
                    "is a folder without criterion samples: no sample.json below it. Run the \
                     benchmarks first (cargo bench), then give target/criterion, a group or a \
                     benchmark folder under it",
                ));
            }
            let mut by_baseline: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
            for file in found {
                let baseline = file
                    .parent()
                    .and_then(Path::file_name)
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                by_baseline.entry(baseline).or_default().push(file);
            }
            let names: Vec<&str> = by_baseline.keys().map(String::as_str).collect();
            let files = match (&input.selector, by_baseline.len()) {
                (Some(s), _) => by_baseline.get(s).ok_or_else(|| {
                    Error::input(
                        path,
                        format!(
                            "has no criterion baseline '{s}'; it has {}",
                            names.join(", ")
                        ),
                    )
                })?,
                (None, 1) => by_baseline.values().next().expect("one baseline"),
                (None, _) => {
                    return Err(Error::input(
                        path,
                        format!(
                            "holds the criterion baselines {}; pick one with {}#NAME (criterion keeps \
                             the latest run in 'new', the one before in 'base', and \
                             --save-baseline NAME in 'NAME')",
                            names.join(", "),
                            path.display()
                        ),
                    ));
                }
            };
            files
                .iter()
                .map(|f| read_sample(f, None))
                .collect::<Result<Vec<_>>>()?
        };
        Ok(Imported {
            path: path.clone(),
            format: Format::Criterion,
            benchmarks,
            default_metric: Some("wall".into()),
            alternatives: false,
            machine: None,
            runtime: None,
        })
    }
}

/// Every `sample.json` under `dir`, in path order.
fn sample_files(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() && depth < MAX_DEPTH {
            sample_files(&p, depth + 1, found);
        } else if p.file_name().is_some_and(|n| n == "sample.json") {
            found.push(p);
        }
    }
}

/// One benchmark from its `sample.json` (parsed already, or read here).
fn read_sample(path: &Path, parsed: Option<&serde_json::Value>) -> Result<Benchmark> {
    let owned;
    let json = match parsed {
        Some(j) => j,
        None => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Error::input(path, format!("cannot read criterion's samples: {e}")))?;
            owned = serde_json::from_str::<serde_json::Value>(&text)
                .map_err(|e| Error::input(path, format!("is not valid JSON: {e}")))?;
            &owned
        }
    };
    let list = |field: &str| -> Result<Vec<f64>> {
        json.get(field)
            .and_then(|v| v.as_array())
            .and_then(|a| a.iter().map(|x| x.as_f64()).collect::<Option<Vec<_>>>())
            .ok_or_else(|| {
                Error::input(
                    path,
                    format!(
                        "is not criterion's sample.json: it has no array of numbers \"{field}\" \
                         (criterion writes \"iters\" and \"times\" per sample)"
                    ),
                )
            })
    };
    let (iters, times) = (list("iters")?, list("times")?);
    if iters.len() != times.len() || iters.iter().any(|i| *i <= 0.0) {
        return Err(Error::input(
            path,
            format!(
                "has {} iteration counts and {} times, or a count that is not positive; \
                 criterion writes one positive count per time: run the benchmark again",
                iters.len(),
                times.len()
            ),
        ));
    }
    // criterion records nanoseconds for the whole sample.
    let values = times.iter().zip(&iters).map(|(t, n)| t / n / 1e9).collect();
    Ok(Benchmark::with_metric(
        benchmark_name(path),
        "wall",
        "s",
        values,
    ))
}

/// The benchmark's `full_id` from the `benchmark.json` next to its samples,
/// else the folder names above the baseline.
fn benchmark_name(sample: &Path) -> String {
    let baseline = sample.parent().unwrap_or(Path::new("."));
    let described = std::fs::read_to_string(baseline.join("benchmark.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|j| j.get("full_id")?.as_str().map(str::to_string));
    described.unwrap_or_else(|| {
        let bench = baseline.parent().unwrap_or(baseline);
        let group = bench.parent().and_then(Path::file_name);
        let bench = bench.file_name().map(|n| n.to_string_lossy().into_owned());
        match (group, bench) {
            (Some(g), Some(b)) => format!("{}/{b}", g.to_string_lossy()),
            (None, Some(b)) => b,
            _ => "sample".to_string(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_is_its_time_per_iteration_in_seconds() {
        let json = serde_json::json!({"sampling_mode": "Linear", "iters": [2.0, 4.0], "times": [3000.0, 8000.0]});
        let b = read_sample(Path::new("x/sample.json"), Some(&json)).unwrap();
        assert_eq!(b.metrics["wall"].values, vec![1.5e-6, 2e-6]);
    }

    #[test]
    fn counts_and_times_of_different_lengths_are_refused() {
        let json = serde_json::json!({"iters": [2.0], "times": [3000.0, 8000.0]});
        let err = read_sample(Path::new("s.json"), Some(&json))
            .unwrap_err()
            .to_string();
        assert!(err.contains("1 iteration counts and 2 times"), "{err}");
    }
}
