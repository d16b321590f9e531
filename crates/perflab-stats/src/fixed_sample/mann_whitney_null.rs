//! The exact null distribution of the Mann-Whitney U statistic, and Moses'
//! rank for the Hodges-Lehmann interval taken from it where that is cheap.

use crate::distributions::normal;

/// The largest m·n for which Moses' rank comes from the exact null
/// distribution ([`exact_moses_rank`]); above it, from the normal
/// approximation ([`normal_moses_rank`]).
///
/// Why this limit: up to it the counts of the distribution fit a `u128`
/// exactly (the largest, C(128, 64) for 64 against 64 values, is below 2^125;
/// for a fixed m·n the balanced sizes have the most arrangements), and the
/// computation costs at most min(m, n) · m·n additions, about 260,000 for 64
/// against 64, on a table of m·n/2 + 1 counts (32 KiB). It covers every
/// comparison of up to 64 runs a side, and 10 runs against 400.
pub(crate) const EXACT_LIMIT: usize = 4096;

/// Moses' rank C of the interval [D_(C), D_(mn+1-C)] on the m·n ordered
/// pairwise differences, at `confidence` (between 0 and 1, checked by the
/// caller): exact when m·n <= [`EXACT_LIMIT`], the normal approximation
/// above. 0 when the samples are too small for any interval.
///
/// Method and assumptions: those of [`exact_moses_rank`] and
/// [`normal_moses_rank`].
pub(crate) fn moses_rank(m: usize, n: usize, confidence: f64) -> usize {
    match m.checked_mul(n) {
        Some(mn) if mn <= EXACT_LIMIT => exact_moses_rank(m, n, confidence),
        _ => normal_moses_rank(m, n, confidence),
    }
}

/// Moses' rank from the normal approximation to U:
/// C = floor(mn/2 - z_(1-α/2) · sqrt(mn(m + n + 1)/12)), 0 when not positive.
///
/// Method: Hollander, Wolfe & Chicken, "Nonparametric Statistical Methods",
/// 3rd ed., Wiley 2014, §4.3 (large-sample approximation). Rounded down,
/// no tie correction. Checked against the exact distribution for m and n
/// from 4 to 60 at 95 %, 98.33 % and 99.875 %, it is never too narrow
/// there but in 95 % of those cases one to fourteen ranks too wide (an
/// interval that covers more often than it says, and decides less often);
/// with very unequal sizes at 90 % (2 against 2,049, 8 against 513) it is
/// a little too narrow. Hence the exact rank wherever it is cheap.
pub(crate) fn normal_moses_rank(m: usize, n: usize, confidence: f64) -> usize {
    let z = normal::quantile(1.0 - (1.0 - confidence) / 2.0);
    let (mf, nf) = (m as f64, n as f64);
    let c = (mf * nf / 2.0 - z * (mf * nf * (mf + nf + 1.0) / 12.0).sqrt()).floor();
    if c >= 1.0 { c as usize } else { 0 }
}

/// Moses' rank from the exact null distribution of U: the largest C with
/// P(U <= C - 1) <= α/2, so that the interval [D_(C), D_(mn+1-C)] covers the
/// shift with probability 1 - 2 P(U <= C - 1) >= `confidence`; 0 when even
/// P(U = 0) = 1/C(m+n, m) is above α/2. m·n must be at most
/// [`EXACT_LIMIT`] (the counts would not fit otherwise).
///
/// Method: under the null hypothesis every one of the C(m+n, m) ways to
/// give m of the pooled ranks to the first sample is equally likely, and
/// the number of them with U = u is the coefficient of q^u in the Gaussian
/// binomial coefficient [m+n choose m]_q = Π_(i=1..k) (1 - q^(l+i)) / (1 - q^i),
/// with k = min(m, n) and l = max(m, n): the generating function of Mann
/// and Whitney's recursion f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u).
/// The coefficients are computed as Harding does, multiplying by each factor
/// (1 - q^(l+i)) and dividing by each (1 - q^i) in turn, each step a pass
/// over the table (so O(k · mn) additions and O(mn) memory instead of the
/// recursion's O(m²n²)); only the lower half, u <= mn/2, is kept, since the
/// distribution is symmetric about mn/2 and the rank is below it. Counts
/// are exact integers: every step is a ring operation, done modulo 2^128,
/// and the final counts are below C(m+n, m) < 2^128, so they come out exact
/// even where a step's intermediate values wrap.
/// References: Mann & Whitney, "On a test of whether one of two random
/// variables is stochastically larger than the other", Ann. Math. Statist.
/// 18(1), 1947 (the distribution and its recursion); Harding, "An efficient,
/// minimal-storage procedure for calculating the Mann-Whitney U, generalized
/// U and similar distributions", Applied Statistics 33(1), 1984; Hollander,
/// Wolfe & Chicken, "Nonparametric Statistical Methods", 3rd ed., Wiley 2014,
/// §4.3 (the interval's critical values, their Table A.6 of the rank-sum
/// statistic W = U + n(n+1)/2).
///
/// Assumptions: continuous measurements, so no two values tie: that is the
/// null distribution the counts describe. With ties (a clock's resolution),
/// the same C is used without correction, as with the normal
/// approximation, and the interval keeps its ends [D_(C), D_(mn+1-C)].
pub(crate) fn exact_moses_rank(m: usize, n: usize, confidence: f64) -> usize {
    critical_rank(&lower_half_counts(m, n), arrangements(m, n), confidence)
}

/// The rank C of [`exact_moses_rank`] from the lower half of the counts of
/// U and their `total` over the whole distribution.
pub(crate) fn critical_rank(lower_half: &[u128], total: u128, confidence: f64) -> usize {
    let allowed = (1.0 - confidence) / 2.0 * total as f64;
    let mut tail: u128 = 0;
    for (u, &count) in lower_half.iter().enumerate() {
        tail += count;
        if tail as f64 > allowed {
            // P(U <= u - 1) <= α/2 < P(U <= u): C - 1 = u - 1.
            return u;
        }
    }
    // Unreachable for confidence above 0: P(U <= mn/2) >= 1/2 > α/2.
    lower_half.len()
}

/// The number of arrangements with U = u, for u from 0 to floor(mn/2), by
/// Harding's product of [`exact_moses_rank`]. m·n must be at most
/// [`EXACT_LIMIT`].
pub(crate) fn lower_half_counts(m: usize, n: usize) -> Vec<u128> {
    debug_assert!(m.saturating_mul(n) <= EXACT_LIMIT, "{m} x {n} too large");
    let (k, l) = (m.min(n), m.max(n));
    let top = m * n / 2;
    let mut counts = vec![0u128; top + 1];
    counts[0] = 1;
    for i in 1..=k {
        // Times (1 - q^(l+i)), from the top down so each term reads the
        // table before this pass.
        let shift = l + i;
        for u in (shift..=top).rev() {
            counts[u] = counts[u].wrapping_sub(counts[u - shift]);
        }
        // Divided by (1 - q^i): times 1 + q^i + q^(2i) + ..., from the bottom
        // up so each term reads the values already divided.
        for u in i..=top {
            counts[u] = counts[u].wrapping_add(counts[u - i]);
        }
    }
    counts
}

/// C(m+n, m), the number of arrangements, for m·n at most [`EXACT_LIMIT`]:
/// built as C(l+i, i) = C(l+i-1, i-1) · (l+i)/i, dividing by the common
/// factor first so that no step exceeds the result.
pub(crate) fn arrangements(m: usize, n: usize) -> u128 {
    let (k, l) = (m.min(n) as u128, m.max(n) as u128);
    let mut total: u128 = 1;
    for i in 1..=k {
        let g = gcd(total, i);
        total = (total / g) * ((l + i) / (i / g));
    }
    total
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distribution of U by enumerating every way to choose which m of
    /// the m + n pooled ranks belong to the first sample (a bit mask), and
    /// counting for each the pairs (first, second) with first above second:
    /// no recursion, no generating function.
    fn counts_by_enumeration(m: usize, n: usize) -> Vec<u128> {
        let mut counts = vec![0u128; m * n + 1];
        for mask in 0u32..(1 << (m + n)) {
            if mask.count_ones() as usize != m {
                continue;
            }
            // Walk the ranks upwards: each first-sample rank is above every
            // second-sample rank seen so far.
            let (mut seconds_below, mut u) = (0, 0);
            for rank in 0..m + n {
                if mask & (1 << rank) != 0 {
                    u += seconds_below;
                } else {
                    seconds_below += 1;
                }
            }
            counts[u] += 1;
        }
        counts
    }

    /// Moses' rank from any full distribution of counts: the first u where
    /// the lower tail passes α/2.
    fn rank_from_counts(counts: &[u128], confidence: f64) -> usize {
        let total: u128 = counts.iter().sum();
        let mut tail = 0;
        for (u, &c) in counts.iter().enumerate() {
            tail += c;
            if tail as f64 > (1.0 - confidence) / 2.0 * total as f64 {
                return u;
            }
        }
        unreachable!("the whole distribution is above any α/2")
    }

    /// Calls `check(i, j, counts of U)` for every i and j up to `max`, the
    /// counts from Mann and Whitney's recursion
    /// f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u) (whether the largest
    /// pooled value is the first sample's or the second's), one row of i at
    /// a time: a different algorithm from Harding's product.
    fn with_counts_by_recursion(max: usize, mut check: impl FnMut(usize, usize, &[u128])) {
        let mut previous: Vec<Vec<u128>> = (0..=max).map(|_| vec![1]).collect();
        for i in 1..=max {
            let mut row: Vec<Vec<u128>> = vec![vec![1]];
            for j in 1..=max {
                let f: Vec<u128> = (0..=i * j)
                    .map(|u| {
                        let largest_first = u
                            .checked_sub(j)
                            .and_then(|v| previous[j].get(v))
                            .copied()
                            .unwrap_or(0);
                        let largest_second = row[j - 1].get(u).copied().unwrap_or(0);
                        largest_first + largest_second
                    })
                    .collect();
                check(i, j, &f);
                row.push(f);
            }
            previous = row;
        }
    }

    #[test]
    fn the_counts_match_an_enumeration_of_every_arrangement() {
        for m in 1..=9 {
            for n in 1..=(17 - m).min(12) {
                let all = counts_by_enumeration(m, n);
                let half = lower_half_counts(m, n);
                assert_eq!(half[..], all[..half.len()], "{m} x {n}");
                assert_eq!(arrangements(m, n), all.iter().sum::<u128>(), "{m} x {n}");
                for confidence in [0.8, 0.9, 0.95, 0.99, 1.0 - 0.05 / 3.0] {
                    assert_eq!(
                        exact_moses_rank(m, n, confidence),
                        rank_from_counts(&all, confidence),
                        "{m} x {n} at {confidence}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_counts_of_the_largest_exact_case_fit_and_sum_to_the_arrangements() {
        // C(128, 64) = 2,395,590,394,248,445,... below 2^125.
        let total = arrangements(64, 64);
        assert!(total < 1u128 << 125, "{total}");
        let half = lower_half_counts(64, 64);
        // Symmetric about mn/2 = 2048: twice the lower half less the middle.
        let sum: u128 = half.iter().sum();
        assert_eq!(2 * sum - half[2048], total);
        // Every m·n within the limit has at most that many arrangements.
        for m in 1..=EXACT_LIMIT {
            let n = EXACT_LIMIT / m;
            let (k, l) = (m.min(n), m.max(n));
            let mut checked: Option<u128> = Some(1);
            for i in 1..=k as u128 {
                checked = checked.and_then(|t| {
                    let g = gcd(t, i);
                    (t / g).checked_mul((l as u128 + i) / (i / g))
                });
            }
            assert!(checked.is_some_and(|t| t <= total), "{m} x {n}");
        }
    }

    #[test]
    fn moses_rank_matches_hollander_and_wolfe() {
        // m = n = 10 at 95 %: the normal approximation 50 - 1.96 * sqrt(100 * 21 / 12)
        // = 24.07 -> 24, and the exact critical value is 24 too.
        assert_eq!(normal_moses_rank(10, 10, 0.95), 24);
        assert_eq!(moses_rank(10, 10, 0.95), 24);
        assert_eq!(normal_moses_rank(3, 3, 0.95), 0);
        assert_eq!(moses_rank(3, 3, 0.95), 0);
        assert_eq!(moses_rank(4, 4, 0.95), 1);
        // 3 against 5: P(U = 0) = 1/56 <= 2.5 %, an interval the normal
        // approximation (7.5 - 1.96 * sqrt(15 * 9 / 12) = 0.93) did not give.
        assert_eq!(normal_moses_rank(3, 5, 0.95), 0);
        assert_eq!(moses_rank(3, 5, 0.95), 1);
    }

    #[test]
    fn forty_benchmarks_at_ten_runs_each_use_the_exact_rank_ten() {
        // 40 benchmarks at -count 10, each at 1 - 0.05/40 = 99.875 %: the
        // normal approximation's rank 7 covers 99.968 %, the exact rank 10
        // covers 99.895 %, still above 99.875 %.
        let confidence = 1.0 - 0.05 / 40.0;
        assert_eq!(normal_moses_rank(10, 10, confidence), 7);
        assert_eq!(moses_rank(10, 10, confidence), 10);
        let counts = lower_half_counts(10, 10);
        let total = arrangements(10, 10) as f64;
        let coverage = |c: usize| 1.0 - 2.0 * counts[..c].iter().sum::<u128>() as f64 / total;
        assert!((coverage(7) - 0.999_675).abs() < 1e-6, "{}", coverage(7));
        assert!((coverage(10) - 0.998_950).abs() < 1e-6, "{}", coverage(10));
        // 12 against 20 at 95 %: rank 70 instead of 69.
        assert_eq!(normal_moses_rank(12, 20, 0.95), 69);
        assert_eq!(moses_rank(12, 20, 0.95), 70);
    }

    #[test]
    fn from_4_to_60_runs_the_rank_is_the_exact_critical_value_and_never_below_nominal() {
        let levels = [0.95, 1.0 - 0.05 / 3.0, 1.0 - 0.05 / 40.0];
        let mut checked = 0;
        with_counts_by_recursion(60, |m, n, counts| {
            if m < 4 || n < 4 {
                return;
            }
            let total: u128 = counts.iter().sum();
            assert_eq!(total, arrangements(m, n), "{m} x {n}");
            // The shipped counts once per m and n (the slow part in a debug
            // build), their ranks at every level.
            let shipped = lower_half_counts(m, n);
            assert_eq!(shipped[..], counts[..shipped.len()], "{m} x {n}");
            assert!(m * n <= EXACT_LIMIT);
            for confidence in levels {
                let rank = critical_rank(&shipped, total, confidence);
                assert_eq!(
                    rank,
                    rank_from_counts(counts, confidence),
                    "{m} x {n} at {confidence}"
                );
                let tail: u128 = counts[..rank].iter().sum();
                let coverage = 1.0 - 2.0 * tail as f64 / total as f64;
                assert!(
                    coverage >= confidence,
                    "{m} x {n} at {confidence}: {coverage}"
                );
                // The normal approximation is never narrower here, only wider.
                assert!(
                    normal_moses_rank(m, n, confidence) <= rank,
                    "{m} x {n} at {confidence}"
                );
                checked += 1;
            }
        });
        assert_eq!(checked, 57 * 57 * 3);
    }
}
