//! The investigation on tiny inputs, through perflab's command line: the
//! arguments are parsed and run in this process by perflab-cli's library,
//! exactly as the `perflab` binary does (its `main` only maps the result to
//! an exit code), on this package's real `hash-trie` binary. A sweep of the
//! trie against std's HashMap, the answer check, the pool telemetry, and
//! the patches of the trie's history.

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

use clap::Parser;
use serde_json::Value;

/// perflab's runs and progress display are process-wide: one command at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

const BIN: &str = env!("CARGO_BIN_EXE_hash-trie");

/// Runs `perflab ARGS` with its store in `dir`; returns the exit code.
fn perflab(dir: &Path, args: &[&str]) -> i32 {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let store = dir.join("perflab.db");
    let mut argv = vec!["perflab", "--store", store.to_str().unwrap()];
    argv.extend(args);
    let cli = perflab_cli::cli::Cli::try_parse_from(argv).expect("valid perflab arguments");
    perflab_cli::run(cli).expect("perflab ran")
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("JSON written")).unwrap()
}

fn command(args: &str) -> String {
    format!("{BIN} {args}")
}

/// An A/B of two hash-trie commands, a few runs each; its JSON document.
fn ab(dir: &Path, a: &str, b: &str) -> Value {
    let out = dir.join("ab.json");
    let code = perflab(
        dir,
        &[
            "ab",
            "--measure",
            "op_cpu_ns",
            "--better",
            "lower",
            "--min-runs",
            "3",
            "--max-runs",
            "3",
            "--warmup",
            "0",
            "--seed",
            "1",
            "--quiet",
            "--json",
            out.to_str().unwrap(),
            &command(a),
            &command(b),
        ],
    );
    assert!([0, 3, 4].contains(&code), "exit code {code}");
    json(&out)
}

#[test]
fn a_tiny_sweep_gives_every_size_a_ratio_to_std_with_its_interval_and_a_growth_exponent() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep.json");
    let code = perflab(
        dir.path(),
        &[
            "sweep",
            "-p",
            "n=1000,4000,16000",
            "--measure",
            "op_cpu_ns",
            "--better",
            "lower",
            "--min-runs",
            "2",
            "--max-runs",
            "3",
            "--warmup",
            "0",
            "--seed",
            "1",
            "--quiet",
            "--json",
            out.to_str().unwrap(),
            "--command-name",
            "trie",
            &command("trie insert {n}"),
            "--reference",
            &command("std insert {n}"),
            "--reference-name",
            "std",
        ],
    );
    assert_eq!(code, 0);
    let doc = json(&out);
    let points = doc["sweep"]["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    for point in points {
        let ratio = &point["results"][0]["ratio"];
        let (lo, est, hi) = (
            ratio["lo"].as_f64().unwrap(),
            ratio["estimate"].as_f64().unwrap(),
            ratio["hi"].as_f64().unwrap(),
        );
        assert!(0.0 < lo && lo <= est && est <= hi, "{ratio}");
    }
    let fit = &doc["sweep"]["series"][0]["fit"];
    let (lo, exponent, hi) = (
        fit["lo"].as_f64().unwrap(),
        fit["exponent"].as_f64().unwrap(),
        fit["hi"].as_f64().unwrap(),
    );
    assert!(lo <= exponent && exponent <= hi, "{fit}");
}

fn differing_output_warnings(doc: &Value) -> usize {
    doc["warnings"]
        .as_array()
        .map(|w| {
            w.iter()
                .filter(|w| w.as_str().unwrap_or("").contains("printed the same output"))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn the_structures_pass_the_answer_check_and_another_workload_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let same = ab(dir.path(), "trie query 4000", "rpds query 4000");
    assert_eq!(differing_output_warnings(&same), 0, "{}", same["warnings"]);
    let same = ab(dir.path(), "std insert 4000", "trie insert 4000");
    assert_eq!(differing_output_warnings(&same), 0, "{}", same["warnings"]);
    // One key more is another workload: the checksums differ, and perflab says so.
    let other = ab(dir.path(), "std query 4000", "trie query 4001");
    assert_eq!(
        differing_output_warnings(&other),
        1,
        "{}",
        other["warnings"]
    );
}

/// A probe's figures for variant `i` of a result document.
fn probe<'a>(doc: &'a Value, kind: &str, name: &str, i: usize) -> &'a Value {
    let probes = doc[kind].as_array().expect("probes in the result");
    let found = probes.iter().find(|p| p["name"] == name);
    &found.unwrap_or_else(|| panic!("no {name} in {probes:?}"))["per_variant"][i]
}

#[test]
fn a_small_pool_shows_in_the_fallback_rate_and_a_pool_sized_by_the_keys_never_falls_back() {
    let dir = tempfile::tempdir().unwrap();
    let doc = ab(
        dir.path(),
        "trie insert 64000 --pool-slots 65536",
        "trie insert 64000",
    );
    let rate = |i| probe(&doc, "gauges", "pool_fallback_rate_pct", i)["mean"].as_f64();
    let utilisation = |i| probe(&doc, "gauges", "pool_utilisation_pct", i)["mean"].as_f64();
    let fallbacks = |i| probe(&doc, "counters", "pool_fallbacks", i)["total"].as_f64();
    assert!(rate(0).unwrap() > 5.0, "{:?}", rate(0));
    assert!(utilisation(0).unwrap() > 100.0, "{:?}", utilisation(0));
    assert!(fallbacks(0).unwrap() > 0.0);
    assert_eq!(rate(1), Some(0.0));
    assert!(utilisation(1).unwrap() < 100.0, "{:?}", utilisation(1));
    assert_eq!(fallbacks(1), Some(0.0));
}

#[test]
fn each_step_of_the_history_applies_to_the_current_sources() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    for patch in ["1-baseline.patch", "2-pool.patch"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::copy(here.join("src/main.rs"), dir.path().join("src/main.rs")).unwrap();
        let out = Command::new("git")
            .args(["apply", "--check"])
            .arg(here.join("steps").join(patch))
            .current_dir(dir.path())
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "{patch} no longer applies to src/main.rs: {}; make it again (see steps/README.md)",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
