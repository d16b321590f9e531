//! Confidence intervals for a proportion (simulated error rates, the share of
//! profiler samples in a function) and for the difference of two proportions
//! (how a function's share moved between two profiles).

use serde::{Deserialize, Serialize};

use crate::distributions::normal;
use crate::error::{SampleRole, StatsError};
use crate::sample::check_confidence;

/// An estimated proportion with its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProportionInterval {
    /// successes / trials.
    pub estimate: f64,
    /// Lower end (>= 0).
    pub lo: f64,
    /// Upper end (<= 1).
    pub hi: f64,
    /// Confidence level.
    pub confidence: f64,
}

/// Wilson score interval for a binomial proportion.
///
/// Method: Wilson, "Probable inference, the law of succession, and statistical
/// inference", JASA 22(158), 1927; recommended over the Wald interval by Brown,
/// Cai & DasGupta, "Interval estimation for a binomial proportion", Statistical
/// Science 16(2), 2001. Assumes independent trials with a common success
/// probability; well-behaved even with 0 successes.
///
/// # Errors
/// [`StatsError::InvalidConfidence`]; [`StatsError::TooFew`] if `trials` is 0;
/// [`StatsError::InvalidCount`] if `successes > trials`.
pub fn wilson_interval(
    successes: u64,
    trials: u64,
    confidence: f64,
) -> Result<ProportionInterval, StatsError> {
    check_confidence(confidence)?;
    if trials == 0 {
        return Err(StatsError::TooFew {
            sample: SampleRole::Values,
            got: 0,
            needed: 1,
        });
    }
    if successes > trials {
        return Err(StatsError::InvalidCount { successes, trials });
    }
    let n = trials as f64;
    let p = successes as f64 / n;
    let z = normal::quantile(1.0 - (1.0 - confidence) / 2.0);
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Ok(ProportionInterval {
        estimate: p,
        lo: (centre - half).max(0.0),
        hi: (centre + half).min(1.0),
        confidence,
    })
}

/// The difference of two independent proportions, `p_b - p_a`, with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProportionDifference {
    /// successes_b / trials_b - successes_a / trials_a.
    pub estimate: f64,
    /// Lower end (>= -1).
    pub lo: f64,
    /// Upper end (<= 1).
    pub hi: f64,
    /// Confidence level.
    pub confidence: f64,
}

/// Newcombe's hybrid score interval for the difference of two independent
/// proportions, `p_b - p_a`.
///
/// Method: Newcombe, "Interval estimation for the difference between
/// independent proportions: comparison of eleven methods", Statistics in
/// Medicine 17(8), 1998, method 10: the Wilson intervals `[l_a, u_a]` and
/// `[l_b, u_b]` of each proportion (see [`wilson_interval`]) are combined as
/// `d - sqrt((p_b - l_b)^2 + (u_a - p_a)^2)` and
/// `d + sqrt((u_b - p_b)^2 + (p_a - l_a)^2)`. It keeps the good coverage of
/// the Wilson interval near 0 and 1, where the Wald interval fails.
///
/// Assumptions: the two samples are independent, each of independent trials
/// with a common success probability.
///
/// # Errors
/// As [`wilson_interval`], for either sample.
pub fn proportion_difference(
    successes_a: u64,
    trials_a: u64,
    successes_b: u64,
    trials_b: u64,
    confidence: f64,
) -> Result<ProportionDifference, StatsError> {
    let a = wilson_interval(successes_a, trials_a, confidence)?;
    let b = wilson_interval(successes_b, trials_b, confidence)?;
    let d = b.estimate - a.estimate;
    let lo = d - ((b.estimate - b.lo).powi(2) + (a.hi - a.estimate).powi(2)).sqrt();
    let hi = d + ((b.hi - b.estimate).powi(2) + (a.estimate - a.lo).powi(2)).sqrt();
    Ok(ProportionDifference {
        estimate: d,
        lo: lo.max(-1.0),
        hi: hi.min(1.0),
        confidence,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_matches_a_textbook_value() {
        // 0 of 500 at 95 %: upper end z^2 / (n + z^2) = 3.8415 / 503.8415 = 0.007624.
        let iv = wilson_interval(0, 500, 0.95).unwrap();
        assert_eq!(iv.estimate, 0.0);
        assert!(iv.lo < 1e-15);
        assert!((iv.hi - 0.007_624).abs() < 1e-5, "{}", iv.hi);
        // 45 of 500: the closed form evaluated independently (Python, z = 1.959964).
        let iv = wilson_interval(45, 500, 0.95).unwrap();
        assert!((iv.lo - 0.067_942_548).abs() < 1e-8, "{}", iv.lo);
        assert!((iv.hi - 0.118_309_411).abs() < 1e-8, "{}", iv.hi);
    }

    #[test]
    fn impossible_counts_are_rejected() {
        assert!(wilson_interval(3, 2, 0.95).is_err());
        assert!(wilson_interval(0, 0, 0.95).is_err());
    }

    #[test]
    fn newcombe_difference_matches_the_published_example() {
        // Newcombe (1998), table II, example (a): 56/70 vs 48/80, method 10
        // gives 0.0524 to 0.3339 for p1 - p2; here a = 48/80, b = 56/70.
        let d = proportion_difference(48, 80, 56, 70, 0.95).unwrap();
        assert!((d.estimate - 0.2).abs() < 1e-12);
        assert!((d.lo - 0.0524).abs() < 5e-4, "{}", d.lo);
        assert!((d.hi - 0.3339).abs() < 5e-4, "{}", d.hi);
    }

    #[test]
    fn equal_proportions_give_an_interval_around_zero() {
        let d = proportion_difference(30, 100, 300, 1000, 0.95).unwrap();
        assert!(d.estimate.abs() < 1e-12);
        assert!(d.lo < 0.0 && d.hi > 0.0);
    }

    proptest::proptest! {
        #[test]
        fn the_difference_interval_holds_its_estimate_and_stays_in_range(
            ta in 1u64..5000, tb in 1u64..5000, fa in 0.0f64..=1.0, fb in 0.0f64..=1.0,
        ) {
            let sa = (fa * ta as f64).round() as u64;
            let sb = (fb * tb as f64).round() as u64;
            let d = proportion_difference(sa, ta, sb, tb, 0.95).unwrap();
            proptest::prop_assert!(d.lo <= d.estimate + 1e-12 && d.estimate <= d.hi + 1e-12);
            proptest::prop_assert!(d.lo >= -1.0 && d.hi <= 1.0);
            let swapped = proportion_difference(sb, tb, sa, ta, 0.95).unwrap();
            proptest::prop_assert!((swapped.lo + d.hi).abs() < 1e-12 && (swapped.hi + d.lo).abs() < 1e-12);
        }
    }
}
