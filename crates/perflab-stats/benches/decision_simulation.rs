//! Error rates and power of the sequential A/B procedure on synthetic data of
//! known truth, next to the ten-run rule of investigations done by hand, and
//! of the suite procedure (many cells, one confidence level for all).
//!
//! Run with `cargo bench -p perflab-stats --bench decision_simulation`;
//! `-- change-points` runs only the rows of change points in a history,
//! `-- decisions` only the first table (single A/B experiments), `-- tuning`
//! only the tuning table, `-- min-pairs` only the rows of the smallest
//! `min_runs` at 1, 12 and 1,000 cells, `-- confirmation` only the rows of
//! a history's change points confirmed by A/Bs of a default or a sized run
//! limit.
//! Deterministic: every row uses a fixed seed.

#[path = "../tests/common/mod.rs"]
mod common;

#[path = "decision_simulation/suite.rs"]
mod suite;

#[path = "decision_simulation/change_points.rs"]
mod change_points;

#[path = "decision_simulation/confirmation.rs"]
mod confirmation;

use common::{Scenario, Tally, simulate};
use perflab_stats::{Better, SequentialConfig, Verdict, wilson_interval};

const EXPERIMENTS: usize = 4000;
const SEED: u64 = 0x5eed_2025;
const TUNING_EXPERIMENTS: usize = 10_000;

fn pct(x: f64) -> String {
    format!("{:5.1}%", 100.0 * x)
}

fn wilson(n: u64, total: u64) -> String {
    let iv = wilson_interval(n, total, 0.95).expect("valid counts");
    format!(
        "{} [{:.1}, {:.1}]",
        pct(iv.estimate),
        100.0 * iv.lo,
        100.0 * iv.hi
    )
}

struct Row {
    label: &'static str,
    scenario: Scenario,
    right: Option<Verdict>,
}

fn rows() -> Vec<Row> {
    let g = |better, change, noise| Scenario::gaussian(better, change, noise);
    let heavy = |change| Scenario {
        tail_probability: 0.05,
        tail_penalty: 0.20,
        ..Scenario::gaussian(Better::Lower, change, 0.02)
    };
    // Heavy tails: Student t with 3 degrees of freedom (infinite kurtosis).
    let student = |change| Scenario {
        noise_df: 3,
        ..Scenario::gaussian(Better::Lower, change, 0.02)
    };
    // Two modes: each run lands on a fast or a 10 % slower state at random.
    let bimodal = |change| Scenario {
        tail_probability: 0.5,
        tail_penalty: 0.10,
        ..Scenario::gaussian(Better::Lower, change, 0.02)
    };
    // Bursts of interference from the rest of the machine (20% of runs
    // 30% slower), interleaved: each run meets its own; in duet mode a
    // burst falls on both runs of a pair, and the variants swap two CPUs
    // of which one makes runs 2% slower. The rows are appended so that
    // the rows above keep their seeds.
    let bursts = |change, duet| Scenario {
        burst_probability: 0.2,
        burst_penalty: 0.3,
        duet,
        cpu_asymmetry: if duet { 0.02 } else { 0.0 },
        ..Scenario::gaussian(Better::Lower, change, 0.02)
    };
    vec![
        Row {
            label: "A = A, noise 1%",
            scenario: g(Better::Higher, 0.0, 0.01),
            right: None,
        },
        Row {
            label: "A = A, noise 2%",
            scenario: g(Better::Higher, 0.0, 0.02),
            right: None,
        },
        Row {
            label: "A = A, noise 5%",
            scenario: g(Better::Higher, 0.0, 0.05),
            right: None,
        },
        Row {
            label: "A = A, noise 10%",
            scenario: g(Better::Higher, 0.0, 0.10),
            right: None,
        },
        Row {
            label: "A = A, 2% + 5% runs 20% slower",
            scenario: heavy(0.0),
            right: None,
        },
        Row {
            label: "A = A, Student t(3) noise 2%",
            scenario: student(0.0),
            right: None,
        },
        Row {
            label: "A = A, 2% + half of runs 10% slower",
            scenario: bimodal(0.0),
            right: None,
        },
        Row {
            label: "A = A, 2% + drift 1%/20 runs",
            scenario: Scenario {
                drift_per_run: 0.0005,
                ..g(Better::Lower, 0.0, 0.02)
            },
            right: None,
        },
        Row {
            label: "B +3%, noise 2%",
            scenario: g(Better::Higher, 0.03, 0.02),
            right: Some(Verdict::Go),
        },
        Row {
            label: "B -3%, noise 2%",
            scenario: g(Better::Higher, -0.03, 0.02),
            right: Some(Verdict::NoGo),
        },
        Row {
            label: "B +3%, time, noise 2%",
            scenario: g(Better::Lower, 0.03, 0.02),
            right: Some(Verdict::Go),
        },
        Row {
            label: "B +3%, 2% + 5% runs 20% slower",
            scenario: heavy(0.03),
            right: Some(Verdict::Go),
        },
        Row {
            label: "B +3%, Student t(3) noise 2%",
            scenario: student(0.03),
            right: Some(Verdict::Go),
        },
        Row {
            label: "B +3%, 2% + half of runs 10% slower",
            scenario: bimodal(0.03),
            right: Some(Verdict::Go),
        },
        Row {
            label: "B +1.5%, noise 1%",
            scenario: g(Better::Higher, 0.015, 0.01),
            right: Some(Verdict::Go),
        },
        Row {
            label: "B +0.2%, noise 0.5%",
            scenario: g(Better::Higher, 0.002, 0.005),
            right: Some(Verdict::Neutral),
        },
        Row {
            label: "A = A, 2% + 20% runs 30% slower",
            scenario: bursts(0.0, false),
            right: None,
        },
        Row {
            label: "A = A, duet: same, CPUs 2% apart",
            scenario: bursts(0.0, true),
            right: None,
        },
        Row {
            label: "B +3%, 2% + 20% runs 30% slower",
            scenario: bursts(0.03, false),
            right: Some(Verdict::Go),
        },
        Row {
            label: "B +3%, duet: same, CPUs 2% apart",
            scenario: bursts(0.03, true),
            right: Some(Verdict::Go),
        },
    ]
}

fn false_decisions(t: &Tally) -> u64 {
    t.go + t.nogo
}

fn main() {
    let only_decisions = std::env::args().any(|a| a == "decisions");
    let only_tuning = std::env::args().any(|a| a == "tuning");
    if std::env::args().any(|a| a == "change-points") {
        change_points::change_point_rows(SEED);
        return;
    }
    if std::env::args().any(|a| a == "confirmation") {
        confirmation::confirmation_rows(SEED);
        return;
    }
    if std::env::args().any(|a| a == "min-pairs") {
        suite::min_pairs_rows(SequentialConfig::new(Better::Higher), SEED);
        return;
    }
    // The defaults through the constructor `perflab ab` uses
    // (`SequentialConfig::tuned`, optimise_at = max_runs); every experiment
    // is `SequentialTest::push`, the procedure `ab` feeds.
    let config = SequentialConfig::new(Better::Higher);
    println!("perflab-stats decision simulation");
    println!(
        "sequential procedure: interleaved pairs, min {} / max {} runs per variant, confidence {}, go {:+}%, nogo {:+}%, optimise_at {} (the run limit)",
        config.min_runs,
        config.max_runs,
        config.confidence,
        100.0 * config.thresholds.go,
        100.0 * config.thresholds.nogo,
        config.optimise_at
    );
    println!(
        "ten-run rule: 10 runs of A then 10 of B, GO if mean gain >= go, NO-GO if <= nogo, else NEUTRAL"
    );
    println!("{EXPERIMENTS} experiments per row, seed {SEED:#x}; [..] = 95% Wilson interval\n");

    println!(
        "{:<36} {:>6} {:>6} {:>6} {:>6}  {:<24} {:<22} {:>7}  {:<22} {:<22}",
        "truth",
        "GO",
        "NO-GO",
        "NEUTR",
        "INCON",
        "false GO/NO-GO",
        "right verdict",
        "median",
        "ten-run rule: false",
        "ten-run rule: right"
    );
    println!(
        "{:<36} {:>6} {:>6} {:>6} {:>6}  {:<24} {:<22} {:>7}",
        "", "", "", "", "", "", "", "runs"
    );
    for (i, row) in rows().iter().enumerate().filter(|_| !only_tuning) {
        let mut cfg = config;
        cfg.better = row.scenario.better;
        let t = simulate(SEED + i as u64, EXPERIMENTS, &row.scenario, cfg);
        let n = t.experiments;
        let (false_seq, right_seq, false_seed, right_seed) = match row.right {
            None => (
                wilson(false_decisions(&t), n),
                String::from("-"),
                wilson(t.seed_go + t.seed_nogo, n),
                String::from("-"),
            ),
            Some(v) => {
                let wrong = |go: u64, nogo: u64| match v {
                    Verdict::Go => nogo,
                    Verdict::NoGo => go,
                    _ => go + nogo,
                };
                (
                    wilson(wrong(t.go, t.nogo), n),
                    wilson(t.count(v), n),
                    wilson(wrong(t.seed_go, t.seed_nogo), n),
                    wilson(t.seed_count(v), n),
                )
            }
        };
        println!(
            "{:<36} {:>6} {:>6} {:>6} {:>6}  {:<24} {:<22} {:>7.1}  {:<22} {:<22}",
            row.label,
            pct(t.rate(t.go)),
            pct(t.rate(t.nogo)),
            pct(t.rate(t.neutral)),
            pct(t.rate(t.inconclusive)),
            false_seq,
            right_seq,
            t.median_runs(),
            false_seed,
            right_seed,
        );
    }
    println!(
        "\n'false' for A = A is GO or NO-GO; for a true +-3% it is the opposite verdict; for +0.2% (inside the band) any GO or NO-GO."
    );

    if only_decisions {
        return;
    }
    if !only_tuning {
        suite::suite_rows(config, SEED);
        change_points::change_point_rows(SEED);
        confirmation::confirmation_rows(SEED);
    }

    println!(
        "\nTuning: optimise_at (pairs at which the interval is tightest) and min_runs; {TUNING_EXPERIMENTS} experiments per cell,"
    );
    println!(
        "the same seeds in every line (common random numbers), so lines differ only by the setting."
    );
    println!(
        "CS miss = the interval excluded the true change at some look from min_runs to 60 (promised: <= 1 - conf, asymptotically);"
    );
    println!("'tails' = 2% noise plus 5% of runs 20% slower; runs = median pairs per experiment.");
    println!(
        "{:>8} {:>5} {:>5}  {:<19} {:<19} {:<19} {:<19} {:<19} {:<19} {:>5} {:<19} {:>5} {:<19}",
        "optimise",
        "min",
        "conf",
        "CS miss min..60",
        "CS miss, tails",
        "false A=A 2%",
        "false A=A 5%",
        "false A=A 10%",
        "GO +3% at 2%",
        "runs",
        "NO-GO -3% at 2%",
        "runs",
        "GO +1.5% at 1%"
    );
    let settings = [
        (10, 10, 0.95),
        (20, 10, 0.95),
        (30, 10, 0.95),
        (40, 10, 0.95),
        (60, 10, 0.95),
        (60, 5, 0.95),
        (60, 15, 0.95),
        (60, 20, 0.95),
        (60, 10, 0.98),
    ];
    let heavy = Scenario {
        tail_probability: 0.05,
        tail_penalty: 0.20,
        ..Scenario::gaussian(Better::Lower, 0.0, 0.02)
    };
    for &(optimise_at, min_runs, confidence) in &settings {
        let mut cfg = config;
        cfg.optimise_at = optimise_at;
        cfg.min_runs = min_runs;
        cfg.confidence = confidence;
        let seed = SEED + 1000;
        let rate = |t: &Tally, v: Verdict| wilson(t.count(v), t.experiments);
        let fals = |noise: f64, s: u64| {
            let t = simulate(
                s,
                TUNING_EXPERIMENTS,
                &Scenario::gaussian(Better::Higher, 0.0, noise),
                cfg,
            );
            wilson(false_decisions(&t), t.experiments)
        };
        let (miss, total) = common::cs_miss_count(
            seed,
            TUNING_EXPERIMENTS,
            &Scenario::gaussian(Better::Higher, 0.0, 0.02),
            cfg,
        );
        let (miss_tail, total_tail) = common::cs_miss_count(
            seed + 9,
            TUNING_EXPERIMENTS,
            &Scenario {
                better: Better::Lower,
                ..heavy
            },
            cfg,
        );
        let up = simulate(
            seed + 3,
            TUNING_EXPERIMENTS,
            &Scenario::gaussian(Better::Higher, 0.03, 0.02),
            cfg,
        );
        let down = simulate(
            seed + 4,
            TUNING_EXPERIMENTS,
            &Scenario::gaussian(Better::Higher, -0.03, 0.02),
            cfg,
        );
        let small = simulate(
            seed + 5,
            TUNING_EXPERIMENTS,
            &Scenario::gaussian(Better::Higher, 0.015, 0.01),
            cfg,
        );
        println!(
            "{:>8} {:>5} {:>5}  {:<19} {:<19} {:<19} {:<19} {:<19} {:<19} {:>5.0} {:<19} {:>5.0} {:<19}",
            optimise_at,
            min_runs,
            confidence,
            wilson(miss, total),
            wilson(miss_tail, total_tail),
            fals(0.02, seed + 1),
            fals(0.05, seed + 2),
            fals(0.10, seed + 6),
            rate(&up, Verdict::Go),
            up.median_runs(),
            rate(&down, Verdict::NoGo),
            down.median_runs(),
            rate(&small, Verdict::Go),
        );
    }
}
