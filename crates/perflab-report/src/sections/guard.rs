//! A guard's figures as every report words them: the guarded metric's
//! growth from the baseline to the candidate, in its own unit and as a
//! percentage (`peak memory 1.3 MiB → 6.8 MiB (+5.5 MiB, +423%)`), and the
//! limit in the same terms (`may grow by at most 10% or 8 MiB, whichever
//! is larger`).
//!
//! Sign convention: every figure is the candidate's value minus (or over)
//! the baseline's, `+` when the metric grew, whichever way it is better;
//! the limit says "grow" where lower is better and "fall" where higher is.

use perflab_format::change_words::signed_percent;
use perflab_format::result::GuardDoc;
use perflab_format::vocabulary::Better;
use perflab_runner::builtin_metric;

use crate::sections::guard_change;
use crate::units::format_value;

/// The words of one guard, built once for every format.
#[derive(Debug, Clone, PartialEq)]
pub struct GuardWords {
    /// The metric's readable name (`peak memory`).
    pub label: String,
    /// `1.3 MiB → 6.8 MiB`, the medians of both sides; empty when the
    /// document does not record them.
    pub values: String,
    /// The growth in the metric's unit: `+5.5 MiB`, with its interval for
    /// a guard with a floor (`+5.5 MiB [+5.3 MiB, +5.7 MiB]`); from the
    /// medians without one; empty when neither is known.
    pub difference: String,
    /// The growth as a percentage with its interval: `+423% [+400%, +450%]`.
    pub relative: String,
    /// The limit: `+10%`, or `+10% or +8.0 MiB, whichever is larger`.
    pub limit: String,
    /// The verb of a worsening: `grow` where lower is better, `fall` where
    /// higher is.
    pub worsens: &'static str,
}

impl GuardWords {
    /// The words of `g`.
    pub fn new(g: &GuardDoc) -> Self {
        let better = g.better.unwrap_or(Better::Lower);
        let unit = g.unit.as_deref().unwrap_or("");
        let label = builtin_metric(&g.metric)
            .map_or(g.metric.as_str(), |(label, _)| label)
            .to_string();
        let values = g
            .medians
            .map(|[a, b]| format!("{} → {}", format_value(a, unit), format_value(b, unit)))
            .unwrap_or_default();
        let difference = match (g.difference, g.difference_ci, g.medians) {
            (Some(d), Some([lo, hi]), _) => format!(
                "{} [{}, {}]",
                signed_value(d, unit),
                signed_value(lo, unit),
                signed_value(hi, unit)
            ),
            (Some(d), None, _) => signed_value(d, unit),
            (None, _, Some([a, b])) => signed_value(b - a, unit),
            _ => String::new(),
        };
        let (sign, worsens) = match better {
            Better::Lower => (1.0, "grow"),
            Better::Higher => (-1.0, "fall"),
        };
        let relative_limit = signed_percent(sign * g.max_worsening);
        let limit = match g.floor {
            Some(floor) => format!(
                "{relative_limit} or {}, whichever is larger",
                signed_value(sign * floor, unit)
            ),
            None => relative_limit,
        };
        GuardWords {
            label,
            values,
            difference,
            relative: guard_change(g).cell(),
            limit,
            worsens,
        }
    }

    /// The change in one phrase: `1.3 MiB → 6.8 MiB (+5.5 MiB, +423% [+400%,
    /// +450%])`, or the percentage alone when the document has no values.
    pub fn change(&self) -> String {
        match (self.values.is_empty(), self.difference.is_empty()) {
            (false, false) => format!("{} ({}, {})", self.values, self.difference, self.relative),
            (false, true) => format!("{} ({})", self.values, self.relative),
            (true, false) => format!("{}, {}", self.difference, self.relative),
            (true, true) => self.relative.clone(),
        }
    }

    /// The limit as a clause: `may grow by at most +10% or +8.0 MiB,
    /// whichever is larger`.
    pub fn limit_clause(&self) -> String {
        format!("may {} by at most {}", self.worsens, self.limit)
    }

    /// One line for the terminal and HTML: `peak memory 1.3 MiB → 6.8 MiB
    /// (+5.5 MiB, +423%); may grow by at most +10% or +8.0 MiB, whichever is
    /// larger: pass`.
    pub fn line(&self, status: &str) -> String {
        format!(
            "{} {}; {}: {status}",
            self.label,
            self.change(),
            self.limit_clause()
        )
    }
}

/// A signed value in its unit: `+5.5 MiB`, `-120 KiB`, `+2.000 ms`.
pub(crate) fn signed_value(value: f64, unit: &str) -> String {
    let sign = if value < 0.0 { "-" } else { "+" };
    format!("{sign}{}", format_value(value.abs(), unit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use perflab_format::vocabulary::GuardStatus;

    fn doc(floor: Option<f64>) -> GuardDoc {
        // 1.3 MiB → 6.8 MiB: the change in rate is 1331/6963 - 1.
        let (a, b) = (1331.2, 6963.2);
        GuardDoc {
            metric: "peak-memory".into(),
            max_worsening: 0.10,
            better: Some(Better::Lower),
            change: a / b - 1.0,
            ci: [a / (b + 200.0) - 1.0, a / (b - 200.0) - 1.0],
            status: GuardStatus::Pass,
            floor,
            unit: Some("KiB".into()),
            medians: Some([a, b]),
            difference: floor.map(|_| b - a),
            difference_ci: floor.map(|_| [b - a - 200.0, b - a + 200.0]),
        }
    }

    #[test]
    fn a_guard_reads_as_the_growth_of_its_metric() {
        let w = GuardWords::new(&doc(Some(8192.0)));
        assert_eq!(
            w.line("pass"),
            "peak memory 1.3 MiB → 6.8 MiB (+5.5 MiB [+5.3 MiB, +5.7 MiB], +423.1% [+408.1%, +438.1%]); \
             may grow by at most +10.0% or +8.0 MiB, whichever is larger: pass"
        );
        let w = GuardWords::new(&doc(None));
        assert_eq!(
            w.line("violated"),
            "peak memory 1.3 MiB → 6.8 MiB (+5.5 MiB, +423.1% [+408.1%, +438.1%]); \
             may grow by at most +10.0%: violated"
        );
    }

    #[test]
    fn a_metric_where_higher_is_better_falls() {
        let mut g = doc(None);
        g.metric = "throughput".into();
        g.better = Some(Better::Higher);
        g.unit = Some(String::new());
        g.medians = Some([100.0, 80.0]);
        g.change = -0.2;
        g.ci = [-0.25, -0.15];
        let w = GuardWords::new(&g);
        assert_eq!(w.difference, "-20");
        assert_eq!(w.limit_clause(), "may fall by at most -10.0%");
    }

    #[test]
    fn an_old_document_without_values_keeps_its_percentage() {
        let mut g = doc(None);
        g.medians = None;
        g.unit = None;
        assert_eq!(GuardWords::new(&g).change(), "+423.1% [+408.1%, +438.1%]");
    }
}
