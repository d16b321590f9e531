//! What perflab tells a new user about itself: the defaults in `--help`,
//! and which experiment `perflab report` covers when none is named.

mod common;

use common::{Scratch, stdout_of_success};

fn help_of(command: &str) -> String {
    let s = Scratch::new();
    stdout_of_success(&s.perflab().args([command, "--help"]).output().unwrap())
}

/// The help text of one flag, its continuation lines included.
fn flag_help(help: &str, flag: &str) -> String {
    let names = |l: &str| {
        let l = l.trim_start();
        // A flag with an optional value reads `--wait-quiet[=<PRESSURE>]`.
        l.starts_with(&format!("{flag} "))
            || l.starts_with(&format!("{flag}[="))
            || l.contains(&format!(", {flag} "))
    };
    let mut lines = help.lines().skip_while(|l| !names(l));
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("no {flag} in {help}"));
    std::iter::once(first)
        .chain(lines.take_while(|l| !l.trim_start().starts_with('-') && !l.trim().is_empty()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn every_flag_with_a_default_shows_it_in_the_help() {
    for (command, flags) in [
        (
            "ab",
            &[
                "--warmup",
                "--timeout",
                "--measure",
                "--better",
                "--max-time",
                "--seed",
                "--min-runs",
                "--max-runs",
                "--shield",
                "--wait-quiet",
                "--max-cpu-wait",
            ][..],
        ),
        ("run", &["--warmup", "--timeout", "--measure", "--runs"][..]),
        ("serve", &["--listen", "--token", "--commit-url"][..]),
        (
            "sweep",
            &[
                "--warmup",
                "--timeout",
                "--measure",
                "--better",
                "--max-time",
                "--seed",
                "--shield",
                "--wait-quiet",
                "--max-cpu-wait",
            ][..],
        ),
        (
            "bisect",
            &[
                "--warmup",
                "--timeout",
                "--measure",
                "--better",
                "--min-runs",
                "--max-runs",
                "--seed",
                "--shield",
                "--wait-quiet",
                "--max-cpu-wait",
            ][..],
        ),
        (
            "history",
            &[
                "--permute",
                "--build",
                "--min-runs",
                "--max-runs",
                "--notify",
            ][..],
        ),
        ("profile", &["--timeout", "--frequency"][..]),
        ("compare", &["--format"][..]),
        ("import", &["--format"][..]),
    ] {
        let help = help_of(command);
        for flag in flags {
            let text = flag_help(&help, flag);
            assert!(text.contains("[default: "), "{command} {flag}: {text}");
        }
    }
}

#[test]
fn a_report_without_arguments_says_it_covers_only_the_newest_experiment() {
    let s = Scratch::new();
    for name in ["first", "second"] {
        let out = s
            .perflab()
            .args(["run", "--runs", "2", "--quiet", "--name", name, "true"])
            .output()
            .unwrap();
        stdout_of_success(&out);
    }
    let out = s.perflab().arg("report").output().unwrap();
    stdout_of_success(&out);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("newest experiment only, run #2: second") && said.contains("perflab history"),
        "{said}"
    );
    let out = s.perflab().args(["report", "1"]).output().unwrap();
    stdout_of_success(&out);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("newest"),
        "a named experiment needs no note"
    );
}
