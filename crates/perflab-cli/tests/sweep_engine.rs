//! The sweep driver with a scripted executor: the visiting order spreads
//! drift over the points, points stop at their precision or run limit, and a
//! seed reproduces the schedule.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use clap::Parser;
use perflab_cli::cli::{Cli, Command};
use perflab_cli::engine::NoProgress;
use perflab_cli::sweep::{Sweep, SweepStop, run_sweep};
use perflab_runner::{FakeExecutor, MetricValue};

fn sweep(extra: &[&str]) -> Sweep {
    let mut args = vec![
        "perflab",
        "sweep",
        "-p",
        "n=1,2,3,4,5,6",
        "./bench {n}",
        "--measure",
        "cost",
        "--better",
        "lower",
        "--warmup",
        "0",
        "--min-runs",
        "3",
        "--max-runs",
        "8",
        "--seed",
        "5",
    ];
    args.extend_from_slice(extra);
    let Command::Sweep(args) = Cli::try_parse_from(args).unwrap().command else {
        panic!("not a sweep")
    };
    args.sweep().unwrap()
}

/// Runs the sweep; the cost of point n has relative noise `noise(n)`. Returns
/// the order in which points were run and the final state.
fn run(sweep: &Sweep, noise: fn(f64) -> f64) -> (Vec<u32>, perflab_cli::sweep::SweepState) {
    let order = Arc::new(Mutex::new(Vec::new()));
    let seen = order.clone();
    let mut exec = FakeExecutor::new(move |spec, k| {
        let n: f64 = spec
            .command
            .display()
            .rsplit(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        seen.lock().unwrap().push(n as u32);
        let mut run = FakeExecutor::outcome(0.01);
        let value = n * (1.0 + noise(n) * (k as f64 * 2.1).sin());
        run.metrics = BTreeMap::from([(
            "cost".into(),
            MetricValue {
                value,
                unit: String::new(),
            },
        )]);
        Ok(run)
    });
    let state = run_sweep(sweep, &mut exec, None, &mut NoProgress, &mut |_| Ok(())).unwrap();
    let order = order.lock().unwrap().clone();
    (order, state)
}

#[test]
fn every_point_is_visited_once_per_round_in_a_shuffled_order() {
    let (order, state) = run(&sweep(&[]), |_| 0.001);
    assert_eq!(state.header.stop, SweepStop::Finished);
    let rounds: Vec<&[u32]> = order.chunks(6).take(3).collect();
    for round in &rounds {
        let mut sorted = round.to_vec();
        sorted.sort();
        assert_eq!(
            sorted,
            [1, 2, 3, 4, 5, 6],
            "a round visits each point once: {order:?}"
        );
    }
    assert!(
        rounds.iter().any(|r| *r != [1, 2, 3, 4, 5, 6]) && rounds[0] != rounds[1],
        "rounds are shuffled, each anew: {order:?}"
    );
}

#[test]
fn the_same_seed_gives_the_same_schedule() {
    let (a, _) = run(&sweep(&[]), |_| 0.001);
    let (b, _) = run(&sweep(&[]), |_| 0.001);
    assert_eq!(a, b);
}

#[test]
fn a_precise_point_stops_at_the_minimum_and_a_noisy_one_at_the_run_limit() {
    let (_, state) = run(&sweep(&[]), |n| if n == 6.0 { 0.3 } else { 0.001 });
    let runs: Vec<usize> = state.points.iter().map(|p| p.runs[0].len()).collect();
    assert_eq!(runs, [3, 3, 3, 3, 3, 8]);
    assert!(state.points.iter().all(|p| p.done));
}

#[test]
fn the_time_limit_stops_a_sweep_only_once_every_point_has_its_minimum_of_runs() {
    let (_, state) = run(&sweep(&["--max-time", "0s"]), |_| 0.3);
    assert_eq!(state.header.stop, SweepStop::MaxTime);
    let runs: Vec<usize> = state.points.iter().map(|p| p.runs[0].len()).collect();
    assert_eq!(runs, [3, 3, 3, 3, 3, 3]);
}
