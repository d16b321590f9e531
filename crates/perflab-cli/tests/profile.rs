//! `perflab profile` on real programs under real perf.

mod common;
mod native;

use common::Scratch;
use native::{compile_c, require_tool, two_costs_source};
use serde_json::Value;

/// Iterations of `light`; `heavy` does three times as many. About 0.7 s of CPU.
const ITERATIONS: &str = "150000000";

fn function<'a>(profile: &'a Value, name: &str) -> &'a Value {
    profile["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not in the profile: {profile:#}"))
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

#[test]
fn a_profile_ranks_two_functions_of_known_cost_and_its_intervals_hold_the_truth() {
    require_tool("perf");
    let s = Scratch::new();
    let prog = compile_c(s.dir.path(), "twocosts", &two_costs_source(11), &[]);
    let out = s
        .perflab()
        .args([
            "profile",
            "--confidence",
            "0.99",
            "--json",
            "p.json",
            "--svg",
            "f.svg",
            "--",
        ])
        .arg(&prog)
        .arg(ITERATIONS)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let json = s.json("p.json");
    assert_eq!(json["format"], "perflab-sampling/1");
    let profile = &json["profiles"][0];
    let samples = profile["samples"].as_u64().unwrap();
    assert!(samples > 300, "too few samples for this test: {samples}");
    let (heavy, light) = (function(profile, "heavy"), function(profile, "light"));
    let top: Vec<&str> = profile["functions"]
        .as_array()
        .unwrap()
        .iter()
        .take(2)
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(top, ["heavy", "light"], "ranked by self share");
    // The truth: of the time in the two functions, 3/4 is in heavy and 1/4 in
    // light (the rest of the run, start-up and kernel, is outside both).
    let in_both = f(&heavy["self_share"]) + f(&light["self_share"]);
    for (share, truth) in [(heavy, 0.75 * in_both), (light, 0.25 * in_both)] {
        let ci = &share["self_ci"];
        assert!(
            f(&ci[0]) <= truth && truth <= f(&ci[1]),
            "{} self share {} with interval {ci} misses the truth {truth}",
            share["name"],
            share["self_share"]
        );
        assert!(share["self_samples"].as_u64().unwrap() > 0);
    }
    let main = function(profile, "__libc_start_call_main");
    assert!(f(&main["inclusive_share"]) > 0.95, "{main}");
    let svg = std::fs::read_to_string(s.path("f.svg")).unwrap();
    assert!(svg.contains("heavy") && svg.contains("light"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("by self share") && stdout.contains("heavy"),
        "{stdout}"
    );
    assert!(s.store().exists());
}

#[test]
fn a_differential_profile_shows_which_function_moved() {
    require_tool("perf");
    let s = Scratch::new();
    let prog = compile_c(s.dir.path(), "twocosts", &two_costs_source(12), &[]);
    let baseline = format!("{} {ITERATIONS} 3", prog.display());
    let out = s
        .perflab()
        .args(["profile", "--json", "d.json", "--baseline", &baseline, "--"])
        .arg(&prog)
        .args([ITERATIONS, "1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let json = s.json("d.json");
    assert_eq!(json["profiles"].as_array().unwrap().len(), 2);
    let heavy = json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "heavy")
        .unwrap();
    // heavy falls from 3/4 to 1/2 of the time: -25 points.
    assert_eq!(heavy["moved"], true, "{heavy}");
    let ci = &heavy["self_ci"];
    assert!(f(&ci[1]) < 0.0, "{heavy}");
    assert!(
        f(&ci[0]) < -0.25 + 0.02 && -0.25 - 0.02 < f(&ci[1]),
        "{heavy}"
    );
    assert!(s.path("flamegraph-diff.svg").exists());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("shares that moved"), "{stdout}");
    // The report reads the stored profile back: both tables and what moved.
    let out = s
        .perflab()
        .args(["report", "--markdown", "r.md", "--html", "r.html"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let markdown = std::fs::read_to_string(s.path("r.md")).unwrap();
    assert!(
        markdown.contains("### profile #1")
            && markdown.contains("| function (by self share) | samples | share | interval |")
            && markdown.contains("**Shares that moved** from A")
            && markdown.contains("| `heavy` |"),
        "{markdown}"
    );
    let html = std::fs::read_to_string(s.path("r.html")).unwrap();
    assert!(
        html.contains(r#"data-chart="flamegraph""#) && !html.contains("<script"),
        "the flame graph is inlined without its script"
    );
}

#[test]
fn a_command_that_does_not_exist_is_named_and_is_bad_input() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["profile", "--", "./no-such-program", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'./no-such-program'") && err.contains("does not exist"),
        "{err}"
    );
}

#[test]
fn without_perf_the_message_says_how_to_install_it() {
    let s = Scratch::new();
    let empty = s.path("empty-path");
    std::fs::create_dir(&empty).unwrap();
    let out = s
        .perflab()
        .env("PATH", &empty)
        .args(["profile", "--", "/bin/true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("perf: is not installed"), "{err}");
    assert!(err.contains("apt-get install linux-perf"), "{err}");
}

#[test]
fn a_stripped_binary_is_profiled_with_a_warning_saying_what_is_missing_and_why() {
    require_tool("perf");
    let s = Scratch::new();
    let prog = compile_c(s.dir.path(), "stripped", &two_costs_source(13), &["-s"]);
    let out = s
        .perflab()
        .args(["profile", "--no-svg", "--json", "p.json", "--"])
        .arg(&prog)
        .arg("20000000")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("has no symbol table (it was stripped)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("[stripped]") && stderr.contains("without stripping"),
        "{stderr}"
    );
    let json = s.json("p.json");
    let warnings = json["warnings"].to_string();
    assert!(warnings.contains("no symbol table"), "{warnings}");
    let profile = &json["profiles"][0];
    assert!(
        profile["functions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["name"] != "heavy"),
        "perf cannot know the name heavy without symbols: {profile}"
    );
}

/// The off-CPU function named `name` of the stored profile at `index`.
fn off_cpu_function<'a>(json: &'a Value, index: usize, name: &str) -> &'a Value {
    json["profiles"][index]["off_cpu"]["functions"]
        .as_array()
        .expect("an off-CPU profile")
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not among the off-CPU functions: {json:#}"))
}

#[test]
fn an_off_cpu_profile_names_the_function_a_program_blocks_in_with_its_blocked_time() {
    require_tool("perf");
    let s = Scratch::new();
    let prog = compile_c(s.dir.path(), "blocking", &native::blocking_source(), &[]);
    let out = s
        .perflab()
        .args([
            "profile",
            "--off-cpu",
            "--json",
            "p.json",
            "--svg",
            "f.svg",
            "--speedscope",
            "s.json",
            "--",
        ])
        .arg(&prog)
        .arg("20")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let json = s.json("p.json");
    // Ten sleeps of 20 ms are at least 200 ms blocked in wait_for_disk (a
    // busy machine only adds the wait for a CPU after each wake-up), and
    // never more than the run's wall time.
    let wait = off_cpu_function(&json, 0, "wait_for_disk");
    let blocked = wait["blocked_ns"].as_u64().unwrap();
    let wall_ns = f(&json["profiles"][0]["wall_s"]) * 1e9;
    assert!(
        blocked >= 200_000_000 && (blocked as f64) < wall_ns,
        "{wait}"
    );
    assert!(wait["intervals"].as_u64().unwrap() >= 10, "{wait}");
    let off_cpu = &json["profiles"][0]["off_cpu"];
    assert!(
        off_cpu["blocked_ns"].as_u64().unwrap() >= blocked,
        "{off_cpu}"
    );
    assert_eq!(off_cpu["lost_events"], 0, "{off_cpu}");
    let waited_in_wait_for_disk = off_cpu["stacks"].as_array().unwrap().iter().any(|stack| {
        stack["cause"] == "blocked"
            && stack["frames"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f == "wait_for_disk")
    });
    assert!(waited_in_wait_for_disk, "{off_cpu}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("off the CPU:") && stdout.contains("wait_for_disk"),
        "{stdout}"
    );
    // One flame graph of wall time, on- and off-CPU under frames of their own.
    let svg = std::fs::read_to_string(s.path("f.svg")).unwrap();
    for frame in ["on-CPU", "off-CPU (blocked)", "wait_for_disk", "compute"] {
        assert!(svg.contains(frame), "no {frame} in the flame graph");
    }
    // The same wall time for speedscope: shared frames, one weighted sample per stack.
    let speedscope = s.json("s.json");
    let frames = speedscope["shared"]["frames"].as_array().unwrap();
    let profile = &speedscope["profiles"][0];
    assert_eq!(profile["unit"], "microseconds");
    let (samples, weights) = (
        profile["samples"].as_array().unwrap(),
        profile["weights"].as_array().unwrap(),
    );
    assert_eq!(samples.len(), weights.len());
    let in_range = |index: &Value| index.as_u64().is_some_and(|i| (i as usize) < frames.len());
    assert!(
        samples
            .iter()
            .all(|stack| stack.as_array().unwrap().iter().all(in_range))
    );
    assert!(
        frames
            .iter()
            .any(|frame| frame["name"] == "off-CPU (blocked)")
    );
    let total_us: u64 = weights.iter().map(|w| w.as_u64().unwrap()).sum();
    assert!(
        total_us * 1000 >= blocked,
        "{total_us} µs against {blocked} ns blocked"
    );
    let out = s
        .perflab()
        .args(["report", "--markdown", "r.md", "--html", "r.html"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let markdown = std::fs::read_to_string(s.path("r.md")).unwrap();
    assert!(
        markdown.contains(
            "| function (off-CPU time with it on the stack) | blocked | preempted | intervals |"
        ) && markdown.contains("| `wait_for_disk` |"),
        "{markdown}"
    );
    let html = std::fs::read_to_string(s.path("r.html")).unwrap();
    assert!(
        html.contains("off-CPU (blocked)") && html.contains("<code>wait_for_disk</code>"),
        "the page shows the off-CPU table and the wall-time flame graph"
    );
}

#[test]
fn a_differential_off_cpu_profile_shows_the_blocked_time_that_grew() {
    require_tool("perf");
    let s = Scratch::new();
    let prog = compile_c(s.dir.path(), "blocking", &native::blocking_source(), &[]);
    let baseline = format!("{} 10", prog.display());
    let out = s
        .perflab()
        .args(["profile", "--off-cpu", "--no-svg", "--json", "d.json"])
        .args(["--baseline", &baseline, "--"])
        .arg(&prog)
        .arg("30")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let json = s.json("d.json");
    let change = json["off_cpu_changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "wait_for_disk")
        .unwrap_or_else(|| panic!("{json:#}"));
    let [a, b] = [0, 1].map(|i| change["blocked_ns"][i].as_u64().unwrap());
    // 10 × 10 ms against 10 × 30 ms: at least 100 and 300 ms. Nothing more
    // is certain: a blocked interval also holds the wait for a CPU after the
    // wake-up, which under load can outweigh the sleeps' difference.
    assert!(a >= 100_000_000 && b >= 300_000_000, "{change}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("off-CPU time that moved from A to B"),
        "{stdout}"
    );
}
