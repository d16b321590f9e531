//! Cliffs: sizes where the cost per item jumps by more than the intervals of
//! the neighbouring points and the curve's own trend allow (a pool that runs
//! out, a cache that stops fitting).

use serde::{Deserialize, Serialize};

use crate::descriptive::location_and_spread::{quantile_sorted_unchecked, sorted_copy};
use crate::error::{SampleRole, StatsError};
use crate::sweep::multiplicative::PositiveInterval;

/// One point of a sweep: a size and the interval of its cost per item.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SizedInterval {
    /// The size (> 0).
    pub size: f64,
    /// The cost per item at this size, with its interval (all > 0).
    pub cost: PositiveInterval,
}

/// A jump of the cost per item between two adjacent sizes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Cliff {
    /// Index (in the input) of the point after the jump.
    pub index: usize,
    /// The size before the jump.
    pub size_before: f64,
    /// The size where the higher cost is first seen.
    pub size: f64,
    /// Cost per item after / before (estimates).
    pub ratio: f64,
    /// The smallest ratio both intervals allow: lo after / hi before.
    pub ratio_lo: f64,
    /// The largest ratio both intervals allow: hi after / lo before.
    pub ratio_hi: f64,
}

/// Finds the cliffs of a curve of cost per item against size.
///
/// Method: on log-log axes, the local slope of every step between adjacent
/// sizes is computed from the estimates; the curve's trend is the median of
/// those slopes when there are at least three steps (a robust line that one
/// jump cannot move; Tukey, "Exploratory Data Analysis", 1977, ch. 10), and
/// zero otherwise. A step from size m to size n is a cliff when even the
/// smallest jump both intervals allow, ln(lo_n) - ln(hi_m), exceeds what the
/// trend predicts, trend · ln(n/m), by more than ln(1 + `min_jump`). Only
/// increases are reported: a cost that drops is not a cliff.
///
/// Assumptions: each interval is a confidence interval for its point's cost
/// per item; the points need not be sorted (they are sorted by size here, and
/// [`Cliff::index`] refers to the input order). A steady growth of cost per
/// item (an n log n or quadratic algorithm) follows the trend and is not a
/// cliff; a curve with fewer than three steps is judged without a trend.
/// `min_jump` is a practical threshold (0.25 = a jump of at least 25 % beyond
/// the trend), not a statistical one: the intervals already cover the noise.
///
/// # Errors
/// [`StatsError::NonFinite`] / [`StatsError::NonPositive`] naming the first
/// bad size or interval end; [`StatsError::InvalidConfig`] if `min_jump` is
/// negative or not finite.
pub fn find_cliffs(points: &[SizedInterval], min_jump: f64) -> Result<Vec<Cliff>, StatsError> {
    if !(min_jump.is_finite() && min_jump >= 0.0) {
        return Err(StatsError::InvalidConfig {
            field: "min_jump",
            reason: format!("must be a fraction >= 0 (0.25 means 25 %), got {min_jump}"),
        });
    }
    for (index, p) in points.iter().enumerate() {
        for value in [p.size, p.cost.estimate, p.cost.lo, p.cost.hi] {
            if !value.is_finite() {
                return Err(StatsError::NonFinite {
                    sample: SampleRole::Values,
                    index,
                    value,
                });
            }
            if value <= 0.0 {
                return Err(StatsError::NonPositive {
                    sample: SampleRole::Values,
                    index,
                    value,
                });
            }
        }
    }
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| points[a].size.total_cmp(&points[b].size));
    order.dedup_by(|a, b| points[*a].size == points[*b].size);
    let steps: Vec<(usize, usize)> = order.windows(2).map(|w| (w[0], w[1])).collect();
    let slopes: Vec<f64> = steps
        .iter()
        .map(|&(m, n)| {
            (points[n].cost.estimate.ln() - points[m].cost.estimate.ln())
                / (points[n].size.ln() - points[m].size.ln())
        })
        .collect();
    let trend = if slopes.len() >= 3 {
        quantile_sorted_unchecked(&sorted_copy(&slopes), 0.5)
    } else {
        0.0
    };
    let threshold = min_jump.ln_1p();
    let mut cliffs = Vec::new();
    for &(m, n) in &steps {
        let (before, after) = (&points[m], &points[n]);
        let expected = trend * (after.size.ln() - before.size.ln());
        let smallest_jump = after.cost.lo.ln() - before.cost.hi.ln();
        if smallest_jump - expected > threshold {
            cliffs.push(Cliff {
                index: n,
                size_before: before.size,
                size: after.size,
                ratio: after.cost.estimate / before.cost.estimate,
                ratio_lo: after.cost.lo / before.cost.hi,
                ratio_hi: after.cost.hi / before.cost.lo,
            });
        }
    }
    Ok(cliffs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn point(size: f64, cost: f64, relative: f64) -> SizedInterval {
        SizedInterval {
            size,
            cost: PositiveInterval {
                estimate: cost,
                lo: cost * (1.0 - relative),
                hi: cost * (1.0 + relative),
                confidence: 0.95,
                n: 10,
            },
        }
    }

    #[test]
    fn a_step_in_cost_per_item_is_a_cliff_at_the_first_higher_size() {
        let points: Vec<_> = [(1e3, 1.0), (1e4, 1.02), (2e4, 0.99), (5e4, 1.9), (1e5, 2.0)]
            .iter()
            .map(|&(n, c)| point(n, c, 0.02))
            .collect();
        let cliffs = find_cliffs(&points, 0.25).unwrap();
        assert_eq!(cliffs.len(), 1, "{cliffs:?}");
        assert_eq!((cliffs[0].size_before, cliffs[0].size), (2e4, 5e4));
        assert!((cliffs[0].ratio - 1.9 / 0.99).abs() < 1e-12);
        assert!(cliffs[0].ratio_lo < cliffs[0].ratio && cliffs[0].ratio < cliffs[0].ratio_hi);
    }

    #[test]
    fn a_jump_within_the_intervals_is_not_a_cliff() {
        let points = [point(1e3, 1.0, 0.3), point(1e4, 1.5, 0.3)];
        assert!(find_cliffs(&points, 0.0).unwrap().is_empty());
    }

    #[test]
    fn a_drop_is_not_a_cliff() {
        let points = [point(1e3, 2.0, 0.01), point(1e4, 1.0, 0.01)];
        assert!(find_cliffs(&points, 0.25).unwrap().is_empty());
    }

    #[test]
    fn the_index_refers_to_the_input_order() {
        let points = [point(1e4, 3.0, 0.01), point(1e3, 1.0, 0.01)];
        let cliffs = find_cliffs(&points, 0.25).unwrap();
        assert_eq!(cliffs[0].index, 0);
    }

    #[test]
    fn a_negative_threshold_is_refused() {
        assert!(find_cliffs(&[], -0.1).is_err());
    }

    proptest! {
        #[test]
        fn a_steady_power_law_has_no_cliff(exponent in -1.0f64..2.0, steps in 3usize..10) {
            let points: Vec<_> = (0..=steps)
                .map(|i| {
                    let n = 1e3 * 10f64.powi(i as i32);
                    point(n, n.powf(exponent), 0.01)
                })
                .collect();
            prop_assert!(find_cliffs(&points, 0.25).unwrap().is_empty());
        }

        #[test]
        fn scaling_every_cost_changes_no_verdict(
            costs in prop::collection::vec(0.5f64..4.0, 2..10),
            scale in 1e-6f64..1e6,
        ) {
            let points: Vec<_> = costs.iter().enumerate()
                .map(|(i, &c)| point(10f64.powi(i as i32 + 2), c, 0.05))
                .collect();
            let scaled: Vec<_> = costs.iter().enumerate()
                .map(|(i, &c)| point(10f64.powi(i as i32 + 2), c * scale, 0.05))
                .collect();
            let a: Vec<f64> = find_cliffs(&points, 0.25).unwrap().iter().map(|c| c.size).collect();
            let b: Vec<f64> = find_cliffs(&scaled, 0.25).unwrap().iter().map(|c| c.size).collect();
            prop_assert_eq!(a, b);
        }

        #[test]
        fn every_cliff_exceeds_the_threshold_even_at_its_lower_bound(
            costs in prop::collection::vec(0.5f64..4.0, 2..4),
        ) {
            // With at most two steps there is no trend: the raw jump decides.
            let points: Vec<_> = costs.iter().enumerate()
                .map(|(i, &c)| point(10f64.powi(i as i32 + 2), c, 0.05))
                .collect();
            for cliff in find_cliffs(&points, 0.25).unwrap() {
                prop_assert!(cliff.ratio_lo > 1.25);
            }
        }
    }
}
