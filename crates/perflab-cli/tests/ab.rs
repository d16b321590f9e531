//! `perflab ab` run for real: processes, store, verdicts and exit codes.

mod common;

use common::{Scratch, busy};

fn verdict(s: &Scratch) -> String {
    s.json("r.json")["verdict"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[test]
fn identical_commands_give_neutral_or_inconclusive_never_go_or_nogo() {
    let s = Scratch::new();
    let cmd = busy(20_000);
    let out = s
        .perflab()
        .args(["ab", &cmd, &cmd, "--max-runs", "20", "--json", "r.json"])
        .output()
        .unwrap();
    let code = out.status.code().unwrap();
    assert!(
        code == 0 || code == 4,
        "exit {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = verdict(&s);
    assert!(v == "NEUTRAL" || v == "INCONCLUSIVE", "verdict {v}");
}

#[test]
fn a_candidate_doing_clearly_more_work_gives_nogo_with_exit_3() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            &busy(20_000),
            &busy(40_000),
            "--json",
            "r.json",
            "--max-runs",
            "40",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(verdict(&s), "NO-GO");
    let json = s.json("r.json");
    let change = json["change"].as_f64().unwrap();
    assert!(change < -0.2, "change {change}");
}

#[test]
fn a_candidate_doing_clearly_less_work_gives_go_and_the_json_holds_every_sample() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            &busy(40_000),
            &busy(20_000),
            "--json",
            "r.json",
            "--markdown",
            "r.md",
            "--max-runs",
            "40",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let json = s.json("r.json");
    assert_eq!(json["verdict"], "GO");
    let ci = json["ci"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() >= 0.01);
    for v in json["variants"].as_array().unwrap() {
        let runs = v["runs"].as_u64().unwrap() as usize;
        assert!(runs >= 10);
        assert_eq!(v["samples"].as_array().unwrap().len(), runs);
    }
    let md = std::fs::read_to_string(s.path("r.md")).unwrap();
    assert!(md.contains("**GO**"), "{md}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("verdict: GO"), "{stdout}");
}

#[test]
fn environment_overrides_make_the_variants_and_metric_lines_decide() {
    let s = Scratch::new();
    let cmd = r#"if [ "$FAST" = 1 ]; then echo 'PERFLAB_METRIC tp 120 ops/s'; else echo 'PERFLAB_METRIC tp 100 ops/s'; fi"#;
    let out = s
        .perflab()
        .args([
            "ab",
            cmd,
            "--env-b",
            "FAST=1",
            "--measure",
            "tp",
            "--better",
            "higher",
            "--json",
            "r.json",
        ])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let json = s.json("r.json");
    assert_eq!(json["verdict"], "GO");
    assert!((json["change"].as_f64().unwrap() - 0.2).abs() < 1e-9);
    assert_eq!(json["metric"]["unit"], "ops/s");
}

#[test]
fn a_regex_metric_with_a_suffix_is_extracted_and_decides_nogo() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            "echo 'Throughput = 46.94M ops/s'",
            "echo 'Throughput = 40.00M ops/s'",
            "--metric",
            "tp=Throughput = ([0-9.]+[KMG]?)",
            "--measure",
            "tp",
            "--better",
            "higher",
            "--json",
            "r.json",
        ])
        .output()
        .unwrap();
    common::assert_exit(&out, 3);
    let json = s.json("r.json");
    assert_eq!(json["variants"][0]["samples"][0].as_f64(), Some(46.94e6));
}

#[test]
fn a_command_that_does_not_exist_is_named_with_exit_2() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["ab", "no-such-program-xyz", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("could not find the program"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_failing_run_stops_with_exit_2_and_its_runs_stay_in_the_store() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["ab", "true", "echo oops; exit 3", "--warmup", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("exited with code 3") && err.contains("| oops"),
        "{err}"
    );
    assert!(err.contains("marked incomplete"), "{err}");
    let db = rusqlite::Connection::open(s.store()).unwrap();
    let status: String = db
        .query_row("SELECT status FROM experiments", [], |r| r.get(0))
        .unwrap();
    assert_eq!(status, "incomplete");
    let runs: i64 = db
        .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert!(runs >= 1);
}

#[test]
fn ignore_failure_measures_failing_runs_too() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            "exit 1",
            "exit 1",
            "--ignore-failure",
            "--max-runs",
            "10",
            "--json",
            "r.json",
        ])
        .output()
        .unwrap();
    // The runs were measured to a result; which verdict ten pairs of a 1 ms
    // command give is noise and not what this test is about.
    common::assert_reached_a_result(&out);
    let runs = s.json("r.json")["variants"][0]["runs"].as_u64().unwrap();
    assert!(runs >= 10, "{runs} runs measured");
}

#[test]
fn a_metric_the_run_did_not_print_is_an_error_that_shows_its_output() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            "echo hello",
            "echo hello",
            "--measure",
            "latency",
            "--better",
            "lower",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("PERFLAB_METRIC latency") && err.contains("| hello"),
        "{err}"
    );
}

#[test]
fn an_extracted_metric_without_a_direction_is_refused() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["ab", "true", "true", "--measure", "tp"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--better higher"));
}

#[test]
fn a_run_past_its_timeout_is_killed_and_reported() {
    let s = Scratch::new();
    let started = std::time::Instant::now();
    let out = s
        .perflab()
        .args([
            "ab",
            "sleep 30",
            "true",
            "--timeout",
            "300ms",
            "--warmup",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("timeout"));
    assert!(started.elapsed().as_secs() < 20, "the sleep was not killed");
}

#[test]
fn bad_thresholds_and_missing_commands_are_usage_errors() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["ab", "true", "true", "--go", "-1%", "--nogo", "1%"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // In the percentages the user typed, with the fix.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--go -1.00% and --nogo +1.00%"), "{stderr}");
    assert!(stderr.contains("--nogo must be below --go"), "{stderr}");
    let out = s
        .perflab()
        .args(["ab", "true", "true", "--max-runs", "5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("raise --max-runs or lower --min-runs"),
        "{stderr}"
    );
    let out = s.perflab().args(["ab"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("baseline and a candidate"));
}

#[test]
fn an_output_file_that_cannot_be_written_is_refused_before_any_run() {
    let s = Scratch::new();
    std::fs::create_dir(s.path("results")).unwrap();
    let out = s
        .perflab()
        .args(["ab", "touch ran-a", "touch ran-b", "--markdown", "results"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--markdown") && stderr.contains("is a directory"),
        "{stderr}"
    );
    assert!(!s.path("ran-a").exists(), "nothing ran");
    s.write("notes.txt", "a file, not a folder");
    let out = s
        .perflab()
        .args(["report", "--html", "notes.txt/report.html"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is a file, not a folder"), "{stderr}");
}

#[test]
fn variants_that_print_different_answers_are_warned_about() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            "echo sum 42",
            "echo sum 41",
            "--quiet",
            "--json",
            "r.json",
        ])
        .args(["--max-runs", "10"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("check that the variants do the same work")
            && stdout.contains("A printed `sum 42` where B printed `sum 41`"),
        "{stdout}"
    );
    assert_eq!(s.json("r.json")["warnings"].as_array().unwrap().len(), 1);
    // The same answer, and metric lines that differ, give no warning.
    let out = s
        .perflab()
        .args(["ab", "--quiet", "--max-runs", "10"])
        .args([
            "echo sum 42; echo PERFLAB_METRIC n $$",
            "echo sum 42; echo PERFLAB_METRIC n $$",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("warning"), "{stdout}");
}

#[test]
fn history_lists_the_experiment_with_its_verdict() {
    let s = Scratch::new();
    s.perflab()
        .args([
            "ab",
            &busy(30_000),
            &busy(10_000),
            "--max-runs",
            "30",
            "--name",
            "loops",
        ])
        .output()
        .unwrap();
    let out = s.perflab().args(["history"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().any(|line| line.contains(" ab ")
            && line.contains("loops: A vs B")
            && line.split_whitespace().any(|word| word == "GO")),
        "{text}"
    );
}

#[test]
fn ctrl_c_stops_the_experiment_and_keeps_the_finished_runs_marked_incomplete() {
    let s = Scratch::new();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_perflab"))
        .current_dir(s.dir.path())
        .args([
            "ab",
            "sleep 0.1",
            "sleep 0.1",
            "--warmup",
            "0",
            "--max-runs",
            "200",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    common::assert_exit(&out, 130);
    assert!(String::from_utf8_lossy(&out.stderr).contains("kept"));
    let db = rusqlite::Connection::open(s.store()).unwrap();
    let (status, runs): (String, i64) = db
        .query_row(
            "SELECT status, (SELECT COUNT(*) FROM runs) FROM experiments",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(status, "incomplete");
    assert!(runs >= 4, "only {runs} runs kept");
}

/// Runs kept in the store so far (0 before the store exists).
fn stored_runs(s: &Scratch) -> i64 {
    rusqlite::Connection::open(s.store())
        .and_then(|db| db.query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0)))
        .unwrap_or(0)
}

/// A decision below the default minimum of 10 pairs projects at least the
/// pairs that reach it, or says that no number within reach would decide.
fn needs_at_least_the_minimum(decision: &serde_json::Value) {
    let pairs = decision["runs"].as_u64().unwrap();
    assert!(pairs < 10, "{decision}");
    match decision["runs_needed"].as_u64() {
        Some(needed) => assert!(pairs + needed >= 10, "{decision}"),
        None => assert!(
            decision["runs_needed_note"]
                .as_str()
                .is_some_and(|n| n.contains("no number")),
            "{decision}"
        ),
    }
}

#[test]
fn ctrl_c_below_the_minimum_runs_gives_inconclusive_with_the_runs_still_needed() {
    let s = Scratch::new();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_perflab"))
        .current_dir(s.dir.path())
        .args([
            "ab",
            "sleep 0.3",
            "sleep 0.3",
            "--warmup",
            "0",
            "--json",
            "r.json",
            // It counts its own runs: none may be measured again.
            "--max-cpu-wait",
            "off",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Three pairs, then Ctrl-C: far below the default --min-runs of 10.
    while stored_runs(&s) < 6 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    common::assert_exit(&out, 130);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("verdict: INCONCLUSIVE"), "{stdout}");
    assert!(stdout.contains("of the 10 pairs needed"), "{stdout}");
    let result = s.json("r.json");
    assert_eq!(result["verdict"], "INCONCLUSIVE");
    needs_at_least_the_minimum(&result["decision"]);
    let db = rusqlite::Connection::open(s.store()).unwrap();
    let (status, stored): (String, String) = db
        .query_row("SELECT status, verdict FROM experiments", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(
        (status.as_str(), stored.as_str()),
        ("incomplete", "INCONCLUSIVE")
    );
}

#[test]
fn max_time_below_the_minimum_runs_gives_inconclusive() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            "sleep 0.2",
            "sleep 0.2",
            "--warmup",
            "0",
            "--max-time",
            "1s",
            "--json",
            "r.json",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("verdict: INCONCLUSIVE"), "{stdout}");
    let result = s.json("r.json");
    assert_eq!(result["verdict"], "INCONCLUSIVE");
    needs_at_least_the_minimum(&result["decision"]);
}

#[test]
fn two_pairs_of_a_clear_change_give_no_verdict_and_say_how_many_pairs_are_needed() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["ab", "sleep 0.01", "sleep 0.05", "--warmup", "0"])
        .args(["--min-runs", "2", "--max-runs", "2", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_exit(&out, 4);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("only 2 pairs, and a verdict at 95% confidence needs at least 4"),
        "{stdout}"
    );
    assert_eq!(s.json("r.json")["verdict"], "INCONCLUSIVE");
}

#[test]
fn a_malformed_guard_floor_is_refused_with_exit_2_naming_the_flag_and_an_example() {
    let s = Scratch::new();
    for spec in [
        "peak-memory:10%+8",
        "peak-memory:10%+8XB",
        "peak-memory:ten%+8MiB",
    ] {
        let out = s
            .perflab()
            .args(["ab", "true", "true", "--guard", spec])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{spec}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--guard"), "{spec}: {err}");
        assert!(err.contains("peak-memory:10%+8MiB"), "{spec}: {err}");
    }
}

#[test]
fn a_guard_with_a_floor_is_reported_as_the_growth_of_its_metric() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            "true",
            "true",
            "--guard",
            "peak-memory:10%+8MiB",
            "--max-runs",
            "12",
            "--json",
            "r.json",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("guard peak memory ") && text.contains(" → "),
        "{text}"
    );
    assert!(
        text.contains("may grow by at most +10.0% or +8.0 MiB, whichever is larger"),
        "{text}"
    );
    let json = s.json("r.json");
    let guard = &json["guards"][0];
    assert_eq!(guard["floor"].as_f64(), Some(8192.0));
    assert_eq!(guard["unit"].as_str(), Some("KiB"));
    assert!(guard["medians"][1].as_f64().is_some(), "{guard}");
    assert!(guard["difference_ci"][1].as_f64().is_some(), "{guard}");
}
