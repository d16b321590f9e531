//! A confidence sequence for a robust location (a Huber M-estimate): the
//! interval the A/B decision takes, valid at every look, in which a few runs
//! hit by a burst of noise weigh no more than a run at the edge of the bulk.

use crate::change::LogInterval;
use crate::descriptive::location_and_spread::{mad_sorted_unchecked, sorted_copy};
use crate::error::{SampleRole, StatsError};
use crate::sample::Sample;
use crate::sequential::confidence_sequence::ConfidenceSequence;

/// Huber's tuning constant, in robust standard deviations: values further than
/// this from the location count as if they were this far. 1.345 keeps 95 %
/// of the mean's efficiency on Gaussian data (Huber & Ronchetti, *Robust
/// Statistics*, 2nd ed., 2009, §4.5).
pub const HUBER_TUNING: f64 = 1.345;

/// 1.4826 × MAD estimates a normal standard deviation.
pub(crate) const MAD_TO_SD: f64 = 1.482_602_218_505_602;
/// sqrt(π/2) × mean absolute deviation estimates a normal standard deviation.
const MEAN_ABS_TO_SD: f64 = 1.253_314_137_315_500_3;
/// Grid points scanned on each side of the estimate for the outermost end of
/// the set (the set need not be an interval; its hull is reported).
const SCAN_POINTS: usize = 8;

/// Two-sided confidence sequence (CS) for the Huber location of i.i.d. values.
///
/// Estimand: θ solving E ψ((X − θ)/s) = 0 with ψ(u) = max(−k, min(k, u)),
/// k = [`HUBER_TUNING`] and s the scale of the values (1.4826 × MAD). For a
/// distribution symmetric about some point, θ is that point for every s, and
/// equals its mean and median. Paired log gains g = δ + e_A − e_B are
/// symmetric about the true shift δ whenever both variants' run-to-run noise
/// has the same distribution, whatever that distribution is (heavy tails and
/// bursts included): then θ is the change users are told.
///
/// Method: test inversion. For each θ, the y_i = ψ((x_i − θ)/s) of the true
/// location have mean 0; Lai's confidence sequence for a Gaussian mean with
/// unknown variance (T. L. Lai, "On confidence sequences", Annals of
/// Statistics 4(2), 1976; proved anytime-valid by H. Wang & A. Ramdas,
/// "Anytime-valid t-tests and confidence sequences for Gaussian means with
/// unknown variance", Sequential Analysis 2025, arXiv:2310.03722) tests that
/// mean. Mixing the likelihood ratio over an effect size N(0, ρ²) and over
/// the scale with the invariant prior dσ/σ gives the martingale
///
/// ```text
/// M_t = (1 + tρ²)^(-1/2) · (1 − ρ² (Σy)² / ((1 + tρ²) Σy²))^(-t/2)
/// ```
///
/// and Ville's inequality bounds the chance that it ever reaches 1/α by α. θ
/// stays in the set while M_t(θ) < 1/α, i.e. while (Σy)² ≤ c_t · t · Σy² with
/// c_t = q (1 + tρ²)/(tρ²), q = 1 − (sqrt(1 + tρ²)/α)^(−2/t). ρ is the tuning
/// of [`ConfidenceSequence`] (tightest at `optimise_at`); for large t the
/// boundary becomes its Robbins normal-mixture boundary.
///
/// Why not the mean's sequence: one run in twenty hit by a 20 % burst
/// multiplies the standard deviation of paired log gains by about 2.2 (from
/// 0.028 to sqrt(2 · 0.02² + 0.095 · ln(1.2)²) = 0.063) when the
/// rest vary by 2 %, and the mean's interval widens by as much; ψ caps each
/// gain's weight, so the interval follows the bulk of the pairs. Why Lai's
/// boundary: it is exact for Gaussian values at every t, where the asymptotic
/// sequence (Waudby-Smith et al. 2024) relies on a plug-in standard deviation
/// that is often too small at 10 pairs.
///
/// Assumptions: the values are i.i.d. The boundary is exact for Gaussian y at
/// a fixed scale; the ψ-values are bounded, not Gaussian, and s is estimated
/// from the values seen so far, so the guarantee is asymptotic, as the
/// asymptotic CS's is (bounded y have every moment, which is what the
/// Gaussian approximation needs). `benches/decision_simulation.rs` measures
/// the error rates at the sizes used. Under asymmetric noise θ is a location
/// between the median and the mean of the gains, not necessarily either.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RobustSequence {
    confidence: f64,
    rho2: f64,
}

impl RobustSequence {
    /// A CS at `confidence` tightest near `optimise_at` values.
    ///
    /// # Errors
    /// As [`ConfidenceSequence::new`].
    pub fn new(confidence: f64, optimise_at: usize) -> Result<Self, StatsError> {
        Ok(Self::from_tuning(&ConfidenceSequence::new(
            confidence,
            optimise_at,
        )?))
    }

    /// The CS with the level and mixture of `cs`.
    pub(crate) fn from_tuning(cs: &ConfidenceSequence) -> Self {
        RobustSequence {
            confidence: cs.confidence(),
            rho2: cs.rho_squared(),
        }
    }

    /// The confidence level 1 - α.
    pub fn confidence(&self) -> f64 {
        self.confidence
    }

    /// c_t: θ is in the set while (Σy)² ≤ c_t · t · Σy². At least 1 means the
    /// set is every θ (too few values to say anything).
    pub(crate) fn critical_ratio(&self, t: usize) -> f64 {
        if t < 2 {
            return f64::INFINITY;
        }
        let t = t as f64;
        let u = t * self.rho2;
        let alpha = 1.0 - self.confidence;
        let level = (0.5 * u.ln_1p() - alpha.ln()) * (-2.0 / t);
        let q = -level.exp_m1();
        q * (1.0 + u) / u
    }

    /// (estimate, lo, hi) of the CS after observing `xs`, in order: the Huber
    /// location and the hull of the set. A constant sample gives a point.
    ///
    /// # Errors
    /// [`StatsError::TooFew`] with fewer than 2 values; [`StatsError::NonFinite`]
    /// naming the first bad value; [`StatsError::Overflow`] if the set is
    /// unbounded (too few values for the level: about 4 at 95 %) or does not
    /// fit in f64.
    pub fn interval_for_location(&self, xs: &[f64]) -> Result<(f64, f64, f64), StatsError> {
        let iv = self.log_interval_for(&Sample::at_least(xs, 2, SampleRole::Values)?)?;
        Ok((iv.estimate, iv.lo, iv.hi))
    }

    /// The CS for the Huber location of `xs` as a [`LogInterval`].
    ///
    /// # Errors
    /// As [`RobustSequence::interval_for_location`].
    pub(crate) fn log_interval_for(&self, sample: &Sample<'_>) -> Result<LogInterval, StatsError> {
        let xs = sample.values();
        if xs.len() < 2 {
            Sample::at_least(xs, 2, sample.role())?;
        }
        let overflow = StatsError::Overflow {
            statistic: "robust confidence sequence",
        };
        let sorted = sorted_copy(xs);
        let median = sorted_median(&sorted);
        let scale = robust_scale(&sorted, median)?;
        let point = |x: f64| LogInterval {
            estimate: x,
            lo: x,
            hi: x,
            confidence: self.confidence,
        };
        if scale == 0.0 {
            return Ok(point(median));
        }
        let c = self.critical_ratio(xs.len());
        if c >= 1.0 {
            return Err(overflow);
        }
        let set = Huber { xs, scale, c };
        let (min, max) = (sorted[0], sorted[sorted.len() - 1]);
        let estimate = set.location(min, max);
        // Beyond the data by k·s every ψ saturates: (Σy)² = t·Σy² > c·t·Σy².
        let reach = HUBER_TUNING * scale * 1.01;
        let hi = set.outer_end(estimate, max + reach);
        let lo = set.outer_end(estimate, min - reach);
        if !lo.is_finite() || !hi.is_finite() {
            return Err(overflow);
        }
        Ok(LogInterval {
            estimate,
            lo,
            hi,
            confidence: self.confidence,
        })
    }
}

/// The interval every paired decision takes: the [`RobustSequence`] with the
/// tuning of `cs`. With so few values that its set is every value (fewer than
/// 9 at 95 % tuned to 60 pairs), no location is excluded yet; the interval is
/// then the hull of the mean's asymptotic sequence `cs` and of the widest
/// interval the robust sequence can give on these values (their range widened
/// by k·s, beyond which every ψ saturates), so that it is never narrower than
/// either and widens with the confidence level; its estimate is the mean's.
/// The default minimum of 10
/// pairs keeps decisions out of that range.
pub(crate) fn decision_interval(
    cs: &ConfidenceSequence,
    sample: &Sample<'_>,
) -> Result<LogInterval, StatsError> {
    let robust = RobustSequence::from_tuning(cs);
    if robust.critical_ratio(sample.values().len()) < 1.0 {
        return robust.log_interval_for(sample);
    }
    let mean = cs.log_interval_for(sample)?;
    let sorted = sorted_copy(sample.values());
    let median = sorted_median(&sorted);
    let reach = HUBER_TUNING * robust_scale(&sorted, median)? * 1.01;
    Ok(LogInterval {
        lo: mean.lo.min(sorted[0] - reach),
        hi: mean.hi.max(sorted[sorted.len() - 1] + reach),
        ..mean
    })
}

/// The median of sorted values, computed so that negating every value
/// negates it exactly (swapping A and B negates the whole interval).
fn sorted_median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        0.5 * (sorted[n / 2 - 1] + sorted[n / 2])
    }
}

/// 1.4826 × MAD with the small-sample factor n/(n − 0.8) of Croux &
/// Rousseeuw ("Time-efficient algorithms for two highly robust estimators of
/// scale", Computational Statistics 1992; the MAD underestimates a normal
/// standard deviation in small samples, 8 % at 10 values, and a scale too small
/// clips too many values); when more than half the values coincide, the mean
/// absolute deviation from the median instead, so that a few differing values
/// still count; 0 only for a constant sample.
fn robust_scale(sorted: &[f64], median: f64) -> Result<f64, StatsError> {
    let mad = mad_sorted_unchecked(sorted, median)?;
    if mad > 0.0 {
        let n = sorted.len() as f64;
        return Ok(MAD_TO_SD * mad * n / (n - 0.8));
    }
    let mean_abs = sorted.iter().map(|x| (x - median).abs()).sum::<f64>() / sorted.len() as f64;
    Ok(MEAN_ABS_TO_SD * mean_abs)
}

/// The test of every θ on one sample.
struct Huber<'a> {
    xs: &'a [f64],
    scale: f64,
    c: f64,
}

impl Huber<'_> {
    /// (Σy, Σy²) of ψ((x − θ)/s).
    fn sums(&self, theta: f64) -> (f64, f64) {
        let inverse = 1.0 / self.scale;
        self.xs.iter().fold((0.0, 0.0), |(a, q), x| {
            let y = ((x - theta) * inverse).clamp(-HUBER_TUNING, HUBER_TUNING);
            (a + y, q + y * y)
        })
    }

    fn contains(&self, theta: f64) -> bool {
        let (a, q) = self.sums(theta);
        a * a <= self.c * self.xs.len() as f64 * q
    }

    /// The root of Σψ = 0 (Σψ falls as θ rises), by bisection on [min, max];
    /// where Σψ is 0 over a stretch (values clipped in balanced numbers), its
    /// middle, so that negating the values negates the estimate exactly.
    fn location(&self, min: f64, max: f64) -> f64 {
        let tolerance = 1e-7 * self.scale;
        let last_above = |strict: bool| {
            let (mut lo, mut hi) = (min, max);
            loop {
                let mid = 0.5 * (lo + hi);
                if mid <= lo || mid >= hi || hi - lo <= tolerance {
                    return mid;
                }
                let sum = self.sums(mid).0;
                if sum > 0.0 || (!strict && sum == 0.0) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
        };
        0.5 * (last_above(true) + last_above(false))
    }

    /// The θ furthest from `inner` toward `outer` (which is outside the set)
    /// still in the set: scan a grid inward from `outer`, then bisect the
    /// first step that enters the set.
    fn outer_end(&self, inner: f64, outer: f64) -> f64 {
        let step = (outer - inner) / SCAN_POINTS as f64;
        let mut out = outer;
        let mut inside = inner;
        for i in (0..SCAN_POINTS).rev() {
            let theta = inner + step * i as f64;
            if self.contains(theta) {
                inside = theta;
                break;
            }
            out = theta;
        }
        // Ends to 1e-5 of the scale: far below any threshold's resolution.
        let tolerance = 1e-5 * self.scale;
        while (out - inside).abs() > tolerance {
            let mid = 0.5 * (inside + out);
            if mid == inside || mid == out {
                break;
            }
            if self.contains(mid) {
                inside = mid;
            } else {
                out = mid;
            }
        }
        inside
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cs() -> RobustSequence {
        RobustSequence::new(0.95, 60).unwrap()
    }

    /// 30 values spread evenly over ±2 % around `centre`, in a mixed order.
    fn bulk(centre: f64) -> Vec<f64> {
        (0..30)
            .map(|i| centre + 0.04 * (((i * 7) % 30) as f64 / 29.0 - 0.5))
            .collect()
    }

    #[test]
    fn the_critical_ratio_is_where_lai_s_martingale_reaches_one_over_alpha() {
        let s = cs();
        for t in [10, 20, 60, 200] {
            let c = s.critical_ratio(t);
            let u = t as f64 * s.rho2;
            // r² = c: M_t = (1 + u)^(-1/2) (1 - r² u / (1 + u))^(-t/2).
            let m = (1.0 + u).powf(-0.5) * (1.0 - c * u / (1.0 + u)).powf(-(t as f64) / 2.0);
            assert!((m - 20.0).abs() < 1e-9 * 20.0, "t={t}: {m}");
        }
    }

    #[test]
    fn nothing_is_excluded_before_nine_values_at_95_percent() {
        assert!(cs().critical_ratio(8) >= 1.0);
        assert!(cs().critical_ratio(9) < 1.0);
        assert!(cs().interval_for_location(&[0.0; 3]).is_ok());
        assert!(cs().interval_for_location(&bulk(0.0)[..5]).is_err());
    }

    #[test]
    fn for_many_values_the_boundary_approaches_the_normal_mixture() {
        let s = cs();
        let robbins = ConfidenceSequence::new(0.95, 60).unwrap();
        let t = 5000;
        // (Σy)² ≤ c·t·Σy² is |mean y| ≤ sqrt(c) · rms(y).
        let lai = s.critical_ratio(t).sqrt();
        let normal = robbins.boundary(t);
        assert!((lai / normal - 1.0).abs() < 0.01, "{lai} {normal}");
    }

    #[test]
    fn symmetric_values_are_estimated_at_their_centre() {
        let (est, lo, hi) = cs().interval_for_location(&bulk(0.03)).unwrap();
        assert!((est - 0.03).abs() < 1e-12, "{est}");
        assert!(lo < 0.03 && 0.03 < hi);
        assert!(((hi - est) - (est - lo)).abs() < 1e-5, "{lo} {est} {hi}");
    }

    #[test]
    fn a_few_burst_values_move_the_interval_far_less_than_the_mean_s() {
        let clean = bulk(0.03);
        let mut burst = clean.clone();
        for i in [3, 17] {
            burst[i] -= 0.2;
        }
        let (_, lo_clean, hi_clean) = cs().interval_for_location(&clean).unwrap();
        let (_, lo, hi) = cs().interval_for_location(&burst).unwrap();
        let mean = ConfidenceSequence::new(0.95, 60).unwrap();
        let (_, mean_lo, mean_hi) = mean.interval_for_mean(&burst).unwrap();
        assert!(lo > 0.01, "the bulk is clearly above +1 %: {lo}");
        assert!(
            mean_lo < 0.0,
            "the mean's interval is lost in the bursts: {mean_lo}"
        );
        assert!(hi - lo < 1.5 * (hi_clean - lo_clean));
        assert!(hi - lo < 0.5 * (mean_hi - mean_lo));
    }

    #[test]
    fn a_constant_sample_gives_a_point_and_a_few_odd_values_still_count() {
        assert_eq!(
            cs().interval_for_location(&[0.5; 12]).unwrap(),
            (0.5, 0.5, 0.5)
        );
        let mut mostly = vec![0.5; 12];
        mostly[4] = 0.6;
        let (_, lo, hi) = cs().interval_for_location(&mostly).unwrap();
        assert!(lo < 0.5 && 0.5 < hi, "{lo} {hi}");
    }
}
