//! Confidence interval for a proportion (used to report simulated error rates).

use serde::{Deserialize, Serialize};

use crate::{Sample, StatsError, normal, validate};

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
    validate::confidence(confidence)?;
    if trials == 0 {
        return Err(StatsError::TooFew {
            sample: Sample::Values,
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
}
