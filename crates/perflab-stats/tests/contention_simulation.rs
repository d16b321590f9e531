//! Deterministic simulations (fixed seeds) of the contention rule in front
//! of the sequential test, as `perflab ab --max-cpu-wait` runs them: bursts
//! of contention add a delay and a matching CPU wait to random runs (see
//! `common/contention.rs`). These fail if discarding contended blocks biased
//! the decision or broke its error guarantees; the bounds leave room only
//! for seed-to-seed variation. The table of docs/decision.md comes from the
//! same simulation (`cargo run -p perflab-stats --example contention_simulation`).

mod common;

use common::contention::{ContentionScenario, ContentionTally, simulate_contention};
use perflab_stats::{
    Better, CONTENTION_MAX_REPEATS, ContentionRule, DEFAULT_MAX_CPU_WAIT, SequentialConfig, Verdict,
};

const EXPERIMENTS: usize = 500;

fn config() -> SequentialConfig {
    let c = SequentialConfig::new(Better::Lower);
    assert_eq!((c.min_runs, c.max_runs, c.confidence), (10, 60, 0.95));
    c
}

fn rule() -> Option<ContentionRule> {
    Some(ContentionRule::new(DEFAULT_MAX_CPU_WAIT).unwrap())
}

/// Both ways, from the same seed: without the rule, then with it.
fn without_and_with(seed: u64, scenario: &ContentionScenario) -> [ContentionTally; 2] {
    [None, rule()].map(|r| simulate_contention(seed, EXPERIMENTS, scenario, config(), r))
}

fn false_decisions(t: &ContentionTally) -> usize {
    t.count(Verdict::Go) + t.count(Verdict::NoGo)
}

#[test]
fn a_against_itself_under_bursts_rarely_gives_go_or_no_go_with_or_without_the_rule() {
    for (seed, share) in [(3101, 0.1), (3102, 0.3), (3103, 0.6)] {
        for t in without_and_with(seed, &ContentionScenario::bursts(0.0, share)) {
            // At most 2% of experiments, as the decision simulation allows.
            assert!(
                false_decisions(&t) <= EXPERIMENTS / 50,
                "bursts on {share} of runs: {} of {EXPERIMENTS} were GO or NO-GO",
                false_decisions(&t)
            );
        }
    }
}

#[test]
fn a_five_percent_change_under_bursts_is_found_with_the_rule_in_nine_of_ten_experiments() {
    let [without, with] = without_and_with(3104, &ContentionScenario::bursts(0.05, 0.3));
    assert_eq!(with.count(Verdict::NoGo), 0);
    assert_eq!(without.count(Verdict::NoGo), 0);
    assert!(
        with.count(Verdict::Go) >= EXPERIMENTS * 9 / 10,
        "only {} of {EXPERIMENTS} GO with the rule",
        with.count(Verdict::Go)
    );
    assert!(
        with.count(Verdict::Go) > without.count(Verdict::Go),
        "the rule found the change {} times, without it {}",
        with.count(Verdict::Go),
        without.count(Verdict::Go)
    );
}

#[test]
fn the_rule_estimates_the_same_change_with_a_narrower_interval_from_fewer_pairs() {
    let width = |t: &ContentionTally| t.median_of(|o| o.width);
    let pairs = |t: &ContentionTally| t.median_of(|o| o.pairs as f64);
    // A against A runs to the limit of 60 pairs either way: the widths
    // compare at the same number of pairs.
    let [without, with] = without_and_with(3105, &ContentionScenario::bursts(0.0, 0.3));
    assert!(
        width(&with) < 0.5 * width(&without),
        "A = A: median width {} with the rule, {} without",
        width(&with),
        width(&without)
    );
    // A change is decided sooner, on a narrower interval.
    let [changed_without, changed_with] =
        without_and_with(3106, &ContentionScenario::bursts(0.05, 0.3));
    assert!(
        pairs(&changed_with) < 0.5 * pairs(&changed_without)
            && width(&changed_with) < width(&changed_without),
        "+5%: median {} pairs and width {} with the rule, {} and {} without",
        pairs(&changed_with),
        width(&changed_with),
        pairs(&changed_without),
        width(&changed_without)
    );
    // Unbiased: the median estimate within half a percent of the truth.
    for (t, change) in [
        (&without, 0.0),
        (&with, 0.0),
        (&changed_without, 0.05),
        (&changed_with, 0.05),
    ] {
        let estimate = t.median_of(|o| o.change);
        assert!(
            (estimate - change).abs() < 0.005,
            "change {change}: median estimate {estimate}"
        );
    }
}

#[test]
fn the_final_interval_misses_the_truth_no_more_often_than_the_confidence_allows() {
    for (seed, change, share) in [(3107, 0.0, 0.3), (3108, 0.05, 0.3), (3109, 0.0, 0.6)] {
        for t in without_and_with(seed, &ContentionScenario::bursts(change, share)) {
            // 5% at 95%; 30 of 500 leaves room for the seed.
            assert!(
                t.missed() <= 30,
                "change {change}, bursts on {share}: {} of {EXPERIMENTS} missed",
                t.missed()
            );
        }
    }
}

#[test]
fn on_a_quiet_machine_the_rule_never_measures_again_and_changes_nothing() {
    let [without, with] = without_and_with(3110, &ContentionScenario::bursts(0.05, 0.0));
    assert!(with.outcomes.iter().all(|o| o.measured_again == 0));
    let verdicts = |t: &ContentionTally| {
        t.outcomes
            .iter()
            .map(|o| (o.verdict, o.pairs, o.runs, o.change.to_bits()))
            .collect::<Vec<_>>()
    };
    assert_eq!(verdicts(&with), verdicts(&without));
}

#[test]
fn no_block_is_measured_again_more_often_than_the_bound() {
    let t = simulate_contention(
        3111,
        100,
        &ContentionScenario::bursts(0.0, 0.9),
        config(),
        rule(),
    );
    for o in &t.outcomes {
        assert!(
            o.runs <= 2 * o.pairs * (1 + CONTENTION_MAX_REPEATS),
            "{} runs for {} pairs",
            o.runs,
            o.pairs
        );
        assert_eq!(o.runs, 2 * (o.pairs + o.measured_again));
        assert!(o.kept_contended <= o.pairs);
    }
    // Nine runs in ten hit: most blocks reach the bound and are kept.
    assert!(t.mean_of(|o| o.kept_contended as f64) > 0.0);
}
