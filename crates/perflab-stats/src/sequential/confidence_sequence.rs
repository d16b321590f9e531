//! An asymptotic confidence sequence for a mean: an interval that stays valid
//! however often it is looked at, so an experiment may stop as soon as it decides.

use crate::change::LogInterval;
use crate::descriptive::location_and_spread::{mean_of, std_dev_of};
use crate::error::{SampleRole, StatsError};
use crate::sample::{Sample, check_confidence};

/// Default pair count at which the boundary is tightest: the default maximum
/// number of pairs, 60. Recommendation: set `optimise_at` to `max_runs`.
///
/// Chosen by simulation (`cargo bench -p perflab-stats --bench decision_simulation`,
/// tuning table, 10 000 experiments per cell, common random numbers) for the
/// default procedure (pairs 10 to 60, 95 %, go +1 %, nogo -0.5 %), which
/// decides with [`crate::sequential::robust_sequence::RobustSequence`] under
/// this tuning. Compared with optimise_at = 10, 20, 30 and 40, optimising at 60
/// gave the lowest false-decision rate on A = A at every noise level (2 %: 0.1
/// %, 5 %: 0.5 %, 10 %: 1.0 %, against 0.2 %, 0.9-1.3 % and 1.3-1.9 %) and the
/// lowest time-uniform miss rate (2.1 % against 2.6-3.3 %), with about the same
/// power (GO on a true +3 % at 2 % noise: 98.8 % against 98.5-99.0 %; +1.5 % at
/// 1 % noise: 46 % against 44-48 %); the price is two or three more pairs for
/// easy decisions (median 22 instead of 19 or 20 for +3 %). Tight at the end is
/// where the hard cases, effects near a threshold, are decided.
pub const DEFAULT_OPTIMISE_AT: usize = 60;

/// Two-sided asymptotic confidence sequence (CS) for the mean of i.i.d. values.
///
/// Method: the Gaussian-mixture asymptotic CS of Waudby-Smith, Arbour, Sinha,
/// Kennedy & Ramdas, "Time-uniform central limit theory and asymptotic confidence
/// sequences", Annals of Statistics 52(6), 2024 (arXiv:2103.06476), i.i.d. case:
///
/// ```text
/// mean_t ± sd_t · sqrt( 2(tρ² + 1) / (t²ρ²) · ln( sqrt(tρ² + 1) / α ) ),   α = 1 - confidence
/// ```
///
/// where mean_t is the sample mean and sd_t the sample standard deviation of the
/// first t values. The square root is Robbins' normal-mixture boundary (Robbins,
/// "Statistical methods related to the law of the iterated logarithm", Ann. Math.
/// Statist. 41(5), 1970): with S_t a standard Gaussian random walk, mixing
/// exp(λS_t - λ²t/2) over λ ~ N(0, ρ²) gives the martingale
/// (tρ² + 1)^(-1/2) exp(ρ²S_t² / (2(tρ² + 1))), and Ville's inequality bounds the
/// chance that it ever exceeds 1/α by α, which is exactly |S_t|/t exceeding the
/// boundary. The mixture is symmetric, so the boundary is two-sided at level α
/// (no α/2). The paper's strong Gaussian approximation transfers this to the
/// mean of any i.i.d. sequence with finite variance, with sd_t in place of σ.
///
/// Tuning: ρ is chosen to minimise the boundary at t = `optimise_at` = t*.
/// Writing u = t*ρ², the boundary at t* is proportional to
/// ((u + 1)/u) · (ln(u + 1)/2 - ln α), whose minimum solves
/// v - ln v = 1 - 2 ln α for v = u + 1 > 1, i.e. u = -W₋₁(-α²/e) - 1 (Lambert W).
/// This crate solves that equation by Newton's method. The closed form often
/// quoted, ρ² = (-2 ln α + ln(-2 ln α + 1)) / t* (Howard, Ramdas, McAuliffe &
/// Sekhon, Annals of Statistics 49(2), 2021), is its first-order asymptotic
/// approximation (u = 7.94 instead of 8.21 at α = 0.05; boundaries within 0.1 %).
/// Any ρ > 0 gives a valid CS; ρ only moves where it is tightest.
///
/// This crate uses sd_t with divisor t - 1 (the paper uses divisor t), which
/// widens the interval by the factor sqrt(t / (t - 1)): slightly conservative.
///
/// Assumptions: the values are i.i.d. with finite variance. Validity is
/// asymptotic: the paper's guarantee is that the chance of the CS ever missing
/// the mean after a first look at time m tends to at most α as m grows. That is
/// why callers should not act on it before a minimum number of values (the CLI's
/// default is 10 runs) and why `benches/decision_simulation.rs` measures the
/// actual error rates at the sizes used. Optional stopping is allowed: the user
/// may look after every value and stop when the interval excludes a threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConfidenceSequence {
    confidence: f64,
    optimise_at: usize,
    rho2: f64,
}

impl ConfidenceSequence {
    /// A CS at `confidence` (for example 0.95) tightest at `optimise_at` values.
    ///
    /// # Errors
    /// [`StatsError::InvalidConfidence`] unless 0.5 < confidence < 1;
    /// [`StatsError::InvalidConfig`] if `optimise_at` is 0.
    pub fn new(confidence: f64, optimise_at: usize) -> Result<Self, StatsError> {
        check_confidence(confidence)?;
        if optimise_at == 0 {
            return Err(StatsError::InvalidConfig {
                field: "optimise_at",
                reason: "must be at least 1 (for example 20, the number of pairs at which the interval should be tightest)".into(),
            });
        }
        let alpha = 1.0 - confidence;
        Ok(ConfidenceSequence {
            confidence,
            optimise_at,
            rho2: optimal_u(alpha) / optimise_at as f64,
        })
    }

    /// The confidence level 1 - α.
    pub fn confidence(&self) -> f64 {
        self.confidence
    }

    /// The number of values at which the boundary is tightest.
    pub fn optimise_at(&self) -> usize {
        self.optimise_at
    }

    /// The mixture variance ρ² in use.
    pub(crate) fn rho_squared(&self) -> f64 {
        self.rho2
    }

    /// Half-width of the CS for the mean of `n` values with unit standard
    /// deviation: sqrt(2(nρ² + 1)/(n²ρ²) · ln(sqrt(nρ² + 1)/α)).
    /// Infinite for n = 0. Decreasing in n for every confidence this type accepts.
    pub fn boundary(&self, n: usize) -> f64 {
        if n == 0 {
            return f64::INFINITY;
        }
        let t = n as f64;
        let alpha = 1.0 - self.confidence;
        let u = t * self.rho2;
        let log_term = 0.5 * u.ln_1p() - alpha.ln();
        (2.0 * (u + 1.0) / (t * t * self.rho2) * log_term).sqrt()
    }

    /// Half-width for the mean of `n` i.i.d. values with sample standard
    /// deviation `sd`: `sd * boundary(n)`. Returns +inf when nothing can be said
    /// (n = 0, or `sd` negative or not finite) and 0 when `sd` is 0.
    pub fn half_width(&self, n: usize, sd: f64) -> f64 {
        if !sd.is_finite() || sd < 0.0 {
            return f64::INFINITY;
        }
        if sd == 0.0 {
            return if n == 0 { f64::INFINITY } else { 0.0 };
        }
        sd * self.boundary(n)
    }

    /// (mean, lo, hi) of the CS after observing `xs`, in order.
    ///
    /// Method and assumptions: see [`ConfidenceSequence`]. With a constant
    /// sample (sd = 0) the interval is the single point `mean`.
    ///
    /// # Errors
    /// [`StatsError::TooFew`] with fewer than 2 values; [`StatsError::NonFinite`]
    /// naming the first bad value; [`StatsError::Overflow`] if the interval does
    /// not fit in f64.
    pub fn interval_for_mean(&self, xs: &[f64]) -> Result<(f64, f64, f64), StatsError> {
        let iv = self.log_interval_for(&Sample::at_least(xs, 2, SampleRole::Values)?)?;
        Ok((iv.estimate, iv.lo, iv.hi))
    }

    /// The CS for the mean of `xs` as a [`LogInterval`] (used for log gains).
    ///
    /// # Errors
    /// [`StatsError::TooFew`] with fewer than 2 values;
    /// [`StatsError::Overflow`] as [`ConfidenceSequence::interval_for_mean`].
    pub(crate) fn log_interval_for(&self, xs: &Sample<'_>) -> Result<LogInterval, StatsError> {
        if xs.values().len() < 2 {
            Sample::at_least(xs.values(), 2, xs.role())?;
        }
        let mean = mean_of(xs);
        let sd = std_dev_of(xs, mean)?;
        let hw = self.half_width(xs.values().len(), sd);
        let (lo, hi) = (mean - hw, mean + hw);
        if !lo.is_finite() || !hi.is_finite() {
            return Err(StatsError::Overflow {
                statistic: "confidence sequence",
            });
        }
        Ok(LogInterval {
            estimate: mean,
            lo,
            hi,
            confidence: self.confidence,
        })
    }
}

/// u = t*ρ² minimising the boundary at t*: the root v > 1 of v - ln v = 1 - 2 ln α, minus 1.
fn optimal_u(alpha: f64) -> f64 {
    let c = 1.0 - 2.0 * alpha.ln();
    // v ≈ c + ln v; start from c + ln c (> 1 for every α < 0.5) and polish by Newton.
    let mut v = c + c.ln();
    for _ in 0..50 {
        let step = (v - v.ln() - c) / (1.0 - 1.0 / v);
        v -= step;
        if step.abs() < 1e-14 * v {
            break;
        }
    }
    v - 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rho_minimises_the_boundary_at_optimise_at() {
        let cs = ConfidenceSequence::new(0.95, 30).unwrap();
        let at = |rho2: f64| ConfidenceSequence { rho2, ..cs }.boundary(30);
        let best = cs.boundary(30);
        for f in [0.8, 0.95, 0.99, 1.01, 1.05, 1.25] {
            assert!(best <= at(cs.rho2 * f), "factor {f}");
        }
    }

    #[test]
    fn optimal_rho_is_close_to_the_closed_form_approximation() {
        let alpha: f64 = 0.05;
        let approx = -2.0 * alpha.ln() + (-2.0 * alpha.ln() + 1.0).ln();
        let exact = optimal_u(alpha);
        assert!((exact - 8.212).abs() < 0.01, "{exact}");
        assert!((exact - approx).abs() / exact < 0.05);
    }

    #[test]
    fn boundary_matches_a_hand_computed_value() {
        // t = 30 = t*, α = 0.05: u = 8.2119..., sqrt(2 (u+1)/(30 u) (ln(u+1)/2 + ln 20)).
        let cs = ConfidenceSequence::new(0.95, 30).unwrap();
        let u = optimal_u(0.05);
        let expected = (2.0 * (u + 1.0) / (30.0 * u) * (0.5 * (u + 1.0).ln() + 20f64.ln())).sqrt();
        assert!((cs.boundary(30) - expected).abs() < 1e-12);
        assert!(
            (cs.boundary(30) - 0.5541).abs() < 1e-3,
            "{}",
            cs.boundary(30)
        );
    }

    #[test]
    fn boundary_shrinks_as_values_accumulate() {
        let cs = ConfidenceSequence::new(0.95, DEFAULT_OPTIMISE_AT).unwrap();
        for n in 1..2000 {
            assert!(cs.boundary(n + 1) < cs.boundary(n), "n={n}");
        }
    }

    #[test]
    fn constant_values_give_a_point_interval() {
        let cs = ConfidenceSequence::new(0.95, 20).unwrap();
        assert_eq!(cs.interval_for_mean(&[2.0; 5]).unwrap(), (2.0, 2.0, 2.0));
    }

    #[test]
    fn nothing_is_known_before_any_value() {
        let cs = ConfidenceSequence::new(0.95, 20).unwrap();
        assert_eq!(cs.half_width(0, 1.0), f64::INFINITY);
        assert_eq!(cs.half_width(5, f64::NAN), f64::INFINITY);
        assert!(cs.interval_for_mean(&[1.0]).is_err());
    }

    #[test]
    fn invalid_parameters_are_rejected() {
        assert!(ConfidenceSequence::new(0.5, 20).is_err());
        assert!(ConfidenceSequence::new(1.0, 20).is_err());
        assert!(ConfidenceSequence::new(0.95, 0).is_err());
    }
}
