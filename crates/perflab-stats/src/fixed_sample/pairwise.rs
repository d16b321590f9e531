//! Order statistics of all pairwise differences y_j - x_i without building them.
//!
//! The Hodges-Lehmann estimate and the Moses interval need a few order
//! statistics of the m*n differences. Materialising them costs m*n memory
//! (800 MB for two samples of 10 000), so this module selects the k-th smallest
//! directly in O((m + n) log(mn)) time and O(m) memory.
//!
//! Method: the "X + Y" selection of Johnson & Mizoguchi ("Selecting the Kth
//! element in X + Y and X1 + X2 + ... + Xm", SIAM J. Comput. 7(2), 1978), in the
//! form used by Monahan (ACM TOMS Algorithm 616, 1984) for the Hodges-Lehmann
//! estimator: for sorted x and y, row i (fixed x_i) of the difference matrix is
//! sorted in j, so each row keeps a window [lo_i, hi_i) of candidates. The pivot
//! is the weighted median of the rows' middle candidates (weights = window
//! sizes), which removes at least a quarter of the candidates per round; counts
//! below/at the pivot come from one monotone two-pointer sweep.
//!
//! Every comparison uses the computed difference `y[j] - x[i]` itself, and
//! correctly rounded subtraction is monotone in both arguments, so the result
//! is bit-for-bit the k-th element of the sorted, materialised differences.

/// Windows this small are finished by sorting.
const SMALL: usize = 256;

/// The k-th smallest (1-based) of { y[j] - x[i] }.
///
/// Preconditions (checked by callers): x and y non-empty, finite, sorted
/// ascending; 1 <= k <= x.len() * y.len().
pub(crate) fn kth_smallest_difference(y: &[f64], x: &[f64], k: usize) -> f64 {
    let (m, n) = (x.len(), y.len());
    debug_assert!(k >= 1 && k <= m * n);
    let mut lo = vec![0usize; m];
    let mut hi = vec![n; m];
    let mut mids: Vec<(f64, usize)> = Vec::with_capacity(m);
    loop {
        let below: usize = lo.iter().sum();
        let remaining: usize = lo.iter().zip(&hi).map(|(l, h)| h - l).sum();
        if remaining <= SMALL.max(m + n) {
            let mut rest: Vec<f64> = Vec::with_capacity(remaining);
            for i in 0..m {
                rest.extend(y[lo[i]..hi[i]].iter().map(|&yj| yj - x[i]));
            }
            let idx = k - below - 1;
            let (_, v, _) = rest.select_nth_unstable_by(idx, f64::total_cmp);
            return *v;
        }
        mids.clear();
        for i in 0..m {
            if hi[i] > lo[i] {
                let mid = lo[i] + (hi[i] - lo[i] - 1) / 2;
                mids.push((y[mid] - x[i], hi[i] - lo[i]));
            }
        }
        mids.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut acc = 0usize;
        let mut pivot = mids[mids.len() - 1].0;
        for &(v, w) in &mids {
            acc += w;
            if 2 * acc >= remaining {
                pivot = v;
                break;
            }
        }
        // less[i] = #{j : y[j] - x[i] < pivot}, upto[i] = #{j : y[j] - x[i] <= pivot};
        // both are non-decreasing in i because x is sorted ascending.
        let (mut ja, mut jb) = (0usize, 0usize);
        let (mut total_less, mut total_upto) = (0usize, 0usize);
        let mut less = vec![0usize; m];
        let mut upto = vec![0usize; m];
        for i in 0..m {
            while ja < n && y[ja] - x[i] < pivot {
                ja += 1;
            }
            jb = jb.max(ja);
            while jb < n && y[jb] - x[i] <= pivot {
                jb += 1;
            }
            less[i] = ja;
            upto[i] = jb;
            total_less += ja;
            total_upto += jb;
        }
        if total_less < k && k <= total_upto {
            return pivot;
        }
        if k <= total_less {
            for i in 0..m {
                hi[i] = hi[i].min(less[i]);
            }
        } else {
            for i in 0..m {
                lo[i] = lo[i].max(upto[i]);
            }
        }
    }
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

    #[test]
    fn selection_matches_sorting_on_a_large_case() {
        let mut rng = fastrand::Rng::with_seed(7);
        let x = sorted((0..300).map(|_| rng.f64() * 10.0).collect());
        let y = sorted((0..200).map(|_| (rng.f64() * 10.0).round()).collect());
        for k in [1, 2, 17, 30_000, 59_999, 60_000] {
            assert_eq!(
                kth_smallest_difference(&y, &x, k),
                brute(&y, &x, k),
                "k={k}"
            );
        }
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
    }
}
