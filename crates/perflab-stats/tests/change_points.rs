//! E-divisive means on series of known truth (fixed seeds) and its
//! invariants on arbitrary series. The simulations can fail if the method is
//! wrong; their bounds leave room only for seed-to-seed variation.

mod common;

use common::series::{SeriesScenario, detect};
use perflab_stats::{ChangePointConfig, Exchangeable, StatsError, e_divisive_means};
use proptest::prelude::*;

fn config(exchangeable: Exchangeable) -> ChangePointConfig {
    ChangePointConfig {
        exchangeable,
        ..ChangePointConfig::new(0.95)
    }
}

fn flat(commits: usize, runs: usize, noise: f64, commit_noise: f64) -> SeriesScenario {
    SeriesScenario {
        commits,
        runs_per_commit: runs,
        noise,
        commit_noise,
        steps: Vec::new(),
    }
}

/// Series (of `series` drawn) with any change point.
fn alarms(seed: u64, series: usize, s: &SeriesScenario, c: &ChangePointConfig) -> usize {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..series)
        .filter(|_| !detect(&mut rng, s, c).found.is_empty())
        .count()
}

/// Series (of `series` drawn) where every true step was found within 2 commits.
fn found(seed: u64, series: usize, s: &SeriesScenario, c: &ChangePointConfig) -> usize {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..series)
        .filter(|_| {
            detect(&mut rng, s, c)
                .errors
                .iter()
                .all(|e| e.is_some_and(|e| e <= 2))
        })
        .count()
}

#[test]
fn a_series_without_change_rarely_shows_one() {
    let s = flat(30, 1, 0.02, 0.0);
    // 5% promised: 10 of 200 expected, 20 is beyond any seed's luck.
    assert!(alarms(1, 200, &s, &config(Exchangeable::Groups)) <= 20);
}

#[test]
fn a_ten_percent_step_at_two_percent_noise_is_found_where_it_is() {
    let s = SeriesScenario {
        steps: vec![(15, -0.10)],
        ..flat(30, 1, 0.02, 0.0)
    };
    assert!(found(2, 100, &s, &config(Exchangeable::Groups)) >= 90);
}

#[test]
fn noise_shared_by_a_commits_runs_is_no_change_when_commits_are_shuffled_but_is_one_when_runs_are()
{
    let s = flat(20, 3, 0.005, 0.02);
    let by_commit = alarms(3, 100, &s, &config(Exchangeable::Groups));
    let by_run = alarms(3, 100, &s, &config(Exchangeable::Values));
    assert!(by_commit <= 12, "{by_commit}");
    assert!(by_run >= 50, "{by_run}");
}

#[test]
fn with_runs_shuffled_a_change_at_the_newest_commit_shows_at_once() {
    let s = SeriesScenario {
        steps: vec![(19, -0.10)],
        ..flat(20, 5, 0.01, 0.0)
    };
    assert!(found(4, 50, &s, &config(Exchangeable::Values)) >= 45);
    // Shuffling commits, one deviant commit is indistinguishable from noise.
    assert!(found(4, 50, &s, &config(Exchangeable::Groups)) <= 10);
}

#[test]
fn a_value_that_is_not_positive_is_named_by_its_place_in_the_series() {
    let err = e_divisive_means(
        &[vec![1.0, 2.0], vec![3.0, 0.0]],
        &ChangePointConfig::new(0.95),
    )
    .unwrap_err();
    assert!(
        matches!(err, StatsError::NonPositive { index: 3, .. }),
        "{err:?}"
    );
}

#[test]
fn a_false_alarm_rate_outside_zero_to_one_half_is_refused() {
    let mut c = ChangePointConfig::new(0.95);
    c.false_alarm = 0.0;
    assert!(e_divisive_means(&[vec![1.0], vec![2.0]], &c).is_err());
}

fn groups() -> impl Strategy<Value = Vec<Vec<f64>>> {
    proptest::collection::vec(proptest::collection::vec(0.5f64..2.0, 1..4), 0..10)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn change_points_are_ordered_inside_the_series_and_each_passed_its_test(
        g in groups(),
        by_run in any::<bool>(),
    ) {
        let mut c = config(if by_run { Exchangeable::Values } else { Exchangeable::Groups });
        c.permutations = 39;
        c.false_alarm = 0.1;
        let found = e_divisive_means(&g, &c).unwrap();
        let mut ranks: Vec<usize> = found.iter().map(|p| p.rank).collect();
        ranks.sort_unstable();
        prop_assert_eq!(ranks, (1..=found.len()).collect::<Vec<_>>());
        for w in found.windows(2) {
            prop_assert!(w[0].group < w[1].group);
        }
        for p in &found {
            prop_assert!(p.group >= 1 && p.group < g.len());
            prop_assert!(p.p_value > 0.0 && p.p_value <= c.false_alarm);
        }
        // The answer is a function of the data and the seed.
        prop_assert_eq!(e_divisive_means(&g, &c).unwrap(), found);
    }

    #[test]
    fn a_series_of_one_value_throughout_has_no_change_point(
        sizes in proptest::collection::vec(1usize..4, 0..10),
        value in 0.1f64..100.0,
    ) {
        let g: Vec<Vec<f64>> = sizes.iter().map(|&n| vec![value; n]).collect();
        prop_assert!(e_divisive_means(&g, &ChangePointConfig::new(0.95)).unwrap().is_empty());
    }
}
