//! The change-point rows of the decision simulation: histories of 100
//! commits with steps at known commits, judged by `e_divisive_means` with
//! the settings `perflab history` uses (`ChangePointConfig::new(0.95)`).

use perflab_stats::{ChangePointConfig, DEFAULT_CONFIDENCE, Exchangeable};

use crate::common::series::{SeriesScenario, detect};
use crate::wilson;

const SERIES: usize = 1000;
/// More series where the rate is small, for a tighter interval.
const NULL_SERIES: usize = 4000;
/// Series of the rows that shuffle single runs.
const RUN_SHUFFLE_SERIES: usize = 200;
const COMMITS: usize = 100;
/// A found change point this close to a true step counts as finding it.
const TOLERANCE: usize = 2;

struct SeriesRow {
    label: &'static str,
    scenario: SeriesScenario,
    /// Draw the steps' commits at random around their nominal place.
    jitter: usize,
    /// What the permutation test shuffles.
    exchangeable: Exchangeable,
}

fn scenario(runs: usize, commit_noise: f64, steps: &[(usize, f64)]) -> SeriesScenario {
    SeriesScenario {
        commits: COMMITS,
        runs_per_commit: runs,
        noise: 0.02,
        commit_noise,
        steps: steps.to_vec(),
    }
}

fn rows() -> Vec<SeriesRow> {
    let row = |label, scenario, jitter| SeriesRow {
        label,
        scenario,
        jitter,
        exchangeable: Exchangeable::Groups,
    };
    let by_run = |label, scenario, jitter| SeriesRow {
        exchangeable: Exchangeable::Values,
        ..row(label, scenario, jitter)
    };
    vec![
        row("none, 1 run/commit", scenario(1, 0.0, &[]), 0),
        row("none, 5 runs/commit", scenario(5, 0.0, &[]), 0),
        row("none, 5 runs, 0.5%/commit", scenario(5, 0.005, &[]), 0),
        row(
            "+5% step, 1 run/commit",
            scenario(1, 0.0, &[(50, 0.05)]),
            40,
        ),
        row(
            "-5% step, 1 run/commit",
            scenario(1, 0.0, &[(50, -0.05)]),
            40,
        ),
        row(
            "-5% step, 5 runs/commit",
            scenario(5, 0.0, &[(50, -0.05)]),
            40,
        ),
        row(
            "-5% at commit 97, 5 runs/commit",
            scenario(5, 0.0, &[(97, -0.05)]),
            0,
        ),
        row(
            "+5%, -5%, +5% steps, 1 run/commit",
            scenario(1, 0.0, &[(25, 0.05), (50, -0.05), (75, 0.05)]),
            8,
        ),
        by_run("runs: none, 5 runs/commit", scenario(5, 0.0, &[]), 0),
        by_run(
            "runs: none, 5 runs, 0.5%/commit",
            scenario(5, 0.005, &[]),
            0,
        ),
        by_run(
            "runs: -5% at commit 99, 5 runs",
            scenario(5, 0.0, &[(99, -0.05)]),
            0,
        ),
    ]
}

pub fn change_point_rows(seed: u64) {
    let defaults = ChangePointConfig::new(DEFAULT_CONFIDENCE);
    println!(
        "\nChange points of a history (E-divisive means, permutation test): {SERIES} series of {COMMITS} commits per row ({NULL_SERIES} without change, {RUN_SHUFFLE_SERIES} in rows 'runs:'),"
    );
    println!(
        "2% noise per run, false-alarm rate {:.0}% per series, {} permutations per test; steps at commit 50 +-40 (one step)",
        defaults.false_alarm * 100.0,
        defaults.permutations
    );
    println!(
        "or 25/50/75 +-8 (three); 'found' = a change point within +-{TOLERANCE} commits of each true step;"
    );
    println!(
        "'spurious' = a series with a change point farther than {TOLERANCE} commits from every true step."
    );
    println!(
        "Commits are shuffled whole (perflab's default) except in rows 'runs:' (single runs shuffled, --permute runs);"
    );
    println!(
        "'0.5%/commit': each commit's runs share 0.5% extra noise (the machine's state that day)."
    );
    println!(
        "{:<36} {:<22} {:<22} {:<22} {:>9}",
        "truth", "any change point", "each step found", "every step found", "mean |err|"
    );
    for (i, row) in rows().into_iter().enumerate() {
        let mut rng = fastrand::Rng::with_seed(seed + 7000 + i as u64);
        let config = ChangePointConfig {
            exchangeable: row.exchangeable,
            ..defaults
        };
        // Shuffling single runs costs O(runs^2) per permutation against
        // O(commits^2): those rows draw fewer series.
        let series = match (row.exchangeable, row.scenario.steps.is_empty()) {
            (Exchangeable::Values, _) => RUN_SHUFFLE_SERIES,
            (_, true) => NULL_SERIES,
            _ => SERIES,
        };
        let (mut alarms, mut spurious, mut every) = (0u64, 0u64, 0u64);
        let (mut step_hits, mut steps, mut error_sum) = (0u64, 0u64, 0usize);
        for _ in 0..series {
            let mut s = row.scenario.clone();
            for step in &mut s.steps {
                step.0 = step.0 + rng.usize(0..=2 * row.jitter) - row.jitter;
            }
            let o = detect(&mut rng, &s, &config);
            alarms += u64::from(!o.found.is_empty());
            let near = |f: usize| s.steps.iter().any(|&(at, _)| f.abs_diff(at) <= TOLERANCE);
            spurious += u64::from(o.found.iter().any(|&f| !near(f)));
            let hits: Vec<usize> = o
                .errors
                .iter()
                .flatten()
                .copied()
                .filter(|&e| e <= TOLERANCE)
                .collect();
            steps += s.steps.len() as u64;
            step_hits += hits.len() as u64;
            error_sum += hits.iter().sum::<usize>();
            every += u64::from(!s.steps.is_empty() && hits.len() == s.steps.len());
        }
        let n = series as u64;
        let (each, all, err) = if steps == 0 {
            ("-".into(), "-".into(), "-".into())
        } else {
            (
                wilson(step_hits, steps),
                wilson(every, n),
                format!("{:.2}", error_sum as f64 / step_hits.max(1) as f64),
            )
        };
        println!(
            "{:<36} {:<22} {:<22} {:<22} {:>9}",
            row.label,
            wilson(alarms, n),
            each,
            all,
            err
        );
        if steps > 0 {
            println!("{:<36} spurious: {}", "", wilson(spurious, n));
        }
    }
}
