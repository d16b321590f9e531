//! Fixed and per-item cost: cost = fixed + marginal · size, fitted to a
//! sweep's points with intervals for both parts.
//!
//! Dividing a point's total by its size mixes the two parts: a program with
//! 115 ms of start-up and 0.7 µs per item "costs" 116 µs per item at 1000
//! items and 2.5 µs at 64 000. The slope of the total against the size is the
//! cost of one more item; the intercept is what every run pays once.

use serde::{Deserialize, Serialize};

use crate::descriptive::location_and_spread::{mean_of, std_dev_of};
use crate::distributions::student_t::student_t_quantile;
use crate::error::{SampleRole, StatsError};
use crate::sample::{PositiveSample, Sample, check_confidence};
use crate::sweep::weighted_line::weighted_line;

/// One point of a sweep: its size and the total cost of each of its runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SizedRuns<'a> {
    /// The size (> 0).
    pub size: f64,
    /// The total cost of each run at this size (all > 0, at least 2).
    pub runs: &'a [f64],
}

/// The fit cost = fixed + marginal · size, with an interval for each part.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LinearCostFit {
    /// The fixed part: the cost at size 0, paid once per run (may be < 0
    /// when the cost grows faster than linearly).
    pub fixed: f64,
    /// Lower end of the interval for the fixed part.
    pub fixed_lo: f64,
    /// Upper end of the interval for the fixed part.
    pub fixed_hi: f64,
    /// The marginal cost: what one more item adds.
    pub marginal: f64,
    /// Lower end of the interval for the marginal cost.
    pub marginal_lo: f64,
    /// Upper end of the interval for the marginal cost.
    pub marginal_hi: f64,
    /// Confidence level of both intervals.
    pub confidence: f64,
    /// How far the points scatter around the line relative to what their own
    /// runs explain (1 = as expected; 3 = three times as far: drift between
    /// points, or a curve the line does not describe).
    pub scatter: f64,
    /// Number of points the fit rests on.
    pub points: usize,
}

impl LinearCostFit {
    /// Whether the interval of the fixed part lies above zero: the per-item
    /// quotient total / size is then biased by fixed / size at every size.
    pub fn has_fixed_part(&self) -> bool {
        self.fixed_lo > 0.0
    }

    /// The fitted total at `size`: fixed + marginal · size.
    pub(crate) fn predict(&self, size: f64) -> f64 {
        self.fixed + self.marginal * size
    }

    /// The share of the fitted total at `size` that is the fixed part.
    pub fn fixed_share(&self, size: f64) -> f64 {
        self.fixed / self.predict(size)
    }
}

/// Fits cost = fixed + marginal · size to a sweep's points by weighted least
/// squares, with Student-t intervals for both parts.
///
/// Method: each point is summarised by the geometric mean T_i of its runs and
/// the variance v_i = s_i² / r_i of the mean of their logarithms (s_i the
/// standard deviation of the r_i log values), so that by the delta method
/// Var(T_i) ≈ T_i² · v_i; each s_i² is first moderated toward the pooled
/// run variance as if that were worth two more runs (see `moderate` for
/// why). The line is fitted by weighted least squares with
/// weights w_i = 1 / (μ_i² · v_i), μ_i the fitted total (iteratively
/// reweighted from μ_i = T_i; McCullagh & Nelder, "Generalized Linear
/// Models", 2nd ed., 1989, §2.5). The weights say how the noise is shared
/// between the points; its size is estimated from the weighted residuals,
/// σ̂² = Σ w_i e_i² / (k - 2), and the intervals are
/// estimate ± t(1 - α/2, k - 2) · σ̂ · (standard error at unit scale), the
/// textbook weighted regression with variances known up to a constant
/// (Draper & Smith, "Applied Regression Analysis", 3rd ed., Wiley 1998,
/// §9.2). σ̂ is reported as [`LinearCostFit::scatter`].
///
/// Why this method: the noise of timings is multiplicative, so a point at
/// 64 000 items scatters 30 times as far in absolute terms as one at 1000 with
/// the same relative noise; ordinary least squares would let the largest
/// sizes decide the fixed part. Weighting by each point's own variance uses
/// what its runs measured (points that stopped at the run limit are noisier);
/// taking the scale from the residuals rather than trusting the runs alone
/// keeps drift between points and lack of fit in the intervals instead of
/// hiding them. A bootstrap over runs would miss both and is unreliable with
/// the five runs a precise point may have; Theil–Sen is robust to a wild point
/// but gives no useful interval from five to ten points.
///
/// Assumptions: runs at one size are i.i.d. with multiplicative noise (their
/// geometric mean estimates the typical total); the points are independent;
/// the cost is linear in the size over the range swept. A cost growing faster
/// than linearly gives a negative fixed part; one growing more slowly (a cost
/// per item that falls as the size grows) can show an apparent fixed part,
/// which is why the growth exponent of what remains is reported beside it.
/// If every point's runs are identical, every point gets the same weight on
/// the relative scale. With points exactly on a line the intervals
/// are single points. The fixed part is called significant when its
/// interval lies above zero: with no fixed part, that happens in
/// (1 - confidence) / 2 of sweeps.
///
/// # Errors
/// [`StatsError::InvalidConfidence`]; [`StatsError::InPoint`] naming the
/// point (in input order) whose size or runs are not finite and > 0, or which
/// has fewer than 2 runs; [`StatsError::TooFew`] with fewer than 3 distinct
/// sizes; [`StatsError::Overflow`] if the fit does not fit in f64.
pub fn linear_cost_fit(
    points: &[SizedRuns<'_>],
    confidence: f64,
) -> Result<LinearCostFit, StatsError> {
    check_confidence(confidence)?;
    let mut sizes = Vec::with_capacity(points.len());
    let mut totals = Vec::with_capacity(points.len());
    let mut variances = Vec::with_capacity(points.len());
    for (index, p) in points.iter().enumerate() {
        let (total, variance) = summarise(p).map_err(|error| StatsError::InPoint {
            point: index,
            size: p.size,
            error: Box::new(error),
        })?;
        sizes.push(p.size);
        totals.push(total);
        variances.push(variance);
    }
    let mut distinct = sizes.clone();
    distinct.sort_unstable_by(f64::total_cmp);
    distinct.dedup();
    if distinct.len() < 3 {
        return Err(StatsError::TooFew {
            sample: SampleRole::Values,
            got: distinct.len(),
            needed: 3,
        });
    }
    let counts: Vec<usize> = points.iter().map(|p| p.runs.len()).collect();
    moderate(&mut variances, &counts);
    fill_constant_points(&mut variances);
    let mut line = weighted_line(&sizes, &totals, &variances, &totals);
    // Two reweighting passes: the weights come from the fitted totals, which
    // unlike the observed ones do not favour points that happened to run fast.
    for _ in 0..2 {
        let fitted: Vec<f64> = sizes
            .iter()
            .zip(&totals)
            .map(|(n, t)| {
                let f = line.intercept + line.slope * n;
                if f > 0.0 { f } else { *t }
            })
            .collect();
        line = weighted_line(&sizes, &totals, &variances, &fitted);
    }
    let df = (sizes.len() - 2) as f64;
    let t = student_t_quantile(0.5 + confidence / 2.0, df)?;
    let scatter = (line.weighted_rss / df).sqrt();
    let (fixed_half, marginal_half) =
        (t * scatter * line.intercept_se, t * scatter * line.slope_se);
    let fit = LinearCostFit {
        fixed: line.intercept,
        fixed_lo: line.intercept - fixed_half,
        fixed_hi: line.intercept + fixed_half,
        marginal: line.slope,
        marginal_lo: line.slope - marginal_half,
        marginal_hi: line.slope + marginal_half,
        confidence,
        scatter,
        points: sizes.len(),
    };
    let values = [
        fit.fixed,
        fit.fixed_lo,
        fit.fixed_hi,
        fit.marginal,
        fit.marginal_lo,
        fit.marginal_hi,
        fit.scatter,
    ];
    if values.iter().all(|v| v.is_finite()) {
        Ok(fit)
    } else {
        Err(StatsError::Overflow {
            statistic: "weighted regression of cost on size",
        })
    }
}

/// A point's geometric mean and the variance of its mean log.
fn summarise(p: &SizedRuns<'_>) -> Result<(f64, f64), StatsError> {
    PositiveSample::new(&[p.size], SampleRole::Values)?;
    let logs = PositiveSample::at_least(p.runs, 2, SampleRole::Values)?.logs();
    let logs = Sample::derived(&logs, SampleRole::Values);
    let mean = mean_of(&logs);
    let sd = std_dev_of(&logs, mean)?;
    Ok((mean.exp(), sd * sd / logs.values().len() as f64))
}

/// Moves each point's variance toward the pooled one, as if the pooled
/// value were worth [`PRIOR_DEGREES_OF_FREEDOM`] extra runs.
///
/// Why: with the five runs a precise point may have, a run variance is
/// itself uncertain by a factor of several, and weights that noisy make the
/// intervals too narrow (in a trial simulation with 3 to 5 runs per point
/// and each point's own variance, 84 % coverage for a 95 % interval). A
/// common variance for all points fixes that but is wrong when noise differs
/// between sizes (start-up jitter against per-item noise), and the sweep's
/// stopping rule gives the noisier points more runs, so pooled weights would
/// favour exactly those (0.87 coverage in that case). The
/// moderated variance sits between the two (Smyth, "Linear models and
/// empirical Bayes methods for assessing differential expression",
/// Statistical Applications in Genetics and Molecular Biology 3(1), 2004,
/// with a fixed prior weight instead of an estimated one).
fn moderate(variances: &mut [f64], counts: &[usize]) {
    // Run variance s² = v · r, pooled over the points' degrees of freedom.
    let df: f64 = counts.iter().map(|&r| r as f64 - 1.0).sum();
    let pooled = variances
        .iter()
        .zip(counts)
        .map(|(v, &r)| v * r as f64 * (r as f64 - 1.0))
        .sum::<f64>()
        / df;
    for (v, &r) in variances.iter_mut().zip(counts) {
        let r = r as f64;
        let run_variance = ((r - 1.0) * *v * r + PRIOR_DEGREES_OF_FREEDOM * pooled)
            / (r - 1.0 + PRIOR_DEGREES_OF_FREEDOM);
        *v = run_variance / r;
    }
}

/// How many runs' worth of weight the pooled variance gets in [`moderate`].
/// In tests/fixed_cost_simulation.rs (points stopped by the sweep's own
/// precision rule), 1, 2, 4, 8 and 16 were tried: the coverage of the
/// marginal cost when the per-item noise (6 %) is much larger than the
/// start-up's (1 %) falls from 0.91 at 2 to 0.88 at 16, while with noise
/// alike at all sizes 1 lets the fixed part's coverage fall to 0.92; 2 is
/// the best of both.
const PRIOR_DEGREES_OF_FREEDOM: f64 = 2.0;

/// Gives every point the same relative weight when no run varied (after
/// [`moderate`], a variance is zero only if all are).
fn fill_constant_points(variances: &mut [f64]) {
    let smallest = variances
        .iter()
        .copied()
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let fill = if smallest.is_finite() { smallest } else { 1.0 };
    for v in variances.iter_mut().filter(|v| **v <= 0.0) {
        *v = fill;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fit_of(sizes: &[f64], runs: &[Vec<f64>]) -> Result<LinearCostFit, StatsError> {
        let points: Vec<SizedRuns<'_>> = sizes
            .iter()
            .zip(runs)
            .map(|(&size, runs)| SizedRuns { size, runs })
            .collect();
        linear_cost_fit(&points, 0.95)
    }

    #[test]
    fn an_exact_line_is_recovered_with_point_intervals() {
        let sizes = [1e3, 4e3, 16e3, 64e3];
        let runs: Vec<Vec<f64>> = sizes.iter().map(|n| vec![0.115 + 0.7e-6 * n; 3]).collect();
        let fit = fit_of(&sizes, &runs).unwrap();
        assert!((fit.fixed - 0.115).abs() < 1e-12);
        assert!((fit.marginal - 0.7e-6).abs() < 1e-15);
        assert!((fit.fixed_hi - fit.fixed_lo).abs() < 1e-9);
        assert!(fit.has_fixed_part());
        assert!((fit.fixed_share(1e3) - 0.115 / 0.1157).abs() < 1e-9);
    }

    #[test]
    fn two_sizes_are_not_enough() {
        let runs = vec![vec![1.0, 1.1]; 3];
        let err = fit_of(&[1.0, 2.0, 2.0], &runs).unwrap_err();
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
    fn a_bad_run_is_named_with_its_point() {
        let runs = vec![vec![1.0, 1.1], vec![2.0, 0.0], vec![3.0, 3.1]];
        let err = fit_of(&[1.0, 2.0, 3.0], &runs).unwrap_err();
        assert!(matches!(err, StatsError::InPoint { point: 1, .. }), "{err}");
        assert!(err.to_string().starts_with("point 1 (size 2): "), "{err}");
        let runs = vec![vec![1.0, 1.1], vec![2.0], vec![3.0, 3.1]];
        let err = fit_of(&[1.0, 2.0, 3.0], &runs).unwrap_err();
        assert!(err.to_string().contains("at least 2"), "{err}");
    }

    #[test]
    fn a_cost_growing_faster_than_linearly_has_no_fixed_part() {
        let sizes = [1e3, 2e3, 4e3, 8e3, 16e3];
        let runs: Vec<Vec<f64>> = sizes
            .iter()
            .map(|n: &f64| vec![n * n * 0.99, n * n * 1.01])
            .collect();
        let fit = fit_of(&sizes, &runs).unwrap();
        assert!(fit.fixed < 0.0 && !fit.has_fixed_part(), "{fit:?}");
    }

    fn noisy_runs() -> impl Strategy<Value = Vec<Vec<f64>>> {
        prop::collection::vec(prop::collection::vec(0.5f64..2.0, 2..8), 3..9)
    }

    fn sizes_for(runs: &[Vec<f64>]) -> Vec<f64> {
        (1..=runs.len()).map(|i| 1000.0 * i as f64).collect()
    }

    proptest! {
        #[test]
        fn scaling_every_cost_scales_both_parts(runs in noisy_runs(), scale in 1e-6f64..1e6) {
            let sizes = sizes_for(&runs);
            let base = fit_of(&sizes, &runs).unwrap();
            let scaled: Vec<Vec<f64>> = runs.iter().map(|r| r.iter().map(|v| v * scale).collect()).collect();
            let fit = fit_of(&sizes, &scaled).unwrap();
            for (a, b) in [(fit.fixed, base.fixed), (fit.fixed_lo, base.fixed_lo), (fit.marginal_hi, base.marginal_hi)] {
                prop_assert!((a - b * scale).abs() <= 1e-6 * (b * scale).abs().max(base.fixed_hi.abs() * scale));
            }
            prop_assert!((fit.scatter - base.scatter).abs() < 1e-6 * base.scatter.max(1.0));
            prop_assert_eq!(fit.has_fixed_part(), base.has_fixed_part());
        }

        #[test]
        fn the_intervals_hold_their_estimates(runs in noisy_runs()) {
            let fit = fit_of(&sizes_for(&runs), &runs).unwrap();
            prop_assert!(fit.fixed_lo <= fit.fixed && fit.fixed <= fit.fixed_hi);
            prop_assert!(fit.marginal_lo <= fit.marginal && fit.marginal <= fit.marginal_hi);
            prop_assert!(fit.scatter >= 0.0);
        }

        #[test]
        fn adding_a_constant_to_every_run_moves_only_the_fixed_part(
            runs in noisy_runs(),
            startup in 1.0f64..100.0,
        ) {
            // Exactly linear points: the shift must land in the fixed part whatever the weights.
            let sizes = sizes_for(&runs);
            let line: Vec<Vec<f64>> = sizes.iter().map(|n| vec![n * 1e-3; 2]).collect();
            let shifted: Vec<Vec<f64>> = line.iter().map(|r| r.iter().map(|v| v + startup).collect()).collect();
            let fit = fit_of(&sizes, &shifted).unwrap();
            prop_assert!((fit.fixed - startup).abs() < 1e-9 * startup.max(1.0));
            prop_assert!((fit.marginal - 1e-3).abs() < 1e-12);
        }
    }
}
