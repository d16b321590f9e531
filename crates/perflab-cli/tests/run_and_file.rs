//! `perflab run` and experiment files.

mod common;

use common::Scratch;

#[test]
fn run_measures_a_command_and_reports_every_run() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "run",
            "echo PERFLAB_METRIC items 42 items",
            "-r",
            "5",
            "--json",
            "r.json",
        ])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let json = s.json("r.json");
    assert_eq!(json["variants"][0]["runs"], 5);
    assert_eq!(json["variants"][0]["samples"].as_array().unwrap().len(), 5);
    assert_eq!(
        json["variants"][0]["run_details"][0]["metrics"]["items"],
        42.0
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("peak-memory") && stdout.contains("items"),
        "{stdout}"
    );
}

#[test]
fn an_experiment_file_runs_from_its_own_folder() {
    let s = Scratch::new();
    std::fs::create_dir(s.path("exp")).unwrap();
    s.write("exp/marker", "");
    s.write(
        "exp/perflab.toml",
        "name = \"files\"\nmeasure = \"tp\"\nbetter = \"higher\"\nmax_runs = 12\n\
         [[variant]]\nname = \"old\"\ncommand = \"test -f marker && echo PERFLAB_METRIC tp 100\"\n\
         [[variant]]\nname = \"new\"\ncommand = \"test -f marker && echo PERFLAB_METRIC tp $TP\"\nenv = { TP = \"150\" }\n",
    );
    let out = s
        .perflab()
        .args(["ab", "-f", "exp/perflab.toml", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let json = s.json("r.json");
    assert_eq!(json["name"], "files");
    assert_eq!(json["variants"][1]["name"], "new");
}

#[test]
fn a_malformed_experiment_file_is_reported_with_line_and_column() {
    let s = Scratch::new();
    s.write("perflab.toml", "measure = \"wall\"\nmax_runs = \"many\"\n");
    let out = s
        .perflab()
        .args(["ab", "-f", "perflab.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("perflab.toml:2:"), "{err}");
}

#[test]
fn a_missing_experiment_file_says_which_path() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["ab", "-f", "nope.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope.toml"));
}

#[test]
fn history_shows_the_name_of_a_named_run_once() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "run",
            "true",
            "-r",
            "2",
            "--name",
            "spans: baseline",
            "--quiet",
        ])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let out = s.perflab().args(["history"]).output().unwrap();
    common::assert_exit(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text
        .lines()
        .find(|line| line.contains(" run "))
        .unwrap_or_else(|| panic!("no run in the history:\n{text}"));
    assert_eq!(row.matches("spans: baseline").count(), 1, "{text}");
}
