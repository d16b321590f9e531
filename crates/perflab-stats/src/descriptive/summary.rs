//! A one-call description of a sample, with Tukey's outlier fences.

use serde::{Deserialize, Serialize};

use crate::descriptive::location_and_spread::{
    mad_sorted_unchecked, mean_of, quantile_sorted_unchecked, std_dev_of,
};
use crate::error::{SampleRole, StatsError};
use crate::sample::{Sample, SortedSample};

/// Values outside Tukey's fences, as zero-based indices into the input (ascending).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TukeyOutliers {
    /// Outside [q1 - 1.5 IQR, q3 + 1.5 IQR] but inside [q1 - 3 IQR, q3 + 3 IQR].
    pub mild: Vec<usize>,
    /// Outside [q1 - 3 IQR, q3 + 3 IQR].
    pub severe: Vec<usize>,
}

/// Descriptive statistics of one sample. Every field rests on `n` values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of values.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (divisor n - 1); 0 when n = 1, where no spread can be measured.
    pub sd: f64,
    /// Median (type 7 quantile at 0.5).
    pub median: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Raw median absolute deviation (not scaled by 1.4826).
    pub mad: f64,
    /// First quartile (type 7).
    pub q1: f64,
    /// Third quartile (type 7).
    pub q3: f64,
    /// Values beyond Tukey's fences.
    pub outliers: TukeyOutliers,
}

/// Summarises a sample: n, mean, sd, median, min, max, MAD, quartiles, outliers.
///
/// Method: quartiles and median are Hyndman & Fan type 7 quantiles (Hyndman &
/// Fan, The American Statistician 50(4), 1996); sd has divisor n - 1; MAD is raw
/// (Hampel 1974); outliers use Tukey's fences at 1.5 and 3 interquartile ranges
/// (Tukey, "Exploratory Data Analysis", Addison-Wesley 1977, ch. 2), a value
/// strictly beyond a fence being outside it.
///
/// Assumptions: none about the distribution; fences flag values worth looking at,
/// they are not a test. Values may be in any order, negative or zero.
/// Guarantees min <= q1 <= median <= q3 <= max and no NaN.
///
/// # Errors
/// [`StatsError::TooFew`] if empty; [`StatsError::NonFinite`] naming the first bad
/// value; [`StatsError::Overflow`] if the values span more than the f64 range.
pub fn summarize(xs: &[f64]) -> Result<Summary, StatsError> {
    summarize_sorted(&Sample::new(xs, SampleRole::Values)?.sorted())
}

/// [`summarize`] of a sample already sorted once: the same figures, read
/// from the shared sorted copy (order statistics) and from the values in
/// their given order (mean, sd and the outliers' indices), so that a caller
/// that needs the order for other statistics too sorts only once.
///
/// # Errors
/// [`StatsError::Overflow`] if the values span more than the f64 range.
pub fn summarize_sorted(sample: &SortedSample<'_>) -> Result<Summary, StatsError> {
    let (xs, sorted) = (sample.values(), sample.sorted());
    let sample = sample.sample();
    let n = xs.len();
    let mean = mean_of(&sample);
    let sd = if n == 1 {
        0.0
    } else {
        std_dev_of(&sample, mean)?
    };
    let q1 = quantile_sorted_unchecked(sorted, 0.25);
    let median = quantile_sorted_unchecked(sorted, 0.5);
    let q3 = quantile_sorted_unchecked(sorted, 0.75);
    let mad = mad_sorted_unchecked(sorted, median)?;
    Ok(Summary {
        n,
        mean,
        sd,
        median,
        min: sorted[0],
        max: sorted[n - 1],
        mad,
        q1,
        q3,
        outliers: tukey_outliers(xs, q1, q3),
    })
}

fn tukey_outliers(xs: &[f64], q1: f64, q3: f64) -> TukeyOutliers {
    let iqr = q3 - q1;
    // With an infinite IQR (values near +-f64::MAX) the fences are infinite and
    // nothing is flagged, which is the right answer for such a spread.
    let (inner_lo, inner_hi) = (q1 - 1.5 * iqr, q3 + 1.5 * iqr);
    let (outer_lo, outer_hi) = (q1 - 3.0 * iqr, q3 + 3.0 * iqr);
    let mut out = TukeyOutliers::default();
    for (i, &x) in xs.iter().enumerate() {
        if x < outer_lo || x > outer_hi {
            out.severe.push(i);
        } else if x < inner_lo || x > inner_hi {
            out.mild.push(i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_one_value_has_zero_spread() {
        let s = summarize(&[42.0]).unwrap();
        assert_eq!((s.n, s.mean, s.sd, s.mad), (1, 42.0, 0.0, 0.0));
        assert_eq!(
            (s.min, s.q1, s.median, s.q3, s.max),
            (42.0, 42.0, 42.0, 42.0, 42.0)
        );
        assert_eq!(s.outliers, TukeyOutliers::default());
    }

    #[test]
    fn summary_flags_mild_and_severe_outliers_by_index() {
        // q1 = 2, q3 = 4 (type 7 on 1..=5 plus extremes), IQR = 2 -> inner fences -1 and 7,
        // outer fences -4 and 10.
        let xs = [1.0, 2.0, 3.0, 8.0, 2.0, 4.0, 3.0, 4.0, 20.0];
        let s = summarize(&xs).unwrap();
        assert_eq!((s.q1, s.q3), (2.0, 4.0));
        assert_eq!(s.outliers.mild, vec![3]);
        assert_eq!(s.outliers.severe, vec![8]);
    }

    #[test]
    fn summary_of_a_constant_sample_flags_nothing() {
        let s = summarize(&[7.0; 5]).unwrap();
        assert_eq!((s.sd, s.mad, s.q1, s.q3), (0.0, 0.0, 7.0, 7.0));
        assert!(s.outliers.mild.is_empty() && s.outliers.severe.is_empty());
    }

    #[test]
    fn summary_rejects_nan_with_its_index() {
        let err = summarize(&[1.0, f64::NAN]).unwrap_err();
        assert!(
            matches!(err, StatsError::NonFinite { sample: SampleRole::Values, index: 1, value } if value.is_nan()),
            "{err:?}"
        );
    }
}
