//! How many more runs per variant an undecided comparison of two samples of
//! fixed size would need: the Moses interval's half-width projected forward.

use perflab_format::vocabulary::{Better, Verdict};

use crate::change::LogInterval;
use crate::decision::rule::{Thresholds, classify};
use crate::decision::runs_needed::{
    RUNS_NEEDED_CAP, RunsNeeded, on_a_threshold, projected_verdict, smallest_decisive,
};
use crate::descriptive::location_and_spread::{mean_of, std_dev_of};
use crate::distributions::normal;
use crate::error::StatsError;
use crate::fixed_sample::hodges_lehmann::LogDifferences;
use crate::sample::{PositiveSample, Sample, check_confidence};

/// Further runs per variant that a new fixed-size independent-samples comparison
/// ([`crate::fixed_sample::hodges_lehmann::hodges_lehmann_change`]) would need to reach a verdict.
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
/// Assumptions: as
/// [`crate::fixed_sample::hodges_lehmann::hodges_lehmann_change`]; the
/// projection is for ONE new comparison with k more runs of each variant, fixed
/// in advance. Adding runs and re-testing until it decides is not covered by
/// that interval; use the sequential procedure
/// ([`crate::sequential::procedure::SequentialTest`]) for that.
///
/// # Errors As [`crate::fixed_sample::hodges_lehmann::hodges_lehmann_change`]
/// (but small samples are allowed: at least 2 values each).
pub fn runs_needed_independent(
    baseline: &[f64],
    candidate: &[f64],
    better: Better,
    th: &Thresholds,
    confidence: f64,
) -> Result<RunsNeeded, StatsError> {
    check_confidence(confidence)?;
    let (checked_baseline, checked_candidate) = PositiveSample::pair(baseline, candidate, 2)?;
    let differences = LogDifferences::new(
        &checked_baseline.sample().sorted(),
        &checked_candidate.sample().sorted(),
        better,
    )?;
    // Samples too small for a Moses interval at this confidence decide nothing
    // yet; the normal form is then the only guide.
    let (shift, observed) = differences.shift_and_interval(confidence);
    let observed = observed.ok();
    drop(differences);
    projected_runs_needed(
        (&checked_baseline, &checked_candidate),
        shift,
        observed,
        th,
        confidence,
    )
}

/// [`runs_needed_independent`] from the Hodges-Lehmann log `shift` and the
/// Moses interval `observed` on the log scale (`None` when the samples are
/// too small for one), already computed from the same samples.
pub(crate) fn projected_runs_needed(
    (checked_baseline, checked_candidate): (&PositiveSample<'_>, &PositiveSample<'_>),
    shift: f64,
    observed: Option<LogInterval>,
    th: &Thresholds,
    confidence: f64,
) -> Result<RunsNeeded, StatsError> {
    let sd = |xs: &PositiveSample<'_>| {
        let logs = xs.logs();
        let logs = Sample::derived(&logs, xs.role());
        std_dev_of(&logs, mean_of(&logs))
    };
    let (sb, sc) = (sd(checked_baseline)?, sd(checked_candidate)?);
    if th.validate().is_err() || ((sb > 0.0 || sc > 0.0) && on_a_threshold(shift, th)) {
        return Ok(RunsNeeded::Unknown);
    }
    let z = normal::quantile(1.0 - (1.0 - confidence) / 2.0);
    let factor = z * (std::f64::consts::PI / 3.0).sqrt();
    let (m, n) = (
        checked_baseline.values().len() as f64,
        checked_candidate.values().len() as f64,
    );
    let normal_hw = |k: f64| factor * (sb * sb / (m + k) + sc * sc / (n + k)).sqrt();
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
