//! Checks of a `perflab-trace/1` document that do not go through perflab's
//! own types: its JSON Schema in docs/schema, and the rules of the Chrome
//! trace event format a viewer relies on, read from the JSON itself.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

/// A complete slice: start, end (µs) and name.
type Slice = (f64, f64, String);

/// Rounding of times written with three decimals of a microsecond.
const ROUNDING_US: f64 = 0.002;

/// Why `document` does not match docs/schema/perflab-trace-1.schema.json.
pub fn schema_problems(document: &Value) -> Vec<String> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema/perflab-trace-1.schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text).expect("a schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    validator
        .iter_errors(document)
        .map(|error| format!("at {}: {error}", error.instance_path()))
        .collect()
}

/// What a viewer of the Chrome trace event format would trip on: events
/// without the fields their phase needs, complete slices of a thread that
/// overlap without nesting, async slices without both ends, threads
/// without a name.
pub fn format_problems(document: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(events) = document["traceEvents"].as_array() else {
        return vec!["no traceEvents array".into()];
    };
    if document["otherData"]["format"] != "perflab-trace/1" {
        problems.push(format!(
            "otherData.format is {}",
            document["otherData"]["format"]
        ));
    }
    let mut slices: BTreeMap<(u64, u64), Vec<Slice>> = BTreeMap::new();
    let mut async_ends: BTreeMap<String, (usize, usize, f64, f64)> = BTreeMap::new();
    let mut named_threads = BTreeSet::new();
    for (index, event) in events.iter().enumerate() {
        let at = format!("event {index} ({event})");
        let (Some(name), Some(ph), Some(ts), Some(pid), Some(tid)) = (
            event["name"].as_str(),
            event["ph"].as_str(),
            event["ts"].as_f64(),
            event["pid"].as_u64(),
            event["tid"].as_u64(),
        ) else {
            problems.push(format!("{at}: lacks name, ph, ts, pid or tid"));
            continue;
        };
        if ts < 0.0 {
            problems.push(format!("{at}: negative ts"));
        }
        match ph {
            "X" => match event["dur"].as_f64() {
                Some(dur) if dur >= 0.0 => {
                    slices
                        .entry((pid, tid))
                        .or_default()
                        .push((ts, ts + dur, name.to_string()))
                }
                _ => problems.push(format!("{at}: a complete slice needs a dur of at least 0")),
            },
            "b" | "e" => {
                let Some(id) = event["id"].as_str() else {
                    problems.push(format!("{at}: an async slice needs an id"));
                    continue;
                };
                let ends = async_ends
                    .entry(format!("{name}/{id}"))
                    .or_insert((0, 0, 0.0, 0.0));
                if ph == "b" {
                    ends.0 += 1;
                    ends.2 = ts;
                } else {
                    ends.1 += 1;
                    ends.3 = ts;
                }
            }
            "C" => {
                let numeric = event["args"]
                    .as_object()
                    .is_some_and(|args| !args.is_empty() && args.values().all(Value::is_number));
                if !numeric {
                    problems.push(format!("{at}: a counter needs numeric args"));
                }
            }
            "M" => {
                if event["args"]["name"].as_str().is_none() {
                    problems.push(format!("{at}: metadata needs args.name"));
                }
                if name == "thread_name" {
                    named_threads.insert((pid, tid));
                }
            }
            other => problems.push(format!("{at}: phase {other} is not one perflab writes")),
        }
    }
    for ((pid, tid), mut thread_slices) in slices {
        if !named_threads.contains(&(pid, tid)) {
            problems.push(format!(
                "thread {tid} of process {pid} has slices but no thread_name"
            ));
        }
        // Longest first among equal starts, so that a parent precedes its child.
        thread_slices.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
        let mut open: Vec<Slice> = Vec::new();
        for slice in thread_slices {
            while open
                .last()
                .is_some_and(|top| top.1 <= slice.0 + ROUNDING_US)
            {
                open.pop();
            }
            if let Some(top) = open.last()
                && slice.1 > top.1 + ROUNDING_US
            {
                problems.push(format!(
                    "thread {tid}: {} [{}, {}] overlaps {} [{}, {}] without nesting in it",
                    slice.2, slice.0, slice.1, top.2, top.0, top.1
                ));
            }
            open.push(slice);
        }
    }
    for (key, (begins, ends, begin, end)) in async_ends {
        if begins != 1 || ends != 1 || end + ROUNDING_US < begin {
            problems.push(format!(
                "async slice {key}: {begins} begins, {ends} ends, from {begin} to {end}"
            ));
        }
    }
    problems
}

/// Reads a trace file and asserts that both checks pass.
pub fn read_checked(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let document: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut problems = schema_problems(&document);
    problems.extend(format_problems(&document));
    assert!(
        problems.is_empty(),
        "{}:\n{}",
        path.display(),
        problems.join("\n")
    );
    document
}

/// The complete slices named `name`.
pub fn slices<'a>(document: &'a Value, name: &str) -> Vec<&'a Value> {
    document["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|event| event["name"] == name && event["ph"] == "X")
        .collect()
}

/// The values of the counter or gauge `name`, in the order written.
pub fn counter_values(document: &Value, name: &str) -> Vec<f64> {
    document["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|event| event["name"] == name && event["ph"] == "C")
        .map(|event| event["args"][name].as_f64().unwrap())
        .collect()
}
