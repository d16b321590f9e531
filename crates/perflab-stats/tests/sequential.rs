//! The sequential A/B procedure on hand-made pairs: where it stops, what it
//! says below the minimum, what guards do, and what it refuses.

use perflab_stats::{
    Better, GuardLimit, GuardStatus, RunsNeeded, SampleRole, SequentialConfig, SequentialTest,
    StatsError, Verdict,
};

#[test]
fn an_interval_below_the_minimum_decides_nothing_and_says_how_far_the_minimum_is() {
    let mut t = SequentialTest::new(SequentialConfig::new(Better::Lower)).unwrap();
    for i in 0..3 {
        let base = 100.0 + f64::from(i);
        assert_eq!(t.push(base, base).unwrap(), None);
    }
    let d = t.evaluate().unwrap();
    assert_eq!(d.primary, Verdict::Neutral, "the 3-pair interval alone");
    assert_eq!(d.verdict, Verdict::Inconclusive);
    assert_eq!(d.runs_needed, Some(RunsNeeded::Additional(7)));
}

#[test]
fn two_pairs_never_decide_at_95_percent_and_the_decision_says_how_many_more_are_needed() {
    // `--min-runs 2 --max-runs 2`: a clear change, but two pairs are below
    // the fewest the decision is validated for.
    let config = SequentialConfig::tuned(Better::Lower, Default::default(), 0.95, 2, 2);
    let mut t = SequentialTest::new(config).unwrap();
    assert_eq!(t.push(100.0, 80.0).unwrap(), None);
    let d = t.push(101.0, 80.5).unwrap().expect("stops at max_runs");
    assert_eq!(d.verdict, Verdict::Inconclusive);
    let floor = perflab_stats::fewest_deciding_pairs(0.95);
    assert_eq!((t.deciding_floor(), floor), (4, 4));
    assert_eq!(d.runs_needed, Some(RunsNeeded::Additional(floor - 2)));
}

#[test]
fn values_that_repeat_exactly_decide_from_the_minimum_whatever_the_floor() {
    let config = SequentialConfig::tuned(Better::Lower, Default::default(), 0.95, 2, 20);
    let mut t = SequentialTest::new(config).unwrap();
    assert_eq!(t.push(1000.0, 900.0).unwrap(), None);
    let d = t
        .push(1000.0, 900.0)
        .unwrap()
        .expect("an exact interval decides");
    assert_eq!((d.verdict, d.runs), (Verdict::Go, 2));
}

#[test]
fn a_stricter_level_needs_more_pairs_before_it_may_decide() {
    let floor = perflab_stats::fewest_deciding_pairs;
    assert!(floor(0.90) <= floor(0.95));
    assert!(floor(0.95) < floor(1.0 - 0.05 / 12.0));
    assert!(floor(1.0 - 0.05 / 12.0) < floor(1.0 - 0.05 / 1000.0));
    assert_eq!(floor(1.0 - 0.05 / 1e6), floor(1.0 - 0.05 / 1000.0));
}

#[test]
fn a_guard_that_worsens_turns_go_into_no_go_and_an_uncertain_one_keeps_going() {
    let config = SequentialConfig::tuned(Better::Lower, Default::default(), 0.95, 5, 10);
    let limit = GuardLimit::relative(Better::Lower, 0.05);
    let mut t = SequentialTest::with_guards(config, vec![limit]).unwrap();
    let mut last = None;
    for i in 0..5 {
        let base = 100.0 + f64::from(i % 2);
        last = t
            .push_with_guards(base, base * 0.8, &[(4000.0, 5000.0 + f64::from(i))])
            .unwrap();
    }
    let d = last.expect("decides at the minimum");
    assert_eq!((d.primary, d.verdict), (Verdict::Go, Verdict::NoGo));
    assert_eq!(d.guards[0].status, GuardStatus::Violated);

    let mut t = SequentialTest::with_guards(config, vec![limit]).unwrap();
    let noisy = [4000.0, 4800.0, 3700.0, 4500.0, 4200.0];
    for (i, g) in noisy.iter().enumerate() {
        let base = 100.0 + i as f64;
        assert_eq!(
            t.push_with_guards(base, base * 0.8, &[(4100.0, *g)])
                .unwrap(),
            None
        );
    }
    let d = t.evaluate().unwrap();
    assert_eq!((d.primary, d.verdict), (Verdict::Go, Verdict::Inconclusive));
    assert!(
        matches!(d.runs_needed, Some(RunsNeeded::Additional(k)) if k >= 1),
        "{d:?}"
    );
    assert!(
        t.push(1.0, 1.0).is_err(),
        "a guarded test needs the guards' values"
    );
}

#[test]
fn a_clear_improvement_stops_with_go_at_the_minimum() {
    let mut t = SequentialTest::new(SequentialConfig::new(Better::Lower)).unwrap();
    let mut last = None;
    for i in 0..10 {
        let base = 100.0 + f64::from(i % 3);
        last = t.push(base, base * 0.8).unwrap();
        if i < 9 {
            assert_eq!(last, None);
        }
    }
    let d = last.expect("decides at min_runs");
    assert_eq!((d.verdict, d.runs, d.runs_needed), (Verdict::Go, 10, None));
    assert!(matches!(
        t.push(1.0, 1.0),
        Err(StatsError::AlreadyStopped { runs: 10, .. })
    ));
}

#[test]
fn noise_without_effect_stops_inconclusive_at_the_maximum_with_a_projection() {
    let mut cfg = SequentialConfig::new(Better::Higher);
    cfg.max_runs = 12;
    let mut t = SequentialTest::new(cfg).unwrap();
    let noise = [
        1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 1.5, -1.5, 1.0, -1.0, 0.3, -0.3,
    ];
    let mut last = None;
    for e in noise {
        last = t.push(100.0, 100.0 + e).unwrap();
    }
    let d = last.expect("stops at max_runs");
    assert_eq!(d.verdict, Verdict::Inconclusive);
    assert_eq!(d.runs, 12);
    assert!(matches!(d.runs_needed, Some(RunsNeeded::Additional(k)) if k > 0));
}

#[test]
fn a_bad_value_names_its_pair_and_is_not_recorded() {
    let mut t = SequentialTest::new(SequentialConfig::new(Better::Higher)).unwrap();
    t.push(1.0, 1.0).unwrap();
    let err = t.push(1.0, -3.0).unwrap_err();
    assert_eq!(
        err,
        StatsError::NonPositive {
            sample: SampleRole::Candidate,
            index: 1,
            value: -3.0
        }
    );
    assert_eq!(t.runs(), 1);
}

#[test]
fn invalid_configurations_are_rejected() {
    let mut cfg = SequentialConfig::new(Better::Higher);
    cfg.min_runs = 1;
    assert!(SequentialTest::new(cfg).is_err());
    let mut cfg = SequentialConfig::new(Better::Higher);
    cfg.max_runs = 5;
    assert!(SequentialTest::new(cfg).is_err());
    let mut cfg = SequentialConfig::new(Better::Higher);
    cfg.thresholds.nogo = 0.02;
    assert!(SequentialTest::new(cfg).is_err());
}
