//! Workload expectations: what every run of a workload must show, so that a
//! workload whose intended operation mix never happened is caught before
//! anyone reads its timings.
//!
//! An experiment states them as a TOML inline table,
//!
//! ```toml
//! expect = { disputes = "> 0", "disputes / transactions" = "0.15..0.25" }
//! ```
//!
//! Grammar of a key (the figure):
//!
//! ```text
//! figure := name | name "/" name        (spaces around "/" optional)
//! name   := one or more of letters, digits, '_', '-', '.', ':'
//! ```
//!
//! Grammar of a value (the condition):
//!
//! ```text
//! condition := op number | number ".." number   (a range, both ends included)
//! op        := ">" | ">=" | "<" | "<=" | "==" | "!="
//! number    := decimal with an optional K, M or G suffix (46.94M), or a percent (15%)
//! ```
//!
//! A figure is looked up in the run's metrics first (built-in ones such as
//! `wall`, `PERFLAB_METRIC` and `PERFLAB_COUNT` lines, `--metric` patterns),
//! then in the counters of the profile an instrumented run wrote
//! (`perflab::count!` or the C header), whose value is the sum of the amounts
//! counted (`total`).

mod condition;

use perflab_format::profile::Profile;
use perflab_runner::RunOutcome;

pub use condition::{Comparison, Condition};
use condition::{format_value, parse_name};

use crate::error::{Error, Result};

/// What an expectation is evaluated on: one figure, or the ratio of two.
#[derive(Debug, Clone, PartialEq)]
pub enum Figure {
    /// A metric or counter by name.
    Named(String),
    /// `numerator / denominator`.
    Ratio(String, String),
}

impl Figure {
    /// Parses a key: `name` or `name / name`.
    fn parse(key: &str) -> std::result::Result<Self, String> {
        if key.matches('/').count() > 1 {
            return Err(format!(
                "'{}' has more than one '/'; a key is one figure or the ratio of two",
                key.trim()
            ));
        }
        match key.split_once('/') {
            Some((numerator, denominator)) => Ok(Figure::Ratio(
                parse_name(numerator)?,
                parse_name(denominator)?,
            )),
            None => Ok(Figure::Named(parse_name(key)?)),
        }
    }

    /// The names this figure needs from a run.
    fn names(&self) -> Vec<&str> {
        match self {
            Figure::Named(name) => vec![name.as_str()],
            Figure::Ratio(a, b) => vec![a.as_str(), b.as_str()],
        }
    }
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Figure::Named(name) => f.write_str(name),
            Figure::Ratio(a, b) => write!(f, "{a} / {b}"),
        }
    }
}

/// One expectation: a figure, a condition on it, and how it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    /// The figure evaluated.
    pub figure: Figure,
    /// The condition it must meet.
    pub condition: Condition,
    /// The key and value as the user wrote them, for messages.
    pub written: (String, String),
}

impl std::fmt::Display for Expectation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "\"{}\" = \"{}\"", self.written.0, self.written.1)
    }
}

/// The expectations of a workload, in the order written; empty when none.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expectations {
    /// Each expectation.
    pub items: Vec<Expectation>,
}

/// How an entry may be written, for parse errors.
const ACCEPTED: &str = "write the key as a figure name (disputes) or a ratio (\"disputes / transactions\"), \
     and the value as \"> x\", \">= x\", \"< x\", \"<= x\", \"== x\", \"!= x\" or a range \"lo..hi\" \
     (both ends included); numbers may have a K, M or G suffix (46.94M) or be percents (\"15%..25%\")";

impl Expectations {
    /// Parses the key/value pairs of an `expect = { ... }` table.
    /// The error names the entry at fault and shows the accepted forms.
    pub fn parse(entries: &[(String, String)]) -> std::result::Result<Expectations, String> {
        let items = entries
            .iter()
            .map(|(key, value)| {
                let entry = || format!("expectation \"{key}\" = \"{value}\"");
                let figure =
                    Figure::parse(key).map_err(|m| format!("{}: {m}; {ACCEPTED}", entry()))?;
                let condition =
                    Condition::parse(value).map_err(|m| format!("{}: {m}; {ACCEPTED}", entry()))?;
                Ok(Expectation {
                    figure,
                    condition,
                    written: (key.clone(), value.clone()),
                })
            })
            .collect::<std::result::Result<Vec<_>, String>>()?;
        Ok(Expectations { items })
    }

    /// Whether there is nothing to check.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// A run's figures: its metrics, then its profile's counters.
struct RunFigures<'a> {
    run: &'a RunOutcome,
    profile: Option<Profile>,
    profile_problem: Option<String>,
}

impl<'a> RunFigures<'a> {
    fn of(run: &'a RunOutcome) -> Self {
        let (profile, profile_problem) =
            match run.profile_json.as_deref().map(Profile::from_json_str) {
                Some(Ok(profile)) => (Some(profile), None),
                Some(Err(e)) => (None, Some(e.to_string())),
                None => (None, None),
            };
        Self {
            run,
            profile,
            profile_problem,
        }
    }

    fn get(&self, name: &str) -> Option<f64> {
        self.run.metric(name).or_else(|| {
            let counter = self.profile.as_ref()?.counter(name)?;
            Some(counter.total as f64)
        })
    }

    /// Every name the run reported, for the error about one it did not.
    fn reported(&self) -> String {
        let mut names: Vec<String> = ["wall", "cpu", "user", "sys", "peak-memory"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        names.extend(self.run.metrics.keys().cloned());
        if let Some(profile) = &self.profile {
            names.extend(profile.counters.iter().map(|c| c.name.clone()));
        }
        let mut text = names.join(", ");
        match (&self.profile, &self.profile_problem) {
            (_, Some(problem)) => {
                text.push_str(&format!(" (its profile could not be read: {problem})"))
            }
            (None, None) => text.push_str(" (it wrote no profile, so no counters)"),
            _ => {}
        }
        text
    }
}

/// Evaluates every expectation on a run's figures. The first broken one
/// (or one whose figure the run did not report) is an [`Error::Run`] for
/// `label`, naming `scenario` (empty when the experiment has none), the
/// expectation as written, the value seen and what it was computed from.
pub fn check(expect: &Expectations, run: &RunOutcome, scenario: &str, label: &str) -> Result<()> {
    if expect.is_empty() {
        return Ok(());
    }
    let figures = RunFigures::of(run);
    let whose = if scenario.is_empty() {
        "the experiment".to_string()
    } else {
        format!("scenario \"{scenario}\"")
    };
    let fail = |message: String| Error::Run {
        run: label.to_string(),
        message,
    };
    for expectation in &expect.items {
        let mut values = Vec::new();
        for name in expectation.figure.names() {
            let Some(value) = figures.get(name) else {
                return Err(fail(format!(
                    "{whose} expects {expectation}, but the run did not report '{name}'.\n\
                     It reported: {}.\n\
                     Check the spelling, or make the program report it: perflab::count!(\"{name}\") \
                     (or the C header's counter), a 'PERFLAB_COUNT {name} <n>' line, or a \
                     'PERFLAB_METRIC {name} <value>' line.",
                    figures.reported()
                )));
            };
            values.push(value);
        }
        let (value, shown) = match values.as_slice() {
            [value] => (*value, format_value(*value)),
            [numerator, denominator] => {
                let ratio = numerator / denominator;
                let ratio_text = if ratio.is_finite() {
                    format_value(ratio)
                } else {
                    "undefined (division by zero)".to_string()
                };
                (
                    ratio,
                    format!(
                        "{} / {} = {ratio_text}",
                        format_value(*numerator),
                        format_value(*denominator)
                    ),
                )
            }
            _ => unreachable!("a figure is one name or two"),
        };
        if !expectation.condition.holds(value) {
            return Err(fail(format!(
                "{whose} expects {expectation}, but {} = {shown}.\n\
                 The workload does not produce the declared mix: fix the command or its input \
                 so that it does (or correct the expectation), or pass --ignore-failure to measure \
                 such runs anyway.\nThe end of its output:\n{}",
                expectation.figure,
                perflab_runner::quote_output(&run.output_tail)
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
