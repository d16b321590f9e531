//! How a cost grows with the size of the work: the exponent b of
//! cost ≈ a · size^b, fitted on log-log axes with a confidence interval.

use serde::{Deserialize, Serialize};

use crate::descriptive::location_and_spread::mean_of;
use crate::distributions::student_t::student_t_quantile;
use crate::error::{SampleRole, StatsError};
use crate::sample::{PositiveSample, Sample, check_confidence};

/// A power law fitted to (size, cost) points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PowerLawFit {
    /// The exponent b (1 = linear, 2 = quadratic, 0 = constant).
    pub exponent: f64,
    /// Lower end of the interval for b.
    pub lo: f64,
    /// Upper end of the interval for b.
    pub hi: f64,
    /// Confidence level of the interval.
    pub confidence: f64,
    /// ln a: the fitted log cost at size 1.
    pub ln_intercept: f64,
    /// Residual standard deviation on the log scale (0.05 ≈ points 5 % off the line).
    pub residual_sd: f64,
    /// Number of points the fit rests on.
    pub points: usize,
}

impl PowerLawFit {
    /// The fitted cost at `size`: a · size^b.
    pub fn predict(&self, size: f64) -> f64 {
        (self.ln_intercept + self.exponent * size.ln()).exp()
    }
}

/// Fits cost ≈ a · size^b by ordinary least squares of ln(cost) on ln(size),
/// with a Student-t confidence interval for the exponent b.
///
/// Method: simple linear regression on the log-log points (x_i, y_i) =
/// (ln size_i, ln cost_i): b = Sxy / Sxx, residual variance
/// s² = Σ(y_i - ŷ_i)² / (k - 2), interval b ± t(1 - α/2, k - 2) · s / sqrt(Sxx).
/// Reference: Draper & Smith, "Applied Regression Analysis", 3rd ed., Wiley
/// 1998, §1.4; for log-log fits of algorithmic cost, McGeoch, "A Guide to
/// Experimental Algorithmics", Cambridge 2012, §7.
///
/// Assumptions: each point is one summary per size (for example the geometric
/// mean of that size's runs), the points scatter independently around a
/// straight line on log-log axes with equal variance. Noise of the points and
/// lack of fit (a curve, a cliff) both end up in the residuals, so they widen
/// the interval rather than hide; the interval does not claim that the power
/// law is the right model. With points exactly on a line the interval is the
/// single point b.
///
/// # Errors
/// [`StatsError::InvalidConfidence`]; [`StatsError::LengthMismatch`] if the
/// slices differ in length; [`StatsError::NonFinite`] /
/// [`StatsError::NonPositive`] naming the first bad size (as the baseline
/// sample) or cost (as the candidate sample); [`StatsError::TooFew`] with fewer
/// than 3 distinct sizes (`got` counts the distinct sizes), since two points
/// always lie on a line and leave nothing to estimate the noise from.
pub fn power_law_fit(
    sizes: &[f64],
    costs: &[f64],
    confidence: f64,
) -> Result<PowerLawFit, StatsError> {
    check_confidence(confidence)?;
    if sizes.len() != costs.len() {
        return Err(StatsError::LengthMismatch {
            baseline: sizes.len(),
            candidate: costs.len(),
        });
    }
    // No points at all is reported below as too few distinct sizes.
    if !sizes.is_empty() {
        PositiveSample::new(sizes, SampleRole::Baseline)?;
        PositiveSample::new(costs, SampleRole::Candidate)?;
    }
    let mut distinct = sizes.to_vec();
    distinct.sort_unstable_by(f64::total_cmp);
    distinct.dedup();
    if distinct.len() < 3 {
        return Err(StatsError::TooFew {
            sample: SampleRole::Values,
            got: distinct.len(),
            needed: 3,
        });
    }
    let x: Vec<f64> = sizes.iter().map(|s| s.ln()).collect();
    let y: Vec<f64> = costs.iter().map(|c| c.ln()).collect();
    let mx = mean_of(&Sample::derived(&x, SampleRole::Baseline));
    let my = mean_of(&Sample::derived(&y, SampleRole::Candidate));
    let sxx: f64 = x.iter().map(|xi| (xi - mx) * (xi - mx)).sum();
    let sxy: f64 = x.iter().zip(&y).map(|(xi, yi)| (xi - mx) * (yi - my)).sum();
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let k = x.len();
    let rss: f64 = x
        .iter()
        .zip(&y)
        .map(|(xi, yi)| {
            let r = yi - (intercept + slope * xi);
            r * r
        })
        .sum();
    let df = (k - 2) as f64;
    let residual_sd = (rss / df).sqrt();
    let t = student_t_quantile(0.5 + confidence / 2.0, df)?;
    let half = t * residual_sd / sxx.sqrt();
    let fit = PowerLawFit {
        exponent: slope,
        lo: slope - half,
        hi: slope + half,
        confidence,
        ln_intercept: intercept,
        residual_sd,
        points: k,
    };
    if [fit.exponent, fit.lo, fit.hi, fit.ln_intercept]
        .iter()
        .all(|v| v.is_finite())
    {
        Ok(fit)
    } else {
        Err(StatsError::Overflow {
            statistic: "log-log regression",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_exact_power_law_is_recovered_with_a_point_interval() {
        let sizes = [1e3, 1e4, 5e4, 1e5];
        let costs: Vec<f64> = sizes.iter().map(|n: &f64| 3.0 * n.powf(1.5)).collect();
        let fit = power_law_fit(&sizes, &costs, 0.95).unwrap();
        assert!((fit.exponent - 1.5).abs() < 1e-9);
        assert!((fit.hi - fit.lo).abs() < 1e-6);
        assert!((fit.predict(2e4) / (3.0 * 2e4f64.powf(1.5)) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn two_sizes_are_not_enough() {
        let err = power_law_fit(&[1.0, 2.0, 2.0], &[1.0, 2.0, 2.1], 0.95).unwrap_err();
        assert!(matches!(
            err,
            StatsError::TooFew {
                got: 2,
                needed: 3,
                ..
            }
        ));
    }

    #[test]
    fn a_zero_cost_is_named() {
        let err = power_law_fit(&[1.0, 2.0, 3.0], &[1.0, 0.0, 2.0], 0.95).unwrap_err();
        assert!(matches!(
            err,
            StatsError::NonPositive {
                sample: SampleRole::Candidate,
                index: 1,
                ..
            }
        ));
    }

    /// Deterministic simulation: the 95 % interval covers the true exponent in
    /// about 95 % of noisy sweeps (binomial tolerance for 2000 trials).
    #[test]
    fn the_interval_covers_the_true_exponent_about_as_often_as_claimed() {
        let mut rng = fastrand::Rng::with_seed(11);
        let sizes = [1e3, 3e3, 1e4, 3e4, 1e5];
        let trials = 2000;
        let mut covered = 0;
        for _ in 0..trials {
            let costs: Vec<f64> = sizes
                .iter()
                .map(|n: &f64| {
                    let z: f64 = (0..12).map(|_| rng.f64()).sum::<f64>() - 6.0;
                    n * (0.05 * z).exp()
                })
                .collect();
            let fit = power_law_fit(&sizes, &costs, 0.95).unwrap();
            if fit.lo <= 1.0 && 1.0 <= fit.hi {
                covered += 1;
            }
        }
        let rate = f64::from(covered) / f64::from(trials);
        assert!((0.93..=0.97).contains(&rate), "coverage {rate}");
    }

    proptest! {
        #[test]
        fn rescaling_sizes_or_costs_leaves_the_exponent(
            costs in prop::collection::vec(0.1f64..10.0, 3..12),
            size_scale in 1e-3f64..1e3,
            cost_scale in 1e-3f64..1e3,
        ) {
            let sizes: Vec<f64> = (0..costs.len()).map(|i| 10f64.powi(i as i32)).collect();
            let fit = power_law_fit(&sizes, &costs, 0.95).unwrap();
            let sizes2: Vec<f64> = sizes.iter().map(|s| s * size_scale).collect();
            let costs2: Vec<f64> = costs.iter().map(|c| c * cost_scale).collect();
            let fit2 = power_law_fit(&sizes2, &costs2, 0.95).unwrap();
            prop_assert!((fit.exponent - fit2.exponent).abs() < 1e-9);
            prop_assert!(((fit.hi - fit.lo) - (fit2.hi - fit2.lo)).abs() < 1e-8);
        }

        #[test]
        fn the_interval_holds_the_estimate_and_widens_with_confidence(
            costs in prop::collection::vec(0.1f64..10.0, 3..12),
        ) {
            let sizes: Vec<f64> = (1..=costs.len()).map(|i| i as f64).collect();
            let fit90 = power_law_fit(&sizes, &costs, 0.90).unwrap();
            let fit99 = power_law_fit(&sizes, &costs, 0.99).unwrap();
            prop_assert!(fit90.lo <= fit90.exponent && fit90.exponent <= fit90.hi);
            prop_assert!(fit99.lo <= fit90.lo + 1e-12 && fit99.hi >= fit90.hi - 1e-12);
        }
    }
}
