//! Deterministic simulations of known truth (fixed seeds). These can fail if
//! the method is wrong; the bounds leave room only for seed-to-seed variation.

mod common;

use common::suite::{SuiteScenario, simulate_suite};
use common::{Scenario, simulate};
use perflab_stats::fixed_sample::hodges_lehmann::hodges_lehmann_change;
use perflab_stats::{Better, SequentialConfig};

fn config() -> SequentialConfig {
    let c = SequentialConfig::new(Better::Higher);
    assert_eq!((c.min_runs, c.max_runs, c.confidence), (10, 60, 0.95));
    c
}

#[test]
fn a_against_itself_rarely_gives_go_or_no_go() {
    let t = simulate(
        2024,
        500,
        &Scenario::gaussian(Better::Higher, 0.0, 0.02),
        config(),
    );
    let false_decisions = t.go + t.nogo;
    assert!(
        false_decisions <= 10,
        "{false_decisions} of 500 were GO or NO-GO: {t:?}"
    );
}

#[test]
fn a_true_three_percent_gain_gives_go_in_nine_of_ten_experiments() {
    let t = simulate(
        2025,
        500,
        &Scenario::gaussian(Better::Higher, 0.03, 0.02),
        config(),
    );
    assert!(t.go >= 450, "only {} of 500 were GO", t.go);
    assert_eq!(t.nogo, 0);
}

#[test]
fn a_true_three_percent_loss_in_time_gives_no_go_in_nine_of_ten_experiments() {
    let mut c = config();
    c.better = Better::Lower;
    let t = simulate(
        2026,
        500,
        &Scenario::gaussian(Better::Lower, -0.03, 0.02),
        c,
    );
    assert!(t.nogo >= 450, "only {} of 500 were NO-GO", t.nogo);
    assert_eq!(t.go, 0);
}

#[test]
fn heavy_tails_do_not_cause_false_decisions() {
    let s = Scenario {
        tail_probability: 0.05,
        tail_penalty: 0.2,
        ..Scenario::gaussian(Better::Lower, 0.0, 0.02)
    };
    let mut c = config();
    c.better = Better::Lower;
    let t = simulate(2027, 500, &s, c);
    assert!(t.go + t.nogo <= 10, "{t:?}");
}

#[test]
fn the_ten_run_rule_is_fooled_by_noise_that_the_sequential_test_is_not() {
    let t = simulate(
        2028,
        500,
        &Scenario::gaussian(Better::Higher, 0.0, 0.02),
        config(),
    );
    // About one GO in eight at 2% noise plus more NO-GOs, against almost none.
    assert!(t.seed_go >= 40, "{t:?}");
    assert!(t.go + t.nogo < t.seed_go / 5, "{t:?}");
}

#[test]
fn hodges_lehmann_interval_covers_the_true_change_at_its_confidence() {
    let mut rng = fastrand::Rng::with_seed(2029);
    let truth = 0.03;
    let (mut covered, experiments) = (0, 1000);
    for _ in 0..experiments {
        let draw = |rng: &mut fastrand::Rng, mu: f64| -> Vec<f64> {
            (0..10)
                .map(|_| mu * (1.0 + 0.02 * common::gaussian(rng)))
                .collect()
        };
        let b = draw(&mut rng, 100.0);
        let c = draw(&mut rng, 100.0 * (1.0 + truth));
        let iv = hodges_lehmann_change(&b, &c, Better::Higher, 0.95).unwrap();
        if iv.lo <= truth && truth <= iv.hi {
            covered += 1;
        }
    }
    // Nominal 95 %; the floor() in the critical rank makes it a little conservative.
    assert!(covered >= 935, "coverage {covered} / {experiments}");
}

#[test]
fn confidence_sequence_misses_the_truth_at_most_at_its_error_rate() {
    let mut rng = fastrand::Rng::with_seed(2030);
    let s = Scenario::gaussian(Better::Higher, 0.0, 0.02);
    let misses = (0..1000)
        .filter(|_| common::cs_misses(&mut rng, &s, config()))
        .count();
    // Promised <= 5 % (asymptotically) over all looks from 10 to 60 pairs.
    assert!(misses <= 55, "{misses} of 1000 missed");
}

fn suite_config() -> SequentialConfig {
    let c = SequentialConfig::for_suite(Better::Higher);
    assert_eq!((c.min_runs, c.max_runs, c.confidence), (20, 60, 0.95));
    c
}

#[test]
fn twelve_unchanged_cells_rarely_give_a_false_verdict_or_a_missed_interval_anywhere() {
    let suite = SuiteScenario::unchanged(12, 1, 0.05);
    let t = simulate_suite(2031, 200, &suite, suite_config(), true, true);
    // The suite promises <= 5 % at 95 % for the whole experiment: 10 of 200
    // for verdicts; the intervals' simultaneous coverage (4.3 % missed in the
    // benchmark) gets room for seed-to-seed variation.
    assert!(t.false_anywhere <= 10, "{t:?}");
    assert!(t.missed <= 16, "{t:?}");
}

#[test]
fn twelve_cells_each_at_95_percent_miss_together_far_more_often() {
    let suite = SuiteScenario::unchanged(12, 1, 0.05);
    let t = simulate_suite(2034, 200, &suite, suite_config(), false, true);
    // Without the split some interval misses its truth in 15 to 40 % of
    // experiments (the robust sequence's exact boundary misses less often
    // than the asymptotic one did): at least three times the 5 % promised.
    assert!(t.missed >= 30, "{t:?}");
}

#[test]
fn one_changed_cell_among_twelve_is_found_without_false_verdicts_elsewhere() {
    for (seed, change) in [(2032, 0.05), (2033, -0.05)] {
        let suite = SuiteScenario::one_changed(12, 1, 0.02, change);
        let t = simulate_suite(seed, 200, &suite, suite_config(), true, false);
        assert!(t.found >= 180, "{change}: found in {} of 200", t.found);
        assert!(t.false_anywhere <= 10, "{change}: {t:?}");
    }
}

/// A test planned for 60 pairs that may go on to 300 while a verdict is
/// within reach (the plan of a confirming A/B).
fn planned_config(better: Better) -> SequentialConfig {
    SequentialConfig::new(better).with_max_runs(300).planned(60)
}

#[test]
fn the_reach_rule_stops_an_undecidable_test_early_without_a_verdict() {
    // 10% noise: NEUTRAL would need thousands of pairs.
    let t = simulate(
        2031,
        300,
        &Scenario::gaussian(Better::Lower, 0.0, 0.10),
        planned_config(Better::Lower),
    );
    assert!(t.go + t.nogo <= 6, "{t:?}");
    assert!(t.median_runs() < 100.0, "{t:?}");
    assert!(t.runs.iter().all(|&r| r >= 10), "{t:?}");
}

#[test]
fn the_reach_rule_goes_on_past_the_plan_for_a_change_within_reach() {
    // 5% slower at 9% noise: about 150 pairs decide it, more than planned.
    let t = simulate(
        2032,
        300,
        &Scenario::gaussian(Better::Lower, -0.05, 0.09),
        planned_config(Better::Lower),
    );
    assert!(t.nogo >= 240, "only {} of 300 were NO-GO: {t:?}", t.nogo);
    assert!(t.runs.iter().any(|&r| r > 60), "{t:?}");
    assert_eq!(t.go, 0, "{t:?}");
}
