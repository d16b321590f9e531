//! The one wording of a change between two variants, used by every report
//! (terminal, Markdown, HTML), by the decision's reasons and by every
//! command that compares (A/B, suites, sweeps against a reference,
//! compare, history, bisect).
//!
//! Documents store a change in the decision's orientation: a fraction,
//! positive when the candidate is better (`exp(g) - 1` of the log gain `g`).
//! That orientation suits the decision but not a reader: for a time, "-17%"
//! would mean the candidate takes about 20% *longer*. So every change is
//! shown as the candidate's value over the baseline's, a ratio and its
//! percentage, whichever way the metric is better:
//!
//! - a time (`wall`, `cpu`, `user`, `sys`): `B takes 1.21× as long as A (+20.8%)`;
//! - any other metric: `B's throughput is 0.83× A's (-17.0%)`.
//!
//! Intervals are given in the same terms (`[+18.0%, +24.0%]`), and the
//! word "worse" is never attached to a signed figure.

use crate::vocabulary::Better;

/// Whether a metric is a time, worded "takes ... as long".
pub(crate) fn is_time(metric: &str) -> bool {
    matches!(metric, "wall" | "cpu" | "user" | "sys")
}

/// A percentage of a fraction with its sign: one decimal from 1% up, two
/// below (`+20.8%`, `-0.25%`).
pub fn signed_percent(fraction: f64) -> String {
    let percent = fraction * 100.0;
    if percent.abs() >= 1.0 {
        format!("{percent:+.1}%")
    } else {
        format!("{percent:+.2}%")
    }
}

/// An interval of two signed percentages: `[+18.0%, +24.0%]`.
pub fn percent_interval(lo: f64, hi: f64) -> String {
    format!("[{}, {}]", signed_percent(lo), signed_percent(hi))
}

/// The candidate's value of a metric relative to the baseline's: a ratio
/// (candidate over baseline) with its interval, and how to word it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangeWords<'a> {
    /// The metric's name (`wall`, `peak-memory`, ...).
    pub metric: &'a str,
    /// Candidate over baseline.
    pub ratio: f64,
    /// Interval of `ratio`, `[lo, hi]` with `lo <= hi`, when there is one.
    pub interval: Option<[f64; 2]>,
}

impl<'a> ChangeWords<'a> {
    /// From a change as documents store it (a fraction, positive when the
    /// candidate is better) and its interval in the same orientation.
    pub fn from_improvement(
        metric: &'a str,
        better: Better,
        change: f64,
        ci: Option<[f64; 2]>,
    ) -> Self {
        let ratio = |c: f64| improvement_to_ratio(better, c);
        let interval = ci.map(|[lo, hi]| {
            let (a, b) = (ratio(lo), ratio(hi));
            [a.min(b), a.max(b)]
        });
        ChangeWords {
            metric,
            ratio: ratio(change),
            interval,
        }
    }

    /// From a ratio (candidate over baseline) and its interval.
    pub fn from_ratio(metric: &'a str, ratio: f64, interval: Option<[f64; 2]>) -> Self {
        ChangeWords {
            metric,
            ratio,
            interval,
        }
    }

    /// The candidate's value relative to the baseline's, signed: `+20.8%`.
    pub fn percent(&self) -> String {
        signed_percent(self.ratio - 1.0)
    }

    /// The interval in the same terms: `[+18.0%, +24.0%]`, empty without one.
    pub fn percent_interval(&self) -> String {
        self.interval
            .map(|[lo, hi]| percent_interval(lo - 1.0, hi - 1.0))
            .unwrap_or_default()
    }

    /// For a table cell: `+20.8% [+18.0%, +24.0%]`.
    pub fn cell(&self) -> String {
        match self.interval {
            Some(_) => format!("{} {}", self.percent(), self.percent_interval()),
            None => self.percent(),
        }
    }

    /// For a table whose column names the baseline: `takes 1.21× as long
    /// (+20.8%) [1.18×, 1.24×]` for a time, `1.21× (+20.8%) [1.18×, 1.24×]`
    /// otherwise.
    pub fn ratio_cell(&self) -> String {
        let verb = if is_time(self.metric) { "takes " } else { "" };
        let how = if is_time(self.metric) { " as long" } else { "" };
        let interval = self
            .interval
            .map(|[lo, hi]| format!(" [{lo:.2}×, {hi:.2}×]"))
            .unwrap_or_default();
        format!(
            "{verb}{:.2}×{how} ({}){interval}",
            self.ratio,
            self.percent()
        )
    }

    /// The change as a sentence naming both variants:
    /// `B takes 1.21× as long as A (+20.8%)` for a time,
    /// `B's throughput is 0.83× A's (-17.0%)` otherwise.
    pub fn sentence(&self, candidate: &str, baseline: &str) -> String {
        if is_time(self.metric) {
            format!(
                "{candidate} takes {:.2}× as long as {baseline} ({})",
                self.ratio,
                self.percent()
            )
        } else {
            format!(
                "{candidate}'s {} is {:.2}× {baseline}'s ({})",
                self.metric,
                self.ratio,
                self.percent()
            )
        }
    }

    /// The sentence with its interval:
    /// `B takes 1.21× as long as A (+20.8%), 95% interval [+18.0%, +24.0%]`.
    pub fn sentence_with_interval(
        &self,
        candidate: &str,
        baseline: &str,
        confidence: f64,
    ) -> String {
        match self.interval {
            Some(_) => format!(
                "{}, {:.0}% interval {}",
                self.sentence(candidate, baseline),
                confidence * 100.0,
                self.percent_interval()
            ),
            None => self.sentence(candidate, baseline),
        }
    }
}

/// Candidate over baseline from a change in the decision's orientation
/// (positive is better): `1 / (1 + change)` when lower is better,
/// `1 + change` when higher is.
pub fn improvement_to_ratio(better: Better, change: f64) -> f64 {
    match better {
        Better::Lower => 1.0 / (1.0 + change),
        Better::Higher => 1.0 + change,
    }
}

/// A threshold of the decision (a change in its orientation) as the
/// candidate's value relative to the baseline's: `-0.99%` for a GO at
/// `+1%` on a time.
pub fn threshold_percent(better: Better, threshold: f64) -> String {
    signed_percent(improvement_to_ratio(better, threshold) - 1.0)
}

/// The GO and NO-GO thresholds in the same terms as the change:
/// `GO at -0.99% or below, NO-GO at +0.50% or above` (the candidate
/// relative to the baseline).
pub fn thresholds_sentence(better: Better, go: f64, nogo: f64) -> String {
    let (go_side, nogo_side) = match better {
        Better::Lower => ("below", "above"),
        Better::Higher => ("above", "below"),
    };
    format!(
        "GO at {} or {go_side}, NO-GO at {} or {nogo_side}",
        threshold_percent(better, go),
        threshold_percent(better, nogo)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slower_candidate_takes_longer_with_a_positive_percentage() {
        // B takes 0.06 s where A takes 0.05 s: the stored change is
        // 0.05 / 0.06 - 1 = -16.7%, the words say +20%.
        let change = 0.05 / 0.06 - 1.0;
        let w = ChangeWords::from_improvement("wall", Better::Lower, change, None);
        assert_eq!(w.sentence("B", "A"), "B takes 1.20× as long as A (+20.0%)");
    }

    #[test]
    fn a_faster_candidate_takes_less_with_a_negative_percentage() {
        let w = ChangeWords::from_improvement("wall", Better::Lower, 0.25, Some([0.2, 0.3]));
        assert_eq!(
            w.sentence_with_interval("new", "old", 0.95),
            "new takes 0.80× as long as old (-20.0%), 95% interval [-23.1%, -16.7%]"
        );
    }

    #[test]
    fn a_higher_is_better_metric_is_worded_as_a_share_of_the_baseline() {
        let w = ChangeWords::from_improvement("throughput", Better::Higher, -0.17, None);
        assert_eq!(w.sentence("B", "A"), "B's throughput is 0.83× A's (-17.0%)");
    }

    #[test]
    fn intervals_are_ordered_whichever_way_the_metric_is_better() {
        let w = ChangeWords::from_improvement("wall", Better::Lower, 0.0, Some([-0.1, 0.1]));
        let [lo, hi] = w.interval.unwrap();
        assert!(lo < 1.0 && hi > 1.0 && lo < hi);
    }

    #[test]
    fn thresholds_are_given_as_the_candidate_relative_to_the_baseline() {
        assert_eq!(
            thresholds_sentence(Better::Lower, 0.01, -0.005),
            "GO at -0.99% or below, NO-GO at +0.50% or above"
        );
        assert_eq!(
            thresholds_sentence(Better::Higher, 0.02, -0.05),
            "GO at +2.0% or above, NO-GO at -5.0% or below"
        );
    }

    #[test]
    fn a_ratio_to_a_reference_reads_as_a_multiple() {
        let w = ChangeWords::from_ratio("wall", 3.8, Some([3.61, 3.98]));
        assert_eq!(
            w.ratio_cell(),
            "takes 3.80× as long (+280.0%) [3.61×, 3.98×]"
        );
        let w = ChangeWords::from_ratio("throughput", 0.5, None);
        assert_eq!(w.ratio_cell(), "0.50× (-50.0%)");
    }

    #[test]
    fn small_changes_keep_two_decimals() {
        assert_eq!(signed_percent(0.0025), "+0.25%");
        assert_eq!(signed_percent(-0.123), "-12.3%");
    }
}
