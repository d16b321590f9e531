//! `perflab sweep` run for real: commands whose per-item cost is known
//! (they print it as a metric, with a deterministic ripple as noise), so the
//! growth exponent, cliffs and ratios can be checked against the truth.

mod common;

use common::{Scratch, stderr_of_refusal, stdout_of_success};

/// A command printing `PERFLAB_METRIC cost` = n · per-item cost · (1 ± 1 %),
/// the ripple taken from a run counter so the test is deterministic.
/// `cost` is an awk expression in `n`.
fn synthetic(cost: &str) -> String {
    format!(
        "c=$(cat counter 2>/dev/null || echo 0); echo $((c+1)) > counter; \
         awk -v n={{n}} -v c=$c 'BEGIN {{ printf \"PERFLAB_METRIC cost %.6f ns\\n\", n * ({cost}) * (1 + 0.01 * sin(c * 12.9898)) }}'"
    )
}

fn sweep(s: &Scratch, args: &[&str]) -> std::process::Output {
    s.perflab()
        .args([
            "sweep",
            "--measure",
            "cost",
            "--better",
            "lower",
            "--warmup",
            "0",
        ])
        .args(["--min-runs", "3", "--seed", "7", "--json", "s.json"])
        // The values follow the runs' count: a run measured again under
        // load would shift them, and the intervals these tests check.
        .args(["--max-cpu-wait", "off"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_linear_cost_has_an_exponent_interval_containing_one_and_no_cliff() {
    let s = Scratch::new();
    let out = sweep(&s, &["-p", "n=1K..128K:x2", &synthetic("1.5")]);
    let stdout = stdout_of_success(&out);
    let json = s.json("s.json");
    let series = &json["sweep"]["series"][0];
    let fit = &series["fit"];
    let (lo, hi) = (fit["lo"].as_f64().unwrap(), fit["hi"].as_f64().unwrap());
    assert!(
        lo <= 1.0 && 1.0 <= hi,
        "exponent interval [{lo}, {hi}]\n{stdout}"
    );
    assert!(
        hi - lo < 0.05,
        "interval too wide to mean anything: [{lo}, {hi}]"
    );
    assert_eq!(series["cliffs"].as_array().unwrap().len(), 0, "{stdout}");
    assert_eq!(json["sweep"]["points"].as_array().unwrap().len(), 8);
    let per_item = json["sweep"]["points"][3]["results"][0]["per_item"]["estimate"]
        .as_f64()
        .unwrap();
    assert!((per_item - 1.5).abs() < 0.03, "per-item cost {per_item}");
    assert!(stdout.contains("cost grows as n^1.0"), "{stdout}");
    // Every point is also a variant of a perflab-result/1 document.
    assert_eq!(json["format"], "perflab-result/1");
    assert_eq!(json["kind"], "sweep");
    assert!(
        json["variants"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["name"] == "command 1 n=8000")
    );
}

#[test]
fn a_cliff_in_the_per_item_cost_is_flagged_at_the_size_where_it_happens() {
    let s = Scratch::new();
    let out = sweep(
        &s,
        &[
            "-p",
            "n=1000,5000,10000,20000,50000,100000",
            &synthetic("n >= 50000 ? 2 : 1"),
        ],
    );
    let stdout = stdout_of_success(&out);
    let json = s.json("s.json");
    let cliffs = json["sweep"]["series"][0]["cliffs"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(cliffs.len(), 1, "{stdout}");
    assert_eq!(cliffs[0]["size"].as_f64(), Some(50000.0));
    assert_eq!(cliffs[0]["size_before"].as_f64(), Some(20000.0));
    let ratio = cliffs[0]["ratio"].as_f64().unwrap();
    assert!((ratio - 2.0).abs() < 0.05, "ratio {ratio}");
    assert!(
        stdout.contains("cliff at n=50000 (after 20000)"),
        "{stdout}"
    );
}

#[test]
fn a_reference_command_gives_each_point_a_ratio_with_its_interval() {
    let s = Scratch::new();
    let out = sweep(
        &s,
        &[
            "-p",
            "n=1000,10000",
            "--command-name",
            "impl",
            &synthetic("3.8"),
            "--reference",
            &synthetic("1"),
            "--reference-name",
            "libref",
            "--markdown",
            "s.md",
        ],
    );
    let stdout = stdout_of_success(&out);
    let json = s.json("s.json");
    for point in json["sweep"]["points"].as_array().unwrap() {
        let ratio = &point["results"][0]["ratio"];
        let (est, lo, hi) = (
            ratio["estimate"].as_f64().unwrap(),
            ratio["lo"].as_f64().unwrap(),
            ratio["hi"].as_f64().unwrap(),
        );
        assert!(lo <= 3.8 && 3.8 <= hi && (est - 3.8).abs() < 0.1, "{ratio}");
        assert!(point["results"][1]["ratio"].is_null());
    }
    assert!(stdout.contains("3.8"), "{stdout}");
    let md = std::fs::read_to_string(s.path("s.md")).unwrap();
    assert!(
        md.contains("| vs reference |") && md.contains("× (+") && md.contains("×, "),
        "{md}"
    );
}

fn refused(args: &[&str]) -> String {
    let s = Scratch::new();
    stderr_of_refusal(&s.perflab().arg("sweep").args(args).output().unwrap())
}

#[test]
fn malformed_parameters_and_unknown_placeholders_are_usage_errors() {
    let err = refused(&["-p", "n=", "./bench {n}"]);
    assert!(err.contains("-p n=: no values given for 'n'"), "{err}");
    let err = refused(&["-p", "n=1..100:x1", "./bench {n}"]);
    assert!(err.contains("never reaches its end"), "{err}");
    let err = refused(&["-p", "n=1,2", "./bench {m}"]);
    assert!(
        err.contains("names the parameter 'm', which no -p gives"),
        "{err}"
    );
    let err = refused(&["-p", "n=1,2", "-p", "t=1,2", "./bench {n}"]);
    assert!(err.contains("no command uses {t}"), "{err}");
}

#[test]
fn a_failing_point_stops_the_sweep_with_exit_2_and_keeps_what_was_measured() {
    let s = Scratch::new();
    // n=5000 fails from its third visit on, so other points are measured first.
    let command = "c=$(cat c{n} 2>/dev/null || echo 0); echo $((c+1)) > c{n}; \
                   if [ {n} = 5000 ] && [ $c -ge 2 ]; then echo broken >&2; exit 1; fi; \
                   echo PERFLAB_METRIC cost $(( {n} + c ))";
    let out = sweep(
        &s,
        &["-p", "n=1000,5000,9000", "--precision", "0.001%", command],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("run 3 of \"command 1 n=5000\""), "{err}");
    assert!(
        err.contains("exited with code 1") && err.contains("| broken"),
        "{err}"
    );
    assert!(err.contains("finished runs of 3 points are kept"), "{err}");
    let json = s.json("s.json");
    assert_eq!(json["status"], "incomplete");
    assert_eq!(json["sweep"]["stop"], "failed");
    let runs: Vec<u64> = json["sweep"]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["results"][0]["runs"].as_u64().unwrap())
        .collect();
    assert!(runs.iter().all(|&r| r >= 2), "{runs:?}");
}

#[test]
fn the_cache_sweep_example_builds_and_sweeps_its_working_set_sizes() {
    let s = Scratch::new();
    let source = format!(
        "{}/../../examples/cache-sweep/cachewalk.c",
        env!("CARGO_MANIFEST_DIR")
    );
    let program = s.path("cachewalk");
    let built = std::process::Command::new("cc")
        .args(["-O2", "-Wall", "-Wextra", "-Werror", "-std=c11", "-o"])
        .arg(&program)
        .arg(&source)
        .status()
        .expect("cc runs");
    assert!(built.success(), "the example compiles warning-free");
    // Small sizes and short walks: this checks the example and its
    // metric, not the machine's caches.
    let command = format!("{} {{kib}} 200000", program.display());
    let out = s
        .perflab()
        .args(["sweep", "-p", "kib=4,64", &command, "--quiet"])
        .args(["--measure", "ns_per_access", "--better", "lower"])
        .args([
            "--per-item",
            "--size",
            "kib",
            "--min-runs",
            "2",
            "--max-runs",
            "3",
        ])
        .args(["--json", "s.json"])
        .output()
        .unwrap();
    stdout_of_success(&out);
    let json = s.json("s.json");
    let points = json["sweep"]["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    for point in points {
        let value = point["results"][0]["value"]["estimate"].as_f64().unwrap();
        assert!(value > 0.0 && value < 1000.0, "ns per access: {point}");
    }
}
