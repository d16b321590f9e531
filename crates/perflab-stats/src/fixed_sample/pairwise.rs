//! Order statistics of all pairwise differences y_j - x_i without building them.
//!
//! The Hodges-Lehmann estimate and the Moses interval need a few order
//! statistics of the m*n differences. Materialising them costs m*n memory
//! (800 MB for two samples of 10 000, 800 TB for two of 10 million), so this
//! module selects them directly, in O(m + n) memory and expected
//! O((m + n) log(mn) / log(s)) time per order statistic for s differences
//! drawn per round.
//!
//! Method: randomized selection over the implicit matrix of differences, in
//! the form of Monahan's algorithm for the Hodges-Lehmann estimator (Monahan,
//! "Algorithm 616: fast computation of the Hodges-Lehmann location
//! estimator", ACM TOMS 10(3), 1984), which uses that for sorted x and y every
//! row i (fixed x_i) of the matrix y_j - x_i is sorted in j. The candidates
//! left are the differences within a window of values [L, U]; in each row they
//! are one run of columns, found by a pointer that only moves forward as i
//! grows (x sorted ascending), so one sweep over the rows costs O(m + n), and
//! no per-row state is kept. Each round takes two pivots a <= b from a sample
//! of the window, the sample's order statistics a few standard errors either
//! side of the target's relative rank, as Floyd & Rivest's selection does
//! ("Expected time bounds for selection", CACM 18(3), 1975), and one sweep
//! counts the differences below a and up to b while it draws the next
//! round's sample from those between (each with the same probability, by
//! geometric skips), or keeps all of them once they are few. The window then
//! narrows to [a, b] (with high probability, about 4/sqrt(s) of it), or to
//! the values below a or above b; a window lying wholly in [a, b] is
//! narrowed past both pivots by counting their ties. The first round, shared
//! by all the order statistics asked for (the shift's one or two and the
//! interval's two lie close together), draws its sample from the whole
//! matrix without a sweep. A window of at most [`SMALL_WINDOW`] differences
//! is finished by `select_nth_unstable`. After the first round each order
//! statistic is selected on its own, two at a time on two threads. The
//! draws (fixed seeds) only decide how fast the window narrows, never the
//! result.
//!
//! Every comparison uses the computed difference `y[j] - x[i]` itself, and
//! correctly rounded subtraction is monotone in both arguments, so the result
//! is bit-for-bit the k-th element of the sorted, materialised differences
//! (property tests against that brute force below, with windows and samples
//! small enough that small inputs take many rounds).

/// Windows of at most this many differences are built and finished by
/// selection in memory (8 MiB).
const SMALL_WINDOW: usize = 1 << 20;

/// Differences drawn from a window per round.
const SAMPLE_SIZE: usize = 1 << 18;

/// Differences drawn from the whole matrix in the first round, shared by
/// every order statistic asked for (no sweep is needed to draw them).
const FIRST_SAMPLE_SIZE: usize = 1 << 18;

/// How many standard errors of the sample's order statistic the pivots lie
/// either side of the target's rank: the k-th falls between them with
/// probability about 1 - 6e-5.
const PIVOT_SPREAD: f64 = 4.0;

/// The seed of the draws: the same input takes the same rounds.
const SELECTION_SEED: u64 = 0x5e1e_c7ed;

/// The `ranks`-th smallest (1-based) of { y[j] - x[i] }, in the order asked.
///
/// Preconditions (checked by callers): x and y non-empty, finite, sorted
/// ascending; every rank in 1..=x.len() * y.len().
pub(crate) fn order_statistics(y: &[f64], x: &[f64], ranks: &[usize]) -> Vec<f64> {
    Selection::default().order_statistics(y, x, ranks)
}

/// The k-th smallest (1-based) of { y[j] - x[i] }; as [`order_statistics`].
#[cfg(test)]
fn kth_smallest_difference(y: &[f64], x: &[f64], k: usize) -> f64 {
    order_statistics(y, x, &[k])[0]
}

/// How the selection proceeds: the window built in memory and the draws
/// per round (smaller in tests, so that small inputs take many rounds).
#[derive(Debug, Clone, Copy)]
struct Selection {
    small_window: usize,
    sample_size: usize,
    first_sample_size: usize,
}

impl Default for Selection {
    fn default() -> Self {
        Selection {
            small_window: SMALL_WINDOW,
            sample_size: SAMPLE_SIZE,
            first_sample_size: FIRST_SAMPLE_SIZE,
        }
    }
}

/// What is known of a window's differences beyond its bounds.
enum Known {
    /// Nothing yet: a sweep draws a sample.
    Nothing,
    /// A sorted sample drawn uniformly from it.
    Sample(Vec<f64>),
    /// All of them, in no order.
    All(Vec<f64>),
}

/// The differences d with a <= d <= b found by one sweep: how many lie
/// below a and up to b, and a sample of those between (or all of them).
struct Between {
    less_a: usize,
    up_to_b: usize,
    known: Known,
}

impl Selection {
    fn order_statistics(self, y: &[f64], x: &[f64], ranks: &[usize]) -> Vec<f64> {
        // A difference of values beyond a quarter of the largest double may
        // overflow, and the sweeps compare rearranged sums that overflow
        // elsewhere than the difference itself. Scaled by a power of two
        // (exact), nothing overflows; scaling back rounds to infinity just
        // where the difference itself does, since rounding commutes with
        // such a scaling in the normal range.
        if y.iter().chain(x).any(|v| v.abs() > f64::MAX / 4.0) {
            let quarter = |values: &[f64]| values.iter().map(|v| v / 4.0).collect::<Vec<f64>>();
            let (y, x) = (quarter(y), quarter(x));
            return self
                .order_statistics(&y, &x, ranks)
                .into_iter()
                .map(|d| d * 4.0)
                .collect();
        }
        let total = x.len() * y.len();
        debug_assert!(ranks.iter().all(|&k| k >= 1 && k <= total));
        let whole = Window {
            lower: f64::NEG_INFINITY,
            upper: f64::INFINITY,
            below: 0,
            size: total,
        };
        if ranks.is_empty() {
            return Vec::new();
        }
        if total <= self.small_window {
            let mut all = whole.differences(y, x);
            all.sort_unstable_by(f64::total_cmp);
            return ranks.iter().map(|&k| all[k - 1]).collect();
        }
        let mut rng = fastrand::Rng::with_seed(SELECTION_SEED);
        // One round for all ranks: pivots around the lowest and the highest,
        // drawn from the whole matrix without a sweep.
        let (lowest, highest) = (
            *ranks.iter().min().expect("not empty"),
            *ranks.iter().max().expect("not empty"),
        );
        let (m, n) = (x.len(), y.len());
        let mut first: Vec<f64> = (0..self.first_sample_size)
            .map(|_| y[rng.usize(..n)] - x[rng.usize(..m)])
            .collect();
        first.sort_unstable_by(f64::total_cmp);
        let (a, b, expected) = pivots(&first, lowest, highest, total);
        let shared = self.sweep_between(y, x, a, b, expected, &mut rng);
        let mut distinct = ranks.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        // One selection per rank, a rank whose successor is asked too
        // finding both; the selections share nothing but the first round.
        let mut jobs: Vec<(usize, bool)> = Vec::with_capacity(distinct.len());
        for &k in &distinct {
            if jobs
                .last()
                .is_some_and(|&(previous, with_next)| with_next && previous + 1 == k)
            {
                continue;
            }
            jobs.push((k, distinct.binary_search(&(k + 1)).is_ok()));
        }
        let select = |&(k, with_next): &(usize, bool)| {
            let upper_rank = if with_next { k + 1 } else { k };
            let (start, known) = match whole.narrowed(k, a, b, &shared) {
                Narrowed::To(window, known) => (window, known),
                Narrowed::Stuck => (whole, Known::Nothing),
            };
            // Each selection draws from a seed of its own, so that the
            // rounds do not depend on which thread takes it.
            let mut rng = fastrand::Rng::with_seed(SELECTION_SEED ^ k as u64);
            let (kth, next) = self.finish(y, x, (k, upper_rank), start, known, &mut rng);
            let next = with_next.then(|| {
                next.unwrap_or_else(|| {
                    let (up_to, above) = count_and_next_above(y, x, kth);
                    if up_to > k { kth } else { above }
                })
            });
            (kth, next)
        };
        let results = on_two_threads(&jobs, select);
        let mut found: Vec<(usize, f64)> = Vec::with_capacity(distinct.len());
        for (&(k, _), &(kth, next)) in jobs.iter().zip(&results) {
            found.push((k, kth));
            if let Some(next) = next {
                found.push((k + 1, next));
            }
        }
        ranks
            .iter()
            .map(|k| {
                found
                    .iter()
                    .find(|(rank, _)| rank == k)
                    .expect("every rank found")
                    .1
            })
            .collect()
    }

    /// The k-th smallest difference, known to lie in `window`, and the
    /// (k+1)-th when `upper_rank` is k + 1 and it is found on the way (the
    /// window is narrowed around both as long as they stay together).
    fn finish(
        self,
        y: &[f64],
        x: &[f64],
        (k, mut upper_rank): (usize, usize),
        mut window: Window,
        mut known: Known,
        rng: &mut fastrand::Rng,
    ) -> (f64, Option<f64>) {
        loop {
            if upper_rank > window.below + window.size {
                // The next rank is not in this window: follow the k-th alone.
                upper_rank = k;
            }
            if let Known::All(mut all) = known {
                let index = k - window.below - 1;
                let (_, kth, rest) = all.select_nth_unstable_by(index, f64::total_cmp);
                let next = (upper_rank > k)
                    .then(|| rest.iter().copied().min_by(f64::total_cmp))
                    .flatten();
                return (*kth, next);
            }
            if window.size <= self.small_window {
                known = Known::All(window.differences(y, x));
                continue;
            }
            let sample = match known {
                Known::Sample(s) if !s.is_empty() => s,
                _ => window.sample(y, x, self.sample_size, rng),
            };
            let (a, b, expected) = pivots(
                &sample,
                k - window.below,
                upper_rank - window.below,
                window.size,
            );
            let between = self.sweep_between(y, x, a, b, expected, rng);
            if a == b && between.less_a < k && k <= between.up_to_b {
                let next_too = upper_rank > k && upper_rank <= between.up_to_b;
                return (a, next_too.then_some(a));
            }
            match window.narrowed(k, a, b, &between) {
                Narrowed::To(next, next_known) => {
                    window = next;
                    known = next_known;
                }
                Narrowed::Stuck => {
                    // Every difference left lies in [a, b] (a < b): count
                    // the ties at both pivots to exclude them.
                    let [less_a, up_to_a, less_b, up_to_b] = counts(y, x, a, b);
                    if less_a < k && k <= up_to_a {
                        return (a, None);
                    }
                    if less_b < k && k <= up_to_b {
                        return (b, None);
                    }
                    upper_rank = k;
                    window = Window {
                        lower: next_above(a),
                        upper: next_below(b),
                        below: up_to_a,
                        size: less_b - up_to_a,
                    };
                    known = Known::Nothing;
                }
            }
        }
    }

    /// One sweep counting the differences below `a` and up to `b`, and
    /// gathering those between: all of them when about `expected` are few
    /// enough to hold, else a sample of about [`SAMPLE_SIZE`] (each drawn
    /// with the same probability, by geometric skips).
    fn sweep_between(
        self,
        y: &[f64],
        x: &[f64],
        a: f64,
        b: f64,
        expected: usize,
        rng: &mut fastrand::Rng,
    ) -> Between {
        let n = y.len();
        let gather_all = expected <= self.small_window / 2;
        let most = if gather_all {
            2 * self.small_window
        } else {
            8 * self.sample_size
        };
        let chance = (self.sample_size as f64 / expected.max(1) as f64).min(1.0);
        let skip = |rng: &mut fastrand::Rng| -> usize {
            if gather_all || chance >= 1.0 {
                0
            } else {
                // Geometric: the draws skipped before the next taken.
                (rng.f64().ln() / (1.0 - chance).ln()) as usize
            }
        };
        let mut values = Vec::new();
        let mut complete = true;
        let (mut next, mut seen) = (skip(rng), 0usize);
        let (mut less_a, mut up_to_b) = (0usize, 0usize);
        let (mut pa, mut pb) = (0usize, 0usize);
        for &xi in x {
            while pa < n && y[pa] - xi < a {
                pa += 1;
            }
            pb = pb.max(pa);
            while pb < n && y[pb] - xi <= b {
                pb += 1;
            }
            less_a += pa;
            up_to_b += pb;
            if !complete {
                continue;
            }
            let width = pb - pa;
            while next < seen + width {
                if values.len() == most {
                    complete = false;
                    break;
                }
                values.push(y[pa + next - seen] - xi);
                next = next.saturating_add(1 + skip(rng));
            }
            seen += width;
        }
        let known = match (gather_all, complete) {
            (true, true) => Known::All(values),
            (true, false) => Known::Nothing,
            (false, _) => {
                values.sort_unstable_by(f64::total_cmp);
                Known::Sample(values)
            }
        };
        Between {
            less_a,
            up_to_b,
            known,
        }
    }
}

/// `work` on every job, on two threads (the machine's other CPU, when it
/// has one, takes the next job left as soon as it is free); the results in
/// the jobs' order, the same whichever thread ran which.
fn on_two_threads<J: Sync, R: Send + Copy + Default>(
    jobs: &[J],
    work: impl Fn(&J) -> R + Sync,
) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let take = || {
        let mut done = Vec::new();
        loop {
            let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(job) = jobs.get(index) else {
                return done;
            };
            done.push((index, work(job)));
        }
    };
    let (mine, theirs) = std::thread::scope(|scope| {
        let other = scope.spawn(take);
        let mine = take();
        (
            mine,
            other
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        )
    });
    let mut results = vec![R::default(); jobs.len()];
    for (index, result) in mine.into_iter().chain(theirs) {
        results[index] = result;
    }
    results
}

/// Where the ranks sought lie after a sweep.
enum Narrowed {
    /// In this window, with what is known of it.
    To(Window, Known),
    /// Every difference of the window lies between the pivots.
    Stuck,
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

    /// The part of the window that holds the `k`-th smallest difference
    /// after a sweep with pivots a <= b (taken from the window): below a,
    /// between them (with what the sweep gathered), or above b. `Stuck`
    /// when it lies between them and so does the whole window.
    fn narrowed(&self, k: usize, a: f64, b: f64, between: &Between) -> Narrowed {
        if k <= between.less_a {
            Narrowed::To(
                Window {
                    upper: next_below(a),
                    size: between.less_a - self.below,
                    ..*self
                },
                Known::Nothing,
            )
        } else if k > between.up_to_b {
            Narrowed::To(
                Window {
                    lower: next_above(b),
                    below: between.up_to_b,
                    size: self.below + self.size - between.up_to_b,
                    ..*self
                },
                Known::Nothing,
            )
        } else if between.up_to_b - between.less_a < self.size {
            let known = match &between.known {
                Known::Nothing => Known::Nothing,
                Known::Sample(s) => Known::Sample(s.clone()),
                Known::All(all) => Known::All(all.clone()),
            };
            Narrowed::To(
                Window {
                    lower: a,
                    upper: b,
                    below: between.less_a,
                    size: between.up_to_b - between.less_a,
                },
                known,
            )
        } else {
            Narrowed::Stuck
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

/// Two pivots a <= b from a sorted sample of a window of `size`
/// differences, either side of where its `low`-th to `high`-th (1-based)
/// are expected, and about how many of the window lie between them.
fn pivots(sample: &[f64], low: usize, high: usize, size: usize) -> (f64, f64, usize) {
    let s = sample.len() as f64;
    let position = |rank: usize, side: f64| {
        let p = (rank as f64 - 0.5) / size as f64;
        let spread = PIVOT_SPREAD * (s * p * (1.0 - p)).sqrt() + 1.0;
        (p * s + side * spread).max(0.0).min(s - 1.0)
    };
    let (ia, ib) = (
        position(low, -1.0).floor() as usize,
        position(high, 1.0).ceil() as usize,
    );
    let expected = (size as f64 * (ib - ia + 1) as f64 / s).ceil() as usize;
    (sample[ia], sample[ib], expected)
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
        first_sample_size: 7,
    };

    /// Ranks as the Hodges-Lehmann shift and Moses interval ask them: a
    /// low one, the middle one or two, a high one, and any `extra`.
    fn ranks_asked(total: usize, low: f64, extra: usize) -> Vec<usize> {
        let c = 1 + ((total / 2) as f64 * low) as usize;
        let mut ranks = if total % 2 == 1 {
            vec![total.div_ceil(2)]
        } else {
            vec![total / 2, total / 2 + 1]
        };
        ranks.extend([
            c.min(total),
            total + 1 - c.min(total),
            extra.clamp(1, total),
        ]);
        ranks
    }

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
        let ranks = [total / 2, total / 2 + 1, 500_000, total - 400_000, 3];
        let expected: Vec<f64> = ranks.iter().map(|&k| d[k - 1]).collect();
        assert_eq!(order_statistics(&y, &x, &ranks), expected);
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
            low in 0.0f64..1.0,
            extra in 0usize..4000,
            scale in prop::sample::select(vec![1.0, 0.1, 1e-3, 8e306]),
        ) {
            // Integer grids make many ties (pivots that hit the rank sought,
            // windows all between the pivots); 8e306 makes differences overflow.
            let x = sorted(x.into_iter().map(|v| f64::from(v) * scale).collect());
            let y = sorted(y.into_iter().map(|v| f64::from(v) * scale).collect());
            let total = x.len() * y.len();
            let ranks = ranks_asked(total, low, extra);
            let expected: Vec<f64> = ranks.iter().map(|&k| brute(&y, &x, k)).collect();
            prop_assert_eq!(TINY.order_statistics(&y, &x, &ranks), expected);
        }

        #[test]
        fn selection_of_spread_values_in_many_rounds_matches_sorting(
            x in prop::collection::vec(-1e3f64..1e3, 1..60),
            y in prop::collection::vec(-1e3f64..1e3, 1..60),
            low in 0.0f64..1.0,
            extra in 0usize..4000,
        ) {
            let (x, y) = (sorted(x), sorted(y));
            let total = x.len() * y.len();
            let ranks = ranks_asked(total, low, extra);
            let expected: Vec<f64> = ranks.iter().map(|&k| brute(&y, &x, k)).collect();
            prop_assert_eq!(TINY.order_statistics(&y, &x, &ranks), expected);
        }
    }
}
