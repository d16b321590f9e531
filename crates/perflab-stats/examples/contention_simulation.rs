//! The table of docs/decision.md, "Runs that waited for a CPU": error
//! rates, interval widths and cost of the sequential A/B procedure on a
//! machine with bursts of contention, with and without the contention rule
//! (`perflab ab --max-cpu-wait`), each experiment driven as `perflab ab`
//! drives it (see `tests/common/contention.rs`).
//!
//! Run with `cargo run -p perflab-stats --example contention_simulation`
//! (add `-- 500` for fewer experiments per row). Deterministic: every row
//! uses a fixed seed, the same with and without the rule.

#[path = "../tests/common/mod.rs"]
mod common;

use common::contention::{ContentionScenario, ContentionTally, simulate_contention};
use perflab_stats::{
    Better, CONTENTION_MAX_REPEATS, ContentionRule, DEFAULT_MAX_CPU_WAIT, SequentialConfig,
    Verdict, wilson_interval,
};

const SEED: u64 = 0xc0_2026;

/// A count as a percentage of `total` with its 95% Wilson interval.
fn rate(n: usize, total: usize) -> String {
    let iv = wilson_interval(n as u64, total as u64, 0.95).expect("valid counts");
    format!(
        "{:.1}% [{:.1}, {:.1}]",
        100.0 * iv.estimate,
        100.0 * iv.lo,
        100.0 * iv.hi
    )
}

fn percent(share: f64) -> String {
    if share == 0.0 {
        "off".to_string()
    } else {
        format!("{}%", 100.0 * share)
    }
}

struct Machine {
    label: &'static str,
    scenario: fn(f64) -> ContentionScenario,
}

fn machines() -> Vec<Machine> {
    vec![
        Machine {
            label: "quiet",
            scenario: |change| ContentionScenario::bursts(change, 0.0),
        },
        Machine {
            label: "small waits: 30% of runs +2%",
            scenario: |change| ContentionScenario {
                burst_delay: 0.02,
                ..ContentionScenario::bursts(change, 0.3)
            },
        },
        Machine {
            label: "bursts: 10% of runs +30%",
            scenario: |change| ContentionScenario::bursts(change, 0.1),
        },
        Machine {
            label: "bursts: 30% of runs +30%",
            scenario: |change| ContentionScenario::bursts(change, 0.3),
        },
        Machine {
            label: "busy: 60% of runs +30%",
            scenario: |change| ContentionScenario::bursts(change, 0.6),
        },
        Machine {
            label: "always busy: every run +30%",
            scenario: |change| ContentionScenario::bursts(change, 1.0),
        },
        Machine {
            label: "bursts 30%, B waits for itself up to 8%",
            scenario: |change| ContentionScenario {
                own_wait_b: 0.08,
                ..ContentionScenario::bursts(change, 0.3)
            },
        },
    ]
}

fn row(
    machine: &str,
    change: f64,
    rule: Option<ContentionRule>,
    seed: u64,
    experiments: usize,
) -> String {
    let config = SequentialConfig::new(Better::Lower);
    let scenario = machines()
        .into_iter()
        .find(|m| m.label == machine)
        .map(|m| (m.scenario)(change))
        .expect("a machine of the table");
    let t: ContentionTally = simulate_contention(seed, experiments, &scenario, config, rule);
    let n = t.experiments();
    let false_decisions = if change == 0.0 {
        t.count(Verdict::Go) + t.count(Verdict::NoGo)
    } else {
        t.count(Verdict::NoGo)
    };
    let right = if change == 0.0 {
        "–".to_string()
    } else {
        format!("{} GO", rate(t.count(Verdict::Go), n))
    };
    let (threshold, bound) = match rule {
        Some(r) => (percent(r.max_cpu_wait()), r.max_repeats().to_string()),
        None => ("off".to_string(), "–".to_string()),
    };
    format!(
        "| {machine} | {} | {threshold} | {bound} | {} | {right} | {} | {:+.2}% | {:.2}% | {:.0} | {:.0} | {:.2} | {:.2} |",
        if change == 0.0 {
            "A = A".to_string()
        } else {
            format!("B {:+.0}%", 100.0 * change)
        },
        rate(false_decisions, n),
        rate(t.missed(), n),
        100.0 * t.median_of(|o| o.change),
        100.0 * t.median_of(|o| o.width),
        t.median_of(|o| o.pairs as f64),
        t.median_of(|o| o.runs as f64),
        t.mean_of(|o| o.measured_again as f64),
        t.mean_of(|o| o.kept_contended as f64),
    )
}

const HEADER: &str = "| machine | truth | max CPU wait | repeats | false GO/NO-GO | right verdict | final interval missed truth | median change | median width | median pairs | median runs made | blocks measured again | blocks kept contended |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|";

fn main() {
    let experiments: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse().expect("the number of experiments per row"))
        .unwrap_or(2000);
    let rule = |share, repeats| Some(ContentionRule::with_repeats(share, repeats).unwrap());
    let default = rule(DEFAULT_MAX_CPU_WAIT, CONTENTION_MAX_REPEATS);
    println!(
        "{experiments} experiments per row; min 10, max 60 pairs, 95%, GO at +1%, NO-GO at -0.5%; \
         noise 2%; a run outside bursts waits up to 0.5% of its time; a burst adds an \
         exponentially distributed delay (mean as given) spent waiting for a CPU."
    );
    println!("\nWithout the rule and with the default (5%, at most 3 repeats):\n\n{HEADER}");
    let mut seed = SEED;
    for machine in machines().iter().take(6) {
        for change in [0.0, 0.05] {
            seed += 1;
            println!("{}", row(machine.label, change, None, seed, experiments));
            println!("{}", row(machine.label, change, default, seed, experiments));
        }
    }
    println!("\nOther thresholds and bounds, and a wait that depends on the variant:\n\n{HEADER}");
    for (machine, share, repeats) in [
        ("small waits: 30% of runs +2%", 0.02, CONTENTION_MAX_REPEATS),
        ("bursts: 30% of runs +30%", 0.02, CONTENTION_MAX_REPEATS),
        ("bursts: 30% of runs +30%", 0.10, CONTENTION_MAX_REPEATS),
        ("bursts: 30% of runs +30%", 0.20, CONTENTION_MAX_REPEATS),
        ("busy: 60% of runs +30%", DEFAULT_MAX_CPU_WAIT, 1),
        ("busy: 60% of runs +30%", DEFAULT_MAX_CPU_WAIT, 6),
        ("always busy: every run +30%", DEFAULT_MAX_CPU_WAIT, 6),
    ] {
        for change in [0.0, 0.05] {
            seed += 1;
            println!(
                "{}",
                row(machine, change, rule(share, repeats), seed, experiments)
            );
        }
    }
    // A wait that depends on the variant breaks the rule's assumption.
    let machine = "bursts 30%, B waits for itself up to 8%";
    seed += 1;
    println!("{}", row(machine, 0.0, None, seed, experiments));
    println!("{}", row(machine, 0.0, default, seed, experiments));
}
