//! Property tests of the decision procedure's promises: an undecided
//! comparison never projects zero further runs, nothing is decided below the
//! minimum, guards can only take a GO away, and a sweep point stops where
//! its precision rule says.

use perflab_stats::fixed_sample::hodges_lehmann::hodges_lehmann_change;
use perflab_stats::fixed_sample::runs_needed::runs_needed_independent;
use perflab_stats::sweep::precision::PrecisionStop;
use perflab_stats::{
    Better, GuardLimit, PrecisionRule, RunsNeeded, SequentialConfig, SequentialTest, Thresholds,
    Verdict, classify,
};
use proptest::prelude::*;

/// A sample around `level` with multiplicative noise of up to `noise`.
fn around(level: f64, noise: f64, unit: &[f64]) -> Vec<f64> {
    unit.iter().map(|u| level * (1.0 + noise * u)).collect()
}

/// Two samples whose change lands near the thresholds, with noise from 0.1 % to 15 %.
fn comparison() -> impl Strategy<Value = (Vec<f64>, Vec<f64>, Better)> {
    (
        prop::collection::vec(-1.0f64..1.0, 2..25),
        prop::collection::vec(-1.0f64..1.0, 2..25),
        -0.04f64..0.04,
        0.001f64..0.15,
        prop_oneof![Just(Better::Higher), Just(Better::Lower)],
    )
        .prop_map(|(ua, ub, shift, noise, better)| {
            (
                around(1.0, noise, &ua),
                around(1.0 + shift, noise, &ub),
                better,
            )
        })
}

/// Pairs of the decision metric and one guard metric.
fn paired_runs() -> impl Strategy<Value = Vec<(f64, f64, f64, f64)>> {
    (
        prop::collection::vec(
            (-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0),
            2..40,
        ),
        -0.05f64..0.05,
        -0.10f64..0.05,
        0.001f64..0.05,
    )
        .prop_map(|(us, shift, guard_shift, noise)| {
            us.into_iter()
                .map(|(a, b, c, d)| {
                    (
                        1.0 + noise * a,
                        (1.0 + shift) * (1.0 + noise * b),
                        1.0 + noise * c,
                        (1.0 + guard_shift) * (1.0 + noise * d),
                    )
                })
                .collect()
        })
}

fn projects_at_least_one_run(needed: Option<RunsNeeded>) -> bool {
    !matches!(needed, Some(RunsNeeded::Additional(0)) | None)
}

proptest! {
    #[test]
    fn an_undecided_fixed_size_comparison_never_projects_zero_runs((a, b, better) in comparison()) {
        let th = Thresholds::default();
        let needed = runs_needed_independent(&a, &b, better, &th, 0.95).unwrap();
        let undecided = hodges_lehmann_change(&a, &b, better, 0.95)
            .map_or(true, |iv| classify(&iv, &th) == Verdict::Inconclusive);
        if undecided {
            prop_assert!(projects_at_least_one_run(Some(needed)), "{needed:?}");
        } else {
            prop_assert_eq!(needed, RunsNeeded::Additional(0));
        }
    }

    #[test]
    fn an_undecided_sequential_look_never_projects_zero_runs(runs in paired_runs(), min_runs in 2usize..15) {
        let config = SequentialConfig::tuned(
            Better::Lower, Thresholds::default(), 0.95, min_runs, min_runs.max(runs.len()),
        );
        let guard = GuardLimit::relative(Better::Lower, 0.02);
        let mut test = SequentialTest::with_guards(config, vec![guard]).unwrap();
        for (a, b, ga, gb) in &runs {
            test.record(*a, *b, &[(*ga, *gb)]).unwrap();
            let Ok(d) = test.evaluate() else { continue };
            prop_assert_eq!(d.runs_needed.is_some(), d.verdict == Verdict::Inconclusive);
            if d.verdict == Verdict::Inconclusive {
                prop_assert!(projects_at_least_one_run(d.runs_needed), "{d:?}");
            }
            if d.runs < min_runs {
                prop_assert_eq!(d.verdict, Verdict::Inconclusive);
                let enough = match d.runs_needed {
                    Some(RunsNeeded::Additional(k)) => d.runs + k >= min_runs,
                    _ => true,
                };
                prop_assert!(enough, "{d:?}");
            }
        }
    }

    #[test]
    fn guards_can_only_take_a_go_away(runs in paired_runs()) {
        let config = SequentialConfig::tuned(Better::Lower, Thresholds::default(), 0.95, 2, runs.len());
        let guard = GuardLimit::relative(Better::Lower, 0.02);
        let mut guarded = SequentialTest::with_guards(config, vec![guard]).unwrap();
        let mut plain = SequentialTest::new(config).unwrap();
        for (a, b, ga, gb) in &runs {
            guarded.record(*a, *b, &[(*ga, *gb)]).unwrap();
            plain.record(*a, *b, &[]).unwrap();
        }
        let (g, p) = (guarded.evaluate().unwrap(), plain.evaluate().unwrap());
        prop_assert_eq!(g.interval, p.interval);
        prop_assert_eq!(g.primary, p.primary);
        if p.verdict == Verdict::Go {
            prop_assert!(g.verdict != Verdict::Neutral, "{g:?}");
        } else {
            prop_assert_eq!(g.verdict, p.verdict);
        }
    }

    #[test]
    fn a_sweep_point_stops_for_precision_only_from_the_minimum_and_always_at_the_limit(
        min_runs in 2usize..20,
        extra in 0usize..40,
        runs in 0usize..80,
        widest in prop::option::of(0.0f64..0.1),
    ) {
        let rule = PrecisionRule { precision: 0.02, confidence: 0.95, min_runs, max_runs: min_runs + extra };
        match rule.stop(runs, widest) {
            Some(PrecisionStop::Precise) => {
                prop_assert!(runs >= min_runs);
                prop_assert!(widest.is_some_and(|w| w <= 0.02));
            }
            Some(PrecisionStop::RunLimit) => prop_assert!(runs >= rule.max_runs),
            None => {
                prop_assert!(runs < rule.max_runs);
                prop_assert!(runs < min_runs || !widest.is_some_and(|w| w <= 0.02));
            }
        }
        prop_assert_eq!(rule.confidence_sequence().unwrap().optimise_at(), rule.max_runs);
    }
}
