//! How many more runs an inconclusive comparison would need.

use serde::{Deserialize, Serialize};

use crate::descriptive::{mean_unchecked, std_dev_unchecked};
use crate::hodges_lehmann::log_shift_estimate_unchecked;
use crate::{
    Better, ConfidenceSequence, GuardStatus, Interval, LogInterval, Sample, StatsError, Thresholds,
    Verdict, classify, guard_status, hodges_lehmann_log_shift, normal, validate,
};

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
fn projected_change(estimate: f64, half_width: f64) -> Option<Interval> {
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
fn projected_verdict(estimate: f64, half_width: f64, th: &Thresholds) -> Verdict {
    match projected_change(estimate, half_width) {
        Some(iv) => classify(&iv, th),
        None => Verdict::Inconclusive,
    }
}

/// Smallest k in from..=cap with `decisive(k)`, for a predicate monotone in k.
fn smallest_decisive(from: usize, cap: usize, decisive: impl Fn(usize) -> bool) -> RunsNeeded {
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

fn on_a_threshold(estimate: f64, th: &Thresholds) -> bool {
    projected_verdict(estimate, 0.0, th) != projected_verdict(estimate, f64::MIN_POSITIVE, th)
        || crate::change_from_log_gain(estimate).is_ok_and(|c| c == th.go || c == th.nogo)
}

/// Further pairs the sequential procedure would need to reach a verdict.
///
/// Method: a projection, assuming the mean log gain and its standard deviation
/// stay as they are: the smallest n' >= max(current_n, 2) at which the
/// confidence-sequence interval mean ± `cs.half_width(n', sd)` lies entirely in
/// one verdict region of [`classify`] (>= go, <= nogo, or strictly inside the
/// band), returned as n' - current_n (0 only if the current interval already
/// decides). The half-width decreases in n, so the search is a bisection.
/// Reference for the interval: [`ConfidenceSequence`].
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
/// guard (see [`crate::guard_status`]).
///
/// Method: as [`runs_needed_paired`], with the guard's one boundary
/// -`max_worsening` in place of the two thresholds: the smallest n' >=
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
    max_worsening: f64,
    cs: &ConfidenceSequence,
) -> RunsNeeded {
    if !mean_log_gain.is_finite()
        || !sd_log_gain.is_finite()
        || sd_log_gain < 0.0
        || !max_worsening.is_finite()
    {
        return RunsNeeded::Unknown;
    }
    let settled = |hw: f64| {
        projected_change(mean_log_gain, hw)
            .is_some_and(|iv| guard_status(&iv, max_worsening) != GuardStatus::Uncertain)
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

/// Further runs per variant that a new fixed-size independent-samples comparison
/// ([`crate::hodges_lehmann_change`]) would need to reach a verdict.
///
/// Method: the Hodges-Lehmann log shift of the current samples stays; the Moses
/// interval's half-width shrinks as its large-sample normal form
/// z_(1-α/2) · sqrt(π/3) · sqrt(s_b²/(m + k) + s_c²/(n + k)), where s_b, s_c are
/// the sample standard deviations of the log values and sqrt(π/3) is the
/// Hodges-Lehmann efficiency factor under normal noise (Lehmann, "Nonparametrics:
/// Statistical Methods Based on Ranks", 1975, §2.3). That form is scaled to
/// the half-width of the Moses interval actually observed (the wider side), so
/// that at k = 0 the projection is the current interval: small samples,
/// heavy tails or ties make the exact interval wider than the normal form, and
/// an unscaled projection could call an undecided comparison decided. Returns
/// 0 only when the current Moses interval decides; otherwise the smallest
/// k >= 1 at which the projected interval decides.
///
/// Assumptions: as [`crate::hodges_lehmann_change`]; the projection is for ONE
/// new comparison with k more runs of each variant, fixed in advance. Adding
/// runs and re-testing until it decides is not covered by that interval; use
/// the sequential procedure ([`crate::SequentialTest`]) for that.
///
/// # Errors
/// As [`crate::hodges_lehmann_change`] (but small samples are allowed: at least 2
/// values each).
pub fn runs_needed_independent(
    baseline: &[f64],
    candidate: &[f64],
    better: Better,
    th: &Thresholds,
    confidence: f64,
) -> Result<RunsNeeded, StatsError> {
    validate::confidence(confidence)?;
    validate::at_least(baseline, 2, Sample::Baseline)?;
    validate::at_least(candidate, 2, Sample::Candidate)?;
    validate::positive(baseline, Sample::Baseline)?;
    validate::positive(candidate, Sample::Candidate)?;
    let shift = log_shift_estimate_unchecked(baseline, candidate, better)?;
    let sd = |xs: &[f64]| {
        let logs: Vec<f64> = xs.iter().map(|x| x.ln()).collect();
        std_dev_unchecked(&logs, mean_unchecked(&logs))
    };
    let (sb, sc) = (sd(baseline)?, sd(candidate)?);
    if th.validate().is_err() || ((sb > 0.0 || sc > 0.0) && on_a_threshold(shift, th)) {
        return Ok(RunsNeeded::Unknown);
    }
    let z = normal::quantile(1.0 - (1.0 - confidence) / 2.0);
    let factor = z * (std::f64::consts::PI / 3.0).sqrt();
    let (m, n) = (baseline.len() as f64, candidate.len() as f64);
    let normal_hw = |k: f64| factor * (sb * sb / (m + k) + sc * sc / (n + k)).sqrt();
    // Samples too small for a Moses interval at this confidence decide nothing
    // yet; the normal form is then the only guide.
    let observed = hodges_lehmann_log_shift(baseline, candidate, better, confidence).ok();
    let decided_now = observed.as_ref().is_some_and(|iv| {
        iv.to_change()
            .is_ok_and(|c| classify(&c, th) != Verdict::Inconclusive)
    });
    if decided_now {
        return Ok(RunsNeeded::Additional(0));
    }
    let scale = match observed {
        Some(iv) if normal_hw(0.0) > 0.0 => {
            ((shift - iv.lo).max(iv.hi - shift) / normal_hw(0.0)).max(f64::MIN_POSITIVE)
        }
        _ => 1.0,
    };
    let decisive = |k: usize| {
        let hw = scale * normal_hw(k as f64);
        projected_verdict(shift, hw, th) != Verdict::Inconclusive
    };
    Ok(smallest_decisive(1, RUNS_NEEDED_CAP, decisive))
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
        let g = crate::log_gain_from_change(th.go).unwrap();
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
        let g = crate::log_gain_from_change(th.go).unwrap() + 1e-7;
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
    fn independent_projection_grows_as_the_gain_shrinks() {
        let th = Thresholds::default();
        let base: Vec<f64> = (0..10).map(|i| 100.0 + f64::from(i % 5)).collect();
        let big: Vec<f64> = base.iter().map(|x| x * 1.03).collect();
        let small: Vec<f64> = base.iter().map(|x| x * 1.015).collect();
        let k = |c: &[f64]| match runs_needed_independent(&base, c, Better::Higher, &th, 0.95) {
            Ok(RunsNeeded::Additional(k)) => k,
            other => panic!("{other:?}"),
        };
        assert!(k(&big) < k(&small), "{} vs {}", k(&big), k(&small));
    }
}
