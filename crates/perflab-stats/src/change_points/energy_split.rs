//! The divergence statistic of E-divisive means (internal): for one segment
//! of a series of groups, the split between groups where the samples on
//! either side differ most in distribution.
//!
//! Matteson & James, "A nonparametric approach for multiple change point
//! analysis of multivariate data", JASA 109(505), 2014, section 2.2, with
//! the exponent alpha = 1: for a left sample X (n values) and a right sample
//! Y (m values),
//!
//! E(X, Y) = 2/(n m) sum |x - y| - 1/C(n,2) sum_{i<k} |x_i - x_k|
//!           - 1/C(m,2) sum_{j<k} |y_j - y_k|,
//!
//! Q(X, Y) = n m / (n + m) E(X, Y).
//!
//! The left sample starts at the segment's start and ends at the split tau;
//! the right one runs from tau to some kappa at most the segment's end, and
//! both are maximised over (the paper's estimator of tau). Splits and ends
//! fall only between groups (commits), never inside one. Each side needs
//! at least two values for its within-sample term.
//!
//! Cost: O(n^2) for the sums of distances between every pair of groups,
//! then O(g^2) for all (tau, kappa) through a two-dimensional prefix sum,
//! where n is the number of values and g the number of groups. Reordering
//! whole groups (the permutation test over commits) reuses the sums, so each
//! permutation costs O(g^2) only.

/// The best split of a segment: the group that starts the right side, and
/// the statistic Q there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Split {
    /// Index (in the whole series) of the first group after the split.
    pub group: usize,
    /// Q at the split, maximised over kappa.
    pub q: f64,
}

/// Sums of |x_i - x_j| over i in group c and j in group d, for every pair
/// of groups (group `c` is `values[bounds[c]..bounds[c + 1]]`).
pub(crate) fn pair_sums(values: &[f64], bounds: &[usize]) -> Vec<Vec<f64>> {
    let g = bounds.len() - 1;
    let mut pair = vec![vec![0.0_f64; g]; g];
    for c in 0..g {
        let xs = &values[bounds[c]..bounds[c + 1]];
        for d in c..g {
            let ys = &values[bounds[d]..bounds[d + 1]];
            let sum: f64 = xs
                .iter()
                .map(|x| ys.iter().map(|y| (x - y).abs()).sum::<f64>())
                .sum();
            pair[c][d] = sum;
            pair[d][c] = sum;
        }
    }
    pair
}

/// The best split of the positions `first..end` of a series whose position
/// `p` holds group `order[p]`, with `counts[c]` values in group `c` and the
/// [`pair_sums`] `pair`; None when no split leaves two values on each side.
pub(crate) fn best_split(
    pair: &[Vec<f64>],
    counts: &[usize],
    order: &[usize],
    first: usize,
    end: usize,
) -> Option<Split> {
    let g = end - first;
    if g < 2 {
        return None;
    }
    // prefix[a][b]: the sum over the groups at positions first..first+a
    // against those at first..first+b (ordered pairs: a group against
    // itself counts every pair twice).
    let mut prefix = vec![vec![0.0_f64; g + 1]; g + 1];
    for a in 0..g {
        let row = &pair[order[first + a]];
        for b in 0..g {
            prefix[a + 1][b + 1] =
                row[order[first + b]] + prefix[a][b + 1] + prefix[a + 1][b] - prefix[a][b];
        }
    }
    let block = |a1: usize, a2: usize, b1: usize, b2: usize| {
        prefix[a2][b2] - prefix[a1][b2] - prefix[a2][b1] + prefix[a1][b1]
    };
    let mut runs = vec![0.0_f64; g + 1];
    for a in 0..g {
        runs[a + 1] = runs[a] + counts[order[first + a]] as f64;
    }
    let mut best: Option<Split> = None;
    for t in 1..g {
        let n = runs[t];
        if n < 2.0 {
            continue;
        }
        let within_left = block(0, t, 0, t) / (n * (n - 1.0));
        for k in t + 1..=g {
            let m = runs[k] - runs[t];
            if m < 2.0 {
                continue;
            }
            let between = block(0, t, t, k) / (n * m);
            let within_right = block(t, k, t, k) / (m * (m - 1.0));
            let q = n * m / (n + m) * (2.0 * between - within_left - within_right);
            if best.is_none_or(|b| q > b.q) {
                best = Some(Split {
                    group: first + t,
                    q,
                });
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(values: &[f64], bounds: &[usize]) -> Option<Split> {
        let counts: Vec<usize> = bounds.windows(2).map(|w| w[1] - w[0]).collect();
        let order: Vec<usize> = (0..counts.len()).collect();
        best_split(&pair_sums(values, bounds), &counts, &order, 0, counts.len())
    }

    #[test]
    fn a_clear_step_is_split_where_it_is() {
        let values = [1.0, 1.1, 0.9, 1.0, 5.0, 5.1, 4.9, 5.0];
        let bounds = [0, 2, 4, 6, 8];
        let split = split(&values, &bounds).unwrap();
        assert_eq!(split.group, 2);
        assert!(split.q > 0.0);
    }

    #[test]
    fn a_split_never_leaves_a_side_with_fewer_than_two_values() {
        let values = [1.0, 9.0, 9.0];
        let bounds = [0, 1, 2, 3];
        assert_eq!(split(&values, &bounds), None);
    }

    #[test]
    fn the_statistic_matches_the_formula_computed_directly() {
        let values = [0.3, 0.1, 0.4, 1.5, 0.9, 2.6];
        let bounds = [0, 3, 6];
        let split = split(&values, &bounds).unwrap();
        let (x, y) = values.split_at(3);
        let mean_between: f64 = x
            .iter()
            .flat_map(|a| y.iter().map(move |b| (a - b).abs()))
            .sum::<f64>()
            / 9.0;
        let within = |s: &[f64]| {
            let mut sum = 0.0;
            for i in 0..s.len() {
                for k in i + 1..s.len() {
                    sum += (s[i] - s[k]).abs();
                }
            }
            sum / 3.0
        };
        let q = 9.0 / 6.0 * (2.0 * mean_between - within(x) - within(y));
        assert!((split.q - q).abs() < 1e-12, "{} vs {q}", split.q);
    }
}
