//! How many more interleaved pairs an undecided sequential comparison, or
//! an uncertain guard, would need: the confidence sequence's half-width
//! projected forward with the spread seen so far.

use perflab_format::vocabulary::{GuardStatus, Verdict};

use crate::decision::guard::guard_status;
use crate::decision::rule::Thresholds;
use crate::decision::runs_needed::{
    RUNS_NEEDED_CAP, RunsNeeded, on_a_threshold, projected_change, projected_verdict,
    smallest_decisive,
};
use crate::sequential::confidence_sequence::ConfidenceSequence;

/// Further pairs the sequential procedure would need to reach a verdict.
///
/// Method: a projection, assuming the mean log gain and its standard deviation
/// stay as they are: the smallest n' >= max(current_n, 2) at which the
/// confidence-sequence interval mean ± `cs.half_width(n', sd)` lies entirely in
/// one verdict region of [`crate::decision::rule::classify`] (>= go, <= nogo,
/// or strictly inside the band), returned as n' - current_n (0 only if the
/// current interval already decides). The half-width decreases in n, so the
/// search is a bisection. Reference for the interval: [`ConfidenceSequence`].
///
/// Assumptions: the estimate is unbiased and the spread stable; the true
/// number is random and often larger when the true change is near a threshold.
/// Returns [`RunsNeeded::MoreThan`]`(`[`RUNS_NEEDED_CAP`]`)` if no n' within the
/// cap decides, and [`RunsNeeded::Unknown`] if the estimate sits exactly on a
/// threshold (with sd > 0), if the inputs are not finite, sd is negative, or the
/// thresholds are invalid.
pub fn runs_needed_paired(
    current_n: usize,
    mean_log_gain: f64,
    sd_log_gain: f64,
    th: &Thresholds,
    cs: &ConfidenceSequence,
) -> RunsNeeded {
    if !mean_log_gain.is_finite() || !sd_log_gain.is_finite() || sd_log_gain < 0.0 {
        return RunsNeeded::Unknown;
    }
    if th.validate().is_err() || (sd_log_gain > 0.0 && on_a_threshold(mean_log_gain, th)) {
        return RunsNeeded::Unknown;
    }
    let start = current_n.max(2);
    let offset = start - current_n;
    let decisive = |k: usize| {
        let hw = cs.half_width(start + k, sd_log_gain);
        projected_verdict(mean_log_gain, hw, th) != Verdict::Inconclusive
    };
    match smallest_decisive(0, RUNS_NEEDED_CAP, decisive) {
        RunsNeeded::Additional(k) => RunsNeeded::Additional(k + offset),
        other => other,
    }
}

/// Further pairs the sequential procedure would need to settle an uncertain
/// guard (see [`crate::decision::guard::guard_status`]).
///
/// Method: as [`runs_needed_paired`], with the guard's one boundary
/// -`allowance` (a guard's [`crate::decision::guard::GuardLimit::relative_allowance`]) in place of the two thresholds: the smallest n' >=
/// max(current_n, 2) at which mean ± `cs.half_width(n', sd)` lies entirely on
/// one side of it, returned as n' - current_n.
///
/// Assumptions: as [`runs_needed_paired`]. Returns [`RunsNeeded::Unknown`] if
/// the estimate sits exactly on the boundary (with sd > 0) or the inputs are
/// not finite, and [`RunsNeeded::MoreThan`]`(`[`RUNS_NEEDED_CAP`]`)` if no
/// n' within the cap settles it.
pub fn runs_needed_guard(
    current_n: usize,
    mean_log_gain: f64,
    sd_log_gain: f64,
    allowance: f64,
    cs: &ConfidenceSequence,
) -> RunsNeeded {
    if !mean_log_gain.is_finite()
        || !sd_log_gain.is_finite()
        || sd_log_gain < 0.0
        || !allowance.is_finite()
    {
        return RunsNeeded::Unknown;
    }
    let settled = |hw: f64| {
        projected_change(mean_log_gain, hw)
            .is_some_and(|iv| guard_status(&iv, allowance) != GuardStatus::Uncertain)
    };
    if sd_log_gain > 0.0 && !settled(0.0) {
        return RunsNeeded::Unknown;
    }
    let start = current_n.max(2);
    let offset = start - current_n;
    match smallest_decisive(0, RUNS_NEEDED_CAP, |k| {
        settled(cs.half_width(start + k, sd_log_gain))
    }) {
        RunsNeeded::Additional(k) => RunsNeeded::Additional(k + offset),
        other => other,
    }
}

/// Further pairs the sequential procedure would need to settle a guard's
/// absolute interval against its floor (see
/// [`crate::decision::guard::GuardLimit::floor`]).
///
/// Method: as [`runs_needed_guard`], on the paired differences in the
/// metric's unit instead of the log gains: the smallest n' >=
/// max(current_n, 2) at which mean ± `cs.half_width(n', sd)` lies entirely on
/// one side of -`floor`, returned as n' - current_n.
///
/// Assumptions and special answers: as [`runs_needed_guard`].
pub fn runs_needed_floor(
    current_n: usize,
    mean_difference: f64,
    sd_difference: f64,
    floor: f64,
    cs: &ConfidenceSequence,
) -> RunsNeeded {
    if !mean_difference.is_finite()
        || !sd_difference.is_finite()
        || sd_difference < 0.0
        || !floor.is_finite()
    {
        return RunsNeeded::Unknown;
    }
    let settled = |hw: f64| {
        let iv = crate::change::Interval {
            estimate: mean_difference,
            lo: mean_difference - hw,
            hi: mean_difference + hw,
            confidence: 0.0,
        };
        guard_status(&iv, floor) != GuardStatus::Uncertain
    };
    if sd_difference > 0.0 && !settled(0.0) {
        return RunsNeeded::Unknown;
    }
    let start = current_n.max(2);
    let offset = start - current_n;
    match smallest_decisive(0, RUNS_NEEDED_CAP, |k| {
        settled(cs.half_width(start + k, sd_difference))
    }) {
        RunsNeeded::Additional(k) => RunsNeeded::Additional(k + offset),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cs() -> ConfidenceSequence {
        ConfidenceSequence::new(0.95, 20).unwrap()
    }

    #[test]
    fn projection_reaches_a_verdict_exactly_where_the_interval_would() {
        let th = Thresholds::default();
        let (mean, sd) = (0.03, 0.028);
        let RunsNeeded::Additional(k) = runs_needed_paired(10, mean, sd, &th, &cs()) else {
            panic!("expected a number of runs");
        };
        assert!(k > 0);
        let at = |n: usize| projected_verdict(mean, cs().half_width(n, sd), &th);
        assert_eq!(at(10 + k), Verdict::Go);
        assert_eq!(at(10 + k - 1), Verdict::Inconclusive);
    }

    #[test]
    fn estimate_on_a_threshold_cannot_be_projected() {
        let th = Thresholds::default();
        let g = crate::change::log_gain_from_change(th.go).unwrap();
        assert_eq!(
            runs_needed_paired(10, g, 0.02, &th, &cs()),
            RunsNeeded::Unknown
        );
        assert_eq!(
            runs_needed_paired(10, f64::NAN, 0.02, &th, &cs()),
            RunsNeeded::Unknown
        );
    }

    #[test]
    fn estimate_near_a_threshold_needs_more_than_the_cap() {
        let th = Thresholds::default();
        let g = crate::change::log_gain_from_change(th.go).unwrap() + 1e-7;
        assert_eq!(
            runs_needed_paired(10, g, 0.02, &th, &cs()),
            RunsNeeded::MoreThan(RUNS_NEEDED_CAP)
        );
    }

    #[test]
    fn zero_spread_needs_no_more_runs() {
        let th = Thresholds::default();
        assert_eq!(
            runs_needed_paired(5, 0.0, 0.0, &th, &cs()),
            RunsNeeded::Additional(0)
        );
    }

    #[test]
    fn a_floor_projection_settles_where_the_interval_leaves_the_floor() {
        let (mean, sd, floor) = (-5.0, 4.0, 8.0);
        let RunsNeeded::Additional(k) = runs_needed_floor(10, mean, sd, floor, &cs()) else {
            panic!("expected a number of runs");
        };
        let lo = |n: usize| mean - cs().half_width(n, sd);
        assert!(lo(10 + k) >= -floor);
        assert!(k == 0 || lo(10 + k - 1) < -floor);
        assert_eq!(
            runs_needed_floor(10, f64::NAN, sd, floor, &cs()),
            RunsNeeded::Unknown
        );
    }
}
