//! The suite rows of the decision simulation: `SuiteTest` driven block by
//! block as a suite runner drives it.

use perflab_stats::{DEFAULT_MIN_RUNS, DEFAULT_SUITE_MIN_RUNS, SequentialConfig};

use crate::common::suite::{SuiteScenario, SuiteTally, simulate_suite};
use crate::wilson;

const SUITE_EXPERIMENTS: usize = 2000;

struct SuiteRow {
    label: String,
    suite: SuiteScenario,
    /// false: every cell an independent test at the full level (no correction).
    corrected: bool,
    /// Pairs before any cell may decide.
    min_runs: usize,
}

fn suite_row(min_runs: usize, what: &str, suite: SuiteScenario) -> SuiteRow {
    let layout = if suite.candidates == 1 {
        format!("{} cells", suite.cells())
    } else {
        format!("{} x {} shared", suite.scenarios, suite.candidates)
    };
    SuiteRow {
        label: format!("min {min_runs}: {layout}, {what}"),
        suite,
        corrected: true,
        min_runs,
    }
}

pub fn suite_rows(config: SequentialConfig, seed: u64) {
    let mut rows = Vec::new();
    for min_runs in [DEFAULT_MIN_RUNS, DEFAULT_SUITE_MIN_RUNS] {
        let row = |what: &str, suite| suite_row(min_runs, what, suite);
        rows.extend([
            row("A = A, 2%", SuiteScenario::unchanged(12, 1, 0.02)),
            row("A = A, 5%", SuiteScenario::unchanged(12, 1, 0.05)),
            row("A = A, 10%", SuiteScenario::unchanged(12, 1, 0.10)),
            row("one +5%, 2%", SuiteScenario::one_changed(12, 1, 0.02, 0.05)),
            row(
                "one -5%, 2%",
                SuiteScenario::one_changed(12, 1, 0.02, -0.05),
            ),
            row("A = A, 5%", SuiteScenario::unchanged(4, 3, 0.05)),
            row("one +5%, 2%", SuiteScenario::one_changed(4, 3, 0.02, 0.05)),
        ]);
    }
    rows.extend([
        suite_row(20, "A = A, 2%", SuiteScenario::unchanged(30, 1, 0.02)),
        suite_row(30, "A = A, 2%", SuiteScenario::unchanged(12, 1, 0.02)),
    ]);
    for noise in [0.02, 0.05] {
        rows.push(SuiteRow {
            label: format!("uncorrected: 12 x 95%, A = A, {}%", 100.0 * noise),
            suite: SuiteScenario::unchanged(12, 1, noise),
            corrected: false,
            min_runs: DEFAULT_MIN_RUNS,
        });
    }
    println!(
        "\nSuites: every cell a SequentialTest inside SuiteTest at {} for the whole experiment (each cell at 1 - {:.2}/cells);",
        config.confidence,
        1.0 - config.confidence
    );
    println!(
        "each round, every scenario with an unfinished cell runs one block (baseline once, each unfinished candidate once, random order)"
    );
    println!(
        "and every unfinished cell gets (the block's baseline run, its candidate's run). {SUITE_EXPERIMENTS} experiments per row, seed {seed:#x} + 2000 + row;"
    );
    println!(
        "'4 x 3 shared' (4 scenarios x 3 candidates sharing each block's baseline run). 'min' = pairs before a cell may decide."
    );
    println!(
        "{:<38} {:<22} {:<22} {:<22} {:>8} {:>8}",
        "truth",
        "false GO/NO-GO anywhere",
        "changed cell found",
        "some interval missed",
        "median",
        "median"
    );
    println!(
        "{:<38} {:<22} {:<22} {:<22} {:>8} {:>8}",
        "", "(unchanged cells)", "", "its truth at a look", "runs", "rounds"
    );
    for (i, row) in rows.iter().enumerate() {
        let t: SuiteTally = simulate_suite(
            seed + 2000 + i as u64,
            SUITE_EXPERIMENTS,
            &row.suite,
            SequentialConfig {
                min_runs: row.min_runs,
                ..config
            },
            row.corrected,
            true,
        );
        let n = t.experiments;
        let found = match row.suite.changed {
            Some(_) => wilson(t.found, n),
            None => String::from("-"),
        };
        let runs = match row.suite.changed {
            Some(_) => format!("{:>8.1}", t.median_changed_runs()),
            None => format!("{:>8}", "-"),
        };
        println!(
            "{:<38} {:<22} {:<22} {:<22} {} {:>8.1}",
            row.label,
            wilson(t.false_anywhere, n),
            found,
            wilson(t.missed, n),
            runs,
            t.median_rounds(),
        );
    }
    println!(
        "'N cells' = N scenarios x 1 candidate; the changed cell, if any, is +-5% and should be GO / NO-GO; noise is multiplicative Gaussian."
    );
    println!(
        "'runs' = median pairs the changed cell used; 'rounds' = median pairs of the longest cell (the experiment's length in blocks)."
    );
}

/// The error rate of A = A experiments of 1, 12 and 1,000 cells when cells
/// may decide from `min_runs` pairs (up to the default 60): which smallest
/// `min_runs` keeps the promise at each number of cells, Gaussian noise and
/// heavy-tailed (5% of runs 20% slower).
pub fn min_pairs_rows(config: SequentialConfig, seed: u64) {
    println!(
        "\nSmallest min_runs: A = A suites at {} for the whole experiment, cells deciding from min_runs to {} pairs;",
        config.confidence, config.max_runs
    );
    println!(
        "'false' = some cell GO or NO-GO; 'missed' = some interval missed its truth at a look."
    );
    println!(
        "{:<44} {:>6} {:<22} {:<22}",
        "cells, noise, min_runs", "exps", "false GO/NO-GO", "some interval missed"
    );
    let heavy = |mut suite: SuiteScenario| {
        suite.runs.tail_probability = 0.05;
        suite.runs.tail_penalty = 0.20;
        suite
    };
    let mut row = 0;
    for (cells, experiments, mins) in [
        (1, 4000, &[2, 3, 4, 5, 6, 8, 10][..]),
        (12, 1000, &[3, 5, 8, 10, 15, 20][..]),
        (1000, 100, &[5, 10, 15, 20, 30][..]),
    ] {
        for (noise_label, suite) in [
            ("2%", SuiteScenario::unchanged(cells, 1, 0.02)),
            (
                "2% + 5% runs 20% slower",
                heavy(SuiteScenario::unchanged(cells, 1, 0.02)),
            ),
        ] {
            for &min_runs in mins {
                row += 1;
                let t = simulate_suite(
                    seed + 5000 + row,
                    experiments,
                    &suite,
                    SequentialConfig { min_runs, ..config },
                    true,
                    true,
                );
                println!(
                    "{:<44} {:>6} {:<22} {:<22}",
                    format!("{cells} cells, {noise_label}, min {min_runs}"),
                    experiments,
                    wilson(t.false_anywhere, t.experiments),
                    wilson(t.missed, t.experiments),
                );
            }
        }
    }
}
