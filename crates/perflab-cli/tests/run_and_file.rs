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

/// A program that writes each of its arguments on a line of `args.txt`.
fn argument_printer(s: &Scratch) {
    let path = s.write(
        "print-args",
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > args.txt\n",
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_command_without_a_shell_is_split_into_arguments_as_sh_would_split_it() {
    let s = Scratch::new();
    argument_printer(&s);
    let out = s
        .perflab()
        .args([
            "run",
            "-N",
            r#"./print-args 'a b' "c  d" e\ f g"#,
            "--runs",
            "1",
            "--warmup",
            "0",
        ])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let args = std::fs::read_to_string(s.path("args.txt")).unwrap();
    assert_eq!(args, "a b\nc  d\ne f\ng\n");
}

#[test]
fn a_command_without_a_shell_with_an_unclosed_quote_is_refused_naming_it() {
    let s = Scratch::new();
    argument_printer(&s);
    for command in ["run", "ab"] {
        let mut args = vec![command, "-N", "./print-args 'a b"];
        if command == "ab" {
            args.push("./print-args c");
        }
        let out = s.perflab().args(&args).output().unwrap();
        let stderr = common::stderr_of_refusal(&out);
        assert!(
            stderr.contains("`./print-args 'a b`") && stderr.contains("never closed"),
            "{command}: {stderr}"
        );
        assert!(!s.path("args.txt").exists(), "{command}: nothing ran");
    }
}

#[test]
fn a_closed_stdout_ends_perflab_quietly_with_sigpipe_s_code_and_keeps_the_runs() {
    let s = Scratch::new();
    // The reading end is closed before perflab writes its report, as
    // `perflab run ... | head -0` would.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = s
        .perflab_process()
        .args(["run", "-N", "true", "--runs", "3", "--name", "piped"])
        .stdout(writer)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(128 + 13), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let history = s.perflab().arg("history").output().unwrap();
    let listing = String::from_utf8_lossy(&history.stdout);
    assert!(listing.contains("piped"), "{listing}");
    assert!(!listing.contains("incomplete"), "{listing}");
}
