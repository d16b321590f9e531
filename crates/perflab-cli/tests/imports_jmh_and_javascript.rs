//! `perflab compare` and `perflab import` on real output of JMH, mitata
//! and tinybench, produced here by running them on the tiny benchmarks of
//! `tests/fixtures` (jmh, mitata, tinybench), of which the slow-able ones
//! do thirty times the work in the "slow" runs.
//!
//! The thresholds are wide (GO at +400 %, NO-GO at -80 %) for the reason
//! tests/imports.rs gives: the two runs are made one after the other on a
//! shared machine, not interleaved, and a load that changes between them
//! moves every benchmark. The changed benchmark moves by about -97 % (or
//! its throughput by about -97 %).

mod common;

use common::harnesses::{WIDE, assert_only_changed_is_no_go, verdicts};
use common::{Scratch, harnesses, stderr_of_refusal};

/// `perflab compare OLD NEW` with the wide thresholds, asserting its exit
/// code (showing what it printed when it is another).
fn compare(s: &Scratch, old: &str, new: &str, extra: &[&str], code: i32) -> std::process::Output {
    let out = s
        .perflab()
        .args(["compare", old, new, "--json", "r.json"])
        .args(WIDE)
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `input` with `edit` applied to its JSON, written as `name`.
fn edited(s: &Scratch, name: &str, input: &str, edit: impl Fn(&mut serde_json::Value)) {
    let mut json: serde_json::Value = serde_json::from_str(input).unwrap();
    edit(&mut json);
    s.write(name, &json.to_string());
}

#[test]
fn jmh_iterations_give_no_go_for_the_changed_benchmark_in_time_and_in_throughput() {
    let s = Scratch::new();
    let (old, new) = (harnesses::jmh(false), harnesses::jmh(true));
    s.write("old.json", &old);
    s.write("new.json", &new);

    // Time per operation, the metric most of the file's benchmarks measure.
    let out = compare(&s, "old.json", "new.json", &[], 3);
    let json = s.json("r.json");
    assert_only_changed_is_no_go(&json, "sums.Sums.slowAble[n=2000]", 1);
    assert_eq!(json["metric"]["name"], "wall");
    assert_eq!(json["metric"]["better"], "lower");
    let warnings = json["warnings"].to_string();
    assert!(
        warnings.contains("without wall on both sides")
            && warnings.contains("sums.Sums.slowAbleThroughput[n=2000]"),
        "{warnings}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("sums.Sums.steady[n=2000]"));

    // Throughput: higher is better, so the slower run is a NO-GO too.
    compare(&s, "old.json", "new.json", &["--measure", "throughput"], 3);
    let json = s.json("r.json");
    assert_eq!(
        verdicts(&json),
        vec![(
            "sums.Sums.slowAbleThroughput[n=2000]".to_string(),
            "NO-GO".to_string()
        )]
    );
    assert_eq!(json["metric"]["better"], "higher");
    assert_eq!(json["metric"]["unit"], "ops/s");

    // One benchmark of each file: a single comparison, a sample per iteration.
    compare(
        &s,
        "old.json#sums.Sums.steady[n=2000]",
        "old.json#sums.Sums.steady[n=2000]",
        &[],
        0,
    );
    let json = s.json("r.json");
    assert_eq!(json["variants"][0]["samples"].as_array().unwrap().len(), 10);
    assert_ne!(json["verdict"], "GO");
    assert_ne!(json["verdict"], "NO-GO");

    // The import records the JVM the file names and every metric.
    let out = s
        .perflab()
        .args(["import", "new.json", "--name", "jmh-sums"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("imported 3 benchmark(s)") && err.contains("JMH"),
        "{err}"
    );

    // The allocation profiler's figures are metrics of their own.
    let out = s
        .perflab()
        .args(["import", "new.json", "--name", "jmh-allocations"])
        .args(["--measure", "gc.alloc.rate.norm"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("B/op"));

    // A file edited down to the scores is refused, saying what to write.
    edited(&s, "scores.json", &new, |json| {
        for run in json.as_array_mut().unwrap() {
            run["primaryMetric"]
                .as_object_mut()
                .unwrap()
                .remove("rawData");
        }
    });
    let out = s
        .perflab()
        .args(["compare", "old.json", "scores.json"])
        .output()
        .unwrap();
    let err = stderr_of_refusal(&out);
    assert!(
        err.contains("scores.json") && err.contains("rawData") && err.contains("-rf json"),
        "{err}"
    );
}

#[test]
fn mitata_samples_give_no_go_for_the_changed_benchmark_alone() {
    let s = Scratch::new();
    let (old, new) = (harnesses::mitata(false), harnesses::mitata(true));
    s.write("old.json", &old);
    s.write("new.json", &new);
    compare(&s, "old.json", "new.json", &[], 3);
    let json = s.json("r.json");
    assert_only_changed_is_no_go(&json, "slow-able", 1);
    // mitata writes its samples sorted: no drift over their order is claimed.
    let warnings = json["warnings"].to_string();
    assert!(!warnings.contains("interleaved"), "{warnings}");

    let out = s
        .perflab()
        .args(["import", "old.json", "--name", "mitata-sums"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);

    // Written with { json: { samples: false } }: summaries only, refused.
    edited(&s, "summaries.json", &new, |json| {
        for trial in json["benchmarks"].as_array_mut().unwrap() {
            for run in trial["runs"].as_array_mut().unwrap() {
                run["stats"]["samples"] = serde_json::Value::Null;
            }
        }
    });
    let out = s
        .perflab()
        .args(["compare", "old.json", "summaries.json"])
        .output()
        .unwrap();
    let err = stderr_of_refusal(&out);
    assert!(
        err.contains("summaries.json")
            && err.contains("summary statistics only")
            && err.contains("format: 'json'"),
        "{err}"
    );
}

#[test]
fn tinybench_tasks_written_as_the_guide_shows_give_no_go_for_the_changed_one_and_summaries_are_refused()
 {
    let s = Scratch::new();
    harnesses::tinybench(&s.path("old.json"), false, false);
    harnesses::tinybench(&s.path("new.json"), true, false);
    compare(&s, "old.json", "new.json", &[], 3);
    assert_only_changed_is_no_go(&s.json("r.json"), "slow-able", 1);

    harnesses::tinybench(&s.path("summaries.json"), false, true);
    let out = s
        .perflab()
        .args(["compare", "old.json", "summaries.json"])
        .output()
        .unwrap();
    let err = stderr_of_refusal(&out);
    assert!(
        err.contains("summaries.json") && err.contains("retainSamples: true"),
        "{err}"
    );
}
