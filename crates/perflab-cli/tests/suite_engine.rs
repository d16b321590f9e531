//! The suite engine with a scripted executor: blocks, rounds, and cells
//! that stop when they decide.

use std::cell::RefCell;
use std::rc::Rc;

use perflab_cli::ab::run_suite;
use perflab_cli::engine::NoProgress;
use perflab_cli::engine::StopReason;
use perflab_cli::experiment::settings::{ScenarioSettings, VariantSettings};
use perflab_cli::experiment::{GuardSettings, Settings, Suite};
use perflab_runner::{FakeExecutor, RunSpec};
use perflab_stats::Verdict;
use perflab_store::Store;

/// Three scenarios `s0`..`s2` × three variants (`V` = 0, 1, 2 in the environment).
fn suite(tweak: impl FnOnce(&mut Settings)) -> Suite {
    let mut s = Settings {
        variants: (0..3)
            .map(|v| VariantSettings {
                name: Some(format!("v{v}")),
                env: vec![("V".into(), v.to_string())],
                ..Default::default()
            })
            .collect(),
        scenarios: (0..3)
            .map(|i| ScenarioSettings {
                name: format!("s{i}"),
                command: Some(format!("s{i}")),
                at: format!("suite.toml:{i}:1"),
                ..Default::default()
            })
            .collect(),
        seed: Some(11),
        warmup: Some(1),
        ..Default::default()
    };
    tweak(&mut s);
    s.into_suite().unwrap()
}

/// (scenario, variant) of a run.
fn cell_of(spec: &RunSpec) -> (usize, usize) {
    let scenario = spec.command.display()[1..].parse().unwrap();
    let variant = spec.env.iter().find(|(k, _)| k == "V").unwrap().1.parse();
    (scenario, variant.unwrap())
}

/// The cells of the runs made so far, in order.
type RunOrder = Rc<RefCell<Vec<(usize, usize)>>>;

/// An executor whose wall time is `time(scenario, variant)` times noise of
/// about `noise`, recording every run's cell in order.
fn scripted(noise: f64, time: impl Fn(usize, usize) -> f64 + 'static) -> (FakeExecutor, RunOrder) {
    let order = Rc::new(RefCell::new(Vec::new()));
    let seen = order.clone();
    let mut rng = fastrand::Rng::with_seed(5);
    let exec = FakeExecutor::new(move |spec, _| {
        let (s, v) = cell_of(spec);
        seen.borrow_mut().push((s, v));
        let u: f64 = (0..12).map(|_| rng.f64()).sum::<f64>() - 6.0;
        Ok(FakeExecutor::outcome(time(s, v) * (1.0 + noise * u)))
    });
    (exec, order)
}

#[test]
fn every_block_runs_each_variant_of_its_scenario_once_and_every_round_visits_every_scenario() {
    let suite = suite(|s| {
        s.min_runs = Some(10);
        s.max_runs = Some(12);
    });
    // Noise far too large for any cell to decide in 12 pairs: every block is full.
    let (mut exec, order) = scripted(0.3, |_, _| 1.0);
    let run = run_suite(&suite, &mut exec, None, &mut NoProgress).unwrap();
    assert_eq!(run.header.stop, StopReason::MaxRuns);
    let order = order.borrow();
    let warmups = 3 * 3;
    let measured = &order[warmups..];
    assert_eq!(measured.len(), 12 * 3 * 3);
    let mut first_of_round = Vec::new();
    for (b, block) in measured.chunks(3).enumerate() {
        let scenario = block[0].0;
        assert!(
            block.iter().all(|c| c.0 == scenario),
            "block {b}: {block:?}"
        );
        let mut variants: Vec<usize> = block.iter().map(|c| c.1).collect();
        variants.sort();
        assert_eq!(variants, [0, 1, 2], "block {b}");
        if b % 3 == 0 {
            first_of_round.push(scenario);
        }
    }
    for (r, round) in measured.chunks(9).enumerate() {
        let mut scenarios: Vec<usize> = round.chunks(3).map(|b| b[0].0).collect();
        scenarios.sort();
        assert_eq!(scenarios, [0, 1, 2], "round {r}");
    }
    first_of_round.dedup();
    assert!(first_of_round.len() > 1, "the scenarios' order is shuffled");
    assert!(run.runs.iter().flatten().all(|runs| runs.len() == 12));
}

#[test]
fn a_cell_that_decided_takes_no_more_runs_while_the_others_go_on() {
    let suite = suite(|s| s.max_runs = Some(40));
    // In s1, v1 is 20 % faster with little noise; everything else is noisy.
    let (mut exec, order) = scripted(0.01, |s, v| if (s, v) == (1, 1) { 0.8 } else { 1.0 });
    let store = Store::in_memory().unwrap();
    let run = run_suite(&suite, &mut exec, Some(&store), &mut NoProgress).unwrap();
    let decided = suite.cell(1, 1);
    assert_eq!(run.verdicts()[decided], Verdict::Go);
    let pairs_of_decided = run.evaluations[decided].as_ref().unwrap().pairs;
    assert_eq!(run.runs[1][1].len(), pairs_of_decided);
    assert!(
        run.runs[1][0].len() > pairs_of_decided,
        "the baseline runs on for v2"
    );
    assert_eq!(run.runs[1][0].len(), run.runs[1][2].len());
    let stored = store.count_runs(run.header.experiment_id.unwrap()).unwrap() as usize;
    assert_eq!(stored, run.run_count(), "every measured run is stored");
    assert_eq!(
        order.borrow().len(),
        9 + stored,
        "after a warm-up run per cell"
    );
}

#[test]
fn a_suite_whose_cells_all_decide_stops_before_the_run_limit() {
    let suite = suite(|s| s.max_runs = Some(60));
    let (mut exec, _) = scripted(0.001, |_, v| if v == 2 { 0.7 } else { 1.0 });
    let run = run_suite(&suite, &mut exec, None, &mut NoProgress).unwrap();
    assert_eq!(run.header.stop, StopReason::Decided);
    assert_eq!(
        run.evaluations[0].as_ref().unwrap().pairs,
        perflab_stats::DEFAULT_SUITE_MIN_RUNS,
        "no cell decides before the suite's minimum"
    );
    for s in 0..3 {
        assert_eq!(run.verdicts()[suite.cell(s, 1)], Verdict::Neutral);
        assert_eq!(run.verdicts()[suite.cell(s, 2)], Verdict::Go);
        assert!(run.runs[s][0].len() < 60);
    }
    assert_eq!(
        perflab_stats::combine_verdicts(&run.verdicts()),
        Verdict::Go
    );
}

#[test]
fn a_guard_takes_a_go_away_in_the_cell_where_it_is_violated() {
    let suite = suite(|s| s.guards = vec![GuardSettings::relative("peak-memory", 0.05)]);
    let mut rng = fastrand::Rng::with_seed(9);
    let mut exec = FakeExecutor::new(move |spec, _| {
        let (s, v) = cell_of(spec);
        let u: f64 = (0..12).map(|_| rng.f64()).sum::<f64>() - 6.0;
        let mut o = FakeExecutor::outcome(if v == 2 { 0.7 } else { 1.0 } * (1.0 + 0.001 * u));
        // Only in s1 does the faster variant use a quarter more memory.
        o.peak_memory_kib = if (s, v) == (1, 2) { 5000.0 } else { 4000.0 };
        Ok(o)
    });
    let run = run_suite(&suite, &mut exec, None, &mut NoProgress).unwrap();
    let vetoed = run.evaluations[suite.cell(1, 2)].as_ref().unwrap();
    assert_eq!(vetoed.verdict, Verdict::NoGo, "{}", vetoed.reason);
    assert!(
        vetoed.reason.contains("guard peak-memory"),
        "{}",
        vetoed.reason
    );
    for s in [0, 2] {
        assert_eq!(run.verdicts()[suite.cell(s, 2)], Verdict::Go);
    }
    // The terminal says why a faster cell is NO-GO, and only for that cell.
    let doc = perflab_cli::suite_document::suite_document(&suite, &run).unwrap();
    let text = perflab_report::terminal::suite::suite_terminal(&doc);
    assert!(
        text.contains(&format!("s1 / v2: {}.", vetoed.reason)),
        "{text}"
    );
    assert!(
        !text.contains("s0 / v2:") && !text.contains("s2 / v2:"),
        "{text}"
    );
}

#[test]
fn a_suite_refuses_to_count_instructions() {
    let mut s = Settings {
        measure: Some("instructions".into()),
        ..Default::default()
    };
    s.variants = vec![VariantSettings::default(), VariantSettings::default()];
    s.scenarios = vec![ScenarioSettings {
        name: "x".into(),
        command: Some("x".into()),
        ..Default::default()
    }];
    let err = s.into_suite().unwrap_err().to_string();
    assert!(err.contains("a suite does not count instructions"), "{err}");
}
