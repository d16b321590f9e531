//! Sample files for `perflab compare`: plain text, a perflab result, a
//! hyperfine export, each with an optional `#SELECTOR`.

use std::sync::OnceLock;

use perflab_cli::samples::read_samples;
use proptest::prelude::*;

use crate::near_miss::{CASES, near_miss_bytes, odd_value};

const TEXT: &str = "# run 1\n[45.52M, 44.88M]\n\n1.5K # note\n12\n";

const HYPERFINE: &str = r#"{
  "results": [
    {"command": "old", "mean": 1.5, "times": [1.0, 2.0, 1.5]},
    {"command": "new", "mean": 1.0, "times": [0.9, 1.1, 1.0]}
  ]
}
"#;

// Excerpts of real harness output (tests/imports.rs runs the harnesses).
const GO_BENCH: &str = "goos: linux\npkg: example.com/sums\n\
BenchmarkSteady-2     \t   26952\t       942.2 ns/op\t       0 B/op\t       0 allocs/op\n\
BenchmarkSteady-2     \t   26878\t       786.5 ns/op\t       0 B/op\t       0 allocs/op\n\
BenchmarkSlowAble-2   \t   25455\t      1040 ns/op\t       0 B/op\t       0 allocs/op\n\
BenchmarkSlowAble-2   \t   26396\t       955.4 ns/op\t       0 B/op\t       0 allocs/op\nPASS\n";

const GOOGLE_BENCHMARK: &str = r#"{"context": {"num_cpus": 2}, "benchmarks": [
  {"name": "BM_Steady", "run_name": "BM_Steady", "run_type": "iteration", "repetitions": 2, "repetition_index": 0, "iterations": 27878, "real_time": 3077.88, "cpu_time": 517.19, "time_unit": "ns"},
  {"name": "BM_Steady", "run_name": "BM_Steady", "run_type": "iteration", "repetitions": 2, "repetition_index": 1, "iterations": 27878, "real_time": 2164.42, "cpu_time": 498.14, "time_unit": "ns"},
  {"name": "BM_Steady_mean", "run_name": "BM_Steady", "run_type": "aggregate", "repetitions": 2, "aggregate_name": "mean", "iterations": 2, "real_time": 2621.15, "cpu_time": 507.66, "time_unit": "ns"}
]}"#;

const PYTEST_BENCHMARK: &str = r#"{"machine_info": {"node": "x"}, "benchmarks": [
  {"group": null, "name": "test_steady", "fullname": "test_sums.py::test_steady", "stats": {"min": 2.0e-05, "rounds": 3, "iterations": 1, "data": [2.0494e-05, 2.1193e-05, 2.1234e-05]}}
], "version": "5.3.1"}"#;

const JMH: &str = r#"[{"jmhVersion": "1.37", "benchmark": "sums.Sums.steady", "mode": "avgt", "threads": 1, "forks": 1,
  "jvm": "/usr/bin/java", "jdkVersion": "17.0.15", "vmName": "OpenJDK 64-Bit Server VM", "vmVersion": "17.0.15+6",
  "params": {"n": "2000"},
  "primaryMetric": {"score": 0.75, "scoreUnit": "us/op", "rawData": [[0.759, 0.659, 0.681]]},
  "secondaryMetrics": {"gc.alloc.rate.norm": {"score": 0.04, "scoreUnit": "B/op", "rawData": [[0.043, 0.038, 0.037]]}}},
 {"jmhVersion": "1.37", "benchmark": "sums.Sums.other", "mode": "sample", "forks": 1,
  "primaryMetric": {"score": 6.6e-7, "scoreUnit": "s/op", "rawDataHistogram": [[[[6.41e-7, 28], [6.51e-7, 563]], [[6.3e-7, 2]]]]},
  "secondaryMetrics": {}}]"#;

const MITATA: &str = r#"{"layout": [{"name": null, "types": []}], "benchmarks": [
  {"kind": "static", "args": {}, "alias": "steady", "group": 0, "baseline": false,
   "runs": [{"args": {}, "name": "steady", "stats": {"kind": "fn", "samples": [1264.3, 1264.8, 1265.5], "min": 1264.3, "avg": 1264.9}}]}],
 "context": {"arch": "x64-linux", "version": "20.20.2", "runtime": "node", "cpu": {"name": "AMD EPYC", "freq": 0.9}}}"#;

const TINYBENCH: &str = r#"{"tasks": [{"name": "steady", "result": {"state": "completed", "runtime": "node", "runtimeVersion": "20.20.2",
  "latency": {"mean": 0.0026, "samples": [0.000581, 0.000581, 0.000602]}}}]}"#;

const CRITERION_SAMPLE: &str =
    r#"{"sampling_mode":"Linear","iters":[12.0,24.0,36.0],"times":[12900.0,25100.0,38800.0]}"#;

/// A perflab result as the real binary writes it, made once.
fn perflab_result() -> String {
    static RESULT: OnceLock<String> = OnceLock::new();
    RESULT
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("old.txt"), "10\n11\n12\n10\n11\n").unwrap();
            std::fs::write(dir.path().join("new.txt"), "9\n10\n9\n10\n9\n").unwrap();
            std::process::Command::new(env!("CARGO_BIN_EXE_perflab"))
                .current_dir(dir.path())
                .env_remove("PERFLAB_STORE")
                .args(["compare", "old.txt", "new.txt", "--json", "r.json"])
                .output()
                .unwrap();
            std::fs::read_to_string(dir.path().join("r.json")).expect("compare wrote r.json")
        })
        .clone()
}

fn any_sample_file() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        near_miss_bytes(TEXT.to_string()),
        near_miss_bytes(HYPERFINE.to_string()),
        near_miss_bytes(perflab_result()),
        near_miss_bytes(GO_BENCH.to_string()),
        near_miss_bytes(GOOGLE_BENCHMARK.to_string()),
        near_miss_bytes(PYTEST_BENCHMARK.to_string()),
        near_miss_bytes(CRITERION_SAMPLE.to_string()),
        near_miss_bytes(JMH.to_string()),
        near_miss_bytes(MITATA.to_string()),
        near_miss_bytes(TINYBENCH.to_string()),
    ]
}

fn selector() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        proptest::sample::select(&[
            "old",
            "new",
            "0",
            "1",
            "2",
            "A",
            "B",
            "",
            "#",
            "BM_Steady",
            "BenchmarkSteady-2",
            "sums.Sums.steady[n=2000]",
            "steady"
        ])
        .prop_map(|s| Some(s.to_string())),
        odd_value().prop_map(Some),
    ]
}

fn measure() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        proptest::sample::select(&["wall", "cpu", "peak-memory", "throughput", "allocs/op"])
            .prop_map(|s| Some(s.to_string())),
        odd_value().prop_map(Some),
    ]
}

/// Reads `bytes` as the file `samples.json`; errors must start with its path.
fn check(bytes: &[u8], selector: Option<&str>, measure: Option<&str>) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("samples.json");
    std::fs::write(&path, bytes).unwrap();
    let input = match selector {
        Some(s) => format!("{}#{s}", path.display()),
        None => path.display().to_string(),
    };
    match read_samples(&input, measure) {
        Ok(samples) => {
            prop_assert!(samples.values.len() >= 2);
            prop_assert!(samples.values.iter().all(|v| v.is_finite()), "{samples:?}");
        }
        Err(e) => {
            let message = e.to_string();
            prop_assert!(
                message.starts_with(&path.display().to_string()),
                "{message}"
            );
            prop_assert_eq!(e.exit_code(), 2, "{}", message);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn a_damaged_sample_file_is_read_or_refused_by_its_path(
        bytes in any_sample_file(),
        selector in selector(),
        measure in measure(),
    ) {
        check(&bytes, selector.as_deref(), measure.as_deref())?;
    }
}

#[test]
fn the_valid_sample_files_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    assert_eq!(
        read_samples(&write("t.txt", TEXT), None)
            .unwrap()
            .values
            .len(),
        4
    );
    let hyperfine = write("h.json", HYPERFINE);
    let old = read_samples(&format!("{hyperfine}#old"), None).unwrap();
    assert_eq!(old.values, vec![1.0, 2.0, 1.5]);
    let go = write("go.txt", GO_BENCH);
    let steady = read_samples(&format!("{go}#BenchmarkSteady-2"), None).unwrap();
    assert_eq!(steady.values, vec![942.2 / 1e9, 786.5 / 1e9]);
    let google = write("g.json", GOOGLE_BENCHMARK);
    assert_eq!(read_samples(&google, Some("cpu")).unwrap().values.len(), 2);
    let pytest = write("p.json", PYTEST_BENCHMARK);
    assert_eq!(read_samples(&pytest, None).unwrap().values.len(), 3);
    let criterion = write("sample.json", CRITERION_SAMPLE);
    assert_eq!(read_samples(&criterion, None).unwrap().values.len(), 3);
    let result = write("r.json", &perflab_result());
    assert_eq!(
        read_samples(&format!("{result}#0"), None)
            .unwrap()
            .values
            .len(),
        5
    );
}

#[test]
fn a_sample_file_that_is_not_utf8_is_refused_by_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.txt");
    std::fs::write(&path, b"1\n2\n\xff\n").unwrap();
    let message = read_samples(&path.display().to_string(), None)
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with(&path.display().to_string()),
        "{message}"
    );
    assert!(message.contains("UTF-8"), "{message}");
}
