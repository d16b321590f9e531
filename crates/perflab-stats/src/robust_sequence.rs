//! A confidence sequence for a robust location (a Huber M-estimate): the
//! interval the A/B decision takes, valid at every look, in which a few runs
//! hit by a burst of noise weigh no more than a run at the edge of the bulk.

use crate::descriptive::{mad_sorted_unchecked, quantile_sorted_unchecked, sorted_copy};
use crate::{ConfidenceSequence, LogInterval, Sample, StatsError, validate};

/// Huber's tuning constant, in robust standard deviations: values further than
/// this from the location count as if they were this far. 1.345 keeps 95 %
/// of the mean's efficiency on Gaussian data (Huber & Ronchetti, *Robust
/// Statistics*, 2nd ed., 2009, §4.5).
pub const HUBER_TUNING: f64 = 1.345;

/// 1.4826 × MAD estimates a normal standard deviation.
const MAD_TO_SD: f64 = 1.482_602_218_505_602;
/// sqrt(π/2) × mean absolute deviation estimates a normal standard deviation.
const MEAN_ABS_TO_SD: f64 = 1.253_314_137_315_500_3;
/// Grid points scanned on each side of the estimate for the outermost end of
/// the set (the set need not be an interval; its hull is reported).
const SCAN_POINTS: usize = 24;

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
/// multiplies the standard deviation of paired log gains by about 2.4 when the
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
    pub fn from_tuning(cs: &ConfidenceSequence) -> Self {
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
    pub fn critical_ratio(&self, t: usize) -> f64 {
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
        let iv = self.log_interval_for(xs, Sample::Values)?;
        Ok((iv.estimate, iv.lo, iv.hi))
    }

    /// The CS for the Huber location of `xs` as a [`LogInterval`].
    pub(crate) fn log_interval_for(
        &self,
        xs: &[f64],
        sample: Sample,
    ) -> Result<LogInterval, StatsError> {
        validate::at_least(xs, 2, sample)?;
        validate::finite(xs, sample)?;
        let overflow = StatsError::Overflow {
            statistic: "robust confidence sequence",
        };
        let sorted = sorted_copy(xs);
        let median = quantile_sorted_unchecked(&sorted, 0.5);
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
        self.xs.iter().fold((0.0, 0.0), |(a, q), x| {
            let y = ((x - theta) / self.scale).clamp(-HUBER_TUNING, HUBER_TUNING);
            (a + y, q + y * y)
        })
    }

    fn contains(&self, theta: f64) -> bool {
        let (a, q) = self.sums(theta);
        a * a <= self.c * self.xs.len() as f64 * q
    }

    /// The root of Σψ = 0 (Σψ falls as θ rises), by bisection on [min, max].
    fn location(&self, mut lo: f64, mut hi: f64) -> f64 {
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if self.sums(mid).0 > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
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
        let tolerance = 1e-6 * self.scale;
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
