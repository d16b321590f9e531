//! Results from many machines are never mixed silently: the history keeps
//! each host's series apart (`--host` picks one), and `compare` and
//! `report` warn when what they put side by side ran on different machines.
//! The hosts are set with `PERFLAB_HOST`, as a CI runner in a container does.

mod common;

use common::history::{commit_and_measure_on, repository};
use common::{Scratch, stderr_of_refusal, stdout_of_result, stdout_of_success};

/// `perflab history` with `args`, its exit code and stdout.
fn history(s: &Scratch, args: &[&str]) -> (Option<i32>, String) {
    let out = s.perflab().arg("history").args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code(), stdout)
}

/// Six commits measured on alpha, the next six on beta, a machine on which
/// the same code costs 30% more: one series of all twelve would show a
/// regression at the change of machine that no commit made.
fn two_machines_one_after_the_other() -> Scratch {
    let s = repository();
    for step in 1..=6 {
        commit_and_measure_on(&s, "alpha", step, 200.0);
    }
    for step in 7..=12 {
        commit_and_measure_on(&s, "beta", step, 260.0);
    }
    s
}

#[test]
fn a_series_never_mixes_two_hosts_and_host_selects_one() {
    let s = two_machines_one_after_the_other();
    let metric = ["--metric", "cost", "--better", "lower"];
    let (code, stdout) = history(&s, &[&metric[..], &["--json", "h.json"]].concat());
    assert_eq!(code, Some(0), "{stdout}");
    let json = s.json("h.json");
    let series = json["series"].as_array().unwrap();
    let hosts: Vec<&str> = series.iter().map(|v| v["host"].as_str().unwrap()).collect();
    assert_eq!(hosts, ["alpha", "beta"], "{stdout}");
    for one in series {
        assert_eq!(one["steps"].as_array().unwrap().len(), 6, "{stdout}");
        assert!(one.get("change_points").is_none(), "{stdout}");
    }
    assert!(
        stdout.contains("variant insert-10K on alpha")
            && stdout.contains("variant insert-10K on beta"),
        "{stdout}"
    );

    let (code, stdout) = history(
        &s,
        &[&metric[..], &["--host", "beta", "--json", "b.json"]].concat(),
    );
    assert_eq!(code, Some(0), "{stdout}");
    let json = s.json("b.json");
    assert_eq!(json["series"].as_array().unwrap().len(), 1);
    assert_eq!(json["series"][0]["host"], "beta");
    assert!(!stdout.contains("on alpha"), "{stdout}");
}

#[test]
fn the_listing_shows_hosts_only_when_there_are_several_and_an_unknown_host_is_refused() {
    let s = repository();
    commit_and_measure_on(&s, "alpha", 1, 200.0);
    let (_, one_host) = history(&s, &[]);
    assert!(!one_host.contains("alpha"), "{one_host}");
    commit_and_measure_on(&s, "beta", 2, 200.0);
    commit_and_measure_on(&s, "beta", 3, 200.0);
    let (code, listing) = history(&s, &[]);
    assert_eq!(code, Some(0));
    let header = listing.lines().next().unwrap();
    assert!(header.contains("host"), "{listing}");
    let hosts: Vec<&str> = listing
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().nth(2).unwrap())
        .collect();
    assert_eq!(hosts, ["beta", "beta", "alpha"], "{listing}");

    let (_, beta) = history(&s, &["--host", "beta"]);
    assert_eq!(beta.lines().count(), 3, "{beta}");
    assert!(!beta.contains("alpha"), "{beta}");

    let out = s
        .perflab()
        .args(["history", "--host", "gamma"])
        .output()
        .unwrap();
    let stderr = stderr_of_refusal(&out);
    assert!(
        stderr.contains("--host") && stderr.contains("'gamma'") && stderr.contains("alpha, beta"),
        "{stderr}"
    );
}

#[test]
fn change_points_are_judged_within_each_host() {
    let s = two_machines_one_after_the_other();
    common::history::cost_is_lower_better(&s);
    let (code, stdout) = history(
        &s,
        &["--changes", "--name", "insert-10K", "--metric", "cost"],
    );
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.starts_with(
            "perflab history --changes: 0 change points in 2 series (name, metric, variant, host)"
        ),
        "{stdout}"
    );
    // Both hosts are still measured: each one's newest commit watches its series.
    assert!(stdout.contains("2 of them watched"), "{stdout}");

    // A regression on beta is beta's, and named with it.
    for step in 13..=18 {
        commit_and_measure_on(&s, "beta", step, 320.0);
    }
    let (code, stdout) = history(
        &s,
        &["--changes", "--name", "insert-10K", "--metric", "cost"],
    );
    assert_eq!(code, Some(3), "{stdout}");
    let change_lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains(" → ") && l.contains("p = "))
        .collect();
    assert_eq!(change_lines.len(), 1, "{stdout}");
    assert!(change_lines[0].contains("beta"), "{stdout}");
    assert!(
        stdout.contains(
            "regression: the newest change point of insert-10K cost (insert-10K) on beta is NO-GO"
        ),
        "{stdout}"
    );
    let (code, stdout) = history(
        &s,
        &[
            "--changes",
            "--name",
            "insert-10K",
            "--metric",
            "cost",
            "--host",
            "alpha",
        ],
    );
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("0 change points in 1 series"), "{stdout}");
}

#[test]
fn an_imported_file_belongs_to_the_machine_it_names() {
    let s = repository();
    commit_and_measure_on(&s, "laptop", 1, 200.0);
    let row = |t: f64| {
        serde_json::json!({"name": "BM_a", "run_name": "BM_a", "run_type": "iteration",
            "real_time": t, "cpu_time": t, "time_unit": "ns"})
    };
    let gbench = serde_json::json!({
        "context": {"host_name": "ci-runner-7", "num_cpus": 64},
        "benchmarks": [row(10.0), row(11.0), row(10.5)]
    });
    s.write("gbench.json", &gbench.to_string());
    let out = s
        .perflab()
        .env("PERFLAB_HOST", "laptop")
        .args(["import", "gbench.json", "--name", "codec"])
        .output()
        .unwrap();
    stdout_of_success(&out);
    let (code, listing) = history(&s, &["--host", "ci-runner-7"]);
    assert_eq!(code, Some(0), "{listing}");
    assert_eq!(listing.lines().count(), 2, "{listing}");
    assert!(listing.contains("codec"), "{listing}");
    let out = s.perflab().args(["report", "codec"]).output().unwrap();
    let report = stdout_of_success(&out);
    assert!(
        report.contains("host ci-runner-7 (64 logical cores)"),
        "{report}"
    );
}

/// `perflab run` of a short command on `host`, its result written to `json`.
fn run_on(s: &Scratch, host: &str, json: &str) {
    let out = s
        .perflab()
        .env("PERFLAB_HOST", host)
        .args(["run", "-r", "6", "--json", json, "true"])
        .output()
        .unwrap();
    stdout_of_result(&out);
}

/// Rewrites one provenance field of a result document written by `--json`.
fn set_provenance(s: &Scratch, json: &str, field: &str, value: serde_json::Value) {
    let mut doc = s.json(json);
    doc["provenance"][field] = value;
    std::fs::write(s.path(json), doc.to_string()).unwrap();
}

const WARNING: &str = "ran on different machines";
const DESCRIPTION: &str = "described differently";

#[test]
fn compare_warns_when_the_sides_ran_on_different_machines() {
    let s = Scratch::new();
    run_on(&s, "alpha", "a.json");
    run_on(&s, "beta", "b.json");
    run_on(&s, "alpha", "a2.json");
    let compare = |a: &str, b: &str| {
        let out = s
            .perflab()
            .args(["compare", a, b, "--json", "c.json", "--markdown", "c.md"])
            .output()
            .unwrap();
        let stdout = stdout_of_result(&out);
        let markdown = std::fs::read_to_string(s.path("c.md")).unwrap();
        (stdout, markdown, s.json("c.json"))
    };

    let (stdout, markdown, json) = compare("a.json", "a2.json");
    for text in [&stdout, &markdown, &json["warnings"].to_string()] {
        assert!(
            !text.contains(WARNING) && !text.contains(DESCRIPTION),
            "{text}"
        );
    }

    let (stdout, markdown, json) = compare("a.json", "b.json");
    let named = "the baseline (a.json) and the candidate (b.json) ran on different machines: \
                 the baseline (a.json) on alpha (";
    assert!(
        stdout.contains(named) && stdout.contains("the candidate (b.json) on beta ("),
        "{stdout}"
    );
    assert!(markdown.contains(named), "{markdown}");
    assert!(json["warnings"].to_string().contains(named), "{json}");

    // The same host name on another machine (a resized virtual machine).
    set_provenance(
        &s,
        "a2.json",
        "memory_bytes",
        serde_json::json!(64u64 << 30),
    );
    set_provenance(&s, "a.json", "memory_bytes", serde_json::json!(32u64 << 30));
    let (stdout, _, json) = compare("a.json", "a2.json");
    let described =
        "ran on host alpha described differently (32.0 GiB memory against 64.0 GiB memory)";
    assert!(stdout.contains(described), "{stdout}");
    assert!(json["warnings"].to_string().contains(described), "{json}");
}

#[test]
fn a_report_of_experiments_from_different_machines_warns_on_each_other_one() {
    let s = Scratch::new();
    run_on(&s, "alpha", "1.json");
    run_on(&s, "beta", "2.json");
    run_on(&s, "alpha", "3.json");
    let out = s
        .perflab()
        .args([
            "report",
            "1",
            "2",
            "3",
            "--markdown",
            "r.md",
            "--html",
            "r.html",
        ])
        .output()
        .unwrap();
    stdout_of_success(&out);
    let markdown = std::fs::read_to_string(s.path("r.md")).unwrap();
    let html = std::fs::read_to_string(s.path("r.html")).unwrap();
    let warning = "run #1 and run #2 ran on different machines: run #1 on alpha (";
    assert!(markdown.contains(warning), "{markdown}");
    assert!(html.contains(warning), "{html}");
    assert_eq!(markdown.matches(WARNING).count(), 1, "{markdown}");

    // Experiment 3 ran on alpha too, but its kernel was another one.
    let db = rusqlite::Connection::open(s.store()).unwrap();
    db.execute(
        "UPDATE experiments SET result_json = json_set(result_json, '$.provenance.kernel', '9.9.9') WHERE id = 3",
        [],
    )
    .unwrap();
    let out = s
        .perflab()
        .args(["report", "1", "3", "--markdown", "r.md"])
        .output()
        .unwrap();
    stdout_of_success(&out);
    let markdown = std::fs::read_to_string(s.path("r.md")).unwrap();
    assert!(
        markdown.contains("ran on host alpha described differently (kernel "),
        "{markdown}"
    );
    assert!(markdown.contains(" against kernel 9.9.9)"), "{markdown}");
}
