//! Change points of a series of groups (a metric's runs at each commit):
//! E-divisive means with a permutation test.
//!
//! Method: Matteson & James, "A nonparametric approach for multiple change
//! point analysis of multivariate data", JASA 109(505), 2014, the procedure
//! behind MongoDB's and Apache Otava's regression detection (Fleming et al.,
//! "Hunter: using change point detection to hunt for performance
//! regressions", ICPE 2023). On the log values (so that a change is a ratio
//! and the orientation does not matter):
//!
//! 1. In every segment of the series (at first: the whole series) find the
//!    split between two commits where the samples on either side differ
//!    most (`energy_split`'s statistic Q, which sees any change of
//!    distribution, not only of the mean); take the segment where Q is largest.
//! 2. Test it: shuffle each segment, `permutations` times, and count how
//!    often the largest Q of the shuffled series reaches the observed one;
//!    p = (count + 1) / (permutations + 1). What is shuffled is the
//!    [`Exchangeable`] unit: whole groups (the order of the commits, each
//!    keeping its runs) or single values (runs moved between commits, as in
//!    the paper, where every observation is one value).
//! 3. If p <= the false-alarm rate, the split is a change point and the
//!    procedure repeats with one segment more; otherwise it stops.
//!
//! The false-alarm rate holds for the whole series: if nothing changed,
//! every shuffled series is as likely as the observed one, so the first test
//! rejects with probability at most the rate (exactly
//! floor(rate (permutations + 1)) / (permutations + 1) for values without
//! ties), and only the first test can raise the series' first alarm. After a
//! real change point has been found, each further test is again a test at
//! that rate of "no further change".
//!
//! Assumptions: without a change, the units of a segment are exchangeable.
//! With [`Exchangeable::Groups`] (the default) that is the commits: noise
//! shared by the runs of one commit (a busier machine on another day) is
//! part of the noise and raises no alarm, but a group that differs alone is
//! indistinguishable from such noise, so a change needs a few commits on
//! each side to show, and a series of 3 or 4 commits cannot reach a 5% rate
//! at all. With [`Exchangeable::Values`] every run is independent of the
//! conditions of its commit: more power (a change at the newest commit can
//! show), but noise shared by one commit's runs is reported as a change.
//! Changes are located between groups only, each side of a split needs at
//! least two values, and the permutations come from a fixed seed, so the
//! answer is a function of the data.

use serde::{Deserialize, Serialize};

use crate::change_points::energy_split::{best_split, pair_sums};
use crate::error::{SampleRole, StatsError};
use crate::sample::PositiveSample;

/// Permutations per test by default: with a false-alarm rate of 5% the
/// test then has exactly that level (10 of 200 orderings).
pub(crate) const DEFAULT_PERMUTATIONS: usize = 199;

/// What the permutation test of [`e_divisive_means`] shuffles: the unit
/// assumed exchangeable when nothing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Exchangeable {
    /// Whole groups (commits), each keeping its values.
    Groups,
    /// Single values (runs), moved between groups.
    Values,
}

/// Settings of [`e_divisive_means`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ChangePointConfig {
    /// Probability that a series in which nothing changed shows any change
    /// point (for example 0.05), in (0, 0.5).
    pub false_alarm: f64,
    /// Permutations per test.
    pub permutations: usize,
    /// Seed of the permutations.
    pub seed: u64,
    /// What the permutations shuffle.
    pub exchangeable: Exchangeable,
}

impl ChangePointConfig {
    /// A false-alarm rate of 1 - `confidence` per series, the default
    /// permutations and a fixed seed.
    pub fn new(confidence: f64) -> Self {
        Self {
            false_alarm: 1.0 - confidence,
            permutations: DEFAULT_PERMUTATIONS,
            seed: 0x0e_d1_71_5e,
            exchangeable: Exchangeable::Groups,
        }
    }
}

/// One change point found by [`e_divisive_means`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ChangePoint {
    /// Index of the first group (commit) after the change.
    pub group: usize,
    /// Permutation p-value of the test that accepted it.
    pub p_value: f64,
    /// 1 for the first change point found (the strongest), 2 for the next...
    pub rank: usize,
}

/// The change points of a series of groups of positive values (the runs
/// of each commit, oldest first), sorted by position. See the module
/// documentation for the method, its reference and its assumptions.
///
/// # Errors
/// [`StatsError::NonFinite`] / [`StatsError::NonPositive`] naming the index
/// of the bad value in the series read group after group;
/// [`StatsError::InvalidProbability`] for a false-alarm rate outside (0, 0.5).
pub fn e_divisive_means(
    groups: &[Vec<f64>],
    config: &ChangePointConfig,
) -> Result<Vec<ChangePoint>, StatsError> {
    let flat: Vec<f64> = groups.iter().flatten().copied().collect();
    // A series without runs has no change point; only runs need checking.
    if !flat.is_empty() {
        PositiveSample::new(&flat, SampleRole::Values)?;
    }
    if !(config.false_alarm > 0.0 && config.false_alarm < 0.5) {
        return Err(StatsError::InvalidProbability {
            value: config.false_alarm,
        });
    }
    let logs: Vec<f64> = flat.iter().map(|x| x.ln()).collect();
    let mut bounds = vec![0];
    for g in groups {
        bounds.push(bounds.last().copied().unwrap_or(0) + g.len());
    }
    let series = Series {
        pair: pair_sums(&logs, &bounds),
        counts: groups.iter().map(Vec::len).collect(),
        order: (0..groups.len()).collect(),
        logs,
        bounds,
    };
    let mut rng = fastrand::Rng::with_seed(config.seed);
    // Segment starts, as group indices; the series' end closes the last one.
    let mut starts = vec![0];
    let mut found: Vec<ChangePoint> = Vec::new();
    while let Some((split, observed)) = series.strongest(&series.pair, &series.order, &starts) {
        let Some(p_value) = series.p_value(&starts, observed, config, &mut rng) else {
            break;
        };
        found.push(ChangePoint {
            group: split,
            p_value,
            rank: found.len() + 1,
        });
        starts.push(split);
        starts.sort_unstable();
    }
    found.sort_by_key(|c| c.group);
    Ok(found)
}

/// A series on the log scale with the sums of distances between its groups.
struct Series {
    logs: Vec<f64>,
    bounds: Vec<usize>,
    pair: Vec<Vec<f64>>,
    counts: Vec<usize>,
    /// The groups in their observed order.
    order: Vec<usize>,
}

impl Series {
    /// The segments as position ranges, given their starts.
    fn segments<'a>(&'a self, starts: &'a [usize]) -> impl Iterator<Item = (usize, usize)> + 'a {
        let groups = self.counts.len();
        starts
            .iter()
            .enumerate()
            .map(move |(i, &first)| (first, starts.get(i + 1).copied().unwrap_or(groups)))
    }

    /// The best split over all segments and its statistic, for the groups
    /// in `order` with the sums `pair`.
    fn strongest(
        &self,
        pair: &[Vec<f64>],
        order: &[usize],
        starts: &[usize],
    ) -> Option<(usize, f64)> {
        let mut best: Option<(usize, f64)> = None;
        for (first, end) in self.segments(starts) {
            let split = best_split(pair, &self.counts, order, first, end);
            if let Some(s) = split.filter(|s| best.is_none_or(|(_, q)| s.q > q)) {
                best = Some((s.group, s.q));
            }
        }
        best
    }

    /// The permutation p-value of `observed`, or None as soon as it is
    /// certain to exceed the false-alarm rate (the remaining permutations
    /// cannot bring it back under, so they are not drawn).
    fn p_value(
        &self,
        starts: &[usize],
        observed: f64,
        config: &ChangePointConfig,
        rng: &mut fastrand::Rng,
    ) -> Option<f64> {
        let total = config.permutations as f64 + 1.0;
        let mut at_least = 0usize;
        let mut order = self.order.clone();
        let mut shuffled = self.logs.clone();
        for _ in 0..config.permutations {
            let q = match config.exchangeable {
                Exchangeable::Groups => {
                    for (first, end) in self.segments(starts) {
                        rng.shuffle(&mut order[first..end]);
                    }
                    self.strongest(&self.pair, &order, starts)
                }
                Exchangeable::Values => {
                    for (first, end) in self.segments(starts) {
                        let (a, b) = (self.bounds[first], self.bounds[end]);
                        rng.shuffle(&mut shuffled[a..b]);
                    }
                    let pair = pair_sums(&shuffled, &self.bounds);
                    self.strongest(&pair, &self.order, starts)
                }
            };
            // A relative tolerance, so that a shuffle giving the observed
            // series back counts as reaching it despite rounding.
            if q.is_some_and(|(_, q)| q >= observed - 1e-12 * observed.abs()) {
                at_least += 1;
                if (at_least as f64 + 1.0) / total > config.false_alarm {
                    return None;
                }
            }
        }
        Some((at_least as f64 + 1.0) / total)
    }
}
