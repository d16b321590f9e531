//! Location and spread of one sample: mean, standard deviation, quantiles,
//! median and median absolute deviation.
//!
//! All functions take values in any order (except [`quantile_sorted`]), reject
//! NaN and infinities with the index of the first bad value, and never return
//! NaN: a result that would overflow f64 is an error instead.

use crate::error::{SampleRole, StatsError};
use crate::sample::Sample;

/// Arithmetic mean.
///
/// Method: sum / n; if the plain sum overflows, the values are first divided by
/// the largest magnitude M and the result multiplied back, so the mean of finite
/// values is always finite. Reference: any textbook, e.g.
/// Wasserman, "All of Statistics" (2004), §3.
///
/// # Errors
/// [`StatsError::TooFew`] if empty; [`StatsError::NonFinite`] naming the first bad value.
pub fn mean(xs: &[f64]) -> Result<f64, StatsError> {
    Ok(mean_of(&Sample::new(xs, SampleRole::Values)?))
}

/// The mean of a checked sample (finite, so the sum can overflow only to
/// ±inf, which the rescaling handles).
pub(crate) fn mean_of(xs: &Sample<'_>) -> f64 {
    let xs = xs.values();
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().sum();
    if sum.is_finite() {
        sum / n
    } else {
        let m = xs.iter().map(|x| x.abs()).fold(0.0, f64::max);
        m * (xs.iter().map(|x| x / m).sum::<f64>() / n)
    }
}

/// Sample standard deviation with Bessel's correction (divisor n - 1).
///
/// Method: two-pass algorithm, sum of squared deviations from the mean, scaled
/// by the largest deviation to avoid overflow (Chan, Golub & LeVeque,
/// "Algorithms for computing the sample variance", The American Statistician
/// 37(3), 1983). Assumes nothing about the distribution.
///
/// # Errors
/// [`StatsError::TooFew`] with fewer than 2 values (no spread can be measured
/// from one value); [`StatsError::NonFinite`]; [`StatsError::Overflow`] if the
/// deviations exceed the f64 range.
pub fn std_dev(xs: &[f64]) -> Result<f64, StatsError> {
    let xs = Sample::at_least(xs, 2, SampleRole::Values)?;
    std_dev_of(&xs, mean_of(&xs))
}

/// Sample sd of a checked sample around `mean` (n >= 2 checked by the caller).
pub(crate) fn std_dev_of(xs: &Sample<'_>, mean: f64) -> Result<f64, StatsError> {
    let xs = xs.values();
    let scale = xs.iter().map(|x| (x - mean).abs()).fold(0.0, f64::max);
    if !scale.is_finite() {
        return Err(StatsError::Overflow {
            statistic: "standard deviation",
        });
    }
    if scale == 0.0 {
        return Ok(0.0);
    }
    let ss: f64 = xs.iter().map(|x| ((x - mean) / scale).powi(2)).sum();
    let sd = scale * (ss / (xs.len() - 1) as f64).sqrt();
    if sd.is_finite() {
        Ok(sd)
    } else {
        Err(StatsError::Overflow {
            statistic: "standard deviation",
        })
    }
}

/// Quantile of sorted values, Hyndman & Fan type 7 (the default of R and NumPy).
///
/// Method: h = (n - 1) p; the result interpolates linearly between the values at
/// positions floor(h) and floor(h) + 1 (zero-based). Reference: Hyndman & Fan,
/// "Sample quantiles in statistical packages", The American Statistician 50(4),
/// 1996, definition 7. The result is clamped to the two neighbouring values so
/// quantiles are monotone in p even under rounding.
///
/// # Errors
/// [`StatsError::TooFew`] if empty; [`StatsError::InvalidProbability`] unless
/// 0 <= p <= 1; [`StatsError::NonFinite`]; [`StatsError::NotSorted`] naming the
/// first value out of order.
pub fn quantile_sorted(sorted: &[f64], p: f64) -> Result<f64, StatsError> {
    if sorted.is_empty() {
        // The count comes before the probability, as everywhere else.
        Sample::new(sorted, SampleRole::Values)?;
    }
    if !(0.0..=1.0).contains(&p) {
        return Err(StatsError::InvalidProbability { value: p });
    }
    let sorted = Sample::new(sorted, SampleRole::Values)?.values();
    if let Some(i) = sorted.windows(2).position(|w| w[1] < w[0]) {
        return Err(StatsError::NotSorted { index: i + 1 });
    }
    Ok(quantile_sorted_unchecked(sorted, p))
}

pub(crate) fn quantile_sorted_unchecked(sorted: &[f64], p: f64) -> f64 {
    quantile_of_order(sorted.len(), p, |i| sorted[i])
}

/// The type 7 quantile of `len` values whose i-th smallest (zero-based) is
/// `nth(i)`; reads at most the two order statistics it interpolates.
pub(crate) fn quantile_of_order(len: usize, p: f64, mut nth: impl FnMut(usize) -> f64) -> f64 {
    let h = (len - 1) as f64 * p;
    let i = (h.floor() as usize).min(len - 1);
    let w = h - i as f64;
    if w == 0.0 || i + 1 == len {
        return nth(i);
    }
    let (a, b) = (nth(i), nth(i + 1));
    let span = b - a;
    let q = if span.is_finite() {
        a + w * span
    } else {
        a * (1.0 - w) + b * w
    };
    q.clamp(a, b)
}

/// Median: the middle value, or the mean of the two middle values (type 7 at p = 0.5).
///
/// Method and reference as [`quantile_sorted`]; sorts a copy of the input.
///
/// # Errors
/// [`StatsError::TooFew`] if empty; [`StatsError::NonFinite`] naming the first bad value.
pub fn median(xs: &[f64]) -> Result<f64, StatsError> {
    let xs = Sample::new(xs, SampleRole::Values)?;
    Ok(quantile_sorted_unchecked(&sorted_copy(xs.values()), 0.5))
}

/// Raw median absolute deviation: median(|x_i - median(x)|), NOT scaled by
/// 1.4826 (multiply by 1.4826 to estimate a normal standard deviation).
///
/// Method: Hampel, "The influence curve and its role in robust estimation",
/// JASA 69(346), 1974; see also Rousseeuw & Croux, JASA 88(424), 1993. Robust to
/// up to half of the values being outliers.
///
/// # Errors
/// [`StatsError::TooFew`] if empty; [`StatsError::NonFinite`];
/// [`StatsError::Overflow`] if a deviation exceeds the f64 range.
pub fn mad(xs: &[f64]) -> Result<f64, StatsError> {
    let sorted = sorted_copy(Sample::new(xs, SampleRole::Values)?.values());
    mad_sorted_unchecked(&sorted, quantile_sorted_unchecked(&sorted, 0.5))
}

/// The raw MAD of sorted values around their `median`, without sorting the
/// deviations: |x - median| falls over the values below the median (as the
/// index grows) and rises over the values at or above it (rounding of the
/// subtraction is monotone), so the deviations are two sorted runs, merged
/// outwards from the median up to the two order statistics the type 7 median
/// reads. The largest deviation is at one end, so the deviations are all
/// finite when both ends' are. O(n) time, no allocation; the same value as
/// sorting every deviation.
pub(crate) fn mad_sorted_unchecked(sorted: &[f64], median: f64) -> Result<f64, StatsError> {
    let deviation = |x: f64| (x - median).abs();
    let n = sorted.len();
    if !deviation(sorted[0]).is_finite() || !deviation(sorted[n - 1]).is_finite() {
        return Err(StatsError::Overflow {
            statistic: "median absolute deviation",
        });
    }
    // Below the median: sorted[..left] read backwards; at or above: sorted[right..].
    let split = sorted.partition_point(|&x| x < median);
    let (mut left, mut right) = (split, split);
    let mut ascending = std::iter::from_fn(|| {
        if left > 0 && (right == n || deviation(sorted[left - 1]) <= deviation(sorted[right])) {
            left -= 1;
            Some(deviation(sorted[left]))
        } else if right < n {
            right += 1;
            Some(deviation(sorted[right - 1]))
        } else {
            None
        }
    });
    let (mut taken, mut last) = (0usize, 0.0);
    Ok(quantile_of_order(n, 0.5, |i| {
        while taken <= i {
            last = ascending.next().unwrap_or(last);
            taken += 1;
        }
        last
    }))
}

pub(crate) fn sorted_copy(xs: &[f64]) -> Vec<f64> {
    let mut v = xs.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_count_is_the_middle_value() {
        assert_eq!(median(&[5.0, 1.0, 3.0]).unwrap(), 3.0);
    }

    #[test]
    fn median_of_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]).unwrap(), 2.5);
    }

    #[test]
    fn mad_of_a_known_sample() {
        // median 3; deviations 2,1,0,1,6 -> sorted 0,1,1,2,6 -> 1
        assert_eq!(mad(&[1.0, 2.0, 3.0, 4.0, 9.0]).unwrap(), 1.0);
    }

    #[test]
    fn std_dev_of_a_known_sample() {
        // Classic example: mean 5, sum of squares 32, n - 1 = 7.
        let sd = std_dev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert!((sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-14);
    }

    #[test]
    fn std_dev_of_a_constant_sample_is_zero() {
        assert_eq!(std_dev(&[3.5; 7]).unwrap(), 0.0);
    }

    #[test]
    fn std_dev_needs_two_values() {
        assert!(matches!(
            std_dev(&[1.0]),
            Err(StatsError::TooFew {
                got: 1,
                needed: 2,
                ..
            })
        ));
    }

    #[test]
    fn type_7_quantiles_match_r() {
        // R: quantile(c(1, 2, 3, 4, 10), c(0.25, 0.9)) -> 2, 7.6
        let s = [1.0, 2.0, 3.0, 4.0, 10.0];
        assert_eq!(quantile_sorted(&s, 0.25).unwrap(), 2.0);
        assert!((quantile_sorted(&s, 0.9).unwrap() - 7.6).abs() < 1e-12);
        assert_eq!(quantile_sorted(&s, 0.0).unwrap(), 1.0);
        assert_eq!(quantile_sorted(&s, 1.0).unwrap(), 10.0);
    }

    #[test]
    fn quantile_rejects_unsorted_input_and_bad_probability() {
        assert_eq!(
            quantile_sorted(&[1.0, 3.0, 2.0], 0.5),
            Err(StatsError::NotSorted { index: 2 })
        );
        assert!(matches!(
            quantile_sorted(&[1.0], 1.5),
            Err(StatsError::InvalidProbability { .. })
        ));
        assert!(matches!(
            quantile_sorted(&[1.0], f64::NAN),
            Err(StatsError::InvalidProbability { .. })
        ));
    }

    #[test]
    fn huge_values_give_finite_mean_or_an_overflow_error() {
        let xs = [f64::MAX, f64::MAX, f64::MAX];
        assert_eq!(mean(&xs).unwrap(), f64::MAX);
        assert_eq!(std_dev(&xs).unwrap(), 0.0);
        let xs = [-f64::MAX, f64::MAX];
        assert_eq!(mean(&xs).unwrap(), 0.0);
        assert!(matches!(std_dev(&xs), Err(StatsError::Overflow { .. })));
    }
}
