//! Reading samples that already exist, for `perflab compare`: plain text
//! (one number per line), a perflab JSON result, or a hyperfine JSON export.

use std::path::{Path, PathBuf};

use perflab_format::result::ResultDocument;
use perflab_runner::parse_si_number;

use crate::error::{Error, Result};

/// Samples read from one input.
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    /// A name for tables: the selected variant or command, or the file name.
    pub name: String,
    /// The values.
    pub values: Vec<f64>,
    /// Their unit, if the source says.
    pub unit: String,
    /// The metric they are of, if the source says (`wall` for hyperfine).
    pub metric: Option<String>,
}

/// Splits `PATH#SELECTOR`, unless the whole text names an existing file.
fn split_selector(input: &str) -> (PathBuf, Option<&str>) {
    if Path::new(input).exists() {
        return (PathBuf::from(input), None);
    }
    match input.rsplit_once('#') {
        Some((path, selector)) => (PathBuf::from(path), Some(selector)),
        None => (PathBuf::from(input), None),
    }
}

/// Reads `PATH[#SELECTOR]`; `metric` picks a metric of a perflab result's runs.
pub fn read_samples(input: &str, metric: Option<&str>) -> Result<Samples> {
    let (path, selector) = split_selector(input);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        let hint = if e.kind() == std::io::ErrorKind::InvalidData {
            "give a text file of numbers or a JSON result"
        } else {
            "check the path"
        };
        Error::input(&path, format!("cannot read the samples: {e}; {hint}"))
    })?;
    let samples = if text.trim_start().starts_with('{') {
        read_json(&path, &text, selector, metric)?
    } else {
        if selector.is_some() {
            return Err(Error::input(
                &path,
                "a #SELECTOR only applies to JSON results; remove it for a text file",
            ));
        }
        Samples {
            name: file_stem(&path),
            values: read_text(&path, &text)?,
            unit: String::new(),
            metric: None,
        }
    };
    if samples.values.len() < 2 {
        return Err(Error::input(
            &path,
            format!(
                "holds {} value(s); at least 2 are needed to estimate the noise, and 10 or more to decide well",
                samples.values.len()
            ),
        ));
    }
    Ok(samples)
}

fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Numbers separated by white space, commas or brackets; `#` starts a comment.
fn read_text(path: &Path, text: &str) -> Result<Vec<f64>> {
    let mut values = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or_default();
        for token in content
            .split(|c: char| c.is_whitespace() || ",;[]".contains(c))
            .filter(|t| !t.is_empty())
        {
            let value = parse_si_number(token).ok_or_else(|| {
                Error::input(
                    format!("{}:{}", path.display(), number + 1),
                    format!("'{token}' is not a number; the file must hold one number per line (K/M/G suffixes allowed, # for comments)"),
                )
            })?;
            values.push(value);
        }
    }
    Ok(values)
}

fn read_json(
    path: &Path,
    text: &str,
    selector: Option<&str>,
    metric: Option<&str>,
) -> Result<Samples> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| Error::input(path, format!("is not valid JSON: {e}")))?;
    if value.get("format").is_some() {
        let doc =
            ResultDocument::from_json_str(text).map_err(|e| Error::input(path, e.to_string()))?;
        let names: Vec<&str> = doc.variants.iter().map(|v| v.name.as_str()).collect();
        let index = select(path, selector, &names)?;
        let variant = &doc.variants[index];
        let (values, unit) = match metric {
            None => (variant.samples.clone(), doc.metric.unit.clone()),
            Some(m) => {
                let values: Option<Vec<f64>> = variant
                    .run_details
                    .iter()
                    .map(|r| match m {
                        "wall" => Some(r.wall_s),
                        "cpu" => Some(r.user_s + r.sys_s),
                        "peak-memory" => Some(r.peak_memory_kib),
                        other => r.metrics.get(other).copied(),
                    })
                    .collect();
                let values = values.filter(|v| !v.is_empty()).ok_or_else(|| {
                    Error::input(
                        path,
                        format!("variant '{}' has no metric '{m}' in its runs", variant.name),
                    )
                })?;
                (
                    values,
                    perflab_runner::builtin_metric(m)
                        .map(|(_, u)| u.to_string())
                        .unwrap_or_default(),
                )
            }
        };
        return Ok(Samples {
            name: variant.name.clone(),
            values,
            unit,
            metric: Some(metric.unwrap_or(&doc.metric.name).to_string()),
        });
    }
    if let Some(results) = value.get("results").and_then(|r| r.as_array()) {
        let names: Vec<&str> = results
            .iter()
            .map(|r| r.get("command").and_then(|c| c.as_str()).unwrap_or("?"))
            .collect();
        if metric.is_some_and(|m| m != "wall") {
            return Err(Error::input(
                path,
                format!(
                    "a hyperfine export holds the wall time of each run only, not '{}'; drop --measure or use --measure wall",
                    metric.unwrap_or_default()
                ),
            ));
        }
        let index = select(path, selector, &names)?;
        let times = results[index].get("times").and_then(|t| t.as_array()).ok_or_else(|| {
            Error::input(path, "this hyperfine export has no \"times\" array; export it with hyperfine --export-json")
        })?;
        let values = times
            .iter()
            .map(|t| t.as_f64())
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| Error::input(path, "a value in \"times\" is not a number"))?;
        return Ok(Samples {
            name: names[index].to_string(),
            values,
            unit: "s".into(),
            metric: Some("wall".into()),
        });
    }
    Err(Error::input(
        path,
        "is JSON but neither a perflab result (\"format\") nor a hyperfine export (\"results\")",
    ))
}

/// Picks one of several named series by name or index.
fn select(path: &Path, selector: Option<&str>, names: &[&str]) -> Result<usize> {
    let listing = || {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| format!("#{i} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match selector {
        None if names.len() == 1 => Ok(0),
        None => Err(Error::input(
            path,
            format!(
                "holds {} series ({}); pick one with {}#NAME or {}#INDEX",
                names.len(),
                listing(),
                path.display(),
                path.display()
            ),
        )),
        Some(s) => names
            .iter()
            .position(|n| *n == s)
            .or_else(|| s.parse::<usize>().ok().filter(|i| *i < names.len()))
            .ok_or_else(|| {
                Error::input(path, format!("has no series '{s}'; it has {}", listing()))
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_with_suffixes_brackets_and_comments_is_read() {
        let values =
            read_text(Path::new("x"), "# run 1\n[45.52M, 44.88M]\n\n1.5K # note\n").unwrap();
        assert_eq!(values, vec![45.52e6, 44.88e6, 1500.0]);
    }

    #[test]
    fn a_word_in_the_file_is_reported_with_its_line() {
        let err = read_text(Path::new("s.txt"), "1\n2\nfast\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("s.txt:3:"), "{err}");
        assert!(err.contains("'fast'"), "{err}");
    }

    #[test]
    fn a_hyperfine_export_needs_a_selector_when_it_has_two_commands() {
        let json =
            r#"{"results":[{"command":"a","times":[1.0,2.0]},{"command":"b","times":[3.0,4.0]}]}"#;
        let err = read_json(Path::new("h.json"), json, None, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("#0 a, #1 b"), "{err}");
        let s = read_json(Path::new("h.json"), json, Some("b"), None).unwrap();
        assert_eq!(s.values, vec![3.0, 4.0]);
    }
}
