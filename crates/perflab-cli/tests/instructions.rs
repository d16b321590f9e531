//! `--measure instructions`: counts under real valgrind, on programs built in the test.

mod common;
mod native;

use common::Scratch;
use native::{LOOP_SOURCE, compile_c, require_tool};
use serde_json::Value;

fn counts(json: &Value, variant: usize) -> Vec<f64> {
    json["variants"][variant]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

/// Instructions of one counted `loop N` run, checking that two runs agree.
fn count_of(s: &Scratch, prog: &str, n: u64) -> f64 {
    let out = s
        .perflab()
        .args(["run", "--measure", "instructions", "-N", "--json", "c.json"])
        .arg(format!("{prog} {n}"))
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let c = counts(&s.json("c.json"), 0);
    assert_eq!(c.len(), 2, "two runs by default");
    assert_eq!(
        c[0], c[1],
        "counted runs of the same program repeat exactly"
    );
    c[0]
}

#[test]
fn the_counts_of_two_variants_differ_by_the_known_cost_of_the_extra_iterations() {
    require_tool("valgrind");
    let s = Scratch::new();
    let prog = compile_c(s.dir.path(), "loop", LOOP_SOURCE, &[]);
    let prog = prog.display().to_string();
    let per_iteration = count_of(&s, &prog, 1001) - count_of(&s, &prog, 1000);
    assert!((5.0..=20.0).contains(&per_iteration), "{per_iteration}");
    let extra = 5000.0;
    let out = s
        .perflab()
        .args(["ab", "--measure", "instructions", "--json", "ab.json"])
        .arg(format!("{prog} 1000"))
        .arg(format!("{prog} 6000"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(3),
        "more instructions is NO-GO: {stdout}"
    );
    let json = s.json("ab.json");
    let (a, b) = (counts(&json, 0), counts(&json, 1));
    assert_eq!(
        (a.len(), b.len()),
        (2, 2),
        "identical counts decide after two runs"
    );
    let difference = b[0] - a[0];
    let expected = extra * per_iteration;
    assert!(
        (difference - expected).abs() <= 0.02 * expected,
        "B - A = {difference}, expected {expected} (5000 x {per_iteration})"
    );
    let decision = &json["decision"];
    assert!(
        decision["method"].as_str().unwrap().starts_with("exact"),
        "{decision}"
    );
    assert_eq!(
        decision["ci"][0], decision["ci"][1],
        "an exact change is a point"
    );
    assert!(
        stdout.contains("functions whose counts changed most"),
        "{stdout}"
    );
    assert!(stdout.contains("step"), "{stdout}");
    assert!(
        stdout.contains("wall"),
        "wall time is shown beside: {stdout}"
    );
    let out = s.perflab().args(["report"]).output().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert!(
        report.contains("#### Instruction counts")
            && report.contains("**Exact**")
            && report.contains("| `step` | loop |"),
        "the report shows the counts and the function that changed: {report}"
    );
}

#[test]
fn one_run_per_variant_is_enough_when_the_user_says_the_program_is_deterministic() {
    require_tool("valgrind");
    let s = Scratch::new();
    let prog = compile_c(s.dir.path(), "loop", LOOP_SOURCE, &[]);
    let out = s
        .perflab()
        .args([
            "ab",
            "--measure",
            "instructions",
            "--min-runs",
            "1",
            "--json",
            "ab.json",
        ])
        .arg(format!("{} 5000", prog.display()))
        .arg(format!("{} 1000", prog.display()))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let json = s.json("ab.json");
    assert_eq!(json["verdict"], "GO");
    assert_eq!(counts(&json, 0).len(), 1);
    let reason = json["decision"]["reason"].as_str().unwrap();
    assert!(reason.contains("repeatability was not checked"), "{reason}");
}

#[test]
fn counted_runs_see_only_the_variables_the_user_names() {
    require_tool("valgrind");
    let s = Scratch::new();
    let needs_home = "test -n \"$HOME\"";
    let out = s
        .perflab()
        .args(["run", "--measure", "instructions", needs_home])
        .env("HOME", "/root")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("environment cleared") && err.contains("--keep-env"),
        "{err}"
    );
    let out = s
        .perflab()
        .args([
            "run",
            "--measure",
            "instructions",
            "--keep-env",
            "HOME",
            needs_home,
        ])
        .env("HOME", "/root")
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
}

#[test]
fn an_experiment_file_names_the_variables_counted_runs_keep() {
    require_tool("valgrind");
    let s = Scratch::new();
    let experiment = |keep: &str| {
        format!(
            "measure = \"instructions\"\n{keep}\n\
             [[variant]]\ncommand = 'test -n \"$HOME\"'\n\
             [[variant]]\ncommand = 'test -n \"$HOME\" && true'\n"
        )
    };
    s.write("without.toml", &experiment(""));
    s.write("with.toml", &experiment("keep_env = [\"HOME\"]"));
    let out = s
        .perflab()
        .args(["ab", "-f", "without.toml", "--quiet"])
        .env("HOME", "/root")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = s
        .perflab()
        .args(["ab", "-f", "with.toml", "--quiet"])
        .env("HOME", "/root")
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
}

#[test]
fn without_valgrind_the_message_says_how_to_install_it() {
    let s = Scratch::new();
    let empty = s.path("empty-path");
    std::fs::create_dir(&empty).unwrap();
    let out = s
        .perflab()
        .env("PATH", &empty)
        .args(["run", "--measure", "instructions", "-N", "/bin/true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("valgrind: is not installed") && err.contains("apt-get install valgrind"),
        "{err}"
    );
}
