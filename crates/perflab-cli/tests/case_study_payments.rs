//! The payments case study's suite file (`examples/payments/perflab.toml`),
//! run through the real CLI on small workloads written by the example's own
//! generator: the fixed generator's workloads run in every scenario, and the
//! original generator's is refused by the dispute-heavy expectations; the
//! suite of comparisons between scenarios (`examples/payments/scenarios.toml`)
//! decides every workload against the baseline's under both versions; the
//! maps sized up front (`--presize`) print the same balances and compare with
//! grown maps span by span; an off-CPU profile of the multi-threaded path of
//! both versions splits the workers' waiting into channel receives (blocked)
//! and preemption.

mod common;
mod native;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::{Scratch, assert_reached_a_result, stderr_of_refusal};

const SCENARIOS: [&str; 6] = [
    "baseline",
    "hot-accounts",
    "dispute-heavy",
    "store-heavy",
    "sparse-ids",
    "multi-threaded",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The example's binary, built once per test process by cargo (debug
/// profile, the target folder of this test run).
fn payments() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::investigate::example_binary("payments", false))
}

/// Writes `scenario`'s workload of 20,000 transactions (200 accounts) into `dir`.
fn generate(dir: &Path, scenario: &str, broken: bool) {
    generate_as(dir, scenario, &format!("{scenario}.csv"), broken, &[]);
}

/// Writes `scenario`'s workload of 20,000 transactions into `dir/file`,
/// with `extra` arguments to `payments generate`.
fn generate_as(dir: &Path, scenario: &str, file: &str, broken: bool, extra: &[&str]) {
    std::fs::create_dir_all(dir).expect("data folder");
    let mut cmd = Command::new(payments());
    cmd.args([
        "generate",
        "--scenario",
        scenario,
        "--transactions",
        "20000",
    ])
    .args(extra)
    .arg("--output")
    .arg(dir.join(file));
    if broken {
        cmd.arg("--broken");
    }
    let status = cmd.status().expect("run payments generate");
    assert!(status.success(), "payments generate --scenario {scenario}");
}

fn suite(s: &Scratch, data: &Path, extra: &[&str]) -> std::process::Output {
    suite_file(s, "perflab.toml", data, extra)
}

/// Runs the example's suite file `file` on the workloads in `data`, two
/// pairs per cell.
fn suite_file(s: &Scratch, file: &str, data: &Path, extra: &[&str]) -> std::process::Output {
    s.perflab()
        .args(["ab", "-f"])
        .arg(workspace().join("examples/payments").join(file))
        .args([
            "--min-runs",
            "2",
            "--max-runs",
            "2",
            "--warmup",
            "0",
            "--quiet",
        ])
        .args(extra)
        .env("PAYMENTS_BIN", payments())
        .env("PAYMENTS_DATA", data)
        .output()
        .expect("run perflab")
}

#[test]
fn the_suite_runs_every_scenario_of_the_fixed_generator_against_both_versions() {
    let s = Scratch::new();
    let data = s.path("data");
    for scenario in &SCENARIOS[..5] {
        generate(&data, scenario, false);
    }
    let out = suite(&s, &data, &["--json", "suite.json"]);
    assert_reached_a_result(&out);
    let doc = s.json("suite.json");
    assert_eq!(doc["kind"], "suite");
    let cells = doc["cells"].as_array().expect("cells");
    let mut scenarios: Vec<&str> = cells
        .iter()
        .map(|c| {
            assert_eq!(c["variant"], "v2", "{c}");
            c["scenario"].as_str().expect("scenario name")
        })
        .collect();
    scenarios.sort_unstable();
    let mut expected = SCENARIOS.to_vec();
    expected.sort_unstable();
    assert_eq!(scenarios, expected);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("geometric mean"), "{stdout}");
}

#[test]
fn the_original_generator_is_refused_naming_the_scenario_and_the_counter() {
    let s = Scratch::new();
    let data = s.path("data-broken");
    generate(&data, "dispute-heavy", true);
    let out = suite(&s, &data, &["--scenario", "dispute-heavy"]);
    let stderr = stderr_of_refusal(&out);
    assert!(stderr.contains("scenario \"dispute-heavy\""), "{stderr}");
    assert!(stderr.contains("chargebacks = 0"), "{stderr}");
    assert!(
        stderr.contains("does not produce the declared mix"),
        "{stderr}"
    );
}

#[test]
fn the_same_workload_from_the_fixed_generator_passes_the_expectations() {
    let s = Scratch::new();
    let data = s.path("data");
    generate(&data, "dispute-heavy", false);
    let out = suite(&s, &data, &["--scenario", "dispute-heavy"]);
    assert_reached_a_result(&out);
}

#[test]
fn the_scenario_suite_decides_every_workload_against_the_baseline_under_both_versions() {
    let s = Scratch::new();
    let data = s.path("data");
    for scenario in &SCENARIOS[..5] {
        generate(&data, scenario, false);
    }
    // The original "sparse ids": a quarter of the accounts as well.
    generate_as(
        &data,
        "sparse-ids",
        "sparse-ids-quarter-accounts.csv",
        false,
        &["--accounts", "50"],
    );
    let out = suite_file(&s, "scenarios.toml", &data, &["--json", "scenarios.json"]);
    assert_reached_a_result(&out);
    let doc = s.json("scenarios.json");
    assert_eq!(doc["kind"], "suite");
    let mut cells: Vec<(String, String)> = doc["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .map(|c| {
            assert!(c["ci"].is_array(), "a cell without an interval: {c}");
            (
                c["scenario"].as_str().unwrap().to_owned(),
                c["variant"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    cells.sort_unstable();
    let mut expected = Vec::new();
    for engine in ["v1", "v2"] {
        for workload in [
            "dispute-heavy",
            "hot-accounts",
            "multi-threaded",
            "sparse-ids",
            "sparse-ids-quarter-accounts",
            "store-heavy",
        ] {
            expected.push((engine.to_owned(), workload.to_owned()));
        }
    }
    assert_eq!(cells, expected);
    // Twelve cells at one level: each interval at 1 - 5%/12 or stricter.
    let level = doc["cell_confidence"].as_f64().expect("cell_confidence");
    assert!(level >= 1.0 - 0.05 / 12.0 - 1e-9, "{level}");
}

#[test]
fn maps_sized_up_front_print_the_same_balances_and_compare_span_by_span() {
    let s = Scratch::new();
    let data = s.path("data");
    generate(&data, "baseline", false);
    let input = data.join("baseline.csv");
    let balances = |presize: bool| {
        let mut cmd = Command::new(payments());
        cmd.arg("process").arg(&input);
        if presize {
            cmd.arg("--presize");
        }
        let out = cmd
            .env("PERFLAB_TABLE", "0")
            .output()
            .expect("run payments");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    assert_eq!(balances(false), balances(true));

    let command = |extra: &str| {
        format!(
            "{} process {}{extra}",
            payments().display(),
            input.display()
        )
    };
    let out = s
        .perflab()
        .args([
            "ab",
            "--quiet",
            "--min-runs",
            "2",
            "--max-runs",
            "2",
            "--warmup",
            "0",
        ])
        .args([
            "--name-a",
            "grown",
            "--name-b",
            "presized",
            "--json",
            "presize.json",
        ])
        .arg(command(""))
        .arg(command(" --presize"))
        .env("PERFLAB_TABLE", "0")
        .output()
        .expect("run perflab");
    assert_reached_a_result(&out);
    let doc = s.json("presize.json");
    let deposit = doc["spans"]
        .as_array()
        .expect("spans")
        .iter()
        .find(|span| span["name"] == "deposit")
        .expect("a deposit span");
    for stats in deposit["per_variant"].as_array().unwrap() {
        assert!(stats["calls"].as_f64().unwrap() > 0.0, "{deposit}");
        assert!(stats["p99_s"].as_f64().unwrap() > 0.0, "{deposit}");
    }
}

#[test]
fn presize_on_worker_threads_is_refused_naming_both_flags() {
    let s = Scratch::new();
    let data = s.path("data");
    generate(&data, "baseline", false);
    let out = Command::new(payments())
        .arg("process")
        .arg(data.join("baseline.csv"))
        .args(["--presize", "--threads", "2"])
        .output()
        .expect("run payments");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--presize") && stderr.contains("--threads 2"),
        "{stderr}"
    );
}

#[test]
fn an_off_cpu_profile_of_both_versions_splits_the_workers_waiting_into_receives_and_preemption() {
    native::require_tool("perf");
    let s = Scratch::new();
    let data = s.path("data");
    generate(&data, "baseline", false);
    let input = data.join("baseline.csv");
    let command = |version: &str| {
        format!(
            "{} process {} --engine {version} --threads 4",
            payments().display(),
            input.display()
        )
    };
    // DWARF stacks: a debug build keeps no frame pointers through std.
    let out = s
        .perflab()
        .args([
            "profile",
            "--off-cpu",
            "--call-graph",
            "dwarf",
            "--no-svg",
            "--top",
            "500",
        ])
        .args(["--json", "offcpu.json", "--baseline", &command("v1"), "--"])
        .args(command("v2").split(' '))
        .output()
        .expect("run perflab profile");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let doc = s.json("offcpu.json");
    let mut receives = Vec::new();
    for profile in doc["profiles"].as_array().unwrap() {
        let off_cpu = &profile["off_cpu"];
        // The reading thread and four workers, each with its time off the CPU split.
        let threads = off_cpu["threads"].as_array().unwrap();
        assert!(threads.len() >= 5, "{off_cpu}");
        for thread in threads {
            for field in ["on_cpu_ns", "blocked_ns", "preempted_ns"] {
                assert!(thread[field].is_u64(), "{field} of {thread}");
            }
        }
        // The workers' blocked time is their channel receives: a function of
        // the receive is on the stacks they left the CPU from.
        receives.push(
            off_cpu["functions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["name"].as_str().is_some_and(|name| name.contains("recv")))
                .map(|f| f["blocked_ns"].as_u64().unwrap())
                .max()
                .unwrap_or(0),
        );
    }
    // In at least one version: on a loaded machine the workers of the
    // batched version can be preempted for the whole run instead of waiting
    // on an empty channel, while one record per message (v1) makes them wait.
    assert!(
        receives.iter().any(|&ns| ns > 0),
        "no blocked time in a receive in either profile: {receives:?}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("off the CPU:") && stdout.contains("off-CPU time that moved from A to B"),
        "{stdout}"
    );
}
