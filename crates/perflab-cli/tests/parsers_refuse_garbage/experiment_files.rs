//! `perflab.toml` experiment files: every error names the file, line and column.

use std::path::Path;

use perflab_cli::experiment::{parse_experiment, read_experiment_file};
use proptest::prelude::*;
use regex::Regex;

use crate::near_miss::{CASES, near_miss, near_miss_bytes};

const VALID: &str = r#"name = "quickstart"
measure = "throughput"
better = "higher"
go = "1%"
nogo = -0.5
confidence = 0.95
min_runs = 10
max_runs = 40
max_time = "2m"
warmup = 1
timeout = "30s"
shell = true
cwd = "work"
ignore_failure = false
seed = 7
perf_events = true
keep_env = ["HOME"]

[metrics]
throughput = 'Throughput = ([0-9.]+[KMG]?)'

[[guard]]
metric = "peak-memory"
max_worsening = "5%"
better = "lower"

[[variant]]
name = "baseline"
command = "./prog"

[[variant]]
name = "candidate"
command = "./prog --fast"
env = { FAST = "1" }
cwd = "other"
"#;

/// `exp/perflab.toml:LINE:COLUMN: message`, the line and column within the text.
fn assert_located(message: &str, text: &str) -> Result<(), TestCaseError> {
    let located = Regex::new(r"^exp/perflab\.toml:(\d+):(\d+): \S").unwrap();
    let Some(found) = located.captures(message) else {
        return Err(TestCaseError::fail(format!(
            "no line and column in: {message}"
        )));
    };
    let line: usize = found[1].parse().unwrap();
    prop_assert!(line >= 1 && line <= text.split('\n').count(), "{message}");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn a_damaged_experiment_file_is_refused_at_a_line_and_column(text in near_miss(VALID.to_string())) {
        if let Err(e) = parse_experiment(&text, Path::new("exp/perflab.toml")) {
            prop_assert_eq!(e.exit_code(), 2);
            assert_located(&e.to_string(), &text)?;
        }
    }

    #[test]
    fn any_text_is_read_or_refused_at_a_line_and_column(text in any::<String>()) {
        if let Err(e) = parse_experiment(&text, Path::new("exp/perflab.toml")) {
            assert_located(&e.to_string(), &text)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES / 2))]

    #[test]
    fn an_experiment_file_of_any_bytes_is_refused_by_its_path(bytes in near_miss_bytes(VALID.to_string())) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("perflab.toml");
        std::fs::write(&path, &bytes).unwrap();
        if let Err(e) = read_experiment_file(&path) {
            let message = e.to_string();
            prop_assert!(message.starts_with(&path.display().to_string()), "{message}");
        }
    }
}

#[test]
fn the_valid_file_parses() {
    let settings = parse_experiment(VALID, Path::new("exp/perflab.toml")).unwrap();
    assert_eq!(settings.variants.len(), 2);
    assert_eq!(settings.guards.len(), 1);
}

fn refusal(text: &str) -> String {
    parse_experiment(text, Path::new("exp/perflab.toml"))
        .unwrap_err()
        .to_string()
}

#[test]
fn a_guard_floor_is_read_in_the_metrics_unit_or_refused_at_its_value() {
    let with_floor = VALID.replace("max_worsening = \"5%\"", "max_worsening = \"10%+8MiB\"");
    let settings = parse_experiment(&with_floor, Path::new("exp/perflab.toml")).unwrap();
    assert_eq!(settings.guards[0].floor, Some(8192.0));
    assert_eq!(settings.guards[0].max_worsening, 0.1);
    let bad = VALID.replace("max_worsening = \"5%\"", "max_worsening = \"10%+8\"");
    let message = refusal(&bad);
    assert!(
        message.starts_with("exp/perflab.toml:24:17: max_worsening:"),
        "{message}"
    );
    assert!(message.contains("peak-memory:10%+8MiB"), "{message}");
}

#[test]
fn a_threshold_that_is_not_a_number_is_refused_at_its_value() {
    for value in ["nan", "inf", "-inf"] {
        let message = refusal(&format!("go = {value}\n"));
        assert!(
            message.starts_with("exp/perflab.toml:1:6: go:"),
            "{message}"
        );
    }
}

#[test]
fn a_confidence_level_out_of_range_is_refused_at_its_value() {
    for value in ["nan", "inf", "1.5", "0.3"] {
        let message = refusal(&format!("\nconfidence = {value}\n"));
        assert!(
            message.starts_with("exp/perflab.toml:2:14: confidence:"),
            "{message}"
        );
    }
}

#[test]
fn an_experiment_file_that_is_not_utf8_is_refused_by_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("perflab.toml");
    std::fs::write(&path, b"name = \"\xff\"\n").unwrap();
    let message = read_experiment_file(&path).unwrap_err().to_string();
    assert!(
        message.starts_with(&path.display().to_string()),
        "{message}"
    );
    assert!(message.contains("UTF-8"), "{message}");
}
