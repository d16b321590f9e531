//! Suites through the real binary: `perflab ab -f` with [[scenario]] tables.

mod common;

use common::Scratch;
use common::suite::{SIX_CELLS, write_work};

fn run(s: &Scratch, args: &[&str]) -> std::process::Output {
    s.perflab().arg("ab").args(args).output().unwrap()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn the_example_file_of_the_documentation_runs_as_written() {
    let s = Scratch::new();
    write_work(&s);
    let guide = include_str!("../../../docs/guide/suites.md");
    let section = &guide[guide.find("# Suites").expect("a Suites section")..];
    let start = section.find("```toml\n").unwrap() + "```toml\n".len();
    let example = &section[start..start + section[start..].find("```").unwrap()];
    // Keys may be added to the file as written: a run limit keeps the test short.
    s.write(
        "suite.toml",
        &format!("max_runs = 8\nmin_runs = 4\n{example}"),
    );
    let out = run(&s, &["-f", "suite.toml", "--json", "r.json", "--quiet"]);
    common::assert_reached_a_result(&out);
    let json = s.json("r.json");
    assert_eq!(json["kind"], "suite");
    let cells = json["cells"].as_array().unwrap();
    let scenarios: Vec<&str> = cells
        .iter()
        .map(|c| c["scenario"].as_str().unwrap())
        .collect();
    assert_eq!(scenarios, ["small-objects", "mixed", "ids-sparse"]);
    assert!(cells.iter().all(|c| c["variant"] == "jemalloc"));
    let variants: Vec<&str> = json["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert!(variants.contains(&"mixed / jemalloc"), "{variants:?}");
    let ids = json["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "ids-sparse / glibc")
        .unwrap();
    assert_eq!(ids["command"], "./work ids 100000 --ids sparse");
    let mixed = json["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "mixed / jemalloc")
        .unwrap();
    assert_eq!(mixed["env"]["THREADS"], "2", "the scenario's environment");
    assert!(
        mixed["env"]["LD_PRELOAD"].is_string(),
        "and the variant's on top"
    );
}

#[test]
fn a_suite_of_six_cells_finds_the_one_cell_that_changed_and_no_other() {
    let s = Scratch::new();
    write_work(&s);
    s.write("suite.toml", SIX_CELLS);
    let out = run(
        &s,
        &[
            "-f",
            "suite.toml",
            "--json",
            "r.json",
            "--markdown",
            "r.md",
            "--quiet",
        ],
    );
    common::assert_exit(&out, 0);
    let json = s.json("r.json");
    assert_eq!(json["format"], "perflab-result/1");
    assert_eq!(json["kind"], "suite");
    assert_eq!(json["verdict"], "GO");
    assert_eq!(json["confidence"], 0.95);
    let split = 1.0 - 0.05 / 6.0;
    assert!((json["cell_confidence"].as_f64().unwrap() - split).abs() < 1e-12);
    let cells = json["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6, "three scenarios × two candidates");
    for cell in cells {
        let changed = cell["scenario"] == "beta" && cell["variant"] == "fast";
        if changed {
            assert_eq!(cell["verdict"], "GO", "{cell}");
            let ci = cell["ci"].as_array().unwrap();
            assert!(
                ci[0].as_f64().unwrap() > 0.2 && ci[1].as_f64().unwrap() < 0.3,
                "{cell}"
            );
        } else {
            assert!(
                cell["verdict"] == "NEUTRAL" || cell["verdict"] == "INCONCLUSIVE",
                "{cell}"
            );
        }
        assert!(cell["change"].is_number() && cell["runs"].as_u64().unwrap() >= 2);
        assert!(
            cell.get("baseline").is_none(),
            "baseline cells are left out"
        );
    }
    let candidates = json["candidates"].as_array().unwrap();
    assert_eq!(candidates[0]["variant"], "fast");
    assert_eq!(candidates[0]["verdict"], "GO");
    let summary = candidates[0]["change"].as_f64().unwrap();
    assert!(
        summary > 0.05 && summary < 0.1,
        "geometric mean of 20% and two 0%: {summary}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("geometric mean") && stdout.contains("beta"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(s.path("r.json")).unwrap();
    let doc = perflab_format::suite::SuiteDocument::from_json_str(&text).unwrap();
    assert_eq!(
        doc.result.variants.len(),
        9,
        "every cell's runs, baselines too"
    );
    // Each cell's runs can be compared again by name.
    let again = s
        .perflab()
        .args([
            "compare",
            "r.json#beta / base",
            "r.json#beta / fast",
            "--better",
            "lower",
        ])
        .output()
        .unwrap();
    common::assert_exit(&again, 0);
    assert!(String::from_utf8_lossy(&again.stdout).contains("GO"));
    let md = std::fs::read_to_string(s.path("r.md")).unwrap();
    assert!(md.contains("| scenario | fast | same |"), "{md}");
    let report = s
        .perflab()
        .args(["report", "six-cells", "--markdown", "rep.md"])
        .output()
        .unwrap();
    common::assert_exit(&report, 0);
    let rep = std::fs::read_to_string(s.path("rep.md")).unwrap();
    assert!(
        rep.contains("### suite #1: six-cells") && rep.contains("| beta |"),
        "{rep}"
    );
}

#[test]
fn the_scenario_flag_runs_only_the_scenarios_named() {
    let s = Scratch::new();
    write_work(&s);
    s.write("suite.toml", SIX_CELLS);
    let out = run(
        &s,
        &[
            "-f",
            "suite.toml",
            "--scenario",
            "gamma",
            "--scenario",
            "alpha",
            "--json",
            "r.json",
            "--quiet",
        ],
    );
    common::assert_reached_a_result(&out);
    let json = s.json("r.json");
    assert_eq!(json["scenarios"], serde_json::json!(["alpha", "gamma"]));
    let cells = json["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4);
    assert!(cells.iter().all(|c| c["scenario"] != "beta"));
    let gamma = json["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "gamma / same")
        .unwrap();
    assert_eq!(
        gamma["command"], "./work gamma --size 3",
        "{{args}} is filled in"
    );
}

fn refused(s: &Scratch, file: &str, extra: &[&str]) -> String {
    write_work(s);
    s.write("suite.toml", file);
    let mut args = vec!["-f", "suite.toml", "--quiet"];
    args.extend_from_slice(extra);
    let out = run(s, &args);
    common::assert_exit(&out, 2);
    stderr(&out)
}

const TWO_VARIANTS: &str = "[[variant]]\nname = \"a\"\n[[variant]]\nname = \"b\"\n";

#[test]
fn a_cell_without_a_command_is_refused_naming_the_scenario_and_its_line() {
    let s = Scratch::new();
    let err = refused(
        &s,
        &format!(
            "{TWO_VARIANTS}[[scenario]]\nname = \"one\"\ncommand = \"./work one\"\n[[scenario]]\nname = \"two\"\n"
        ),
        &[],
    );
    assert!(err.contains("suite.toml:8:1"), "{err}");
    assert!(
        err.contains("scenario 'two' has no command for variant 'a'"),
        "{err}"
    );
    assert!(err.contains("add command = "), "{err}");
}

#[test]
fn args_in_a_command_of_a_scenario_without_args_are_refused() {
    let s = Scratch::new();
    let err = refused(
        &s,
        &format!("{TWO_VARIANTS}[[scenario]]\nname = \"one\"\ncommand = \"./work {{args}}\"\n"),
        &[],
    );
    assert!(err.contains("suite.toml:5:1"), "{err}");
    assert!(
        err.contains("{args}") && err.contains("add args = "),
        "{err}"
    );
}

#[test]
fn two_scenarios_of_one_name_are_refused() {
    let s = Scratch::new();
    let err = refused(
        &s,
        &format!(
            "{TWO_VARIANTS}[[scenario]]\nname = \"one\"\ncommand = \"./work a\"\n[[scenario]]\nname = \"one\"\ncommand = \"./work b\"\n"
        ),
        &[],
    );
    assert!(err.contains("suite.toml:8:1"), "{err}");
    assert!(err.contains("scenario 'one' is named twice"), "{err}");
}

#[test]
fn an_unknown_scenario_flag_is_refused_with_the_names_there_are() {
    let s = Scratch::new();
    let err = refused(&s, SIX_CELLS, &["--scenario", "delta"]);
    assert!(err.contains("--scenario"), "{err}");
    assert!(
        err.contains("no scenario named 'delta'") && err.contains("alpha, beta, gamma"),
        "{err}"
    );
}

#[test]
fn a_suite_with_one_variant_is_refused() {
    let s = Scratch::new();
    let err = refused(
        &s,
        "[[variant]]\nname = \"a\"\n[[scenario]]\nname = \"one\"\ncommand = \"./work a\"\n",
        &[],
    );
    assert!(err.contains("at least two [[variant]]"), "{err}");
}

#[test]
fn a_run_limit_below_the_suite_minimum_is_refused_saying_why() {
    let s = Scratch::new();
    let err = refused(
        &s,
        &format!("max_runs = 12\n{SIX_CELLS}").replace("max_runs = 30\n", ""),
        &[],
    );
    assert!(
        err.contains("--max-runs: 12 is below the 20 pairs"),
        "{err}"
    );
}

#[test]
fn the_scenario_flag_without_a_suite_is_refused() {
    let s = Scratch::new();
    let out = run(&s, &["true", "true", "--scenario", "x"]);
    common::assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("no [[scenario]] tables"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn ctrl_c_stops_a_suite_and_keeps_its_finished_runs_marked_incomplete() {
    let s = Scratch::new();
    s.write(
        "suite.toml",
        "warmup = 0\nmax_runs = 200\n[[variant]]\nname = \"a\"\n[[variant]]\nname = \"b\"\n\
         [[scenario]]\nname = \"one\"\ncommand = \"sleep 0.05\"\n\
         [[scenario]]\nname = \"two\"\ncommand = \"sleep 0.05\"\n",
    );
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_perflab"))
        .current_dir(s.dir.path())
        .args(["ab", "-f", "suite.toml", "--json", "r.json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    common::assert_exit(&out, 130);
    assert!(stderr(&out).contains("kept"), "{}", stderr(&out));
    let json = s.json("r.json");
    assert_eq!(json["status"], "incomplete");
    let db = rusqlite::Connection::open(s.store()).unwrap();
    let (status, kind, runs): (String, String, i64) = db
        .query_row(
            "SELECT status, kind, (SELECT COUNT(*) FROM runs) FROM experiments",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((status.as_str(), kind.as_str()), ("incomplete", "suite"));
    assert!(runs >= 8, "only {runs} runs kept");
}

/// Two scenarios whose program reports how many disputes it handled: the
/// `dispute-heavy` scenario expects some, and its program handles none.
const DECLARED_MIX: &str = r#"measure = "wall"
min_runs = 3
max_runs = 4
[[variant]]
name = "a"
[[variant]]
name = "b"
[[scenario]]
name = "uniform"
command = "echo PERFLAB_COUNT disputes 0; echo PERFLAB_COUNT transactions 100"
[[scenario]]
name = "dispute-heavy"
command = "echo PERFLAB_COUNT disputes 0; echo PERFLAB_COUNT transactions 100"
expect = { disputes = "> 0", "disputes / transactions" = "0.15..0.25" }
"#;

#[test]
fn a_run_breaking_its_scenarios_expectation_fails_the_suite_naming_the_scenario() {
    let s = Scratch::new();
    s.write("suite.toml", DECLARED_MIX);
    let out = run(&s, &["-f", "suite.toml", "--quiet"]);
    common::assert_exit(&out, 2);
    let err = stderr(&out);
    assert!(err.contains("dispute-heavy / "), "the run is named: {err}");
    assert!(
        err.contains("scenario \"dispute-heavy\" expects \"disputes\" = \"> 0\", but disputes = 0"),
        "{err}"
    );
    assert!(err.contains("marked incomplete"), "{err}");
    let db = rusqlite::Connection::open(s.store()).unwrap();
    let status: String = db
        .query_row("SELECT status FROM experiments", [], |r| r.get(0))
        .unwrap();
    assert_eq!(status, "incomplete");
}

#[test]
fn with_ignore_failure_a_broken_expectation_does_not_stop_the_suite() {
    let s = Scratch::new();
    s.write("suite.toml", DECLARED_MIX);
    let out = run(&s, &["-f", "suite.toml", "--quiet", "--ignore-failure"]);
    common::assert_reached_a_result(&out);
}

#[test]
fn a_malformed_expectation_of_a_scenario_is_refused_with_its_line() {
    let s = Scratch::new();
    let err = refused(&s, &DECLARED_MIX.replace("\"> 0\"", "\"lots\""), &[]);
    assert!(err.contains("suite.toml:14:10"), "{err}");
    assert!(err.contains("scenario 'dispute-heavy': expect: "), "{err}");
}

#[test]
fn a_candidate_printing_another_answer_than_its_baseline_is_warned_about_in_its_cell() {
    let s = Scratch::new();
    write_work(&s);
    // `./work` echoes its arguments after the first: in scenario alpha the
    // candidate prints `args: 7`, its baseline `args: 6`; in beta both `args: 6`.
    s.write(
        "answers.toml",
        r#"name = "answers"
measure = "work"
better = "lower"
min_runs = 4
max_runs = 4

[[variant]]
name = "base"

[[variant]]
name = "other"
env = { ANSWER = "7" }

[[scenario]]
name = "alpha"
command = "./work alpha ${ANSWER:-6}"

[[scenario]]
name = "beta"
command = "./work beta 6"
"#,
    );
    let out = run(&s, &["-f", "answers.toml", "--json", "r.json", "--quiet"]);
    common::assert_reached_a_result(&out);
    let warnings = s.json("r.json")["warnings"].clone();
    let warnings: Vec<&str> = warnings
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("alpha / base") && warnings[0].contains("alpha / other"),
        "{warnings:?}"
    );
    assert!(warnings[0].contains("args: 7"), "{warnings:?}");
    assert!(
        stdout_text(&out).contains("check that the variants do the same work"),
        "the terminal shows the warning"
    );
}

fn stdout_text(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}
