//! A command given after `--` as several arguments (`-- ./app --input
//! big.txt`, as `perf record -- CMD ARGS` takes it) is accepted by every
//! command that takes one command, quoted for the shell; given both ways
//! it is refused as bad usage.

mod common;
mod native;

use common::commits::{BUILD, repository_slowing_at};
use common::{Scratch, assert_exit, busy, stderr_of_refusal, stdout_of_result, stdout_of_success};
use native::require_tool;

#[test]
fn run_takes_the_command_after_dashes_and_quotes_each_argument_for_the_shell() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "run", "--runs", "2", "--json", "r.json", "--", "echo", "a b", "c",
        ])
        .output()
        .unwrap();
    let said = stdout_of_success(&out);
    assert!(said.contains("$ echo 'a b' c"), "{said}");
    let doc = s.json("r.json");
    assert_eq!(doc["variants"][0]["command"], "echo 'a b' c", "{doc}");
}

#[test]
fn ab_takes_its_one_command_after_dashes() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["ab", "--min-runs", "2", "--max-runs", "3", "--quiet"])
        .args(["--json", "ab.json", "--", "sh", "-c", &busy(1000)])
        .output()
        .unwrap();
    stdout_of_result(&out);
    let doc = s.json("ab.json");
    let command = doc["variants"][0]["command"].as_str().unwrap();
    assert!(command.starts_with("sh -c '"), "{doc}");
    assert_eq!(doc["variants"][1]["command"], command, "{doc}");
}

#[test]
fn sweep_takes_a_command_template_after_dashes() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["sweep", "-p", "n=1,2", "--min-runs", "2", "--max-runs", "2"])
        .args(["--json", "s.json", "--", "echo", "size {n}"])
        .output()
        .unwrap();
    stdout_of_result(&out);
    let doc = s.json("s.json");
    assert!(doc.to_string().contains("echo 'size 1'"), "{doc}");
}

#[test]
fn bisect_takes_the_command_and_its_arguments_after_dashes() {
    let s = Scratch::new();
    repository_slowing_at(s.dir.path(), 2, 2);
    let out = s
        .perflab()
        .args([
            "bisect", "--good", "HEAD~2", "--bad", "HEAD", "--build", BUILD,
        ])
        .args([
            "--measure",
            "work",
            "--better",
            "lower",
            "--go",
            "5%",
            "--nogo",
            "-5%",
        ])
        .args(["--quiet", "--json", "bisect.json"])
        .args(["--", "./app", "--input", "big file.txt"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let doc = s.json("bisect.json");
    assert_eq!(doc["command"], "./app --input 'big file.txt'", "{doc}");
    assert_eq!(doc["outcome"], "found", "{doc}");
}

#[test]
fn profile_takes_the_program_and_its_arguments_after_dashes() {
    require_tool("perf");
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "profile",
            "--json",
            "p.json",
            "--",
            "sh",
            "-c",
            &busy(200_000),
        ])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert_eq!(s.json("p.json")["format"], "perflab-sampling/1");
}

#[test]
fn a_command_given_both_as_an_argument_and_after_dashes_is_refused() {
    for args in [
        &["run", "echo a", "--", "echo", "b"][..],
        &["ab", "echo a", "--", "echo", "b"][..],
        &["sweep", "-p", "n=1,2", "echo {n}", "--", "echo", "{n}"][..],
        &[
            "bisect", "--good", "HEAD~1", "--bad", "HEAD", "./app", "--", "./app", "x",
        ][..],
    ] {
        let s = Scratch::new();
        let out = s.perflab().args(args).output().unwrap();
        let err = stderr_of_refusal(&out);
        assert!(
            err.contains("the command is given twice") && err.contains("give it one way"),
            "{args:?}: {err}"
        );
    }
}
