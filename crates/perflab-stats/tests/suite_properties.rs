//! Property tests of the suite procedure, its verdict rule, the summary
//! across cells and the confidence splits.

use perflab_stats::{
    Better, Interval, SequentialConfig, SequentialTest, SuiteTest, Verdict, bisect_step_confidence,
    bonferroni_confidence, combine_verdicts, summary_change,
};
use proptest::prelude::*;

fn verdict() -> impl Strategy<Value = Verdict> {
    prop_oneof![
        Just(Verdict::Go),
        Just(Verdict::NoGo),
        Just(Verdict::Neutral),
        Just(Verdict::Inconclusive),
    ]
}

/// A cell's interval on the change scale with the true change inside it:
/// (interval, truth), from log-scale ends lo <= truth, estimate <= hi.
fn covering_interval(confidence: f64) -> impl Strategy<Value = (Interval, f64)> {
    (-0.5f64..0.5, 0.0f64..0.3, 0.0f64..1.0, 0.0f64..1.0).prop_map(
        move |(lo, width, at_truth, at_estimate)| {
            let log = |x: f64| x.exp_m1();
            let hi = lo + width;
            let interval = Interval {
                estimate: log(lo + at_estimate * width),
                lo: log(lo),
                hi: log(hi),
                confidence,
            };
            (interval, log(lo + at_truth * width))
        },
    )
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

proptest! {
    #[test]
    fn a_suite_verdict_is_no_go_exactly_when_some_cell_is(vs in prop::collection::vec(verdict(), 1..20)) {
        let combined = combine_verdicts(&vs);
        prop_assert_eq!(combined == Verdict::NoGo, vs.contains(&Verdict::NoGo));
        if combined == Verdict::Go {
            prop_assert!(vs.contains(&Verdict::Go));
            prop_assert!(vs.iter().all(|v| matches!(v, Verdict::Go | Verdict::Neutral)));
        }
        if combined == Verdict::Neutral {
            prop_assert!(vs.iter().all(|v| *v == Verdict::Neutral));
        }
    }

    #[test]
    fn combining_rows_then_the_suite_equals_combining_all_cells(
        rows in prop::collection::vec(prop::collection::vec(verdict(), 1..6), 1..6),
    ) {
        let by_row: Vec<Verdict> = rows.iter().map(|r| combine_verdicts(r)).collect();
        let all: Vec<Verdict> = rows.concat();
        prop_assert_eq!(combine_verdicts(&by_row), combine_verdicts(&all));
        let mut reversed = all.clone();
        reversed.reverse();
        prop_assert_eq!(combine_verdicts(&reversed), combine_verdicts(&all));
    }

    #[test]
    fn the_summary_covers_the_true_geometric_mean_whenever_every_cell_covers_its_truth(
        cells in prop::collection::vec(covering_interval(0.995), 1..12),
    ) {
        let intervals: Vec<Interval> = cells.iter().map(|(iv, _)| *iv).collect();
        let s = summary_change(&intervals).unwrap();
        let k = cells.len() as f64;
        let truth = (cells.iter().map(|(_, t)| t.ln_1p()).sum::<f64>() / k).exp_m1();
        let slack = 1e-12;
        prop_assert!(s.lo - slack <= truth && truth <= s.hi + slack, "{s:?} {truth}");
        prop_assert!(s.lo <= s.estimate && s.estimate <= s.hi, "{s:?}");
        let min_lo = intervals.iter().map(|iv| iv.lo).fold(f64::INFINITY, f64::min);
        let max_hi = intervals.iter().map(|iv| iv.hi).fold(f64::NEG_INFINITY, f64::max);
        prop_assert!(min_lo - slack <= s.lo && s.hi <= max_hi + slack, "{s:?}");
        prop_assert!(close(s.confidence, 1.0 - k * 0.005), "{}", s.confidence);
    }

    #[test]
    fn the_summary_of_one_interval_repeated_is_that_interval((iv, _) in covering_interval(0.99), k in 1usize..10) {
        let s = summary_change(&vec![iv; k]).unwrap();
        prop_assert!(close(s.lo, iv.lo) && close(s.estimate, iv.estimate) && close(s.hi, iv.hi), "{s:?} {iv:?}");
    }

    #[test]
    fn split_levels_spend_exactly_the_error_budget(confidence in 0.51f64..0.999, parts in 1usize..200) {
        let split = bonferroni_confidence(confidence, parts).unwrap();
        prop_assert!(split >= confidence && split < 1.0);
        prop_assert!(close(parts as f64 * (1.0 - split), 1.0 - confidence));
        let step = bisect_step_confidence(confidence, parts);
        prop_assert_eq!(step, split);
        prop_assert!(bisect_step_confidence(confidence, parts + 1) >= step);
    }

    #[test]
    fn every_cell_of_a_suite_is_the_sequential_test_at_the_split_level(
        cells in 1usize..5,
        gains in prop::collection::vec(-0.1f64..0.1, 60),
        better in prop_oneof![Just(Better::Higher), Just(Better::Lower)],
    ) {
        let config = SequentialConfig::new(better);
        let mut suite = SuiteTest::new(config, cells).unwrap();
        let split = SequentialConfig { confidence: bonferroni_confidence(0.95, cells).unwrap(), ..config };
        let mut alone: Vec<SequentialTest> = (0..cells).map(|_| SequentialTest::new(split).unwrap()).collect();
        for (i, g) in gains.iter().enumerate() {
            for (cell, test) in alone.iter_mut().enumerate() {
                if test.is_finished() {
                    continue;
                }
                let b = 100.0 + i as f64;
                let c = b * (g + 0.01 * cell as f64).exp();
                prop_assert_eq!(suite.push(cell, b, c).unwrap(), test.push(b, c).unwrap());
            }
        }
        prop_assert!(suite.is_finished());
        let verdicts: Vec<Verdict> = alone.iter().map(|t| t.decision().unwrap().verdict).collect();
        prop_assert_eq!(suite.verdicts(), verdicts.clone());
        prop_assert_eq!(suite.overall_verdict(), combine_verdicts(&verdicts));
    }
}

#[test]
fn intervals_that_cannot_be_combined_are_named() {
    let iv = Interval {
        estimate: 0.02,
        lo: 0.01,
        hi: 0.03,
        confidence: 0.99,
    };
    assert!(summary_change(&[]).is_err());
    let bad = Interval { lo: 0.05, ..iv };
    let err = summary_change(&[iv, bad]).unwrap_err();
    assert!(
        err.to_string().starts_with("interval 1 is not ordered"),
        "{err}"
    );
    let bad = Interval { lo: -1.0, ..iv };
    assert!(
        summary_change(&[bad])
            .unwrap_err()
            .to_string()
            .contains("-100 %")
    );
    let bad = Interval { hi: f64::NAN, ..iv };
    assert!(
        summary_change(&[iv, iv, bad])
            .unwrap_err()
            .to_string()
            .starts_with("interval 2 ")
    );
    let at_95 = Interval {
        confidence: 0.95,
        ..iv
    };
    let err = summary_change(&vec![at_95; 12]).unwrap_err();
    assert!(err.to_string().starts_with("12 intervals"), "{err}");
}
