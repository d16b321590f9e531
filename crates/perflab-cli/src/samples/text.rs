//! Plain numbers: one or more per line, the format of last resort.

use std::path::Path;

use perflab_runner::parse_si_number;

use super::{Benchmark, Format, Imported, Importer, Input, file_stem};
use crate::error::{Error, Result};

/// A text file of numbers.
pub struct PlainNumbers;

impl Importer for PlainNumbers {
    fn format(&self) -> Format {
        Format::Text
    }

    fn recognises(&self, input: &Input) -> bool {
        input.text.is_some() && input.json.is_none()
    }

    fn read(&self, input: &Input) -> Result<Imported> {
        let text = input.text.as_deref().ok_or_else(|| {
            Error::input(&input.path, "is a folder; a file of numbers was expected")
        })?;
        let values = read_text(&input.path, text)?;
        Ok(Imported {
            path: input.path.clone(),
            format: Format::Text,
            benchmarks: vec![Benchmark::with_metric(
                file_stem(&input.path),
                "value",
                "",
                values,
            )],
            default_metric: None,
            alternatives: true,
            machine: None,
        })
    }
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
                    format!("'{token}' is not a number; the file must hold one number per line (K/M/G suffixes allowed, # for comments), \
                             or be a benchmark harness's output that perflab reads (see --format)"),
                )
            })?;
            values.push(value);
        }
    }
    Ok(values)
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
}
