//! The contention rule with scripted runs: a block in which a run waited
//! for a CPU for more than `--max-cpu-wait` of its wall time is measured
//! again, at most three times; the replaced runs stay in the store, marked,
//! and out of the decision and the documents; A and B are treated alike,
//! and runs without a CPU wait measurement never trigger it. The same rule
//! for an A/B, its duet pairs, a suite and a sweep.

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use clap::Parser;
use perflab_cli::ab::{AbRun, run_ab, run_suite};
use perflab_cli::cli::{Cli, Command};
use perflab_cli::engine::NoProgress;
use perflab_cli::experiment::settings::{ScenarioSettings, VariantSettings};
use perflab_cli::experiment::{Experiment, MaxCpuWait, Settings};
use perflab_cli::result_document::ab_document;
use perflab_cli::sweep::run_sweep;
use perflab_format::contention::ContentionDoc;
use perflab_report::Render;
use perflab_runner::{CPU_WAIT, FakeExecutor, MetricValue, RunOutcome, RunSpec};
use perflab_store::Store;

/// A run of `wall_s` seconds that waited for a CPU `share` of it.
fn waited(wall_s: f64, share: f64) -> RunOutcome {
    let mut run = FakeExecutor::outcome(wall_s);
    run.metrics.insert(
        CPU_WAIT.to_string(),
        MetricValue {
            value: share * wall_s,
            unit: "s".into(),
        },
    );
    run
}

/// An A/B of "a" against "b" with exactly `pairs` pairs and no warm-up.
fn experiment(pairs: usize, tweak: impl FnOnce(&mut Settings)) -> Experiment {
    common::scripted_ab(|s| {
        s.warmup = Some(0);
        s.min_runs = Some(pairs);
        s.max_runs = Some(pairs);
        tweak(s);
    })
    .into_experiment()
    .unwrap()
}

fn variant_of(spec: &RunSpec) -> usize {
    usize::from(spec.command.display() == "b")
}

/// An executor whose runs take 1 s with a little noise and wait 0.1% of
/// it, except those `contended(variant, run of that variant)` picks, which
/// take 3 s and wait 60%; records the wall time of every run.
fn scripted(
    contended: impl Fn(usize, usize) -> bool + 'static,
) -> (FakeExecutor, Rc<RefCell<Vec<f64>>>) {
    let walls = Rc::new(RefCell::new(Vec::new()));
    let seen = walls.clone();
    let mut made = [0, 0];
    let exec = FakeExecutor::new(move |spec, k| {
        let variant = variant_of(spec);
        let run = if contended(variant, made[variant]) {
            waited(3.0, 0.6)
        } else {
            waited(1.0 + 0.001 * (k % 7) as f64, 0.001)
        };
        made[variant] += 1;
        seen.borrow_mut().push(run.wall_s);
        Ok(run)
    });
    (exec, walls)
}

fn measured_walls(ab: &AbRun) -> Vec<f64> {
    ab.runs.iter().flatten().map(|r| r.wall_s).collect()
}

#[test]
fn a_block_with_one_run_that_waited_too_long_is_measured_again_and_its_runs_kept_marked() {
    let exp = experiment(6, |_| {});
    // B's third run waited for a CPU 60% of its wall time.
    let (mut exec, walls) = scripted(|variant, n| (variant, n) == (1, 2));
    let store = Store::in_memory().unwrap();
    let ab = run_ab(&exp, &mut exec, Some(&store), &mut NoProgress).unwrap();
    let contention = ab.header.contention.clone().unwrap();
    assert_eq!(
        contention,
        ContentionDoc {
            max_cpu_wait: 0.05,
            max_repeats: 3,
            blocks_measured_again: 1,
            runs_replaced: 2,
            blocks_kept_contended: 0,
        }
    );
    assert_eq!(exec.performed(), 2 * 6 + 2, "one block measured twice");
    assert_eq!(ab.runs[0].len(), 6);
    assert_eq!(ab.runs[1].len(), 6);
    assert!(
        !measured_walls(&ab).contains(&3.0),
        "left out of the decision"
    );
    assert_eq!(ab.evaluation.as_ref().unwrap().pairs, 6);
    // Both runs of the block stay in the store, marked; the others count.
    let id = ab.header.experiment_id.unwrap();
    let replaced: Vec<f64> = store
        .replaced_runs_of(id)
        .unwrap()
        .iter()
        .map(|r| r.outcome.wall_s)
        .collect();
    assert_eq!(replaced.len(), 2);
    assert!(replaced.contains(&3.0), "{replaced:?}");
    let counted: Vec<f64> = store
        .runs_of(id)
        .unwrap()
        .iter()
        .map(|r| r.outcome.wall_s)
        .collect();
    assert_eq!(
        counted,
        walls.borrow()[..4]
            .iter()
            .chain(&walls.borrow()[6..])
            .copied()
            .collect::<Vec<_>>()
    );
    // The document says so, and shows each variant's CPU wait.
    let doc = ab_document(&exp, &ab).unwrap();
    assert_eq!(doc.contention, Some(contention));
    assert!(doc.variants.iter().all(|v| v.runs == 6));
    let text = perflab_report::TerminalReport.render(&doc);
    assert!(
        text.contains(
            "Contention: 1 block measured again because a run waited for a CPU more than 5% of \
             its wall time (2 runs replaced: kept in the store, left out of every figure)."
        ),
        "{text}"
    );
    assert!(
        text.contains("CPU wait (share of each run's wall time spent waiting for a CPU): A median 0.1% (worst 0.1%), B median 0.1% (worst 0.1%)."),
        "{text}"
    );
}

#[test]
fn a_block_is_measured_again_at_most_three_times_then_kept_and_counted() {
    let exp = experiment(4, |_| {});
    // Every run of B waits: no block can be clean.
    let (mut exec, _) = scripted(|variant, _| variant == 1);
    let store = Store::in_memory().unwrap();
    let ab = run_ab(&exp, &mut exec, Some(&store), &mut NoProgress).unwrap();
    let contention = ab.header.contention.clone().unwrap();
    assert_eq!(contention.blocks_measured_again, 3 * 4);
    assert_eq!(contention.runs_replaced, 2 * 3 * 4);
    assert_eq!(contention.blocks_kept_contended, 4);
    assert_eq!(exec.performed(), 4 * 2 * 4, "each block measured 4 times");
    assert_eq!(ab.runs[1].len(), 4);
    let id = ab.header.experiment_id.unwrap();
    assert_eq!(store.replaced_runs_of(id).unwrap().len(), 24);
    assert_eq!(store.count_runs(id).unwrap(), 8);
    let doc = ab_document(&exp, &ab).unwrap();
    let text = perflab_report::MarkdownReport.render(&doc);
    assert!(
        text.contains(
            "4 blocks kept after being measured again 3 times, although a run still waited more"
        ),
        "{text}"
    );
    // B's median run waited 60% of its wall time: the result warns, naming it.
    assert!(
        doc.warnings.iter().any(|w| w.starts_with(
            "the median run of \"B\" waited for a CPU 60% of its wall time (worst 60%)"
        )),
        "{:?}",
        doc.warnings
    );
}

#[test]
fn a_and_b_are_treated_alike() {
    let outcome = |contended_variant: usize| {
        let exp = experiment(6, |_| {});
        let (mut exec, _) = scripted(move |variant, n| (variant, n) == (contended_variant, 3));
        let ab = run_ab(&exp, &mut exec, None, &mut NoProgress).unwrap();
        (
            ab.header.contention.clone().unwrap(),
            exec.performed(),
            measured_walls(&ab).contains(&3.0),
        )
    };
    assert_eq!(outcome(0), outcome(1));
    assert_eq!(outcome(0).0.blocks_measured_again, 1);
}

#[test]
fn runs_without_a_cpu_wait_measurement_never_trigger_the_rule_and_show_nothing_of_it() {
    let exp = experiment(6, |_| {});
    let mut exec = FakeExecutor::new(|spec, k| {
        // A slow run now and then, but no CPU wait measured.
        let slow = if k == 5 { 3.0 } else { 1.0 };
        Ok(FakeExecutor::outcome(
            slow + 0.001 * variant_of(spec) as f64,
        ))
    });
    let ab = run_ab(&exp, &mut exec, None, &mut NoProgress).unwrap();
    assert_eq!(exec.performed(), 12);
    assert_eq!(ab.header.contention, None);
    let doc = ab_document(&exp, &ab).unwrap();
    let json = perflab_report::JsonReport.render(&doc);
    assert!(
        !json.contains("cpu_wait") && !json.contains("contention"),
        "{json}"
    );
    let text = perflab_report::TerminalReport.render(&doc);
    assert!(
        !text.contains("CPU wait") && !text.contains("Contention"),
        "{text}"
    );
}

#[test]
fn the_rule_turned_off_keeps_every_block_and_still_shows_the_cpu_wait() {
    let exp = experiment(6, |s| s.max_cpu_wait = Some(MaxCpuWait::Off));
    let (mut exec, _) = scripted(|variant, n| (variant, n) == (1, 2));
    let ab = run_ab(&exp, &mut exec, None, &mut NoProgress).unwrap();
    assert_eq!(exec.performed(), 12);
    assert_eq!(ab.header.contention, None);
    assert!(measured_walls(&ab).contains(&3.0));
    let doc = ab_document(&exp, &ab).unwrap();
    let b = doc.variants[1].cpu_wait.as_ref().unwrap();
    assert_eq!((b.runs, b.worst_share), (6, 0.6));
}

#[test]
fn a_higher_threshold_lets_a_smaller_wait_through() {
    let exp = experiment(6, |s| s.max_cpu_wait = Some(MaxCpuWait::Share(0.7)));
    let (mut exec, _) = scripted(|variant, n| (variant, n) == (1, 2));
    let ab = run_ab(&exp, &mut exec, None, &mut NoProgress).unwrap();
    assert_eq!(exec.performed(), 12);
    assert_eq!(ab.header.contention.unwrap().blocks_measured_again, 0);
}

#[test]
fn a_suite_measures_a_scenario_block_again_when_one_of_its_runs_waited() {
    let suite = Settings {
        variants: (0..3)
            .map(|v| VariantSettings {
                name: Some(format!("v{v}")),
                env: vec![("V".into(), v.to_string())],
                ..Default::default()
            })
            .collect(),
        scenarios: (0..2)
            .map(|i| ScenarioSettings {
                name: format!("s{i}"),
                command: Some(format!("s{i}")),
                at: format!("suite.toml:{i}:1"),
                ..Default::default()
            })
            .collect(),
        seed: Some(3),
        warmup: Some(0),
        min_runs: Some(5),
        max_runs: Some(5),
        ..Default::default()
    }
    .into_suite()
    .unwrap();
    let mut waited_once = false;
    let mut exec = FakeExecutor::new(move |spec, k| {
        let cell = (spec.command.display(), spec.env.clone());
        // The candidate v2 of s1 waits, once.
        let contended = !waited_once && cell.0 == "s1" && cell.1.iter().any(|(_, v)| v == "2");
        waited_once |= contended;
        Ok(if contended {
            waited(3.0, 0.5)
        } else {
            waited(1.0 + 0.001 * (k % 5) as f64, 0.0)
        })
    });
    let store = Store::in_memory().unwrap();
    let run = run_suite(&suite, &mut exec, Some(&store), &mut NoProgress).unwrap();
    let contention = run.header.contention.clone().unwrap();
    assert_eq!(contention.blocks_measured_again, 1);
    assert_eq!(
        contention.runs_replaced, 3,
        "the baseline and both candidates"
    );
    assert_eq!(exec.performed(), 2 * 5 * 3 + 3);
    assert!(run.runs.iter().flatten().flatten().all(|r| r.wall_s < 2.0));
    let id = run.header.experiment_id.unwrap();
    assert_eq!(store.replaced_runs_of(id).unwrap().len(), 3);
    let doc = perflab_cli::suite_document::suite_document(&suite, &run).unwrap();
    assert_eq!(doc.result.contention, Some(contention));
    let text = perflab_report::terminal::suite::suite_terminal(&doc);
    assert!(
        text.contains("Contention: 1 block measured again"),
        "{text}"
    );
}

#[test]
fn a_sweep_measures_a_point_block_again_when_one_of_its_runs_waited() {
    let args = [
        "perflab",
        "sweep",
        "-p",
        "n=1,2",
        "./bench {n}",
        "--warmup",
        "0",
        "--min-runs",
        "3",
        "--max-runs",
        "3",
        "--seed",
        "5",
        "--max-cpu-wait",
        "10%",
    ];
    let Command::Sweep(args) = Cli::try_parse_from(args).unwrap().command else {
        panic!("not a sweep")
    };
    let sweep = args.sweep().unwrap();
    let mut exec = FakeExecutor::new(|spec, k| {
        let n: f64 = spec.command.display()[8..].parse().unwrap();
        // The second run of the sweep waited 20%: over this sweep's 10%.
        let share = if k == 1 { 0.2 } else { 0.05 };
        Ok(waited(n * (1.0 + 0.01 * (k % 3) as f64), share))
    });
    let store = Store::in_memory().unwrap();
    let state = run_sweep(
        &sweep,
        &mut exec,
        Some(&store),
        &mut NoProgress,
        &mut |_| Ok(()),
    )
    .unwrap();
    let contention = state.header.contention.clone().unwrap();
    assert_eq!(contention.max_cpu_wait, 0.1);
    assert_eq!(contention.blocks_measured_again, 1);
    assert_eq!(
        contention.runs_replaced, 1,
        "a block is one command at one point"
    );
    assert_eq!(exec.performed(), 2 * 3 + 1);
    assert_eq!(state.runs(), 6);
    let id = state.header.experiment_id.unwrap();
    assert_eq!(store.replaced_runs_of(id).unwrap().len(), 1);
    let doc = perflab_cli::sweep::document::sweep_document(&sweep, &state).unwrap();
    assert_eq!(doc.result.contention, Some(contention));
    let text = perflab_report::terminal::sweep::sweep_terminal(&doc);
    assert!(
        text.contains(
            "Contention: 1 block measured again because a run waited for a CPU more than 10%"
        ),
        "{text}"
    );
}

#[test]
fn instruction_counts_turn_the_rule_off_unless_it_is_asked_for() {
    let counted = |max_cpu_wait| {
        common::scripted_ab(|s| {
            s.measure = Some("instructions".into());
            s.max_cpu_wait = max_cpu_wait;
        })
        .into_experiment()
        .unwrap()
        .limits
        .max_cpu_wait
    };
    assert_eq!(counted(None), None);
    assert_eq!(counted(Some(MaxCpuWait::Share(0.2))), Some(0.2));
    let timed = experiment(6, |_| {}).limits.max_cpu_wait;
    assert_eq!(timed, Some(perflab_stats::DEFAULT_MAX_CPU_WAIT));
}

/// A scripted executor that can start two runs at once (duet mode): every
/// run takes 1 s and waits 0.1% of it, but the `contended`-th run started
/// (counted over both threads) waits 60%.
#[derive(Clone)]
struct DuetScript {
    started: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    contended: usize,
}

impl perflab_runner::Executor for DuetScript {
    fn execute(&mut self, _: &RunSpec) -> perflab_runner::Result<RunOutcome> {
        let n = self
            .started
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(if n == self.contended {
            waited(1.0, 0.6)
        } else {
            waited(1.0, 0.001)
        })
    }

    fn runs_on_this_machine(&self) -> bool {
        false
    }

    fn duet_partner(&mut self) -> Option<Box<dyn perflab_runner::Executor + Send>> {
        Some(Box::new(self.clone()))
    }
}

#[test]
fn in_duet_mode_a_pair_with_a_run_that_waited_is_measured_again_and_leaves_no_overlap_behind() {
    let mut exp = experiment(4, |_| {});
    exp.duet = Some([0, 1]);
    let mut exec = DuetScript {
        started: Default::default(),
        contended: 4,
    };
    let ab = run_ab(&exp, &mut exec, None, &mut NoProgress).unwrap();
    let contention = ab.header.contention.clone().unwrap();
    assert_eq!(
        (contention.blocks_measured_again, contention.runs_replaced),
        (1, 2)
    );
    assert_eq!(exec.started.load(std::sync::atomic::Ordering::SeqCst), 10);
    assert_eq!(ab.runs[0].len(), 4);
    assert_eq!(
        ab.duet.unwrap().pairs.len(),
        4,
        "the replaced pair's overlap is not reported"
    );
}
