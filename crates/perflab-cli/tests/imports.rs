//! `perflab compare` and `perflab import` on real output of benchmark
//! harnesses (criterion, Google Benchmark, pytest-benchmark, go test
//! -bench), produced here by running them on tiny benchmarks of which one
//! does thirty times the work in the "slow" runs.
//!
//! The thresholds are wide (GO at +400 %, NO-GO at -80 %: five times faster
//! or slower; the change is old/new - 1) because the two runs are made one
//! after the other on a shared machine, not interleaved: a load that changes
//! between them moves every benchmark. On a machine with a load average of
//! 14 on 2 cores, an unchanged Go benchmark measured +58 % [+10 %, +116 %]
//! between two runs a second apart, and an unchanged Google Benchmark one
//! went past +75 % in CPU time while the test suite ran beside it. These
//! tests are about reading the harnesses and matching benchmarks, not about
//! small changes; the changed benchmark does thirty times the work and
//! moves by about -97 %.

mod common;

use common::harnesses::{WIDE, assert_only_changed_is_no_go, verdicts};
use common::{Scratch, assert_exit, harnesses, stderr_of_refusal};

/// `perflab compare OLD NEW` with the wide thresholds, asserting its exit
/// code (showing what it printed when it is another).
fn compare(s: &Scratch, old: &str, new: &str, extra: &[&str], code: i32) -> std::process::Output {
    let out = s
        .perflab()
        .args([
            "compare",
            old,
            new,
            "--json",
            "r.json",
            "--markdown",
            "r.md",
        ])
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

#[test]
fn criterion_baselines_of_a_changed_benchmark_give_no_go_for_it_alone() {
    let s = Scratch::new();
    let home = s.path("criterion");
    harnesses::criterion(&home, "before", false);
    harnesses::criterion(&home, "after", true);
    compare(&s, "criterion#before", "criterion#after", &[], 3);
    assert_only_changed_is_no_go(&s.json("r.json"), "sum/slow-able", 1);
    let markdown = std::fs::read_to_string(s.path("r.md")).unwrap();
    assert!(markdown.contains("| benchmark | after |"), "{markdown}");
    assert!(markdown.contains("geometric mean"), "{markdown}");

    // One benchmark's sample.json on each side: a single comparison.
    let one = |b: &str| format!("criterion/sum/slow-able/{b}/sample.json");
    compare(&s, &one("before"), &one("after"), &[], 3);
    assert_eq!(s.json("r.json")["verdict"], "NO-GO");

    // Without a baseline the folder is ambiguous: it holds three.
    let out = s
        .perflab()
        .args(["compare", "criterion", "criterion#after"])
        .output()
        .unwrap();
    let err = stderr_of_refusal(&out);
    assert!(
        err.contains("after, before, new") && err.contains("criterion#NAME"),
        "{err}"
    );
}

#[test]
fn google_benchmark_repetitions_give_no_go_for_the_changed_benchmark_alone() {
    let s = Scratch::new();
    s.write("old.json", &harnesses::google_benchmark(false, Some(10)));
    s.write("new.json", &harnesses::google_benchmark(true, Some(10)));
    // CPU time: the wall time of a loaded machine varies more between runs.
    let out = compare(&s, "old.json", "new.json", &["--measure", "cpu"], 3);
    let json = s.json("r.json");
    assert_only_changed_is_no_go(&json, "BM_SlowAble", 1);
    assert_eq!(json["metric"]["name"], "cpu");
    assert_eq!(json["metric"]["unit"], "s");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("BM_Steady") && stdout.contains("geometric mean"),
        "{stdout}"
    );
}

#[test]
fn a_google_benchmark_run_without_repetitions_is_refused_with_the_flag_to_add() {
    let s = Scratch::new();
    s.write("old.json", &harnesses::google_benchmark(false, None));
    s.write("new.json", &harnesses::google_benchmark(false, None));
    let out = s
        .perflab()
        .args(["compare", "old.json", "new.json"])
        .output()
        .unwrap();
    let err = stderr_of_refusal(&out);
    assert!(
        err.contains("--benchmark_repetitions=10") && err.contains("old.json"),
        "{err}"
    );
}

#[test]
fn pytest_benchmark_rounds_give_no_go_for_the_changed_benchmark_alone() {
    let s = Scratch::new();
    harnesses::pytest_benchmark(&s.path("old.json"), false, false);
    harnesses::pytest_benchmark(&s.path("new.json"), true, false);
    compare(&s, "old.json", "new.json", &[], 3);
    assert_only_changed_is_no_go(&s.json("r.json"), "test_sums.py::test_slow_able", 1);
}

#[test]
fn pytest_benchmark_json_without_its_rounds_asks_for_save_data() {
    let s = Scratch::new();
    harnesses::pytest_benchmark(&s.path("old.json"), false, true);
    let out = s
        .perflab()
        .args(["compare", "old.json", "old.json"])
        .output()
        .unwrap();
    let err = stderr_of_refusal(&out);
    assert!(err.contains("--benchmark-save-data"), "{err}");
}

#[test]
fn go_test_bench_counts_give_no_go_for_the_changed_benchmark_and_allocations_do_not_change() {
    let s = Scratch::new();
    s.write("old.txt", &harnesses::go_bench(false));
    s.write("new.txt", &harnesses::go_bench(true));
    compare(&s, "old.txt", "new.txt", &[], 3);
    assert_only_changed_is_no_go(&s.json("r.json"), "BenchmarkSlowAble", 1);
    // Neither benchmark allocates: the same count on both sides is no change.
    compare(&s, "old.txt", "new.txt", &["--measure", "allocs/op"], 0);
    let json = s.json("r.json");
    assert!(
        verdicts(&json).iter().all(|(_, v)| v == "NEUTRAL"),
        "{json}"
    );
    // One benchmark picked from each file: a single comparison.
    compare(
        &s,
        "old.txt#BenchmarkSteady",
        "new.txt#BenchmarkSlowAble",
        &[],
        3,
    );
    assert!(s.json("r.json").get("cells").is_none());
}

#[test]
fn benchmarks_on_one_side_only_are_listed_and_no_name_in_common_is_refused() {
    let s = Scratch::new();
    let go = harnesses::go_bench(false);
    let steady_only: String = go
        .lines()
        .filter(|l| !l.contains("SlowAble"))
        .map(|l| format!("{l}\n"))
        .collect();
    s.write("old.txt", &go);
    s.write("new.txt", &steady_only);
    let out = s
        .perflab()
        .args(["compare", "old.txt", "new.txt", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let json = s.json("r.json");
    assert_eq!(verdicts(&json).len(), 1, "{json}");
    let warnings = json["warnings"].to_string();
    assert!(
        warnings.contains("only in old, so not compared: BenchmarkSlowAble"),
        "{warnings}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("only in old"));

    s.write("g.json", &harnesses::google_benchmark(false, Some(3)));
    let out = s
        .perflab()
        .args(["compare", "old.txt", "g.json"])
        .output()
        .unwrap();
    let err = stderr_of_refusal(&out);
    assert!(
        err.contains("no benchmark name in common")
            && err.contains("BenchmarkSteady")
            && err.contains("BM_Steady"),
        "{err}"
    );
}

#[test]
fn a_file_of_no_known_format_and_an_empty_folder_are_refused_saying_what_was_found() {
    let s = Scratch::new();
    s.write("odd.json", r#"{"measurements": [1, 2, 3]}"#);
    let out = s
        .perflab()
        .args(["compare", "odd.json", "odd.json"])
        .output()
        .unwrap();
    let err = stderr_of_refusal(&out);
    assert!(
        err.contains("odd.json") && err.contains("none of the formats"),
        "{err}"
    );
    std::fs::create_dir(s.path("criterion")).unwrap();
    let out = s
        .perflab()
        .args(["compare", "criterion", "criterion"])
        .output()
        .unwrap();
    let err = stderr_of_refusal(&out);
    assert!(
        err.contains("without criterion samples") && err.contains("cargo bench"),
        "{err}"
    );
    let out = s
        .perflab()
        .args(["compare", "odd.json", "odd.json", "--format", "gbench"])
        .output()
        .unwrap();
    let err = stderr_of_refusal(&out);
    assert!(
        err.contains("--format") && err.contains("google-benchmark"),
        "{err}"
    );
}

#[test]
fn imported_results_make_a_history_whose_newest_step_is_the_regression() {
    let s = Scratch::new();
    s.write("old.txt", &harnesses::go_bench(false));
    s.write("new.txt", &harnesses::go_bench(true));
    for file in ["old.txt", "new.txt"] {
        let out = s
            .perflab()
            .args(["import", file, "--name", "sums"])
            .output()
            .unwrap();
        assert_exit(&out, 0);
    }
    let out = s
        .perflab()
        .args([
            "history",
            "--metric",
            "wall",
            "--name",
            "sums",
            "--variant",
            "BenchmarkSlowAble",
            // Two imports are too few for change points found by shuffling
            // whole experiments; shuffling runs finds the 30x change.
            "--permute",
            "runs",
        ])
        .args(WIDE)
        .output()
        .unwrap();
    assert_exit(&out, 3);
    let listing = s.perflab().args(["history"]).output().unwrap();
    let listing = String::from_utf8_lossy(&listing.stdout);
    assert!(
        listing.contains("import") && listing.contains("BenchmarkSteady"),
        "{listing}"
    );
    let out = s
        .perflab()
        .args(["report", "sums", "--html", "r.html"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let html = std::fs::read_to_string(s.path("r.html")).unwrap();
    assert!(
        html.contains("BenchmarkSlowAble"),
        "report without the imported benchmarks"
    );
}

#[test]
fn a_comparison_of_many_benchmarks_is_shown_by_the_report_as_a_matrix() {
    let s = Scratch::new();
    s.write("old.txt", &harnesses::go_bench(false));
    s.write("new.txt", &harnesses::go_bench(true));
    compare(&s, "old.txt", "new.txt", &[], 3);
    let out = s
        .perflab()
        .args(["report", "--html", "r.html"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let html = std::fs::read_to_string(s.path("r.html")).unwrap();
    assert!(
        html.contains("suite-matrix") && html.contains("<th>benchmark</th>"),
        "no matrix"
    );
    let out = s.perflab().args(["report"]).output().unwrap();
    let markdown = String::from_utf8_lossy(&out.stdout);
    assert!(markdown.contains("| BenchmarkSlowAble |"), "{markdown}");
}

#[test]
fn the_geometric_mean_row_labels_its_verdict_as_the_whole_familys_in_every_format() {
    // The family is NO-GO because one benchmark is; the geometric mean's own
    // interval need not be below the NO-GO threshold, so the verdict beside
    // it must say it is that of all the benchmarks.
    let s = Scratch::new();
    s.write("old.txt", &harnesses::go_bench(false));
    s.write("new.txt", &harnesses::go_bench(true));
    let out = compare(&s, "old.txt", "new.txt", &[], 3);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let row = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("geometric mean"))
        .unwrap_or_else(|| panic!("no geometric-mean row: {stdout}"));
    assert!(
        row.ends_with("]; verdict of all benchmarks: NO-GO"),
        "{row}"
    );
    assert!(!row.contains("] NO-GO"), "{row}");

    let markdown = std::fs::read_to_string(s.path("r.md")).unwrap();
    let row = markdown
        .lines()
        .find(|l| l.starts_with("| **geometric mean** |"))
        .unwrap_or_else(|| panic!("no geometric-mean row: {markdown}"));
    assert!(
        row.contains("]; verdict of all benchmarks: NO-GO** |"),
        "{row}"
    );
    // Each benchmark's own verdict stays beside its own interval.
    assert!(
        markdown
            .lines()
            .any(|l| l.starts_with("| BenchmarkSlowAble |") && l.contains("] NO-GO (10 runs)")),
        "{markdown}"
    );

    let out = s
        .perflab()
        .args(["report", "--html", "r.html"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let html = std::fs::read_to_string(s.path("r.html")).unwrap();
    let summary = html
        .split(r#"<tr class="suite-summary">"#)
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .expect("the matrix has a geometric-mean row");
    assert!(
        summary.contains("verdict of all benchmarks: <strong>NO-GO</strong>"),
        "{summary}"
    );
}
