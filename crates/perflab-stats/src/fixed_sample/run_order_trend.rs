//! Drift over run order: does a series of runs of one command get steadily
//! slower (or faster) from its first run to its last?

use serde::{Deserialize, Serialize};

use crate::descriptive::location_and_spread;
use crate::distributions::student_t::student_t_cdf;
use crate::error::{SampleRole, StatsError};
use crate::sample::Sample;

/// The fewest runs [`run_order_trend`] tests; with fewer, a rank correlation
/// cannot reach the usual levels of significance.
pub const TREND_MIN_RUNS: usize = 8;

/// The level at which perflab calls a trend drift: strict, so that two
/// series checked in every comparison rarely raise a false alarm.
pub const DRIFT_SIGNIFICANCE: f64 = 0.01;

/// The smallest drift perflab warns about, as a fraction of the series'
/// median from its first run to its last: smaller drifts are below what a
/// decision's thresholds (1% by default) can be misled by.
pub const DRIFT_MIN_CHANGE: f64 = 0.01;

/// The trend of a series over its run order, from [`run_order_trend`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RunOrderTrend {
    /// Runs in the series.
    pub n: usize,
    /// Spearman's rank correlation of the values with their run index, in
    /// [-1, 1]; positive when later runs are larger.
    pub rho: f64,
    /// Two-sided p-value of "no monotone trend".
    pub p_value: f64,
    /// The size of the trend: the Theil-Sen slope times (n - 1), as a
    /// fraction of the median; how much larger the last run is expected to
    /// be than the first (negative: smaller).
    pub change: f64,
}

impl RunOrderTrend {
    /// True when the trend is significant at `alpha` and at least
    /// `min_change` in size (either direction): the procedure perflab's
    /// drift warnings use, with [`DRIFT_SIGNIFICANCE`] and [`DRIFT_MIN_CHANGE`].
    pub fn drifts(&self, alpha: f64, min_change: f64) -> bool {
        self.p_value < alpha && self.change.abs() >= min_change
    }
}

/// Tests a series, in the order its runs were made, for a monotone trend.
///
/// Method: Spearman's rank correlation rho between the values and their
/// run index (mid-ranks for tied values), tested with the statistic
/// t = rho * sqrt((n - 2) / (1 - rho^2)) against Student's t with n - 2
/// degrees of freedom (two-sided). The size of the trend is the Theil-Sen
/// slope (the median of the pairwise slopes (x_j - x_i) / (j - i); beyond
/// 1,415 runs, of a million of them drawn at random, see `theil_sen_slope`)
/// times n - 1, relative to the median of the series.
/// References: Spearman, "The proof and measurement of association between
/// two things", Am. J. Psychol. 15(1), 1904; Zar, "Significance testing of
/// the Spearman rank correlation coefficient", JASA 67(339), 1972 (the
/// t approximation); Hollander, Wolfe & Chicken, "Nonparametric
/// Statistical Methods", 3rd ed., Wiley 2014, §8.5 (rank correlation) and
/// §9.1 (Theil-Sen slope); Sen, "Estimates of the regression coefficient
/// based on Kendall's tau", JASA 63(324), 1968.
///
/// Assumptions: under the null hypothesis the runs are exchangeable (i.i.d.
/// noise, no trend); the test has power against monotone drift, not against
/// a level that goes up and comes back. The t approximation holds the
/// false-alarm rate close to its level from about 8 runs (0.97% to 1.16%
/// at 1%, benches/drift_simulation.rs; bounds asserted in
/// tests/run_order_trend.rs). Scale-free: only the order of values matters
/// for rho and p.
///
/// A series whose values are all equal has no trend: rho = 0, p = 1.
///
/// # Errors
/// [`StatsError::TooFew`] with fewer than [`TREND_MIN_RUNS`] values;
/// [`StatsError::NonFinite`] naming the first bad value.
pub fn run_order_trend(values: &[f64]) -> Result<RunOrderTrend, StatsError> {
    let values = Sample::at_least(values, TREND_MIN_RUNS, SampleRole::Values)?.values();
    let n = values.len();
    let (ranks, median) = mid_ranks_and_median(values);
    // The run indices 1..n have mean (n + 1) / 2 and no ties.
    let centre = (n as f64 + 1.0) / 2.0;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (i, r) in ranks.iter().enumerate() {
        let x = i as f64 + 1.0 - centre;
        let y = r - centre;
        sxy += x * y;
        sxx += x * x;
        syy += y * y;
    }
    if syy == 0.0 {
        return Ok(RunOrderTrend {
            n,
            rho: 0.0,
            p_value: 1.0,
            change: 0.0,
        });
    }
    let rho = (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0);
    let df = (n - 2) as f64;
    let p_value = if rho.abs() >= 1.0 {
        0.0
    } else {
        let t = rho * (df / (1.0 - rho * rho)).sqrt();
        (2.0 * student_t_cdf(-t.abs(), df)?).min(1.0)
    };
    let change = if median == 0.0 {
        0.0
    } else {
        theil_sen_slope(values) * (n - 1) as f64 / median.abs()
    };
    Ok(RunOrderTrend {
        n,
        rho,
        p_value,
        change,
    })
}

/// Ranks from 1, tied values sharing the mean of their ranks, and the
/// median, both from one sort of (value, run) pairs.
fn mid_ranks_and_median(values: &[f64]) -> (Vec<f64>, f64) {
    let mut order: Vec<(f64, usize)> = values.iter().copied().zip(0..).collect();
    // Equal values share a rank, so their order among themselves is free.
    order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let mut ranks = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && order[j].0 == order[i].0 {
            j += 1;
        }
        let mid = (i + 1 + j) as f64 / 2.0;
        for &(_, k) in &order[i..j] {
            ranks[k] = mid;
        }
        i = j;
    }
    let median = location_and_spread::quantile_of_order(order.len(), 0.5, |i| order[i].0);
    (ranks, median)
}

/// The most pairwise slopes [`theil_sen_slope`] takes the median of: all of
/// them up to 1,415 runs, a random sample of this many beyond.
const MOST_SLOPES: usize = 1_000_000;

/// The seed of the sample of slopes: the same series gives the same slope.
const SLOPE_SAMPLE_SEED: u64 = 0x7e11_5e11;

/// The median of the slopes between every two runs (Theil-Sen), or of
/// [`MOST_SLOPES`] of them drawn at random when there are more.
///
/// Why a sample: all n(n-1)/2 slopes of 20,000 runs take 1.6 GB, of 10
/// million runs more memory than any machine has. Method: pairs of distinct
/// runs drawn uniformly with replacement (a fixed seed), whose sample median
/// estimates the median of all slopes. Accuracy: the share of all slopes
/// below the sample median is within 0.5 ± 0.001 with 95% probability
/// (binomial: standard error 0.5 / sqrt(1,000,000)), so the slope is that
/// of a run pair ranked within ±0.1% of the middle of all pairs; time and
/// memory stay bounded whatever the number of runs.
fn theil_sen_slope(values: &[f64]) -> f64 {
    let n = values.len();
    let slope = |i: usize, j: usize| (values[j] - values[i]) / (j as f64 - i as f64);
    let mut slopes: Vec<f64> = if n * (n - 1) / 2 <= MOST_SLOPES {
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| slope(i, j)))
            .collect()
    } else {
        let mut rng = fastrand::Rng::with_seed(SLOPE_SAMPLE_SEED);
        (0..MOST_SLOPES)
            .map(|_| {
                let i = rng.usize(..n);
                // Another run than i, each equally likely.
                let j = (i + 1 + rng.usize(..n - 1)) % n;
                slope(i.min(j), i.max(j))
            })
            .collect()
    };
    slopes.sort_unstable_by(f64::total_cmp);
    location_and_spread::quantile_sorted(&slopes, 0.5).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    #[test]
    fn a_steady_rise_has_rank_correlation_one_and_its_size_from_first_to_last() {
        let values: Vec<f64> = (0..10).map(|i| 100.0 + i as f64).collect();
        let t = run_order_trend(&values).unwrap();
        assert_eq!(t.rho, 1.0);
        assert_eq!(t.p_value, 0.0);
        // Slope 1 over 9 steps, median 104.5.
        assert!((t.change - 9.0 / 104.5).abs() < 1e-12, "{}", t.change);
    }

    #[test]
    fn the_p_value_matches_the_t_approximation_by_hand() {
        // Ranks of the values: 2 1 4 3 6 5 8 7; d = ±1 everywhere,
        // rho = 1 - 6 * 8 / (8 * 63) = 0.904761904...
        let values = [2.0, 1.0, 4.0, 3.0, 6.0, 5.0, 8.0, 7.0];
        let t = run_order_trend(&values).unwrap();
        let rho = 1.0 - 48.0 / 504.0;
        assert!((t.rho - rho).abs() < 1e-12, "{}", t.rho);
        // t = rho * sqrt(6 / (1 - rho^2)) = 5.20336; the two-sided p for 6
        // degrees of freedom by numerical integration of the t density.
        assert!((t.p_value - 0.002_008_28).abs() < 1e-6, "{}", t.p_value);
    }

    proptest::proptest! {
        #[test]
        fn ranks_and_median_from_one_sort_match_sorting_indices_and_a_copy(
            values in proptest::collection::vec((-8i32..8).prop_map(|v| f64::from(v) * 0.5), 1..60)
        ) {
            let (ranks, median) = mid_ranks_and_median(&values);
            // The ranks as a stable sort of the run indices gives them.
            let mut order: Vec<usize> = (0..values.len()).collect();
            order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
            let mut expected = vec![0.0; values.len()];
            let mut i = 0;
            while i < order.len() {
                let mut j = i + 1;
                while j < order.len() && values[order[j]] == values[order[i]] {
                    j += 1;
                }
                for &k in &order[i..j] {
                    expected[k] = (i + 1 + j) as f64 / 2.0;
                }
                i = j;
            }
            proptest::prop_assert_eq!(ranks, expected);
            proptest::prop_assert_eq!(median, location_and_spread::median(&values).unwrap());
        }
    }

    #[test]
    fn equal_values_have_no_trend_and_too_few_runs_are_refused() {
        let t = run_order_trend(&[5.0; 9]).unwrap();
        assert_eq!((t.rho, t.p_value, t.change), (0.0, 1.0, 0.0));
        assert!(matches!(
            run_order_trend(&[1.0, 2.0, 3.0]),
            Err(StatsError::TooFew { .. })
        ));
    }

    #[test]
    fn the_slope_of_a_long_series_is_found_from_a_bounded_sample_of_pairs() {
        // 100,000 runs: 5e9 pairs, of which a million are drawn. A rise of
        // 0.5 per run plus noise that repeats every 7 runs.
        let values: Vec<f64> = (0..100_000)
            .map(|i| 1000.0 + 0.5 * i as f64 + [3.0, -1.0, 4.0, -1.0, 5.0, -9.0, 2.0][i % 7])
            .collect();
        let slope = theil_sen_slope(&values);
        assert!((slope - 0.5).abs() < 1e-3, "{slope}");
        assert_eq!(
            slope,
            theil_sen_slope(&values),
            "the same series, the same slope"
        );
    }
}
