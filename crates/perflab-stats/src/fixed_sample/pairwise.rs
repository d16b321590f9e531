//! Order statistics of all pairwise differences y_j - x_i without building them.
//!
//! The Hodges-Lehmann estimate and the Moses interval need a few order
//! statistics of the m*n differences. Materialising them costs m*n memory
//! (800 MB for two samples of 10 000, 800 TB for two of 10 million), so this
//! module selects the k-th smallest directly, in O(m + n) memory and expected
//! O((m + n) log(mn) / log(s)) time for a sample of s differences per round.
//!
//! Method: randomized selection over the implicit matrix of differences, in
//! the form of Monahan's algorithm for the Hodges-Lehmann estimator (Monahan,
//! "Algorithm 616: fast computation of the Hodges-Lehmann location
//! estimator", ACM TOMS 10(3), 1984), which uses that for sorted x and y every
//! row i (fixed x_i) of the matrix y_j - x_i is sorted in j. The candidates
//! left are the differences within a window of values [L, U]; in each row they
//! are one run of columns, found by a pointer that only moves forward as i
//! grows (x sorted ascending), so one sweep over the rows costs O(m + n), and
//! no per-row state is kept. Each round draws s differences uniformly from the
//! window and takes two of them as pivots a <= b, the sample's order
//! statistics a few standard errors either side of the target's relative
//! rank, as Floyd & Rivest's selection does ("Expected time bounds for
//! selection", CACM 18(3), 1975); one sweep counts the differences below and
//! at each pivot. Either the k-th is a pivot (a tie included), or the window
//! narrows to the values below a, between a and b, or above b, which excludes
//! at least one pivot and, with high probability, all but about 4/sqrt(s) of
//! the window. A window of at most [`SMALL_WINDOW`] differences is built and
//! finished by `select_nth_unstable`. The draws (a fixed seed) only decide how
//! fast the window narrows, never the result.
//!
//! Every comparison uses the computed difference `y[j] - x[i]` itself, and
//! correctly rounded subtraction is monotone in both arguments, so the result
//! is bit-for-bit the k-th element of the sorted, materialised differences
//! (property tests against that brute force below, and in every round with a
//! window and a sample small enough to take many rounds on small inputs).

/// Windows of at most this many differences are built and finished by
/// selection in memory (8 MiB).
const SMALL_WINDOW: usize = 1 << 20;

/// Differences drawn from the window per round.
const SAMPLE_SIZE: usize = 1 << 16;

/// How many standard errors of the sample's order statistic the pivots lie
/// either side of the target's rank: the k-th falls between them with
/// probability about 1 - 6e-5.
const PIVOT_SPREAD: f64 = 4.0;

/// The seed of the draws: the same input takes the same rounds.
const SELECTION_SEED: u64 = 0x5e1e_c7ed;

/// The k-th smallest (1-based) of { y[j] - x[i] }.
///
/// Preconditions (checked by callers): x and y non-empty, finite, sorted
/// ascending; 1 <= k <= x.len() * y.len().
pub(crate) fn kth_smallest_difference(y: &[f64], x: &[f64], k: usize) -> f64 {
    Selection::default().kth(y, x, k)
}

/// The k-th and the (k+1)-th smallest (1-based) of { y[j] - x[i] }: the two
/// middle differences of an even count. Same preconditions as
/// [`kth_smallest_difference`], with k < x.len() * y.len().
pub(crate) fn kth_and_next_smallest_difference(y: &[f64], x: &[f64], k: usize) -> (f64, f64) {
    let kth = kth_smallest_difference(y, x, k);
    let (up_to, next_above) = count_and_next_above(y, x, kth);
    if up_to > k {
        (kth, kth)
    } else {
        (kth, next_above)
    }
}

/// How the selection proceeds: the window built in memory and the draws
/// per round (smaller in tests, so that small inputs take many rounds).
#[derive(Debug, Clone, Copy)]
struct Selection {
    small_window: usize,
    sample_size: usize,
}

impl Default for Selection {
    fn default() -> Self {
        Selection {
            small_window: SMALL_WINDOW,
            sample_size: SAMPLE_SIZE,
        }
    }
}

impl Selection {
    fn kth(self, y: &[f64], x: &[f64], k: usize) -> f64 {
        debug_assert!(k >= 1 && k <= x.len() * y.len());
        let mut rng = fastrand::Rng::with_seed(SELECTION_SEED);
        let mut window = Window {
            lower: f64::NEG_INFINITY,
            upper: f64::INFINITY,
            below: 0,
            size: x.len() * y.len(),
        };
        loop {
            let rank = k - window.below;
            if window.size <= self.small_window {
                let mut rest = window.differences(y, x);
                let (_, v, _) = rest.select_nth_unstable_by(rank - 1, f64::total_cmp);
                return *v;
            }
            let sample = window.sample(y, x, self.sample_size, &mut rng);
            let (a, b) = pivots(&sample, rank, window.size);
            let [less_a, up_to_a, less_b, up_to_b] = counts(y, x, a, b);
            window = if k <= less_a {
                Window {
                    upper: next_below(a),
                    size: less_a - window.below,
                    ..window
                }
            } else if k <= up_to_a {
                return a;
            } else if k <= less_b {
                Window {
                    lower: next_above(a),
                    upper: next_below(b),
                    below: up_to_a,
                    size: less_b - up_to_a,
                }
            } else if k <= up_to_b {
                return b;
            } else {
                Window {
                    lower: next_above(b),
                    upper: window.upper,
                    below: up_to_b,
                    size: window.below + window.size - up_to_b,
                }
            };
        }
    }
}

/// The differences d with lower <= d <= upper, known to hold the k-th:
/// `below` differences are smaller than `lower`, `size` lie in the window.
#[derive(Debug, Clone, Copy)]
struct Window {
    lower: f64,
    upper: f64,
    below: usize,
    size: usize,
}

impl Window {
    /// Calls `visit(i, start, end)` for each row i in order, where the
    /// window's differences of row i are y[start..end] - x[i]; stops when
    /// `visit` returns false.
    fn rows(&self, y: &[f64], x: &[f64], mut visit: impl FnMut(usize, usize, usize) -> bool) {
        let n = y.len();
        let (mut start, mut end) = (0usize, 0usize);
        for (i, &xi) in x.iter().enumerate() {
            // Both are non-decreasing in i: y[j] - x[i] falls as x[i] grows.
            while start < n && y[start] - xi < self.lower {
                start += 1;
            }
            end = end.max(start);
            while end < n && y[end] - xi <= self.upper {
                end += 1;
            }
            if !visit(i, start, end) {
                break;
            }
        }
    }

    /// Every difference in the window, in no particular order.
    fn differences(&self, y: &[f64], x: &[f64]) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.size);
        self.rows(y, x, |i, start, end| {
            out.extend(y[start..end].iter().map(|&yj| yj - x[i]));
            true
        });
        out
    }

    /// `count` differences drawn uniformly (with replacement) from the
    /// window, sorted.
    fn sample(&self, y: &[f64], x: &[f64], count: usize, rng: &mut fastrand::Rng) -> Vec<f64> {
        let mut ranks: Vec<usize> = (0..count).map(|_| rng.usize(..self.size)).collect();
        ranks.sort_unstable();
        let mut out = Vec::with_capacity(count);
        let (mut next, mut passed) = (0usize, 0usize);
        self.rows(y, x, |i, start, end| {
            let width = end - start;
            while next < ranks.len() && ranks[next] < passed + width {
                out.push(y[start + ranks[next] - passed] - x[i]);
                next += 1;
            }
            passed += width;
            next < ranks.len()
        });
        out.sort_unstable_by(f64::total_cmp);
        out
    }
}

/// Two pivots from a sorted sample of the window, either side of where the
/// `rank`-th of `size` differences is expected.
fn pivots(sample: &[f64], rank: usize, size: usize) -> (f64, f64) {
    let s = sample.len() as f64;
    let p = (rank as f64 - 0.5) / size as f64;
    let centre = p * s;
    let spread = PIVOT_SPREAD * (s * p * (1.0 - p)).sqrt() + 1.0;
    let last = sample.len() - 1;
    let a = ((centre - spread).floor().max(0.0) as usize).min(last);
    let b = ((centre + spread).ceil().max(0.0) as usize).min(last);
    (sample[a], sample[b])
}

/// #{d < a}, #{d <= a}, #{d < b}, #{d <= b} over all differences, for a <= b.
fn counts(y: &[f64], x: &[f64], a: f64, b: f64) -> [usize; 4] {
    let n = y.len();
    let mut at = [0usize; 4];
    let mut totals = [0usize; 4];
    for &xi in x {
        while at[0] < n && y[at[0]] - xi < a {
            at[0] += 1;
        }
        at[1] = at[1].max(at[0]);
        while at[1] < n && y[at[1]] - xi <= a {
            at[1] += 1;
        }
        at[2] = at[2].max(at[1]);
        while at[2] < n && y[at[2]] - xi < b {
            at[2] += 1;
        }
        at[3] = at[3].max(at[2]);
        while at[3] < n && y[at[3]] - xi <= b {
            at[3] += 1;
        }
        for (total, &count) in totals.iter_mut().zip(&at) {
            *total += count;
        }
    }
    totals
}

/// #{d <= v}, and the smallest difference larger than v (v itself when
/// there is none).
fn count_and_next_above(y: &[f64], x: &[f64], v: f64) -> (usize, f64) {
    let n = y.len();
    let (mut at, mut total, mut next) = (0usize, 0usize, f64::INFINITY);
    for &xi in x {
        while at < n && y[at] - xi <= v {
            at += 1;
        }
        total += at;
        if at < n {
            next = next.min(y[at] - xi);
        }
    }
    (total, if next == f64::INFINITY { v } else { next })
}

/// The next f64 above `v` (for v finite or -inf; +inf stays).
fn next_above(v: f64) -> f64 {
    if v == f64::INFINITY {
        v
    } else if v == 0.0 {
        f64::from_bits(1)
    } else if v > 0.0 {
        f64::from_bits(v.to_bits() + 1)
    } else {
        f64::from_bits(v.to_bits() - 1)
    }
}

/// The next f64 below `v` (for v finite or +inf; -inf stays).
fn next_below(v: f64) -> f64 {
    -next_above(-v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn brute(y: &[f64], x: &[f64], k: usize) -> f64 {
        let mut d: Vec<f64> = x
            .iter()
            .flat_map(|xi| y.iter().map(move |yj| yj - xi))
            .collect();
        d.sort_unstable_by(f64::total_cmp);
        d[k - 1]
    }

    fn sorted(mut v: Vec<f64>) -> Vec<f64> {
        v.sort_unstable_by(f64::total_cmp);
        v
    }

    /// Many rounds even on small inputs.
    const TINY: Selection = Selection {
        small_window: 4,
        sample_size: 5,
    };

    #[test]
    fn selection_matches_sorting_on_a_large_case() {
        let mut rng = fastrand::Rng::with_seed(7);
        let x = sorted((0..1300).map(|_| rng.f64() * 10.0).collect());
        let y = sorted((0..900).map(|_| (rng.f64() * 10.0).round()).collect());
        let total = x.len() * y.len();
        assert!(total > SMALL_WINDOW, "the rounds are taken");
        let mut d: Vec<f64> = x
            .iter()
            .flat_map(|xi| y.iter().map(move |yj| yj - xi))
            .collect();
        d.sort_unstable_by(f64::total_cmp);
        for k in [1, 2, 17, 30_000, total / 2, total / 2 + 1, total - 1, total] {
            assert_eq!(kth_smallest_difference(&y, &x, k), d[k - 1], "k={k}");
        }
        assert_eq!(
            kth_and_next_smallest_difference(&y, &x, total / 2),
            (d[total / 2 - 1], d[total / 2])
        );
    }

    #[test]
    fn neighbours_of_a_float_are_the_next_representable_values() {
        assert_eq!(next_above(1.0), 1.0 + f64::EPSILON);
        assert_eq!(next_below(1.0), 1.0 - f64::EPSILON / 2.0);
        assert_eq!(next_above(0.0), f64::from_bits(1));
        assert_eq!(next_above(-0.0), f64::from_bits(1));
        assert_eq!(next_below(0.0), -f64::from_bits(1));
        assert_eq!(next_above(-f64::from_bits(1)), -0.0);
        assert_eq!(next_above(f64::NEG_INFINITY), f64::MIN);
        assert_eq!(next_below(f64::INFINITY), f64::MAX);
        assert_eq!(next_above(f64::MAX), f64::INFINITY);
    }

    proptest! {
        #[test]
        fn selection_matches_sorting(
            x in prop::collection::vec(-50i32..50, 1..40),
            y in prop::collection::vec(-50i32..50, 1..40),
            frac in 0.0f64..1.0,
            scale in prop::sample::select(vec![1.0, 0.1, 1e-3]),
        ) {
            // Integer grids make many ties; the scale makes rounding matter.
            let x = sorted(x.into_iter().map(|v| f64::from(v) * scale).collect());
            let y = sorted(y.into_iter().map(|v| f64::from(v) * scale).collect());
            let total = x.len() * y.len();
            let k = 1 + ((total - 1) as f64 * frac) as usize;
            prop_assert_eq!(kth_smallest_difference(&y, &x, k), brute(&y, &x, k));
        }

        #[test]
        fn selection_in_many_rounds_matches_sorting(
            x in prop::collection::vec(-20i32..20, 1..60),
            y in prop::collection::vec(-20i32..20, 1..60),
            frac in 0.0f64..1.0,
            scale in prop::sample::select(vec![1.0, 0.1, 1e-3, 8e306]),
        ) {
            let x = sorted(x.into_iter().map(|v| f64::from(v) * scale).collect());
            let y = sorted(y.into_iter().map(|v| f64::from(v) * scale).collect());
            let total = x.len() * y.len();
            let k = 1 + ((total - 1) as f64 * frac) as usize;
            prop_assert_eq!(TINY.kth(&y, &x, k), brute(&y, &x, k));
        }

        #[test]
        fn the_two_middle_differences_match_sorting(
            x in prop::collection::vec(-50i32..50, 1..40),
            y in prop::collection::vec(-50i32..50, 1..40),
            frac in 0.0f64..1.0,
        ) {
            let x = sorted(x.into_iter().map(|v| f64::from(v) * 0.1).collect());
            let y = sorted(y.into_iter().map(|v| f64::from(v) * 0.1).collect());
            let total = x.len() * y.len();
            prop_assume!(total >= 2);
            let k = 1 + ((total - 2) as f64 * frac) as usize;
            prop_assert_eq!(
                kth_and_next_smallest_difference(&y, &x, k),
                (brute(&y, &x, k), brute(&y, &x, k + 1))
            );
        }
    }
}
