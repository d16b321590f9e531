//! Sample files for `perflab compare`: plain text, a perflab result, a
//! hyperfine export, each with an optional `#SELECTOR`.

use std::sync::OnceLock;

use perflab_cli::samples::read_samples;
use proptest::prelude::*;

use crate::near_miss::{CASES, near_miss_bytes, odd_value};

const TEXT: &str = "# run 1\n[45.52M, 44.88M]\n\n1.5K # note\n12\n";

const HYPERFINE: &str = r#"{
  "results": [
    {"command": "old", "mean": 1.5, "times": [1.0, 2.0, 1.5]},
    {"command": "new", "mean": 1.0, "times": [0.9, 1.1, 1.0]}
  ]
}
"#;

/// A perflab result as the real binary writes it, made once.
fn perflab_result() -> String {
    static RESULT: OnceLock<String> = OnceLock::new();
    RESULT
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("old.txt"), "10\n11\n12\n10\n11\n").unwrap();
            std::fs::write(dir.path().join("new.txt"), "9\n10\n9\n10\n9\n").unwrap();
            std::process::Command::new(env!("CARGO_BIN_EXE_perflab"))
                .current_dir(dir.path())
                .env_remove("PERFLAB_STORE")
                .args(["compare", "old.txt", "new.txt", "--json", "r.json"])
                .output()
                .unwrap();
            std::fs::read_to_string(dir.path().join("r.json")).expect("compare wrote r.json")
        })
        .clone()
}

fn any_sample_file() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        near_miss_bytes(TEXT.to_string()),
        near_miss_bytes(HYPERFINE.to_string()),
        near_miss_bytes(perflab_result()),
    ]
}

fn selector() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        proptest::sample::select(&["old", "new", "0", "1", "2", "A", "B", "", "#"])
            .prop_map(|s| Some(s.to_string())),
        odd_value().prop_map(Some),
    ]
}

fn measure() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        proptest::sample::select(&["wall", "cpu", "peak-memory", "throughput"])
            .prop_map(|s| Some(s.to_string())),
        odd_value().prop_map(Some),
    ]
}

/// Reads `bytes` as the file `samples.json`; errors must start with its path.
fn check(bytes: &[u8], selector: Option<&str>, measure: Option<&str>) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("samples.json");
    std::fs::write(&path, bytes).unwrap();
    let input = match selector {
        Some(s) => format!("{}#{s}", path.display()),
        None => path.display().to_string(),
    };
    match read_samples(&input, measure) {
        Ok(samples) => {
            prop_assert!(samples.values.len() >= 2);
            prop_assert!(samples.values.iter().all(|v| v.is_finite()), "{samples:?}");
        }
        Err(e) => {
            let message = e.to_string();
            prop_assert!(
                message.starts_with(&path.display().to_string()),
                "{message}"
            );
            prop_assert_eq!(e.exit_code(), 2, "{}", message);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn a_damaged_sample_file_is_read_or_refused_by_its_path(
        bytes in any_sample_file(),
        selector in selector(),
        measure in measure(),
    ) {
        check(&bytes, selector.as_deref(), measure.as_deref())?;
    }
}

#[test]
fn the_valid_sample_files_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    assert_eq!(
        read_samples(&write("t.txt", TEXT), None)
            .unwrap()
            .values
            .len(),
        4
    );
    let hyperfine = write("h.json", HYPERFINE);
    let old = read_samples(&format!("{hyperfine}#old"), None).unwrap();
    assert_eq!(old.values, vec![1.0, 2.0, 1.5]);
    let result = write("r.json", &perflab_result());
    assert_eq!(
        read_samples(&format!("{result}#0"), None)
            .unwrap()
            .values
            .len(),
        5
    );
}

#[test]
fn a_sample_file_that_is_not_utf8_is_refused_by_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.txt");
    std::fs::write(&path, b"1\n2\n\xff\n").unwrap();
    let message = read_samples(&path.display().to_string(), None)
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with(&path.display().to_string()),
        "{message}"
    );
    assert!(message.contains("UTF-8"), "{message}");
}
