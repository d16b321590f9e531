//! How many more runs an inconclusive comparison would need: the answer's
//! type and the projection both kinds of comparison share. The projections
//! themselves are with their procedures: [`crate::sequential::runs_needed`]
//! for interleaved pairs, [`crate::fixed_sample::runs_needed`] for samples of
//! fixed size.

use perflab_format::vocabulary::Verdict;
use serde::{Deserialize, Serialize};

use crate::change::{Interval, LogInterval, change_from_log_gain};
use crate::decision::rule::{Thresholds, classify};

/// Projections stop looking beyond this many additional runs.
pub const RUNS_NEEDED_CAP: usize = 100_000;

/// A projection of the further runs (pairs, or runs per variant) needed to decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunsNeeded {
    /// About this many more runs, if the estimate and spread stay as they are.
    Additional(usize),
    /// More than this many: the estimate sits too close to a threshold.
    MoreThan(usize),
    /// Cannot be projected: the estimate sits exactly on a threshold, or the
    /// inputs are not finite.
    Unknown,
}

/// The projected interval estimate ± half_width (log scale) as a change.
pub(crate) fn projected_change(estimate: f64, half_width: f64) -> Option<Interval> {
    LogInterval {
        estimate,
        lo: estimate - half_width,
        hi: estimate + half_width,
        confidence: 0.0,
    }
    .to_change()
    .ok()
}

/// Verdict of the projected interval estimate ± half_width (log scale).
pub(crate) fn projected_verdict(estimate: f64, half_width: f64, th: &Thresholds) -> Verdict {
    match projected_change(estimate, half_width) {
        Some(iv) => classify(&iv, th),
        None => Verdict::Inconclusive,
    }
}

/// Smallest k in from..=cap with `decisive(k)`, for a predicate monotone in k.
pub(crate) fn smallest_decisive(
    from: usize,
    cap: usize,
    decisive: impl Fn(usize) -> bool,
) -> RunsNeeded {
    if decisive(from) {
        return RunsNeeded::Additional(from);
    }
    if !decisive(cap) {
        return RunsNeeded::MoreThan(cap);
    }
    let (mut no, mut yes) = (from, cap);
    while yes - no > 1 {
        let mid = no + (yes - no) / 2;
        if decisive(mid) {
            yes = mid;
        } else {
            no = mid;
        }
    }
    RunsNeeded::Additional(yes)
}

/// Whether the estimate sits exactly on a threshold, where no number of
/// runs can move its interval off it.
pub(crate) fn on_a_threshold(estimate: f64, th: &Thresholds) -> bool {
    projected_verdict(estimate, 0.0, th) != projected_verdict(estimate, f64::MIN_POSITIVE, th)
        || change_from_log_gain(estimate).is_ok_and(|c| c == th.go || c == th.nogo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_finds_the_first_decisive_count_or_says_it_is_beyond_the_cap() {
        assert_eq!(
            smallest_decisive(0, 100, |k| k >= 37),
            RunsNeeded::Additional(37)
        );
        assert_eq!(
            smallest_decisive(1, 100, |_| true),
            RunsNeeded::Additional(1)
        );
        assert_eq!(
            smallest_decisive(0, 100, |_| false),
            RunsNeeded::MoreThan(100)
        );
    }
}
