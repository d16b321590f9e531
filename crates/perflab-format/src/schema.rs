//! JSON Schemas of every perflab document (feature `schema`), derived from
//! the types in this crate so that they cannot drift from what perflab
//! writes. `docs/schema/` holds them for other tools; the test
//! `tests/schemas.rs` fails when a type changes and the files were not
//! regenerated, and says how to regenerate them.
//!
//! Each schema pins its document's `format` tag, and the result schemas of
//! a sweep and a suite pin their `kind` too. Objects allow properties the
//! schema does not list: a later `perflab-*/1` writer may add fields, and
//! readers ignore fields they do not know (see [`crate::profile`]).

use schemars::{JsonSchema, Schema, generate::SchemaSettings};
use serde_json::{Value, json};

use crate::history::{HISTORY_FORMAT, MetricHistory};
use crate::instructions::{INSTRUCTIONS_FORMAT, InstructionsDocument};
use crate::profile::{PROFILE_FORMAT, Profile};
use crate::result::{RESULT_FORMAT, ResultDocument};
use crate::sampling::{SAMPLING_FORMAT, SamplingDocument};
use crate::suite::SuiteDocument;
use crate::sweep::SweepDocument;
use crate::system::{SYSTEM_FORMAT, SystemDocument};
use crate::trace::{TRACE_FORMAT, TraceDocument};

/// One document's schema and the file it is kept in under `docs/schema/`.
pub struct DocumentSchema {
    /// File name under `docs/schema/`, e.g. `perflab-profile-1.schema.json`.
    pub file_name: &'static str,
    /// The schema, as JSON.
    pub schema: Value,
}

/// The schema of every document perflab reads or writes.
pub fn document_schemas() -> Vec<DocumentSchema> {
    vec![
        open_warning_kinds(document::<Profile>(
            "perflab-profile-1.schema.json",
            PROFILE_FORMAT,
            None,
        )),
        document::<ResultDocument>("perflab-result-1.schema.json", RESULT_FORMAT, None),
        document::<SweepDocument>(
            "perflab-result-1-sweep.schema.json",
            RESULT_FORMAT,
            Some("sweep"),
        ),
        document::<SuiteDocument>(
            "perflab-result-1-suite.schema.json",
            RESULT_FORMAT,
            Some("suite"),
        ),
        document::<SamplingDocument>("perflab-sampling-1.schema.json", SAMPLING_FORMAT, None),
        document::<InstructionsDocument>(
            "perflab-instructions-1.schema.json",
            INSTRUCTIONS_FORMAT,
            None,
        ),
        document::<MetricHistory>("perflab-history-1.schema.json", HISTORY_FORMAT, None),
        document::<SystemDocument>("perflab-system-1.schema.json", SYSTEM_FORMAT, None),
        trace_document(),
    ]
}

/// The trace's tag is in `otherData.format` (the Chrome trace event format
/// keeps its top level for viewers).
fn trace_document() -> DocumentSchema {
    let schema: Schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<TraceDocument>();
    let mut schema = schema.to_value();
    let file_name = "perflab-trace-1.schema.json";
    schema["$id"] = json!(format!("https://perflab.invalid/schema/{file_name}"));
    schema["$defs"]["TraceInfo"]["properties"]["format"] = json!({
        "description": "The document's kind and version; a reader refuses any other.",
        "const": TRACE_FORMAT,
    });
    DocumentSchema { file_name, schema }
}

fn document<T: JsonSchema>(
    file_name: &'static str,
    format: &str,
    kind: Option<&str>,
) -> DocumentSchema {
    let schema: Schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut schema = schema.to_value();
    schema["$id"] = json!(format!("https://perflab.invalid/schema/{file_name}"));
    schema["properties"]["format"] = json!({
        "description": "The document's kind and version; a reader refuses any other.",
        "const": format,
    });
    if let Some(kind) = kind {
        schema["properties"]["kind"] = json!({ "const": kind });
    }
    DocumentSchema { file_name, schema }
}

/// A warning kind is any word: readers read kinds they do not know as
/// `other` (`#[serde(other)]`), and perflab.h and the Python package write
/// kinds of their own (`too_deep`, `too_many_sites`, `unbalanced_spans`).
/// The known kinds stay listed, with what they mean.
fn open_warning_kinds(mut document: DocumentSchema) -> DocumentSchema {
    let kinds = &mut document.schema["$defs"]["WarningKind"];
    if let Some(Value::Array(mut known)) = kinds.get_mut("oneOf").map(Value::take) {
        known.push(json!({
            "type": "string",
            "description": "A kind a later writer added, or one perflab.h or the Python package writes (`too_deep`, `too_many_sites`, `unbalanced_spans`); readers read it as `other`."
        }));
        let description = kinds["description"].take();
        *kinds = json!({ "description": description, "anyOf": known });
    }
    document
}
