//! `perflab sweep` separating what a run pays once from what each item
//! costs: a program with a start-up gets its marginal cost and a warning
//! that total / n measures mostly the start-up; one without keeps the
//! per-item view.

mod common;

use common::{Scratch, stdout_of_success};

/// A command printing `PERFLAB_METRIC cost` = (fixed + n · marginal) ns
/// · (1 ± 1 %), the ripple taken from a run counter so the test is
/// deterministic.
fn synthetic(fixed_ns: f64, marginal_ns: f64) -> String {
    format!(
        "c=$(cat counter 2>/dev/null || echo 0); echo $((c+1)) > counter; \
         awk -v n={{n}} -v c=$c 'BEGIN {{ printf \"PERFLAB_METRIC cost %.6f ns\\n\", ({fixed_ns} + n * {marginal_ns}) * (1 + 0.01 * sin(c * 12.9898)) }}'"
    )
}

fn sweep(s: &Scratch, args: &[&str]) -> std::process::Output {
    s.perflab()
        .args(["sweep", "--warmup", "0", "--min-runs", "3", "--seed", "7"])
        .args(["--json", "s.json", "--markdown", "s.md"])
        // The synthetic costs come from a run counter: a block measured
        // again on a busy machine would change which values are kept.
        .args(["--max-cpu-wait", "off"])
        .args(args)
        .output()
        .unwrap()
}

fn number(value: &serde_json::Value, key: &str) -> f64 {
    value[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} in {value}"))
}

#[test]
fn a_start_up_is_split_from_the_cost_per_item_and_named_in_a_warning() {
    let s = Scratch::new();
    // 5 ms of start-up and 50 ns per item: total / n is 5 µs at n=1000.
    let out = sweep(
        &s,
        &[
            "--measure",
            "cost",
            "--better",
            "lower",
            "-p",
            "n=1K..64K:x2",
            &synthetic(5e6, 50.0),
        ],
    );
    let stdout = stdout_of_success(&out);
    let json = s.json("s.json");
    let series = &json["sweep"]["series"][0];
    assert_eq!(series["basis"], "marginal", "{stdout}");
    let linear = &series["linear"];
    assert_eq!(linear["has_fixed_part"], true);
    let (fixed, fixed_lo, fixed_hi) = (
        number(linear, "fixed"),
        number(linear, "fixed_lo"),
        number(linear, "fixed_hi"),
    );
    assert!(
        fixed_lo <= 5e6 && 5e6 <= fixed_hi && (fixed / 5e6 - 1.0).abs() < 0.03,
        "fixed {fixed} [{fixed_lo}, {fixed_hi}]"
    );
    let (marginal, marginal_lo, marginal_hi) = (
        number(linear, "marginal"),
        number(linear, "marginal_lo"),
        number(linear, "marginal_hi"),
    );
    assert!(
        marginal_lo <= 50.0 && 50.0 <= marginal_hi && (marginal / 50.0 - 1.0).abs() < 0.05,
        "marginal {marginal} [{marginal_lo}, {marginal_hi}]"
    );
    // The exponent is that of the cost above the start-up: linear, not the
    // 0.3 or so that total cost divided by n suggests.
    let fit = &series["fit"];
    assert!(
        number(fit, "lo") <= 1.0 && 1.0 <= number(fit, "hi"),
        "{fit}\n{stdout}"
    );
    let marginal_per_item = series["marginal_per_item"].as_array().unwrap();
    assert_eq!(marginal_per_item.len(), 7);
    let last = &marginal_per_item[6];
    assert!(
        (number(last, "estimate") / 50.0 - 1.0).abs() < 0.05,
        "{last}"
    );
    assert!(
        stdout.contains("fixed part 5.0")
            && stdout.contains("per n (the fixed part is 99% of the total at n=1000"),
        "{stdout}"
    );
    assert!(
        stdout.contains("cost above the fixed part grows as n^"),
        "{stdout}"
    );
    assert!(
        stdout.contains("warning: command 1: the fixed part (5.0")
            && stdout.contains("is more than half of the total up to n=64000"),
        "{stdout}"
    );
    let md = std::fs::read_to_string(s.path("s.md")).unwrap();
    assert!(
        md.contains("> **Warning**: command 1: the fixed part"),
        "{md}"
    );
}

#[test]
fn a_cost_without_start_up_keeps_the_per_item_view() {
    let s = Scratch::new();
    let out = sweep(
        &s,
        &[
            "--measure",
            "cost",
            "--better",
            "lower",
            "-p",
            "n=1K..64K:x2",
            &synthetic(0.0, 50.0),
        ],
    );
    let stdout = stdout_of_success(&out);
    let json = s.json("s.json");
    let series = &json["sweep"]["series"][0];
    assert!(series.get("basis").is_none(), "{series}");
    assert!(series.get("marginal_per_item").is_none(), "{series}");
    assert_eq!(series["linear"]["has_fixed_part"], false, "{stdout}");
    assert!(stdout.contains("cost grows as n^1.0"), "{stdout}");
    assert!(stdout.contains("; no fixed part: "), "{stdout}");
    // No warning about the fit (one about a busy machine may come).
    let about_the_fit = |l: &&str| l.contains("warning") && !l.contains("waited for a CPU");
    assert!(!stdout.lines().any(|l| about_the_fit(&l)), "{stdout}");
}

#[test]
fn a_real_start_up_in_wall_time_is_found_with_the_marginal_cost_of_a_sleep() {
    let s = Scratch::new();
    // 100 ms of start-up, then 20 µs of sleep per item: real wall time.
    let out = sweep(
        &s,
        &[
            "-p",
            "n=1000,2000,4000,8000",
            "--precision",
            "3",
            "--max-runs",
            "12",
            "--command-name",
            "sleeper",
            "sleep 0.1; sleep $(awk 'BEGIN { print {n} * 0.00002 }')",
        ],
    );
    let stdout = stdout_of_success(&out);
    let json = s.json("s.json");
    let series = &json["sweep"]["series"][0];
    assert_eq!(series["basis"], "marginal", "{stdout}");
    let linear = &series["linear"];
    let (fixed_lo, marginal) = (number(linear, "fixed_lo"), number(linear, "marginal"));
    // The sleeps are lower bounds; process starts and wake-ups only add to the fixed part.
    assert!(fixed_lo > 0.05, "fixed part {linear}\n{stdout}");
    assert!(
        (marginal / 20e-6 - 1.0).abs() < 0.15,
        "marginal {marginal} s per item, expected 20 µs\n{stdout}"
    );
    assert!(
        stdout.contains("warning: sleeper: the fixed part"),
        "{stdout}"
    );
}
