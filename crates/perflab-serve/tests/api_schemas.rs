//! `docs/schema/perflab-serve-*.schema.json` hold the JSON Schema of every
//! answer of `perflab serve`'s JSON API exactly as the types of this crate
//! derive it: a field added to an answer (or removed, or retyped) without
//! regenerating the files fails here, with the command that regenerates
//! them. (The documents' schemas beside them are checked by perflab-format's
//! `tests/schemas.rs`.)

use std::path::PathBuf;

use perflab_serve::schema::api_schemas;

/// Set to regenerate the API's schemas in `docs/schema/` instead of checking them.
const UPDATE_ENV: &str = "PERFLAB_UPDATE_SCHEMAS";
const REGENERATE: &str =
    "PERFLAB_UPDATE_SCHEMAS=1 cargo test -p perflab-serve --features schema --test api_schemas";

/// The prefix of the API's schema files, which this test owns.
const API_PREFIX: &str = "perflab-serve-";

fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema")
}

#[test]
fn the_api_schemas_in_docs_are_those_the_answer_types_derive() {
    let dir = schema_dir();
    let update = std::env::var_os(UPDATE_ENV).is_some();
    let mut stale = Vec::new();
    for answer in api_schemas() {
        assert!(
            answer.file_name.starts_with(API_PREFIX),
            "{}",
            answer.file_name
        );
        let text = serde_json::to_string_pretty(&answer.schema).unwrap() + "\n";
        let path = dir.join(answer.file_name);
        if update {
            std::fs::write(&path, text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(answer.file_name);
        }
    }
    assert!(
        stale.is_empty(),
        "docs/schema/{{{}}} differ from what the API's types in perflab-serve derive (a field was added, removed or changed): regenerate them with `{REGENERATE}`, check the diff and commit it",
        stale.join(", ")
    );
}

#[test]
fn docs_schema_holds_no_api_schema_of_an_answer_the_api_does_not_give() {
    let known: Vec<&str> = api_schemas().iter().map(|a| a.file_name).collect();
    for entry in std::fs::read_dir(schema_dir()).expect("docs/schema exists") {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.starts_with(API_PREFIX) && name.ends_with(".schema.json") {
            assert!(
                known.contains(&name.as_str()),
                "docs/schema/{name} is no API answer's schema: delete it, or add its type to perflab_serve::schema"
            );
        }
    }
}

#[test]
fn every_api_schema_describes_an_object_and_names_its_route() {
    for answer in api_schemas() {
        assert_eq!(answer.schema["type"], "object", "{}", answer.file_name);
        let description = answer.schema["description"].as_str().unwrap_or_default();
        assert!(
            description.contains("/api/"),
            "{}: {description}",
            answer.file_name
        );
    }
}
