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
//!    most ([`crate::energy_split`]'s statistic Q, which sees any change of
//!    distribution, not only of the mean); take the segment where Q is largest.
//! 2. Test it: shuffle the values within each segment, `permutations` times,
//!    and count how often the largest Q of the shuffled series reaches the
//!    observed one; p = (count + 1) / (permutations + 1).
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
//! Assumptions: the runs of one segment are exchangeable: independent, of
//! one distribution whatever the commit. Noise that differs between commits
//! of the same code (a busier machine on another day) is not covered: it is
//! a change of distribution, and E-divisive reports it as one. Changes are
//! located between commits only, each side of a split needs at least two
//! runs, and the permutations come from a fixed seed, so the answer is a
//! function of the data.

use serde::{Deserialize, Serialize};

use crate::energy_split::best_split;
use crate::{Sample, StatsError, validate};

/// Permutations per test by default: with a false-alarm rate of 5% the
/// test then has exactly that level (10 of 200 orderings).
pub const DEFAULT_PERMUTATIONS: usize = 199;

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
}

impl ChangePointConfig {
    /// A false-alarm rate of 1 - `confidence` per series, the default
    /// permutations and a fixed seed.
    pub fn new(confidence: f64) -> Self {
        Self {
            false_alarm: 1.0 - confidence,
            permutations: DEFAULT_PERMUTATIONS,
            seed: 0x0e_d1_71_5e,
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
    validate::positive(&flat, Sample::Values)?;
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
    let mut rng = fastrand::Rng::with_seed(config.seed);
    // Segment starts, as group indices; the series' end closes the last one.
    let mut starts = vec![0];
    let mut found: Vec<ChangePoint> = Vec::new();
    loop {
        let Some((split, observed)) = strongest(&logs, &bounds, &starts, groups.len()) else {
            break;
        };
        let Some(p_value) =
            permutation_p_value(&logs, &bounds, &starts, observed, config, &mut rng)
        else {
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

/// The best split over all segments and its statistic.
fn strongest(
    logs: &[f64],
    bounds: &[usize],
    starts: &[usize],
    groups: usize,
) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    for (i, &first) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(groups);
        let split = best_split(logs, bounds, first, end);
        if let Some(s) = split.filter(|s| best.is_none_or(|(_, q)| s.q > q)) {
            best = Some((s.group, s.q));
        }
    }
    best
}

/// The permutation p-value of `observed`, or None as soon as it is certain
/// to exceed the false-alarm rate (the remaining permutations cannot bring it
/// back under, so they are not drawn).
fn permutation_p_value(
    logs: &[f64],
    bounds: &[usize],
    starts: &[usize],
    observed: f64,
    config: &ChangePointConfig,
    rng: &mut fastrand::Rng,
) -> Option<f64> {
    let groups = bounds.len() - 1;
    let total = config.permutations as f64 + 1.0;
    let mut at_least = 0usize;
    let mut shuffled = logs.to_vec();
    for _ in 0..config.permutations {
        for (i, &first) in starts.iter().enumerate() {
            let end = starts.get(i + 1).copied().unwrap_or(groups);
            shuffled[bounds[first]..bounds[end]].copy_from_slice(&logs[bounds[first]..bounds[end]]);
            rng.shuffle(&mut shuffled[bounds[first]..bounds[end]]);
        }
        // A relative tolerance, so that a shuffle giving the observed series
        // back counts as reaching it despite rounding.
        if strongest(&shuffled, bounds, starts, groups)
            .is_some_and(|(_, q)| q >= observed - 1e-12 * observed.abs())
        {
            at_least += 1;
            if (at_least as f64 + 1.0) / total > config.false_alarm {
                return None;
            }
        }
    }
    Some((at_least as f64 + 1.0) / total)
}
