//! The suite procedure on hand-made pairs: the split confidence, cells that
//! stop on their own, errors that name the cell, and how verdicts combine.

use perflab_stats::{
    Better, GuardLimit, SequentialConfig, SequentialTest, StatsError, SuiteTest, Verdict,
    combine_verdicts,
};

fn config() -> SequentialConfig {
    SequentialConfig::new(Better::Higher)
}

/// Deterministic pairs with about 1 % spread around the given gain.
fn pair(i: usize, gain: f64) -> (f64, f64) {
    let wobble = [0.0, 0.01, -0.008, 0.004, -0.006][i % 5];
    (100.0, 100.0 * (1.0 + gain + wobble))
}

#[test]
fn each_cell_decides_at_the_experiment_level_split_over_the_cells() {
    let suite = SuiteTest::new(config(), 12).unwrap();
    assert_eq!(suite.cells(), 12);
    assert_eq!(suite.config().confidence, 0.95);
    assert!((suite.cell_confidence() - (1.0 - 0.05 / 12.0)).abs() < 1e-15);
    assert_eq!(
        suite.cell(11).unwrap().config().confidence,
        suite.cell_confidence()
    );
    let single = SuiteTest::new(config(), 1).unwrap();
    assert_eq!(single.cell_confidence(), 0.95);
}

#[test]
fn guards_take_their_share_of_the_error_budget() {
    let guard = GuardLimit::relative(Better::Lower, 0.05);
    let suite = SuiteTest::with_guards(config(), 12, vec![guard]).unwrap();
    assert!((suite.cell_confidence() - (1.0 - 0.05 / 24.0)).abs() < 1e-15);
    assert_eq!(suite.cell(3).unwrap().guards(), &[guard]);
    let mut suite = SuiteTest::with_guards(config(), 2, vec![guard]).unwrap();
    let err = suite.push(1, 100.0, 100.0).unwrap_err();
    assert!(err.to_string().starts_with("cell 1: "), "{err}");
    assert_eq!(
        suite.push_with_guards(1, 100.0, 100.0, &[(10.0, 10.0)]),
        Ok(None)
    );
}

#[test]
fn a_cell_of_one_is_the_sequential_test_itself() {
    let mut suite = SuiteTest::new(config(), 1).unwrap();
    let mut alone = SequentialTest::new(config()).unwrap();
    for i in 0..60 {
        let (b, c) = pair(i, 0.03);
        let from_suite = suite.push(0, b, c).unwrap();
        assert_eq!(from_suite, alone.push(b, c).unwrap());
        if from_suite.is_some() {
            break;
        }
    }
    assert!(suite.is_finished());
    assert_eq!(suite.decision(0).unwrap(), alone.decision());
}

#[test]
fn a_decided_cell_stops_while_the_others_go_on() {
    let mut suite = SuiteTest::new(config(), 3).unwrap();
    let mut stopped_at = None;
    for i in 0..60 {
        let cells: Vec<usize> = suite.unfinished_cells().collect();
        for cell in cells {
            let gain = if cell == 1 { 0.10 } else { 0.0 };
            let (b, c) = pair(i, gain);
            if suite.push(cell, b, c).unwrap().is_some() && cell == 1 {
                stopped_at = Some(i + 1);
            }
        }
        if stopped_at.is_some() {
            break;
        }
    }
    let runs = stopped_at.expect("a +10 % cell decides within 60 pairs");
    assert_eq!(suite.decision(1).unwrap().unwrap().verdict, Verdict::Go);
    assert!(suite.is_cell_finished(1).unwrap());
    assert!(!suite.is_cell_finished(0).unwrap());
    assert!(!suite.is_finished());
    assert_eq!(suite.unfinished_cells().collect::<Vec<_>>(), vec![0, 2]);
    assert_eq!(suite.cell(0).unwrap().runs(), runs);
    let err = suite.push(1, 100.0, 110.0).unwrap_err();
    assert!(
        matches!(&err, StatsError::InCell { cell: 1, error } if matches!(**error, StatsError::AlreadyStopped { .. })),
        "{err:?}"
    );
    assert!(err.to_string().starts_with("cell 1: "), "{err}");
}

#[test]
fn below_the_minimum_every_cell_and_the_suite_are_inconclusive() {
    let mut suite = SuiteTest::new(config(), 2).unwrap();
    assert_eq!(suite.overall_verdict(), Verdict::Inconclusive);
    for i in 0..5 {
        let (b, c) = pair(i, 0.2);
        suite.push(0, b, c).unwrap();
        suite.push(1, b, c).unwrap();
    }
    let d = suite.evaluate(0).unwrap();
    assert_eq!(d.verdict, Verdict::Inconclusive);
    assert_eq!(d.primary, Verdict::Go, "the 5-pair interval alone");
    assert_eq!(suite.overall_verdict(), Verdict::Inconclusive);
}

#[test]
fn a_regression_in_one_cell_makes_the_suite_no_go() {
    let mut suite = SuiteTest::new(config(), 3).unwrap();
    for i in 0..60 {
        let cells: Vec<usize> = suite.unfinished_cells().collect();
        for cell in cells {
            let gain = [0.10, 0.10, -0.10][cell];
            let (b, c) = pair(i, gain);
            suite.push(cell, b, c).unwrap();
        }
    }
    assert!(suite.is_finished());
    assert_eq!(
        suite.verdicts(),
        vec![Verdict::Go, Verdict::Go, Verdict::NoGo]
    );
    assert_eq!(suite.overall_verdict(), Verdict::NoGo);
}

#[test]
fn bad_cells_and_bad_values_are_errors_that_name_the_cell() {
    assert!(matches!(
        SuiteTest::new(config(), 0),
        Err(StatsError::InvalidConfig { field: "cells", .. })
    ));
    let mut suite = SuiteTest::new(config(), 2).unwrap();
    let err = suite.push(2, 1.0, 1.0).unwrap_err();
    assert_eq!(err, StatsError::NoSuchCell { cell: 2, cells: 2 });
    assert_eq!(
        err.to_string(),
        "cell 2 does not exist: the suite has 2 cells (numbered from 0); check the cell index"
    );
    assert!(suite.evaluate(5).is_err());
    assert!(suite.is_cell_finished(2).is_err());
    let err = suite.push(1, 100.0, -3.0).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("cell 1: candidate value at index 0 is -3"),
        "{err}"
    );
    assert_eq!(suite.cell(1).unwrap().runs(), 0, "the bad pair is not kept");
    let err = suite.evaluate(0).unwrap_err();
    assert!(err.to_string().starts_with("cell 0: "), "{err}");
}

#[test]
fn verdicts_combine_by_the_suite_rule() {
    use Verdict::{Go, Inconclusive, Neutral, NoGo};
    assert_eq!(combine_verdicts(&[Go, Neutral, Go]), Go);
    assert_eq!(combine_verdicts(&[Neutral, Neutral]), Neutral);
    assert_eq!(combine_verdicts(&[Go, Inconclusive, NoGo]), NoGo);
    assert_eq!(combine_verdicts(&[Go, Inconclusive]), Inconclusive);
    assert_eq!(combine_verdicts(&[Neutral, Inconclusive]), Inconclusive);
    assert_eq!(combine_verdicts(&[]), Inconclusive);
}
