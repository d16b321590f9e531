//! How many interleaved pairs an A/B needs to decide a change whose size and
//! noise were seen elsewhere: the plan of the A/B that confirms a history's
//! change point, sized from the history's own step and the spread of its
//! runs.

use crate::decision::rule::Thresholds;
use crate::decision::runs_needed::{RunsNeeded, smallest_decisive};
use crate::descriptive::location_and_spread::median;
use crate::distributions::normal;
use crate::sequential::confidence_sequence::ConfidenceSequence;
use crate::sequential::config::DEFAULT_MAX_RUNS;
use crate::sequential::robust_sequence::MAD_TO_SD;

/// The chance of deciding that a confirming A/B is sized for: 90%, nine
/// confirmations in ten of a change as large as the history's step.
pub const CONFIRMATION_POWER: f64 = 0.9;

/// The most pairs a confirming A/B takes: five times the default run
/// limit. A bound on time, not a statistical one: a history whose step is
/// small against its runs' spread would otherwise ask for thousands of
/// pairs.
pub const CONFIRMATION_MAX_PAIRS: usize = 300;

/// Efficiency of Huber's location (k = 1.345) against the mean on Gaussian
/// values: its variance is that of the mean divided by 0.95 (Huber &
/// Ronchetti, *Robust Statistics*, 2nd ed., 2009, §4.5).
const HUBER_GAUSSIAN_EFFICIENCY: f64 = 0.95;

/// The run-to-run spread of a metric measured in groups (a history's
/// commits): the standard deviation of one run's log value about its
/// group's level, pooled over the groups.
///
/// Method: each value's absolute deviation from its group's median log
/// value, pooled over every group of at least two positive values; the
/// pooled median times 1.4826 (the MAD's normal consistency factor) times
/// k/(k − 0.8), k the mean group size (Croux & Rousseeuw's small-sample
/// factor, "Time-efficient algorithms for two highly robust estimators of
/// scale", Computational Statistics 1992: deviations from a group's own
/// median run small in small groups).
///
/// Assumptions: within a group the runs differ only by noise, the same in
/// every group; a group's level may differ from the next one's (the step
/// itself, or a busier day), and does not count. Robust: runs hit by a burst
/// weigh no more than the median deviation says, as in the decision itself.
/// None when no group has two positive values.
pub fn pooled_log_spread(groups: &[&[f64]]) -> Option<f64> {
    let mut deviations = Vec::new();
    let mut grouped = 0usize;
    let mut counted_groups = 0usize;
    for group in groups {
        let logs: Vec<f64> = group
            .iter()
            .filter(|v| v.is_finite() && **v > 0.0)
            .map(|v| v.ln())
            .collect();
        if logs.len() < 2 {
            continue;
        }
        let centre = median(&logs).ok()?;
        deviations.extend(logs.iter().map(|l| (l - centre).abs()));
        grouped += logs.len();
        counted_groups += 1;
    }
    if counted_groups == 0 {
        return None;
    }
    let k = grouped as f64 / counted_groups as f64;
    let mad = median(&deviations).ok()?;
    Some(MAD_TO_SD * mad * k / (k - 0.8))
}

/// Pairs an interleaved A/B needs to decide a change of a known size with a
/// given probability.
///
/// Method: a power calculation for the sequential procedure at its last
/// look. With the run limit n as its tuning (the boundary tightest at n, as
/// every perflab A/B is tuned), independent runs of log spread σ give pair
/// gains of spread σ_g = √2 σ; the Huber location of n of them is
/// approximately Gaussian about the change δ with standard deviation
/// σ_g/√(0.95 n), and the interval is that location ± the sequence's
/// half-width at n for spread σ_g/√0.95. The interval lies in the verdict
/// region of δ (beyond go for a gain, beyond nogo for a loss) with
/// probability at least `power` when
///
/// ```text
/// |δ − threshold| ≥ half_width(n) + z_power · σ_g / √(0.95 n)
/// ```
///
/// The smallest such n is returned (as [`RunsNeeded::Additional`], counting
/// from no pairs). The procedure may decide earlier, at any look, which only
/// adds chances to decide; `cargo bench -p perflab-stats --bench
/// decision_simulation -- confirmation` measures the share of confirming
/// A/Bs sized this way that decide.
///
/// Assumptions: δ and σ are the truth. A history's step found among many
/// commits is the one that looked largest (its estimate leans away from 0),
/// and its runs' spread, measured apart from the A/B, may differ from the
/// A/B's: the simulation shows what this does. Changes inside the NEUTRAL
/// band, or exactly on a threshold, cannot be decided GO or NO-GO:
/// [`RunsNeeded::Unknown`], as for inputs that are not finite, a spread that
/// is negative, a power outside (0, 1) or invalid thresholds.
/// [`RunsNeeded::MoreThan`]`(cap)` when no n up to `cap` is enough.
pub fn pairs_for_power(
    change: f64,
    run_spread: f64,
    thresholds: &Thresholds,
    confidence: f64,
    power: f64,
    cap: usize,
) -> RunsNeeded {
    let sound = change.is_finite()
        && change > -1.0
        && run_spread.is_finite()
        && run_spread >= 0.0
        && power > 0.0
        && power < 1.0
        && thresholds.validate().is_ok();
    if !sound {
        return RunsNeeded::Unknown;
    }
    // The threshold the change lies beyond; none for a change in the
    // NEUTRAL band or exactly on a threshold.
    let threshold = if change > thresholds.go {
        thresholds.go
    } else if change < thresholds.nogo {
        thresholds.nogo
    } else {
        return RunsNeeded::Unknown;
    };
    // On the log scale the decision's thresholds and the change are
    // ln(1 + x); the margin is the distance the interval may take up.
    let margin = ((1.0 + change).ln() - (1.0 + threshold).ln()).abs();
    let pair_spread = std::f64::consts::SQRT_2 * run_spread / HUBER_GAUSSIAN_EFFICIENCY.sqrt();
    if pair_spread == 0.0 {
        return RunsNeeded::Additional(2);
    }
    let z = normal::quantile(power);
    let decides = |n: usize| -> bool {
        let Ok(cs) = ConfidenceSequence::new(confidence, n) else {
            return false;
        };
        cs.half_width(n, pair_spread) + z * pair_spread / (n as f64).sqrt() <= margin
    };
    // The left side falls with n (both terms shrink as 1/√n up to a slowly
    // growing log term): the search for the first n that decides is the
    // bisection every projection of perflab uses.
    smallest_decisive(2, cap, decides)
}

/// The plan of an A/B that confirms a change seen in groups of runs (a
/// history's change point), and what it was sized from. The A/B is tuned
/// to decide by `planned_runs` pairs and goes on to
/// [`CONFIRMATION_MAX_PAIRS`] only while its own projection puts a verdict
/// within them ([`crate::SequentialConfig::planned`]): the history's step
/// may be the machine's as much as the code's (a load that went at the
/// commit the code slowed), and then only the A/B's own figures tell how
/// far it has to go.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConfirmationSize {
    /// Planned pairs: [`pairs_for_power`]'s answer at [`CONFIRMATION_POWER`],
    /// never below the default run limit ([`DEFAULT_MAX_RUNS`]) nor above
    /// [`CONFIRMATION_MAX_PAIRS`]; the default run limit when nothing could
    /// be sized.
    pub planned_runs: usize,
    /// The groups' run-to-run spread ([`pooled_log_spread`]), if any.
    pub run_spread: Option<f64>,
    /// What [`pairs_for_power`] answered.
    pub needed: RunsNeeded,
}

/// A change found between groups of runs (a history's change point): its
/// estimate and interval, relative, positive is better.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FoundChange {
    /// The estimate.
    pub change: f64,
    /// Its interval, if there is one.
    pub interval: Option<[f64; 2]>,
    /// The interval's confidence level.
    pub confidence: f64,
}

impl FoundChange {
    /// The change the confirming A/B is sized for: the estimate moved one
    /// standard error towards no change (the standard error read off the
    /// interval as its log width over 2 z). A change point is found, and
    /// judged beyond a threshold, where its step looked largest, so the
    /// estimate of a step that was only just found leans away from 0; the
    /// move undoes about that much (for a step found half the time, the
    /// estimates that pass lean out by about 0.8 standard errors). Without
    /// an interval, the estimate itself.
    pub fn sized_for(&self) -> f64 {
        let Some([lo, hi]) = self.interval else {
            return self.change;
        };
        let (log_lo, log_hi) = ((1.0 + lo).ln(), (1.0 + hi).ln());
        let z = normal::quantile(0.5 + self.confidence / 2.0);
        let standard_error = (log_hi - log_lo) / (2.0 * z);
        if !standard_error.is_finite() || standard_error <= 0.0 {
            return self.change;
        }
        let log_change = (1.0 + self.change).ln();
        let moved = log_change.signum() * (log_change.abs() - standard_error).max(0.0);
        moved.exp() - 1.0
    }
}

/// Sizes the A/B that confirms `found`, a change found between the runs of
/// `groups` (the commits on both sides of a change point): enough pairs to
/// decide [`FoundChange::sized_for`] with probability
/// [`CONFIRMATION_POWER`] at `confidence`, if it and the runs' spread are
/// the truth; the most pairs allowed when that change lies inside the
/// NEUTRAL band (it was only just judged beyond a threshold). This is the
/// procedure `perflab history --confirm` runs and `cargo bench -p
/// perflab-stats --bench decision_simulation -- confirmation` simulates;
/// method and assumptions are [`pooled_log_spread`]'s and
/// [`pairs_for_power`]'s.
pub fn confirmation_size(
    groups: &[&[f64]],
    found: &FoundChange,
    thresholds: &Thresholds,
    confidence: f64,
) -> ConfirmationSize {
    let run_spread = pooled_log_spread(groups);
    let target = found.sized_for();
    let needed = match run_spread {
        None => RunsNeeded::Unknown,
        Some(_) if found.change > thresholds.nogo && found.change < thresholds.go => {
            RunsNeeded::Unknown
        }
        Some(_) if target >= thresholds.nogo && target <= thresholds.go => {
            RunsNeeded::MoreThan(CONFIRMATION_MAX_PAIRS)
        }
        Some(spread) => pairs_for_power(
            target,
            spread,
            thresholds,
            confidence,
            CONFIRMATION_POWER,
            CONFIRMATION_MAX_PAIRS,
        ),
    };
    let planned_runs = match needed {
        RunsNeeded::Additional(n) => n.clamp(DEFAULT_MAX_RUNS, CONFIRMATION_MAX_PAIRS),
        RunsNeeded::MoreThan(_) => CONFIRMATION_MAX_PAIRS,
        RunsNeeded::Unknown => DEFAULT_MAX_RUNS,
    };
    ConfirmationSize {
        planned_runs,
        run_spread,
        needed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gaussian_groups(seed: u64, groups: usize, runs: usize, sd: f64) -> Vec<Vec<f64>> {
        let mut rng = fastrand::Rng::with_seed(seed);
        (0..groups)
            .map(|g| {
                let level = 100.0 * (1.0 + 0.1 * g as f64);
                (0..runs)
                    .map(|_| {
                        let u1 = 1.0 - rng.f64();
                        let u2 = rng.f64();
                        let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
                        level * (sd * z).exp()
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn the_pooled_spread_finds_the_runs_noise_whatever_the_groups_levels() {
        let groups = gaussian_groups(7, 200, 10, 0.03);
        let refs: Vec<&[f64]> = groups.iter().map(Vec::as_slice).collect();
        let spread = pooled_log_spread(&refs).unwrap();
        assert!((spread - 0.03).abs() < 0.002, "spread {spread}");
    }

    #[test]
    fn the_pooled_spread_needs_a_group_of_two() {
        assert_eq!(pooled_log_spread(&[&[1.0], &[2.0]]), None);
        assert_eq!(pooled_log_spread(&[]), None);
        assert_eq!(pooled_log_spread(&[&[5.0, 5.0, 5.0]]), Some(0.0));
    }

    #[test]
    fn the_sized_pairs_meet_the_power_inequality_and_one_fewer_does_not() {
        let th = Thresholds::default();
        let (change, spread, confidence) = (-0.048, 0.09, 0.9833);
        let RunsNeeded::Additional(n) = pairs_for_power(change, spread, &th, confidence, 0.9, 1000)
        else {
            panic!("expected a number of pairs");
        };
        let margin = ((1.0 + change).ln() - (1.0 + th.nogo).ln()).abs();
        let sd = std::f64::consts::SQRT_2 * spread / 0.95f64.sqrt();
        let left = |n: usize| {
            ConfidenceSequence::new(confidence, n)
                .unwrap()
                .half_width(n, sd)
                + 1.2815515655446004 * sd / (n as f64).sqrt()
        };
        assert!(left(n) <= margin);
        assert!(left(n - 1) > margin);
        assert!(
            n > 60,
            "a 5% change at 9% spread needs more than 60 pairs: {n}"
        );
    }

    #[test]
    fn more_noise_or_a_smaller_change_needs_more_pairs() {
        let th = Thresholds::default();
        let pairs = |change: f64, spread: f64| match pairs_for_power(
            change, spread, &th, 0.95, 0.9, 100_000,
        ) {
            RunsNeeded::Additional(n) => n,
            other => panic!("{other:?}"),
        };
        assert!(pairs(-0.05, 0.04) > pairs(-0.05, 0.02));
        assert!(pairs(0.03, 0.02) > pairs(0.05, 0.02));
        assert!(pairs(0.05, 0.02) >= pairs(0.5, 0.02));
    }

    #[test]
    fn a_change_that_cannot_be_decided_has_no_size() {
        let th = Thresholds::default();
        assert_eq!(
            pairs_for_power(0.002, 0.02, &th, 0.95, 0.9, 300),
            RunsNeeded::Unknown
        );
        assert_eq!(
            pairs_for_power(th.go, 0.02, &th, 0.95, 0.9, 300),
            RunsNeeded::Unknown
        );
        assert_eq!(
            pairs_for_power(f64::NAN, 0.02, &th, 0.95, 0.9, 300),
            RunsNeeded::Unknown
        );
        assert_eq!(
            pairs_for_power(-0.05, 0.02, &th, 0.95, 1.0, 300),
            RunsNeeded::Unknown
        );
    }

    #[test]
    fn a_change_too_small_for_the_cap_says_so() {
        let th = Thresholds::default();
        assert_eq!(
            pairs_for_power(-0.006, 0.2, &th, 0.95, 0.9, 300),
            RunsNeeded::MoreThan(300)
        );
    }

    #[test]
    fn a_confirmation_plans_the_default_limit_for_an_easy_change_and_the_cap_for_a_hopeless_one() {
        let th = Thresholds::default();
        let quiet = gaussian_groups(3, 20, 10, 0.01);
        let refs: Vec<&[f64]> = quiet.iter().map(Vec::as_slice).collect();
        let found = |change: f64| FoundChange {
            change,
            interval: Some([change - 0.01, change + 0.01]),
            confidence: 0.95,
        };
        let easy = confirmation_size(&refs, &found(-0.2), &th, 0.95);
        assert_eq!(easy.planned_runs, DEFAULT_MAX_RUNS);
        assert!(matches!(easy.needed, RunsNeeded::Additional(n) if n < DEFAULT_MAX_RUNS));
        let noisy = gaussian_groups(3, 20, 10, 0.3);
        let refs: Vec<&[f64]> = noisy.iter().map(Vec::as_slice).collect();
        let hopeless = confirmation_size(&refs, &found(-0.02), &th, 0.95);
        assert_eq!(hopeless.planned_runs, CONFIRMATION_MAX_PAIRS);
        assert_eq!(
            hopeless.needed,
            RunsNeeded::MoreThan(CONFIRMATION_MAX_PAIRS)
        );
        let neutral = confirmation_size(&refs, &found(0.0), &th, 0.95);
        assert_eq!(neutral.planned_runs, DEFAULT_MAX_RUNS);
        assert_eq!(neutral.needed, RunsNeeded::Unknown);
    }

    #[test]
    fn a_found_change_is_sized_one_standard_error_nearer_no_change() {
        let z = normal::quantile(0.975);
        let found = FoundChange {
            change: 0.05f64.exp() - 1.0,
            interval: Some([
                (0.05 - 2.0 * z * 0.01).exp() - 1.0,
                (0.05f64 + 2.0 * z * 0.01).exp() - 1.0,
            ]),
            confidence: 0.95,
        };
        assert!((found.sized_for() - (0.03f64.exp() - 1.0)).abs() < 1e-12);
        let loss = FoundChange {
            change: (-0.05f64).exp() - 1.0,
            interval: Some([(-0.06f64).exp() - 1.0, (-0.04f64).exp() - 1.0]),
            confidence: 0.95,
        };
        let moved = (1.0 + loss.sized_for()).ln();
        assert!((moved - (-0.05 + 0.01 / z)).abs() < 1e-12, "{moved}");
        let tiny = FoundChange {
            change: -0.001,
            interval: Some([-0.5, 0.5]),
            confidence: 0.95,
        };
        assert_eq!(tiny.sized_for(), 0.0);
        let bare = FoundChange {
            change: -0.05,
            interval: None,
            confidence: 0.95,
        };
        assert_eq!(bare.sized_for(), -0.05);
    }

    #[test]
    fn no_spread_needs_the_fewest_pairs() {
        let th = Thresholds::default();
        assert_eq!(
            pairs_for_power(-0.05, 0.0, &th, 0.95, 0.9, 300),
            RunsNeeded::Additional(2)
        );
    }
}
