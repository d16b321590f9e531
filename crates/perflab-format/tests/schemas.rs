//! `docs/schema/` holds the JSON Schema of every document exactly as the
//! types of this crate derive it: a field added to a type (or removed, or
//! retyped) without regenerating the files fails here, with the command
//! that regenerates them.

use std::path::PathBuf;

use perflab_format::schema::document_schemas;

/// Set to regenerate `docs/schema/` instead of checking it.
const UPDATE_ENV: &str = "PERFLAB_UPDATE_SCHEMAS";
const REGENERATE: &str =
    "PERFLAB_UPDATE_SCHEMAS=1 cargo test -p perflab-format --features schema --test schemas";

fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema")
}

#[test]
fn the_schemas_in_docs_are_those_the_document_types_derive() {
    let dir = schema_dir();
    let update = std::env::var_os(UPDATE_ENV).is_some();
    let mut stale = Vec::new();
    for document in document_schemas() {
        let text = serde_json::to_string_pretty(&document.schema).unwrap() + "\n";
        let path = dir.join(document.file_name);
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(document.file_name);
        }
    }
    assert!(
        stale.is_empty(),
        "docs/schema/{{{}}} differ from what the types in perflab-format derive (a field was added, removed or changed): regenerate them with `{REGENERATE}`, check the diff and commit it",
        stale.join(", ")
    );
}

#[test]
fn docs_schema_holds_no_schema_of_a_document_perflab_does_not_have() {
    let known: Vec<&str> = document_schemas().iter().map(|d| d.file_name).collect();
    for entry in std::fs::read_dir(schema_dir()).expect("docs/schema exists") {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        // The JSON API's answers are perflab-serve's types, checked by its
        // `tests/api_schemas.rs`.
        if name.ends_with(".schema.json") && !name.starts_with("perflab-serve-") {
            assert!(
                known.contains(&name.as_str()),
                "docs/schema/{name} is no document's schema: delete it, or add its type to perflab_format::schema"
            );
        }
    }
}

#[test]
fn every_schema_pins_its_documents_format_tag() {
    for document in document_schemas() {
        // A trace keeps the Chrome trace event format's top level for
        // viewers; its tag is in `otherData`.
        let tagged = if document.file_name == "perflab-trace-1.schema.json" {
            &document.schema["$defs"]["TraceInfo"]
        } else {
            &document.schema
        };
        let format = &tagged["properties"]["format"]["const"];
        assert!(
            format
                .as_str()
                .is_some_and(|tag| tag.starts_with("perflab-")),
            "{}: {format}",
            document.file_name
        );
        let required = tagged["required"].as_array().unwrap();
        assert!(
            required.iter().any(|field| field == "format"),
            "{}",
            document.file_name
        );
    }
}
