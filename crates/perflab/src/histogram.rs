//! A fixed-size log-linear histogram of durations, for percentiles without
//! allocation or sorting on the hot path.
//!
//! Values below 64 ticks get a bucket each. Above, every power of two is cut
//! into 32 equal buckets, so a bucket is at most 1/32 of its lower bound
//! wide, and its midpoint is within 1/64 (1.6%) of any value in it. Values of
//! 2^45 ticks and more (hours) share the last bucket; the exact minimum and
//! maximum are kept beside the histogram and clamp the estimates.

#![cfg_attr(not(feature = "enabled"), allow(dead_code))]

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// log2 of the number of buckets per power of two.
const SUB_BUCKET_BITS: u32 = 5;
/// Highest power of two with buckets of its own.
const TOP_POWER: u32 = 44;
/// Number of buckets.
pub(crate) const BUCKETS: usize = ((TOP_POWER - SUB_BUCKET_BITS) as usize + 2) << SUB_BUCKET_BITS;

/// Bound on the relative error of a percentile estimate (before rounding to whole nanoseconds).
pub const PERCENTILE_RELATIVE_ERROR: f64 = 1.0 / (2u64 << SUB_BUCKET_BITS) as f64;

/// Bucket counts, written only by the thread that owns them.
pub(crate) struct TickHistogram {
    counts: [AtomicU64; BUCKETS],
}

/// Index of the bucket holding `ticks`. Branch-free: one `lzcnt`, a few shifts.
#[inline(always)]
pub(crate) fn bucket_of(ticks: u64) -> usize {
    let top_bit = 63 - (ticks | 1).leading_zeros();
    let shift = top_bit.saturating_sub(SUB_BUCKET_BITS);
    let index = ((shift as usize) << SUB_BUCKET_BITS) + (ticks >> shift) as usize;
    index.min(BUCKETS - 1)
}

/// Smallest value and width of bucket `index`.
pub(crate) fn bucket_bounds(index: usize) -> (u64, u64) {
    let per_power = 1usize << SUB_BUCKET_BITS;
    if index < 2 * per_power {
        return (index as u64, 1);
    }
    let shift = (index >> SUB_BUCKET_BITS) as u32 - 1;
    let mantissa = (index & (per_power - 1)) as u64 + per_power as u64;
    (mantissa << shift, 1u64 << shift)
}

impl TickHistogram {
    pub(crate) fn new() -> Self {
        TickHistogram {
            counts: [const { AtomicU64::new(0) }; BUCKETS],
        }
    }

    /// Counts one value. Called by the owning thread only, hence load + store
    /// rather than a locked read-modify-write.
    #[inline(always)]
    pub(crate) fn record(&self, ticks: u64) {
        let cell = &self.counts[bucket_of(ticks)];
        cell.store(cell.load(Relaxed).wrapping_add(1), Relaxed);
    }

    /// Adds this histogram's counts to `into` (any thread may read).
    pub(crate) fn add_to(&self, into: &mut MergedHistogram) {
        for (sum, count) in into.counts.iter_mut().zip(self.counts.iter()) {
            *sum += count.load(Relaxed);
        }
    }
}

/// Counts of several threads' histograms, summed when a report is built.
#[derive(Clone)]
pub(crate) struct MergedHistogram {
    counts: Vec<u64>,
}

impl MergedHistogram {
    pub(crate) fn new() -> Self {
        MergedHistogram {
            counts: vec![0; BUCKETS],
        }
    }

    /// Adds another merged histogram's counts (call sites sharing a name).
    pub(crate) fn merge(&mut self, other: &MergedHistogram) {
        for (sum, count) in self.counts.iter_mut().zip(other.counts.iter()) {
            *sum += count;
        }
    }

    /// Counts one value.
    pub(crate) fn record(&mut self, ticks: u64) {
        self.counts[bucket_of(ticks)] += 1;
    }

    /// Nearest-rank percentile `fraction` (0.5 for the median), in ticks,
    /// as the midpoint of its bucket clamped to the exact `[min, max]`.
    /// `None` when nothing was recorded.
    pub(crate) fn percentile(&self, fraction: f64, min: u64, max: u64) -> Option<f64> {
        let total: u64 = self.counts.iter().sum();
        if total == 0 {
            return None;
        }
        let rank = ((fraction * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0u64;
        for (index, &count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                let (low, width) = bucket_bounds(index);
                let midpoint = low as f64 + (width - 1) as f64 / 2.0;
                return Some(midpoint.clamp(min as f64, max as f64));
            }
        }
        Some(max as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn small_values_have_exact_buckets() {
        for value in 0..64 {
            assert_eq!(bucket_bounds(bucket_of(value)), (value, 1));
        }
    }

    #[test]
    fn buckets_tile_the_range_without_gaps() {
        let mut expected_low = 0u64;
        for index in 0..BUCKETS {
            let (low, width) = bucket_bounds(index);
            assert_eq!(low, expected_low, "bucket {index}");
            assert_eq!(bucket_of(low), index);
            assert_eq!(bucket_of(low + width - 1), index);
            expected_low = low + width;
        }
    }

    #[test]
    fn huge_values_land_in_the_last_bucket() {
        assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
        assert_eq!(bucket_of(1 << 50), BUCKETS - 1);
    }

    fn exact_nearest_rank(sorted: &[u64], fraction: f64) -> u64 {
        let rank = ((fraction * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        sorted[rank - 1]
    }

    proptest! {
        #[test]
        fn bucket_midpoints_are_within_the_stated_error(value in 0u64..(1 << 45)) {
            let (low, width) = bucket_bounds(bucket_of(value));
            let midpoint = low as f64 + (width - 1) as f64 / 2.0;
            prop_assert!((midpoint - value as f64).abs() <= value as f64 * PERCENTILE_RELATIVE_ERROR);
        }

        #[test]
        fn percentiles_match_exact_sorted_values_within_the_stated_error(
            values in prop::collection::vec(0u64..50_000_000, 1..400),
        ) {
            let mut histogram = MergedHistogram::new();
            for &value in &values {
                histogram.record(value);
            }
            let mut sorted = values.clone();
            sorted.sort_unstable();
            let (min, max) = (sorted[0], sorted[sorted.len() - 1]);
            for fraction in [0.5, 0.95, 0.99] {
                let exact = exact_nearest_rank(&sorted, fraction) as f64;
                let estimate = histogram.percentile(fraction, min, max).unwrap();
                prop_assert!(
                    (estimate - exact).abs() <= exact * PERCENTILE_RELATIVE_ERROR,
                    "p{} estimate {} exact {}", fraction * 100.0, estimate, exact
                );
            }
        }
    }

    #[test]
    fn an_empty_histogram_has_no_percentiles() {
        assert_eq!(MergedHistogram::new().percentile(0.5, 0, 0), None);
    }
}
