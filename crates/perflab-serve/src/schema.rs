//! JSON Schemas of the API's answers (feature `schema`), derived from the
//! types the API serializes so that they cannot drift from what it sends.
//! `docs/schema/` holds them beside the documents' schemas; the test
//! `tests/api_schemas.rs` fails when a type changes and the files were not
//! regenerated, and says how to regenerate them.
//!
//! The answers carry no `format` tag: they are not documents kept on disk
//! but what the server computes on each request. Objects allow properties
//! the schema does not list, so that a field added later breaks no reader.

use perflab_format::schema::DocumentSchema;
use perflab_report::page::ExperimentReport;
use schemars::{JsonSchema, Schema, generate::SchemaSettings};
use serde_json::json;

use crate::compare_commits::CommitsCompareData;
use crate::site::{CompareData, HomeData, SeriesData};

/// The schema of every answer of the JSON API, one per route:
/// `/api/home`, `/api/series`, `/api/experiments/ID`, `/api/compare` and
/// `/api/compare/commits`.
pub fn api_schemas() -> Vec<DocumentSchema> {
    vec![
        answer::<HomeData>("perflab-serve-home.schema.json", "/api/home"),
        answer::<SeriesData>("perflab-serve-series.schema.json", "/api/series"),
        answer::<ExperimentReport>(
            "perflab-serve-experiment.schema.json",
            "/api/experiments/ID",
        ),
        answer::<CompareData>("perflab-serve-compare.schema.json", "/api/compare"),
        answer::<CommitsCompareData>(
            "perflab-serve-compare-commits.schema.json",
            "/api/compare/commits",
        ),
    ]
}

fn answer<T: JsonSchema>(file_name: &'static str, route: &str) -> DocumentSchema {
    let schema: Schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut schema = schema.to_value();
    schema["$id"] = json!(format!("https://perflab.invalid/schema/{file_name}"));
    let description = schema["description"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    schema["description"] = json!(format!(
        "The answer of `perflab serve` at {route}: {description}"
    ));
    DocumentSchema { file_name, schema }
}
