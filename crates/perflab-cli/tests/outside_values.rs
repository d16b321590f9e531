//! Values from outside perflab, read precisely: a metric line whose value
//! is no finite number, or has a decimal comma, is named with what is
//! wrong; an import with impossible times is refused; a failing program's
//! output reaches the terminal with its control characters escaped.

mod common;

use common::{Scratch, assert_exit, stderr_of_refusal, stdout_of_success};

#[test]
fn an_ab_on_a_metric_printed_as_infinity_says_what_is_wrong_with_the_value() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["ab", "echo PERFLAB_METRIC m inf", "echo PERFLAB_METRIC m 1"])
        .args(["--measure", "m", "--better", "lower", "--warmup", "0"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("metric 'm' has no usable value")
            && err.contains("the line `PERFLAB_METRIC m inf` gives the value 'inf', which is not a finite number")
            && !err.contains("was not found"),
        "{err}"
    );
    assert_exit(&out, 2);
}

#[test]
fn a_decimal_comma_is_refused_rather_than_read_as_another_number() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            "echo PERFLAB_METRIC m 1,5",
            "echo PERFLAB_METRIC m 1.5",
        ])
        .args(["--measure", "m", "--better", "lower", "--warmup", "0"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'1,5', which has a comma that is not a thousands separator"),
        "{err}"
    );
}

#[test]
fn a_run_whose_metric_has_no_usable_value_warns_instead_of_dropping_it_silently() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["run", "-r", "3", "--warmup", "0", "--json", "r.json"])
        .arg("echo PERFLAB_METRIC m NaN; echo PERFLAB_METRIC ok 2")
        .output()
        .unwrap();
    let stdout = stdout_of_success(&out);
    let warning = "3 of the 3 runs of";
    assert!(
        stdout.contains(warning) && stdout.contains("printed metric 'm' without a usable value"),
        "{stdout}"
    );
    let warnings = s.json("r.json")["warnings"].to_string();
    assert!(
        warnings.contains("'NaN', which is not a finite number"),
        "{warnings}"
    );
}

#[test]
fn an_import_with_negative_or_centuries_long_times_is_refused_with_exit_2() {
    let s = Scratch::new();
    for (times, problem) in [
        ("[1.0, -0.5, 1.1]", "cannot be negative"),
        ("[1.0, 1.5e308, 1.1]", "more than a year per sample"),
    ] {
        s.write(
            "h.json",
            &format!(r#"{{"results":[{{"command":"old","times":{times}}}]}}"#),
        );
        let out = s
            .perflab()
            .args(["import", "h.json", "--name", "x"])
            .output()
            .unwrap();
        let err = stderr_of_refusal(&out);
        assert!(err.contains(problem) && err.contains("h.json"), "{err}");
    }
}

#[test]
fn a_failing_programs_escape_sequences_are_shown_escaped_not_sent_to_the_terminal() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["run", "-r", "1", "--warmup", "0"])
        .arg(r"printf '\033]0;owned\007\033[2Jgone\n'; exit 3")
        .output()
        .unwrap();
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(r"\u{1b}]0;owned\u{7}\u{1b}[2Jgone"), "{err}");
    assert!(!out.stderr.contains(&0x1b), "{err}");
}

#[test]
fn a_samples_file_over_a_gibibyte_is_refused_before_it_is_read() {
    let s = Scratch::new();
    // Sparse: it takes no room on disk, and would take 1.1 GiB to read.
    let big = std::fs::File::create(s.path("big.txt")).unwrap();
    big.set_len(1100 << 20).unwrap();
    s.write("small.txt", "1\n2\n3\n");
    let out = s
        .perflab()
        .args(["compare", "big.txt", "small.txt"])
        .output()
        .unwrap();
    let err = stderr_of_refusal(&out);
    assert!(
        err.contains("big.txt") && err.contains("is 1.1 GiB") && err.contains("up to 1 GiB"),
        "{err}"
    );
}
