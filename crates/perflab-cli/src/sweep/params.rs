//! Sweep parameters: `-p NAME=VALUES` with a list (`1000,10000`, `fast,slow`)
//! or a range (`1K..100K:x10` geometric, `1..8:+1` or `1..8` arithmetic),
//! and the points of their cross product.

use perflab_report::units::number_text;
use perflab_runner::parse_si_number;

use crate::error::{Error, Result};

/// Most values one parameter may expand to: a typo such as `1..1M` should be
/// an error, not a sweep that runs for a week.
pub const MAX_VALUES: usize = 1000;
/// Most points a sweep may have (the cross product of its parameters).
pub const MAX_POINTS: usize = 10_000;

/// One value of a parameter: the text substituted into commands, and its
/// number when it is one.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamValue {
    /// The text substituted for `{name}`.
    pub text: String,
    /// The value as a number, if the text is one (K/M/G suffixes expanded).
    pub number: Option<f64>,
}

/// A parameter and the values it takes, in the order given.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// Its name, as used in `{name}`.
    pub name: String,
    /// Its values.
    pub values: Vec<ParamValue>,
}

impl Parameter {
    /// True when every value is a number greater than zero (usable as a size).
    pub fn is_positive_numeric(&self) -> bool {
        self.values
            .iter()
            .all(|v| v.number.is_some_and(|n| n > 0.0))
    }
}

/// One point of a sweep: a value for every parameter, in parameter order.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// (parameter name, value) pairs.
    pub values: Vec<(String, ParamValue)>,
}

impl Point {
    /// The value of a parameter.
    pub fn get(&self, name: &str) -> Option<&ParamValue> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// `n=1000 threads=4`: how the point is shown and stored.
    pub fn label(&self) -> String {
        self.values
            .iter()
            .map(|(n, v)| format!("{n}={}", v.text))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn usage(spec: &str, message: impl std::fmt::Display) -> Error {
    Error::usage(format!("-p {spec}"), message.to_string())
}

/// True for names usable in `{name}`: a letter or `_`, then letters, digits or `_`.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Parses one `-p NAME=VALUES`.
pub fn parse_parameter(spec: &str) -> Result<Parameter> {
    let Some((name, values)) = spec.split_once('=') else {
        return Err(usage(
            spec,
            "is not NAME=VALUES; write e.g. -p n=1000,10000 (a list) or -p n=1K..100K:x10 (a range)",
        ));
    };
    let name = name.trim();
    if !is_identifier(name) {
        return Err(usage(
            spec,
            format!(
                "'{name}' is not a usable parameter name; use letters, digits and '_', starting with a letter"
            ),
        ));
    }
    let values = values.trim();
    if values.is_empty() {
        return Err(usage(
            spec,
            format!(
                "no values given for '{name}'; write e.g. -p {name}=1000,10000 or -p {name}=1K..100K:x10"
            ),
        ));
    }
    let values = if values.contains("..") {
        parse_range(spec, values)?
    } else {
        parse_list(spec, values)?
    };
    Ok(Parameter {
        name: name.to_string(),
        values,
    })
}

fn parse_list(spec: &str, list: &str) -> Result<Vec<ParamValue>> {
    let mut values = Vec::new();
    for item in list.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err(usage(
                spec,
                "has an empty value (two commas in a row, or a comma at an end); remove it",
            ));
        }
        values.push(list_value(item));
    }
    if values.len() > MAX_VALUES {
        return Err(usage(
            spec,
            format!(
                "gives {} values, more than the {MAX_VALUES} allowed",
                values.len()
            ),
        ));
    }
    Ok(values)
}

/// A list item: numbers with a K/M/G suffix are expanded (`10K` runs as
/// `10000`), anything else is substituted exactly as written.
fn list_value(item: &str) -> ParamValue {
    let number = parse_si_number(item);
    let has_suffix = item.ends_with(['k', 'K', 'M', 'G']);
    match number {
        Some(n) if has_suffix => ParamValue {
            text: number_text(n),
            number: Some(n),
        },
        _ => ParamValue {
            text: item.to_string(),
            number,
        },
    }
}

enum Step {
    Add(f64),
    Times(f64),
}

fn parse_range(spec: &str, range: &str) -> Result<Vec<ParamValue>> {
    let (bounds, step) = match range.split_once(':') {
        Some((b, s)) => (b, Some(s.trim())),
        None => (range, None),
    };
    let Some((start, end)) = bounds.split_once("..") else {
        return Err(usage(spec, "is not a range START..END"));
    };
    let number = |text: &str, what: &str| {
        parse_si_number(text).ok_or_else(|| {
            usage(
                spec,
                format!(
                    "the range's {what} '{}' is not a number; write e.g. 1K..100K:x10",
                    text.trim()
                ),
            )
        })
    };
    let (start, end) = (number(start, "start")?, number(end, "end")?);
    let step = match step {
        None => Step::Add(1.0),
        Some(s) if s.starts_with(['x', '*']) => Step::Times(number(&s[1..], "factor")?),
        Some(s) if s.starts_with('+') => Step::Add(number(&s[1..], "step")?),
        Some(s) => {
            return Err(usage(
                spec,
                format!(
                    "the step '{s}' is neither +STEP (arithmetic, e.g. :+2) nor xFACTOR (geometric, e.g. :x10)"
                ),
            ));
        }
    };
    if start > end {
        return Err(usage(
            spec,
            "the range runs downwards; write it from the smallest value to the largest (perflab picks the visiting order itself)",
        ));
    }
    let never_ends = |why: &str| usage(spec, format!("this range never reaches its end: {why}"));
    let integral = start == start.trunc()
        && match step {
            Step::Add(s) => s == s.trunc(),
            Step::Times(f) => f == f.trunc(),
        };
    let mut numbers = Vec::new();
    let mut current = start;
    // Tolerate rounding so that 1000 x10 up to 100000 includes 100000; kept
    // finite, or an end near the largest float would let the values reach infinity.
    // Relative to |end|, so that a negative end (-1..-1) still includes itself.
    let limit = (end + end.abs() * 1e-9 + 1e-12).min(f64::MAX);
    while current <= limit {
        let value = if integral { current.round() } else { current };
        if numbers.last() != Some(&value) {
            numbers.push(value);
        }
        if numbers.len() > MAX_VALUES {
            return Err(usage(
                spec,
                format!(
                    "gives more than {MAX_VALUES} values; use a larger step or a geometric range (:x2)"
                ),
            ));
        }
        let next = match step {
            Step::Add(s) if s <= 0.0 => return Err(never_ends("the step must be greater than 0")),
            Step::Add(s) => current + s,
            Step::Times(f) if f <= 1.0 => {
                return Err(never_ends("the factor must be greater than 1"));
            }
            Step::Times(_) if current <= 0.0 => {
                return Err(never_ends(
                    "a geometric range must start above 0 (0 times any factor stays 0)",
                ));
            }
            Step::Times(f) => current * f,
        };
        // Far from zero, floats are too far apart for a small step to move
        // them (1e17 + 1 is 1e17): the loop would never end.
        if next <= current {
            return Err(never_ends(&format!(
                "the step does not change {} (floating-point numbers there are further apart); use a larger step",
                number_text(current)
            )));
        }
        current = next;
    }
    Ok(numbers
        .into_iter()
        .map(|n| ParamValue {
            text: number_text(n),
            number: Some(n),
        })
        .collect())
}

/// Every combination of the parameters' values (the first parameter varies slowest).
pub fn cross_product(parameters: &[Parameter]) -> Result<Vec<Point>> {
    let total = parameters
        .iter()
        .try_fold(1usize, |acc, p| acc.checked_mul(p.values.len()))
        .unwrap_or(usize::MAX);
    if total > MAX_POINTS {
        return Err(Error::usage(
            "-p",
            format!(
                "the parameters give {total} points, more than the {MAX_POINTS} allowed; sweep fewer values"
            ),
        ));
    }
    let mut points = vec![Point { values: Vec::new() }];
    for parameter in parameters {
        points = points
            .into_iter()
            .flat_map(|point| {
                parameter.values.iter().map(move |value| {
                    let mut next = point.clone();
                    next.values.push((parameter.name.clone(), value.clone()));
                    next
                })
            })
            .collect();
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(spec: &str) -> Vec<String> {
        parse_parameter(spec)
            .unwrap()
            .values
            .into_iter()
            .map(|v| v.text)
            .collect()
    }

    fn error(spec: &str) -> String {
        parse_parameter(spec).unwrap_err().to_string()
    }

    #[test]
    fn a_list_keeps_words_and_expands_suffixes() {
        assert_eq!(texts("n=1K,10K,50000"), ["1000", "10000", "50000"]);
        assert_eq!(texts("mode=fast, slow"), ["fast", "slow"]);
        assert_eq!(texts("id=007"), ["007"]);
    }

    #[test]
    fn a_geometric_range_includes_its_end() {
        assert_eq!(texts("n=1K..100K:x10"), ["1000", "10000", "100000"]);
        assert_eq!(texts("n=1..10:x2"), ["1", "2", "4", "8"]);
        assert_eq!(texts("f=0.5..2:x2"), ["0.5", "1", "2"]);
    }

    #[test]
    fn an_arithmetic_range_counts_up() {
        assert_eq!(texts("t=1..4"), ["1", "2", "3", "4"]);
        assert_eq!(texts("t=2..8:+3"), ["2", "5", "8"]);
    }

    #[test]
    fn a_range_ending_below_zero_includes_its_end() {
        assert_eq!(texts("t=-1..-1"), ["-1"]);
        assert_eq!(texts("t=-3..-1"), ["-3", "-2", "-1"]);
    }

    #[test]
    fn malformed_parameters_say_what_to_write() {
        assert!(
            error("n=").contains("no values given for 'n'"),
            "{}",
            error("n=")
        );
        assert!(error("n").contains("NAME=VALUES"));
        assert!(error("1n=3").contains("not a usable parameter name"));
        assert!(error("n=1,,2").contains("empty value"));
        assert!(error("n=a..b").contains("is not a number"));
        assert!(error("n=10..1").contains("smallest value to the largest"));
        assert!(error("n=1..2:%3").contains("neither +STEP"));
    }

    #[test]
    fn ranges_that_never_end_are_refused() {
        assert!(error("n=1..100:x1").contains("never reaches its end"));
        assert!(error("n=1..100:+0").contains("never reaches its end"));
        assert!(error("n=0..100:x2").contains("start above 0"));
        assert!(error("n=1..1M").contains("more than 1000 values"));
    }

    #[test]
    fn the_cross_product_varies_the_last_parameter_fastest() {
        let params = [
            parse_parameter("n=1,2").unwrap(),
            parse_parameter("t=a,b").unwrap(),
        ];
        let labels: Vec<String> = cross_product(&params)
            .unwrap()
            .iter()
            .map(Point::label)
            .collect();
        assert_eq!(labels, ["n=1 t=a", "n=1 t=b", "n=2 t=a", "n=2 t=b"]);
    }
}
