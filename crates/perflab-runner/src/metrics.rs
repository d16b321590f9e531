//! Finding metrics in a run's output: `PERFLAB_METRIC <name> <value> [<unit>]`
//! lines, `PERFLAB_COUNT <name> <value>` lines (how often something happened,
//! from programs that are not instrumented), and `--metric NAME=REGEX` for
//! programs that cannot be changed.

use std::collections::BTreeMap;

use regex::Regex;

use crate::MetricValue;
use crate::error::{Error, Result};
use crate::escape_control;
use crate::perf_events::perf_event_metric;
use crate::si_number::read_si_number;

/// The metrics every run has without looking at its output, with their units.
pub fn builtin_metric(name: &str) -> Option<(&'static str, &'static str)> {
    match name {
        "wall" => Some(("wall time", "s")),
        "cpu" => Some(("CPU time (user+sys)", "s")),
        "user" => Some(("user CPU time", "s")),
        "sys" => Some(("system CPU time", "s")),
        "peak-memory" => Some(("peak memory", "KiB")),
        crate::CPU_WAIT => Some(("CPU wait (runnable, no CPU)", "s")),
        crate::CPU_WAIT_FULL => Some(("CPU wait of every process at once", "s")),
        "instructions" => Some(("instructions executed (callgrind)", "instructions")),
        other => perf_event_metric(other),
    }
}

/// The patterns a run's output is searched for.
#[derive(Debug, Default)]
pub struct MetricExtractor {
    patterns: Vec<(String, Regex)>,
}

impl MetricExtractor {
    /// Builds an extractor from `NAME=REGEX` definitions (the `--metric` flag).
    pub fn from_definitions(definitions: &[String]) -> Result<Self> {
        let mut patterns = Vec::new();
        for definition in definitions {
            let Some((name, pattern)) = definition.split_once('=') else {
                return Err(Error::usage(
                    "--metric",
                    format!(
                        "'{definition}' has no '='; write NAME=REGEX, e.g. 'throughput=([0-9.]+[KMG]?) ops/s'"
                    ),
                ));
            };
            Self::check_name(name, "--metric")?;
            let regex = Regex::new(pattern).map_err(|e| {
                Error::usage(
                    "--metric",
                    format!("the pattern for '{name}' is not a valid regular expression: {e}"),
                )
            })?;
            patterns.push((name.to_string(), regex));
        }
        Ok(Self { patterns })
    }

    /// Builds an extractor from named patterns (the experiment file's `[metrics]`).
    pub fn from_pairs(pairs: Vec<(String, Regex)>) -> Self {
        Self { patterns: pairs }
    }

    /// Rejects names that clash with built-in metrics or cannot be typed on a command line.
    pub fn check_name(name: &str, flag: &str) -> Result<()> {
        if builtin_metric(name).is_some() {
            return Err(Error::usage(
                flag,
                format!("'{name}' is a built-in metric; give the extracted one another name"),
            ));
        }
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || "_-.".contains(c))
        {
            return Err(Error::usage(
                flag,
                format!(
                    "'{name}' is not a usable metric name; use letters, digits, '_', '-' or '.'"
                ),
            ));
        }
        Ok(())
    }

    /// Whether any `--metric` pattern is given (then every line of the
    /// output must be looked at).
    pub(crate) fn has_patterns(&self) -> bool {
        !self.patterns.is_empty()
    }

    /// The names of the patterns.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.patterns.iter().map(|(n, _)| n.as_str())
    }

    /// Looks at one line of output; the last value seen for a metric wins.
    /// A metric whose line is there but whose value cannot be read goes
    /// into `unreadable`, with what is wrong (until a later line gives it a
    /// value). Returns whether the line held a metric.
    pub fn scan_line(
        &self,
        line: &str,
        found: &mut BTreeMap<String, MetricValue>,
        unreadable: &mut BTreeMap<String, String>,
    ) -> bool {
        let mut held = false;
        let marked = parse_metric_line(line).or_else(|| parse_count_line(line));
        if let Some((name, value)) = marked {
            record(name, value, found, unreadable);
            held = true;
        }
        for (name, regex) in &self.patterns {
            let Some(captures) = regex.captures(line) else {
                continue;
            };
            let text = captures
                .get(1)
                .or_else(|| captures.get(0))
                .map_or("", |m| m.as_str());
            let value = read_si_number(text)
                .map(|value| MetricValue {
                    value,
                    unit: String::new(),
                })
                .map_err(|problem| {
                    format!(
                        "the --metric pattern for '{name}' matched '{}' in the line `{}`, which {problem}",
                        escape_control(text),
                        escape_control(line.trim())
                    )
                });
            record(name, value, found, unreadable);
            held = true;
        }
        held
    }
}

/// Keeps a metric's value, or what made it unreadable, in place of
/// whatever an earlier line gave it.
fn record(
    name: &str,
    value: std::result::Result<MetricValue, String>,
    found: &mut BTreeMap<String, MetricValue>,
    unreadable: &mut BTreeMap<String, String>,
) {
    match value {
        Ok(value) => {
            unreadable.remove(name);
            found.insert(name.to_string(), value);
        }
        Err(problem) => {
            found.remove(name);
            unreadable.insert(name.to_string(), problem);
        }
    }
}

/// What a metric line gave: its metric's name and value, or what is wrong
/// with the value.
type MarkedMetric<'a> = (&'a str, std::result::Result<MetricValue, String>);

/// The value word of a `PERFLAB_METRIC` or `PERFLAB_COUNT` line, read.
fn marked_value(line: &str, word: &str, unit: String) -> std::result::Result<MetricValue, String> {
    read_si_number(word)
        .map(|value| MetricValue { value, unit })
        .map_err(|problem| {
            format!(
                "the line `{}` gives the value '{}', which {problem}",
                escape_control(line.trim()),
                escape_control(word)
            )
        })
}

/// Parses `PERFLAB_METRIC <name> <value> [<unit>]`, wherever the line has it.
fn parse_metric_line(line: &str) -> Option<MarkedMetric<'_>> {
    parse_marked(line, "PERFLAB_METRIC ", |rest| {
        rest.collect::<Vec<_>>().join(" ")
    })
}

/// The unit of a metric read from a `PERFLAB_COUNT` line.
pub const COUNT_UNIT: &str = "count";

/// Parses `PERFLAB_COUNT <name> <value>`, wherever the line has it: a count
/// is a metric whose unit is [`COUNT_UNIT`]. Anything after the value is
/// ignored, as a count has no unit of its own.
fn parse_count_line(line: &str) -> Option<MarkedMetric<'_>> {
    parse_marked(line, "PERFLAB_COUNT ", |_| COUNT_UNIT.to_string())
}

/// Parses `<marker><name> <value> ...` wherever the line has it; `unit`
/// makes the unit from the words after the value.
fn parse_marked<'a>(
    line: &'a str,
    marker: &str,
    unit: impl FnOnce(std::str::SplitWhitespace<'a>) -> String,
) -> Option<MarkedMetric<'a>> {
    let start = line.find(marker)?;
    let mut words = line[start + marker.len()..].split_whitespace();
    let name = words.next()?;
    let Some(word) = words.next() else {
        return Some((
            name,
            Err(format!(
                "the line `{}` has no value after the name",
                escape_control(line.trim())
            )),
        ));
    };
    Some((name, marked_value(line, word, unit(words))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(extractor: &MetricExtractor, text: &str) -> BTreeMap<String, MetricValue> {
        scan_all(extractor, text).0
    }

    fn scan_all(
        extractor: &MetricExtractor,
        text: &str,
    ) -> (BTreeMap<String, MetricValue>, BTreeMap<String, String>) {
        let (mut found, mut unreadable) = (BTreeMap::new(), BTreeMap::new());
        for line in text.lines() {
            extractor.scan_line(line, &mut found, &mut unreadable);
        }
        (found, unreadable)
    }

    #[test]
    fn a_metric_line_with_a_value_that_is_no_finite_number_says_what_is_wrong() {
        let (found, unreadable) = scan_all(
            &MetricExtractor::default(),
            "PERFLAB_METRIC a inf\nPERFLAB_METRIC b NaN ms\nPERFLAB_METRIC c 1e400\n\
             PERFLAB_METRIC d 1,5\nPERFLAB_COUNT e\nPERFLAB_METRIC f 1,500\n",
        );
        assert_eq!(found.keys().collect::<Vec<_>>(), ["f"]);
        assert_eq!(found["f"].value, 1500.0);
        assert!(
            unreadable["a"].contains("value 'inf', which is not a finite number"),
            "{unreadable:?}"
        );
        assert!(
            unreadable["a"].contains("`PERFLAB_METRIC a inf`"),
            "{unreadable:?}"
        );
        assert!(
            unreadable["b"].contains("'NaN', which is not a finite number"),
            "{unreadable:?}"
        );
        assert!(
            unreadable["c"].contains("'1e400', which is not a finite number"),
            "{unreadable:?}"
        );
        assert!(
            unreadable["d"].contains("'1,5', which has a comma"),
            "{unreadable:?}"
        );
        assert!(unreadable["e"].contains("no value"), "{unreadable:?}");
    }

    #[test]
    fn the_last_line_of_a_metric_decides_whether_its_value_is_readable() {
        let extractor = MetricExtractor::default();
        let (found, unreadable) =
            scan_all(&extractor, "PERFLAB_METRIC m inf\nPERFLAB_METRIC m 2\n");
        assert_eq!((found["m"].value, unreadable.len()), (2.0, 0));
        let (found, unreadable) =
            scan_all(&extractor, "PERFLAB_METRIC m 2\nPERFLAB_METRIC m NaN\n");
        assert!(found.is_empty() && unreadable.contains_key("m"));
    }

    #[test]
    fn a_pattern_capturing_no_number_says_what_it_matched() {
        let extractor = MetricExtractor::from_definitions(&["tp=tp: (\\S+)".into()]).unwrap();
        let (found, unreadable) = scan_all(&extractor, "tp: n/a\n");
        assert!(found.is_empty());
        assert!(
            unreadable["tp"].contains(
                "pattern for 'tp' matched 'n/a' in the line `tp: n/a`, which is not a number"
            ),
            "{unreadable:?}"
        );
    }

    #[test]
    fn metric_lines_give_name_value_and_unit() {
        let found = scan(
            &MetricExtractor::default(),
            "hello\nPERFLAB_METRIC throughput 46.94M ops/s\n",
        );
        assert_eq!(
            found["throughput"],
            MetricValue {
                value: 46.94e6,
                unit: "ops/s".into()
            }
        );
    }

    #[test]
    fn count_lines_are_metrics_counted_in_count() {
        let found = scan(
            &MetricExtractor::default(),
            "log: PERFLAB_COUNT disputes 1.5K\nPERFLAB_COUNT transactions 100000\nPERFLAB_COUNT nothing\n",
        );
        assert_eq!(found["disputes"].value, 1500.0);
        assert_eq!(found["disputes"].unit, COUNT_UNIT);
        assert_eq!(found["transactions"].value, 1e5);
        assert!(!found.contains_key("nothing"));
    }

    #[test]
    fn regex_metrics_understand_suffixes() {
        let extractor =
            MetricExtractor::from_definitions(&["tp=Throughput = ([0-9.]+[KMG]?)".into()]).unwrap();
        let found = scan(&extractor, "Throughput = 46.94M ops/s");
        assert_eq!(found["tp"].value, 46.94e6);
    }

    #[test]
    fn a_definition_without_equals_is_a_usage_error() {
        let err = MetricExtractor::from_definitions(&["throughput".into()]).unwrap_err();
        assert!(err.to_string().contains("NAME=REGEX"), "{err}");
    }

    #[test]
    fn builtin_names_cannot_be_redefined() {
        assert!(MetricExtractor::from_definitions(&["wall=x".into()]).is_err());
    }
}
