//! Statistics read from one sorted copy of each sample (the summary, the
//! Mann-Whitney test, the Hodges-Lehmann shift and its Moses interval, the
//! fixed-sample decision) give, bit for bit, the figures of the
//! straightforward computations they replace: every statistic sorting its
//! own copy, the pooled sample sorted for the ranks, all m·n pairwise
//! differences built and sorted.

use perflab_stats::fixed_sample::hodges_lehmann::hodges_lehmann_log_shift;
use perflab_stats::{
    Better, Sample, SampleRole, Thresholds, decide_fixed_samples, decide_fixed_sorted_samples,
    mann_whitney, mann_whitney_sorted, summarize, summarize_sorted,
};
use proptest::prelude::*;

/// Values with many ties (a coarse grid), some of them far out.
fn values(max_len: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(
        prop_oneof![
            8 => (1i32..40).prop_map(|v| f64::from(v) * 0.25),
            1 => 1e-3f64..1e3,
        ],
        1..max_len,
    )
}

fn sorted(xs: &[f64]) -> Vec<f64> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

/// Type 7 quantile of sorted values, as R computes it.
fn quantile(sorted: &[f64], p: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * p;
    let i = (h.floor() as usize).min(sorted.len() - 1);
    let w = h - i as f64;
    if w == 0.0 || i + 1 == sorted.len() {
        return sorted[i];
    }
    let (a, b) = (sorted[i], sorted[i + 1]);
    (a + w * (b - a)).clamp(a, b)
}

/// The MAD by sorting every deviation.
fn mad_by_sorting(xs: &[f64]) -> f64 {
    let s = sorted(xs);
    let median = quantile(&s, 0.5);
    let dev: Vec<f64> = s.iter().map(|x| (x - median).abs()).collect();
    quantile(&sorted(&dev), 0.5)
}

/// U and its tie term from the pooled sample, stable-sorted.
fn mann_whitney_by_pooling(a: &[f64], b: &[f64]) -> (f64, f64) {
    let mut pooled: Vec<(f64, bool)> = a
        .iter()
        .map(|&x| (x, true))
        .chain(b.iter().map(|&x| (x, false)))
        .collect();
    pooled.sort_by(|x, y| x.0.total_cmp(&y.0));
    let (mut rank_sum_a, mut tie_term, mut i) = (0.0, 0.0, 0);
    while i < pooled.len() {
        let mut j = i + 1;
        while j < pooled.len() && pooled[j].0 == pooled[i].0 {
            j += 1;
        }
        let t = (j - i) as f64;
        let in_a = pooled[i..j].iter().filter(|p| p.1).count() as f64;
        rank_sum_a += (i + 1 + j) as f64 / 2.0 * in_a;
        tie_term += t * t * t - t;
        i = j;
    }
    let m = a.len() as f64;
    (rank_sum_a - m * (m + 1.0) / 2.0, tie_term)
}

/// The shift and Moses interval from every pairwise log gain, built and sorted.
fn hodges_lehmann_by_sorting(b: &[f64], c: &[f64], better: Better) -> (f64, f64, f64) {
    let logs = |xs: &[f64]| sorted(&xs.iter().map(|x| x.ln()).collect::<Vec<_>>());
    let (lb, lc) = (logs(b), logs(c));
    let (minuend, subtrahend) = match better {
        Better::Higher => (lc, lb),
        Better::Lower => (lb, lc),
    };
    let d = sorted(
        &subtrahend
            .iter()
            .flat_map(|x| minuend.iter().map(move |y| y - x))
            .collect::<Vec<_>>(),
    );
    let total = d.len();
    let median = if total % 2 == 1 {
        d[total / 2]
    } else {
        (d[total / 2 - 1] + d[total / 2]) / 2.0
    };
    let rank = exact_rank_at_95(b.len(), c.len());
    (median, d[rank - 1], d[total - rank])
}

/// Moses' rank at 95 % for samples of up to 30 values, from the exact null
/// distribution of Mann-Whitney U counted by Mann and Whitney's recursion
/// f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u), built once for all sizes:
/// the largest C with P(U <= C - 1) <= 2.5 %.
fn exact_rank_at_95(m: usize, n: usize) -> usize {
    static RANKS: std::sync::OnceLock<Vec<Vec<usize>>> = std::sync::OnceLock::new();
    let ranks = RANKS.get_or_init(|| {
        const MAX: usize = 30;
        let mut counts: Vec<Vec<Vec<u128>>> = vec![vec![vec![1]; MAX + 1]; MAX + 1];
        let mut ranks = vec![vec![0; MAX + 1]; MAX + 1];
        for i in 1..=MAX {
            for j in 1..=MAX {
                let f: Vec<u128> = (0..=i * j)
                    .map(|u| {
                        let first = u.checked_sub(j).and_then(|v| counts[i - 1][j].get(v));
                        first.copied().unwrap_or(0) + counts[i][j - 1].get(u).copied().unwrap_or(0)
                    })
                    .collect();
                let total: u128 = f.iter().sum();
                let mut tail = 0;
                ranks[i][j] = (0..f.len())
                    .find(|&u| {
                        tail += f[u];
                        tail as f64 > 0.025 * total as f64
                    })
                    .unwrap_or(0);
                counts[i][j] = f;
            }
        }
        ranks
    });
    ranks[m][n]
}

fn better() -> impl Strategy<Value = Better> {
    prop_oneof![Just(Better::Higher), Just(Better::Lower)]
}

proptest! {
    #[test]
    fn a_summary_from_the_shared_sorted_copy_has_the_mad_of_sorting_every_deviation(
        xs in values(60)
    ) {
        let sample = Sample::new(&xs, SampleRole::Values).unwrap().sorted();
        let s = summarize_sorted(&sample).unwrap();
        prop_assert_eq!(&s, &summarize(&xs).unwrap());
        prop_assert_eq!(s.mad, mad_by_sorting(&xs));
        let sorted_xs = sorted(&xs);
        prop_assert_eq!(
            (s.min, s.q1, s.median, s.q3, s.max),
            (
                sorted_xs[0],
                quantile(&sorted_xs, 0.25),
                quantile(&sorted_xs, 0.5),
                quantile(&sorted_xs, 0.75),
                sorted_xs[xs.len() - 1]
            )
        );
    }

    #[test]
    fn mann_whitney_by_merging_sorted_samples_matches_the_pooled_sort(
        a in values(40),
        b in values(40),
    ) {
        let (sa, sb) = (
            Sample::new(&a, SampleRole::Baseline).unwrap().sorted(),
            Sample::new(&b, SampleRole::Candidate).unwrap().sorted(),
        );
        let merged = mann_whitney_sorted(&sa, &sb);
        prop_assert_eq!(merged, mann_whitney(&a, &b).unwrap());
        let (u, tie_term) = mann_whitney_by_pooling(&a, &b);
        prop_assert_eq!(merged.u, u);
        let (m, n) = (a.len() as f64, b.len() as f64);
        let variance = m * n / 12.0 * ((m + n + 1.0) - tie_term / ((m + n) * (m + n - 1.0)));
        if variance > 0.0 && (u - m * n / 2.0).abs() > 0.5 {
            let deviation = u - m * n / 2.0;
            prop_assert_eq!(merged.z, (deviation - 0.5 * deviation.signum()) / variance.sqrt());
        } else {
            prop_assert_eq!(merged.z, 0.0);
        }
    }

    #[test]
    fn the_hodges_lehmann_shift_and_moses_interval_match_every_difference_sorted(
        b in values(30),
        c in values(30),
        better in better(),
    ) {
        prop_assume!(b.len() >= 4 && c.len() >= 4);
        let iv = hodges_lehmann_log_shift(&b, &c, better, 0.95).unwrap();
        prop_assert_eq!(
            (iv.estimate, iv.lo, iv.hi),
            hodges_lehmann_by_sorting(&b, &c, better)
        );
    }

    #[test]
    fn the_decision_on_sorted_samples_is_the_decision_on_the_values(
        b in values(30),
        c in values(30),
        better in better(),
        go in 0.001f64..0.2,
    ) {
        let th = Thresholds { go, nogo: -go };
        let sorted_decision = match (
            Sample::new(&b, SampleRole::Baseline),
            Sample::new(&c, SampleRole::Candidate),
        ) {
            (Ok(sb), Ok(sc)) => {
                decide_fixed_sorted_samples(&sb.sorted(), &sc.sorted(), better, &th, 0.95)
            }
            _ => unreachable!("the values are finite and there is at least one"),
        };
        prop_assert_eq!(sorted_decision, decide_fixed_samples(&b, &c, better, &th, 0.95));
    }
}
