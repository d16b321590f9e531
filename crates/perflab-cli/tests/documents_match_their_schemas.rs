//! Every document the real binary writes validates against its JSON Schema
//! in `docs/schema/`: the `--json` files of `run`, `ab`, `compare`, `sweep`,
//! a suite, `history`, `profile` and `system show`, and everything kept in the store (each
//! experiment's result, each run's profile, instruction counts), plus the
//! profiles the Rust crate, perflab.h and the Python package write. The
//! schemas are derived from the perflab-format types (see
//! crates/perflab-format/tests/schemas.rs); this checks that they describe
//! real output, so that other tools can rely on them.

mod common;
mod native;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::Scratch;
use native::require_tool;
use serde_json::Value;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn schema(file_name: &str) -> jsonschema::Validator {
    let path = repository().join("docs/schema").join(file_name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text).expect("a schema is JSON");
    jsonschema::validator_for(&schema)
        .unwrap_or_else(|e| panic!("{file_name} is no valid schema: {e}"))
}

/// Why `document` does not match `docs/schema/<file_name>`, one line per problem.
fn problems(file_name: &str, document: &Value) -> Vec<String> {
    schema(file_name)
        .iter_errors(document)
        .map(|error| format!("at {}: {error}", error.instance_path()))
        .collect()
}

fn assert_matches(file_name: &str, document: &Value, origin: &str) {
    let problems = problems(file_name, document);
    assert!(
        problems.is_empty(),
        "{origin} does not match docs/schema/{file_name}:\n{}",
        problems.join("\n")
    );
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The schema of a `perflab-result/1` document, chosen by its kind.
fn result_schema(document: &Value) -> &'static str {
    match document["kind"].as_str() {
        Some("sweep") => "perflab-result-1-sweep.schema.json",
        Some("suite") => "perflab-result-1-suite.schema.json",
        _ => "perflab-result-1.schema.json",
    }
}

/// The schema of any perflab document, chosen by its `format` tag.
fn schema_of(document: &Value, origin: &str) -> &'static str {
    match document["format"].as_str() {
        Some("perflab-result/1") => result_schema(document),
        Some("perflab-sampling/1") => "perflab-sampling-1.schema.json",
        Some("perflab-instructions/1") => "perflab-instructions-1.schema.json",
        Some("perflab-history/1") => "perflab-history-1.schema.json",
        Some("perflab-profile/1") => "perflab-profile-1.schema.json",
        Some("perflab-system/1") => "perflab-system-1.schema.json",
        other => panic!("{origin}: no schema in docs/schema for format {other:?}: add one"),
    }
}

/// Validates every document kept in the store; returns how many of each it saw.
fn assert_store_matches(scratch: &Scratch) -> (usize, usize, usize) {
    let db = rusqlite::Connection::open(scratch.store()).expect("the store");
    let texts = |sql: &str| -> Vec<(String, String)> {
        let mut statement = db.prepare(sql).unwrap();
        statement
            .query_map([], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let results = texts(
        "SELECT CAST(id AS TEXT), result_json FROM experiments WHERE result_json IS NOT NULL",
    );
    for (id, text) in &results {
        let document: Value = serde_json::from_str(text).unwrap();
        let origin = format!("experiment {id} in the store");
        assert_matches(schema_of(&document, &origin), &document, &origin);
    }
    let profiles =
        texts("SELECT CAST(id AS TEXT), profile_json FROM runs WHERE profile_json IS NOT NULL");
    for (id, text) in &profiles {
        let document: Value = serde_json::from_str(text).unwrap();
        assert_matches(
            "perflab-profile-1.schema.json",
            &document,
            &format!("the profile of run {id}"),
        );
    }
    let attachments = texts("SELECT kind, body FROM attachments");
    for (kind, text) in &attachments {
        let file_name = match kind.as_str() {
            "instructions" => "perflab-instructions-1.schema.json",
            other => panic!(
                "the store keeps `{other}` documents, which no schema in docs/schema describes: add one"
            ),
        };
        assert_matches(
            file_name,
            &serde_json::from_str(text).unwrap(),
            &format!("a stored `{kind}` document"),
        );
    }
    (results.len(), profiles.len(), attachments.len())
}

#[test]
fn results_of_run_ab_compare_sweep_a_suite_and_history_match_their_schemas() {
    let s = Scratch::new();
    let ok = |args: &[&str]| {
        let out = s.perflab().args(args).output().unwrap();
        common::assert_reached_a_result(&out);
    };
    ok(&["run", "true", "-r", "3", "--json", "run.json"]);
    ok(&[
        "ab",
        "true",
        "true",
        "--min-runs",
        "2",
        "--max-runs",
        "3",
        "--json",
        "ab.json",
    ]);
    s.write("a.txt", "10\n11\n12\n13\n14\n");
    s.write("b.txt", "12\n13\n14\n15\n16\n");
    ok(&["compare", "a.txt", "b.txt", "--json", "compare.json"]);
    ok(&[
        "sweep",
        "-p",
        "n=1,2,4",
        "--min-runs",
        "2",
        "--max-runs",
        "2",
        "--warmup",
        "0",
        "--measure",
        "cost",
        "--better",
        "lower",
        "--json",
        "sweep.json",
        "awk -v n={n} 'BEGIN { printf \"PERFLAB_METRIC cost %d\\n\", n * 100 }'",
    ]);
    common::suite::write_work(&s);
    s.write(
        "suite.toml",
        &format!(
            "max_runs = 4\nmin_runs = 2\n{}",
            common::suite::SIX_CELLS.replace("max_runs = 30\n", "")
        ),
    );
    ok(&["ab", "-f", "suite.toml", "--json", "suite.json", "--quiet"]);
    ok(&["history", "--metric", "wall", "--json", "history.json"]);
    for (file, kind) in [
        ("run.json", "run"),
        ("ab.json", "ab"),
        ("compare.json", "compare"),
        ("sweep.json", "sweep"),
        ("suite.json", "suite"),
    ] {
        let document = s.json(file);
        assert_eq!(document["kind"], kind, "{file}");
        assert_matches(result_schema(&document), &document, file);
        // A sweep's or a suite's result is a perflab-result/1 document too.
        assert_matches("perflab-result-1.schema.json", &document, file);
    }
    assert_matches(
        "perflab-history-1.schema.json",
        &s.json("history.json"),
        "history.json",
    );
    let (results, _, _) = assert_store_matches(&s);
    assert!(results >= 5, "{results} stored results");
}

#[test]
fn the_settings_of_system_show_match_their_schema() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["system", "show", "--json", "system.json"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let document = s.json("system.json");
    assert_matches(
        schema_of(&document, "system.json"),
        &document,
        "system.json",
    );
}

#[test]
fn instruction_counts_and_a_sampling_profile_match_their_schemas() {
    require_tool("valgrind");
    require_tool("perf");
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "run",
            "--measure",
            "instructions",
            "-N",
            "--json",
            "i.json",
            "true",
        ])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    assert_matches("perflab-result-1.schema.json", &s.json("i.json"), "i.json");
    let out = s
        .perflab()
        .args(["profile", "--json", "p.json", "--", "sh", "-c"])
        .arg(common::busy(100_000))
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    assert_matches(
        "perflab-sampling-1.schema.json",
        &s.json("p.json"),
        "p.json",
    );
    let (_, _, attachments) = assert_store_matches(&s);
    assert_eq!(
        attachments, 1,
        "the instruction counts are kept with the experiment"
    );
}

#[test]
fn profiles_of_python_c_and_rust_programs_match_the_profile_schema() {
    require_tool("python3");
    require_tool("cc");
    let s = Scratch::new();
    // Python, through `perflab run`, so the stored profiles are checked too.
    let command = format!(
        "python3 {} 3000",
        repository()
            .join("examples/python-spans/logstats.py")
            .display()
    );
    let out = s
        .perflab()
        .env("PYTHONPATH", repository().join("python/src"))
        .args(["run", &command, "-r", "2"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let (_, profiles, _) = assert_store_matches(&s);
    assert_eq!(profiles, 2, "each run keeps its profile");
    // C, with the test program of tests/c_header.rs.
    let fixture = common::fixture("c_header");
    let status = Command::new("cc")
        .current_dir(s.dir.path())
        .args(["-O1", "-pthread", "-I"])
        .arg(repository().join("include"))
        .arg(fixture.join("prog.c"))
        .arg(fixture.join("other.c"))
        .args(["-o", "prog"])
        .status()
        .expect("run cc");
    assert!(status.success());
    let status = Command::new(s.path("prog"))
        .args(["2000", "20"])
        .env("PERFLAB_PROFILE", s.path("c.json"))
        .env_remove("PERFLAB_TABLE")
        .status()
        .expect("run the C program");
    assert!(status.success());
    assert_matches(
        "perflab-profile-1.schema.json",
        &read_json(&s.path("c.json")),
        "the C program's profile",
    );
    // Rust: profiles the crate wrote (tests/fixtures), as `perflab report` reads them.
    for name in ["spans-baseline.json", "spans-slow-compute.json"] {
        assert_matches(
            "perflab-profile-1.schema.json",
            &read_json(&common::fixture(name)),
            name,
        );
    }
}

#[test]
fn the_documents_perflab_format_keeps_as_fixtures_match_their_schemas() {
    let dir = repository().join("crates/perflab-format/tests/fixtures");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let document = read_json(&path);
        let origin = path.display().to_string();
        assert_matches(schema_of(&document, &origin), &document, &origin);
        seen += 1;
    }
    assert!(seen >= 9, "{seen} fixtures");
}

#[test]
fn a_schema_refuses_a_document_of_another_format_or_with_a_field_of_the_wrong_type() {
    let mut profile = read_json(&common::fixture("spans-baseline.json"));
    assert!(problems("perflab-profile-1.schema.json", &profile).is_empty());
    profile["spans"][0]["calls"] = Value::from(-1);
    assert!(
        !problems("perflab-profile-1.schema.json", &profile).is_empty(),
        "a negative count"
    );
    let mut profile = read_json(&common::fixture("spans-baseline.json"));
    profile["format"] = Value::from("perflab-result/1");
    assert!(
        !problems("perflab-profile-1.schema.json", &profile).is_empty(),
        "another format"
    );
    let mut profile = read_json(&common::fixture("spans-baseline.json"));
    profile.as_object_mut().unwrap().remove("threads");
    assert!(
        !problems("perflab-profile-1.schema.json", &profile).is_empty(),
        "a missing field"
    );
    // Unknown warning kinds are allowed: readers read them as `other`.
    let mut profile = read_json(&common::fixture("spans-baseline.json"));
    profile["warnings"] =
        serde_json::json!([{"kind": "too_deep", "subject": "#1", "message": "m"}]);
    assert!(problems("perflab-profile-1.schema.json", &profile).is_empty());
}
