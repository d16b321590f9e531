//! Folded stacks as a speedscope file (speedscope.app, and the Firefox
//! Profiler's importer, open it): the "sampled" profile of speedscope's file
//! format (`https://www.speedscope.app/file-format-schema.json`), one
//! profile per profiled command, frames shared between them.
//!
//! Each distinct folded stack is one sample whose weight is its count: a
//! number of samples for an on-CPU profile, microseconds for the wall-time
//! stacks of an off-CPU one. Speedscope's views (time order, left heavy,
//! sandwich) then read as they do for its own recordings; the time-order
//! view shows stacks in name order, since folding forgot the order.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Value, json};

use super::folded::FoldedStacks;
use crate::{Error, Result};

/// What the weights count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weight {
    /// Samples (speedscope's unit `none`).
    Samples,
    /// Microseconds of time.
    Microseconds,
}

/// The speedscope document of `profiles` (name and stacks each), named `name`.
pub fn speedscope_document(
    name: &str,
    profiles: &[(&str, &FoldedStacks)],
    weight: Weight,
) -> Value {
    let mut frames: Vec<Value> = Vec::new();
    let mut index_of: HashMap<String, usize> = HashMap::new();
    let mut documents = Vec::new();
    for (profile_name, folded) in profiles {
        let mut samples = Vec::new();
        let mut weights = Vec::new();
        for (stack, count) in folded.stacks() {
            let indices: Vec<usize> = stack
                .iter()
                .map(|frame| {
                    *index_of.entry(frame.to_string()).or_insert_with(|| {
                        frames.push(json!({ "name": frame }));
                        frames.len() - 1
                    })
                })
                .collect();
            samples.push(indices);
            weights.push(count);
        }
        let total: u64 = weights.iter().sum();
        documents.push(json!({
            "type": "sampled",
            "name": profile_name,
            "unit": match weight {
                Weight::Samples => "none",
                Weight::Microseconds => "microseconds",
            },
            "startValue": 0,
            "endValue": total,
            "samples": samples,
            "weights": weights,
        }));
    }
    json!({
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "name": name,
        "exporter": "perflab",
        "activeProfileIndex": documents.len().saturating_sub(1),
        "shared": { "frames": frames },
        "profiles": documents,
    })
}

/// Writes [`speedscope_document`] to `path`.
pub fn write_speedscope(
    path: &Path,
    name: &str,
    profiles: &[(&str, &FoldedStacks)],
    weight: Weight,
) -> Result<()> {
    let text = speedscope_document(name, profiles, weight).to_string();
    std::fs::write(path, text + "\n").map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stack_is_a_sample_of_shared_frames_weighted_by_its_count() {
        let a = FoldedStacks::parse("app;main;parse 3\napp;main;compute 5\n").unwrap();
        let b = FoldedStacks::parse("app;main;compute 2\n").unwrap();
        let document = speedscope_document("two", &[("A", &a), ("B", &b)], Weight::Samples);
        let frames: Vec<&str> = document["shared"]["frames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|frame| frame["name"].as_str().unwrap())
            .collect();
        assert_eq!(frames, ["app", "main", "compute", "parse"]);
        let first = &document["profiles"][0];
        assert_eq!(first["type"], "sampled");
        assert_eq!(first["unit"], "none");
        assert_eq!(first["samples"], json!([[0, 1, 2], [0, 1, 3]]));
        assert_eq!(first["weights"], json!([5, 3]));
        assert_eq!(first["endValue"], 8);
        assert_eq!(document["profiles"][1]["samples"], json!([[0, 1, 2]]));
        assert_eq!(document["activeProfileIndex"], 1);
    }
}
