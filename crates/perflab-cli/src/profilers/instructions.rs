//! Instruction counts per function, from the counted runs of `perflab run`
//! and `perflab ab` with `--measure instructions`: the document kept in the
//! store and the tables shown on the terminal.

use std::collections::BTreeMap;
use std::fmt::Write;

use perflab_format::instructions::{
    FunctionCountChange, INSTRUCTIONS_FORMAT, InstructionVariant, InstructionsDocument,
};
use perflab_runner::callgrind::CallgrindCounts;

use perflab_report::units::format_count;

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
/// the functions (one variant) or the changes (two variants).
pub fn render_instructions(doc: &InstructionsDocument, rows: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "instructions (callgrind; environment cleared except {}; address randomisation off):",
        doc.environment.join(", ")
    );
    for v in &doc.variants {
        let repeat = match (v.counts.len(), v.identical) {
            (1, _) => "1 run: repeatability not checked".to_string(),
            (n, true) => format!("identical in all {n} runs: exact"),
            (n, false) => format!(
                "differ across {n} runs ({} … {}): treated as samples",
                format_count(*v.counts.iter().min().unwrap_or(&0) as f64),
                format_count(*v.counts.iter().max().unwrap_or(&0) as f64)
            ),
        };
        let first = v.counts.first().copied().unwrap_or(0) as f64;
        let _ = writeln!(out, "  {}: {} ({repeat})", v.name, format_count(first));
    }
    if doc.variants.len() == 2 {
        if doc.changes.is_empty() {
            let _ = writeln!(out, "  no function's count changed");
            return out;
        }
        let _ = writeln!(
            out,
            "  functions whose counts changed most (own code, first run of each):"
        );
        let _ = writeln!(
            out,
            "    {:<40} {:>15} {:>15} {:>15} {:>9}",
            "function", doc.variants[0].name, doc.variants[1].name, "change", "relative"
        );
        for c in doc.changes.iter().take(rows) {
            let _ = writeln!(
                out,
                "    {:<40} {:>15} {:>15} {:>15} {:>9}",
                cut(&c.name),
                format_count(c.instructions[0] as f64),
                format_count(c.instructions[1] as f64),
                format!(
                    "{}{}",
                    if c.change > 0 { "+" } else { "" },
                    format_count(c.change as f64)
                ),
                c.relative
                    .map_or("new".to_string(), |r| format!("{:+.1}%", r * 100.0)),
            );
        }
    } else if let Some(v) = doc.variants.first() {
        let _ = writeln!(
            out,
            "  functions with the most instructions (own code, first run):"
        );
        let total = v.counts.first().copied().unwrap_or(0).max(1) as f64;
        for f in v.functions.iter().take(rows) {
            let _ = writeln!(
                out,
                "    {:<40} {:>15} {:>6.1}%",
                cut(&f.name),
                format_count(f.instructions as f64),
                f.instructions as f64 / total * 100.0
            );
        }
    }
    out
}

fn cut(name: &str) -> String {
    if name.chars().count() <= 40 {
        name.to_string()
    } else {
        format!("{}…", name.chars().take(39).collect::<String>())
    }
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
