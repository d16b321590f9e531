//! Instruction counts per function, from the counted runs of `perflab run`
//! and `perflab ab` with `--measure instructions`: the document kept in the
//! store and the tables shown on the terminal.

use std::collections::BTreeMap;

use perflab_format::instructions::{
    FunctionCountChange, INSTRUCTIONS_FORMAT, InstructionVariant, InstructionsDocument,
};
use perflab_runner::callgrind::CallgrindCounts;

use perflab_report::{Render, TerminalReport};

/// Functions kept per variant and changes kept per comparison.
pub const FUNCTIONS_KEPT: usize = 30;

/// One variant as counted: name, command, the counts of its runs and the
/// per-function counts of its first counted run.
pub struct CountedVariant<'a> {
    /// Name.
    pub name: &'a str,
    /// Command.
    pub command: String,
    /// Total instructions of every measured run.
    pub counts: Vec<u64>,
    /// Per-function counts of the first counted run, if any.
    pub functions: Option<&'a CallgrindCounts>,
}

/// Builds the document; `environment` names what the counted runs saw.
pub fn instructions_document(
    experiment_id: Option<i64>,
    environment: Vec<String>,
    variants: &[CountedVariant<'_>],
) -> InstructionsDocument {
    let docs: Vec<InstructionVariant> = variants
        .iter()
        .map(|v| InstructionVariant {
            name: v.name.to_string(),
            command: v.command.clone(),
            identical: v.counts.windows(2).all(|w| w[0] == w[1]),
            counts: v.counts.clone(),
            functions: v
                .functions
                .map(|f| f.top(FUNCTIONS_KEPT))
                .unwrap_or_default(),
        })
        .collect();
    let changes = match variants {
        [a, b] => match (a.functions, b.functions) {
            (Some(a), Some(b)) => function_changes(a, b, FUNCTIONS_KEPT),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    InstructionsDocument {
        format: INSTRUCTIONS_FORMAT.into(),
        experiment_id,
        tool: "callgrind".into(),
        environment,
        aslr_off: true,
        exact: docs.iter().all(|v| v.identical && !v.counts.is_empty()),
        variants: docs,
        changes,
    }
}

/// The functions whose own instruction counts changed most, largest first.
pub fn function_changes(
    baseline: &CallgrindCounts,
    candidate: &CallgrindCounts,
    keep: usize,
) -> Vec<FunctionCountChange> {
    let mut keys: BTreeMap<&(String, String), ()> = BTreeMap::new();
    for key in baseline.functions.keys().chain(candidate.functions.keys()) {
        keys.insert(key, ());
    }
    let mut changes: Vec<FunctionCountChange> = keys
        .into_keys()
        .filter_map(|key| {
            let a = baseline.functions.get(key).copied().unwrap_or(0);
            let b = candidate.functions.get(key).copied().unwrap_or(0);
            (a != b).then(|| FunctionCountChange {
                name: key.1.clone(),
                object: key.0.clone(),
                instructions: [a, b],
                change: b as i64 - a as i64,
                relative: (a > 0).then(|| b as f64 / a as f64 - 1.0),
            })
        })
        .collect();
    changes.sort_by(|x, y| {
        y.change
            .unsigned_abs()
            .cmp(&x.change.unsigned_abs())
            .then_with(|| x.name.cmp(&y.name))
    });
    changes.truncate(keep);
    changes
}

/// The terminal tables: how the counts were taken, whether they repeat, and
/// the functions (one variant) or the changes (two variants), at most `rows`.
pub fn render_instructions(doc: &InstructionsDocument, rows: usize) -> String {
    perflab_report::render_to_string(|out| TerminalReport.instructions(out, doc, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(&str, u64)]) -> CallgrindCounts {
        CallgrindCounts {
            total: pairs.iter().map(|p| p.1).sum(),
            functions: pairs
                .iter()
                .map(|(n, c)| (("prog".to_string(), n.to_string()), *c))
                .collect(),
        }
    }

    #[test]
    fn the_largest_change_comes_first_and_unchanged_functions_are_left_out() {
        let a = counts(&[("step", 9000), ("main", 100), ("init", 50)]);
        let b = counts(&[("step", 18000), ("main", 90), ("init", 50)]);
        let changes = function_changes(&a, &b, 10);
        assert_eq!(changes.len(), 2);
        assert_eq!(changes[0].name, "step");
        assert_eq!(changes[0].change, 9000);
        assert_eq!(changes[0].relative, Some(1.0));
        assert_eq!(changes[1].change, -10);
    }

    #[test]
    fn identical_counts_make_the_document_exact() {
        let a = counts(&[("step", 9000)]);
        let doc = instructions_document(
            Some(1),
            vec!["PATH=/usr/bin".into()],
            &[
                CountedVariant {
                    name: "A",
                    command: "a".into(),
                    counts: vec![9000, 9000],
                    functions: Some(&a),
                },
                CountedVariant {
                    name: "B",
                    command: "b".into(),
                    counts: vec![9000, 9001],
                    functions: Some(&a),
                },
            ],
        );
        assert!(!doc.exact);
        assert!(doc.variants[0].identical && !doc.variants[1].identical);
        let text = render_instructions(&doc, 5);
        assert!(text.contains("identical in all 2 runs: exact"), "{text}");
        assert!(text.contains("treated as samples"), "{text}");
    }
}
