//! Instruction counts in a report (`perflab run` and `perflab ab` with
//! `--measure instructions`): whether the counts repeated exactly or were
//! treated as samples, and the functions whose counts changed most.
//!
//! The figures are the `perflab-instructions/1` document attached to the
//! experiment when it was measured.

use perflab_format::instructions::{FunctionCountChange, InstructionVariant, InstructionsDocument};

use crate::units::format_count;

/// Rows of the table of functions.
pub(crate) const FUNCTION_ROWS: usize = 10;

/// Whether the counts are exact, as a word and the reason for it.
pub(crate) fn describe_status(doc: &InstructionsDocument) -> (&'static str, &'static str) {
    if doc.exact {
        (
            "Exact",
            "every run of each variant executed the same number of instructions, so the counts carry no sampling noise",
        )
    } else if doc.variants.iter().any(|v| v.counts.len() < 2) {
        (
            "Not checked",
            "a variant was counted only once, so whether its count repeats is unknown",
        )
    } else {
        (
            "Sampled",
            "the counts differed between runs of the same variant, so they were treated as samples with noise",
        )
    }
}

/// How counted runs were set up: tool, environment, address randomisation.
pub(crate) fn describe_setup(doc: &InstructionsDocument) -> String {
    format!(
        "Counted with valgrind's {}, environment cleared except {}{}",
        doc.tool,
        doc.environment.join(", "),
        if doc.aslr_off {
            ", address-space randomisation off"
        } else {
            ""
        }
    )
}

/// "identical in both runs", "1 run: ...", "differ across 3 runs (1,000 … 1,020)".
pub(crate) fn describe_repeat(v: &InstructionVariant) -> String {
    match (v.counts.len(), v.identical) {
        (0, _) => "no counted run".into(),
        (1, _) => "1 run: repeatability not checked".into(),
        (2, true) => "identical in both runs".into(),
        (n, true) => format!("identical in all {n} runs"),
        (n, false) => format!(
            "differ across {n} runs ({} … {})",
            format_count(*v.counts.iter().min().unwrap_or(&0) as f64),
            format_count(*v.counts.iter().max().unwrap_or(&0) as f64)
        ),
    }
}

/// "+1,000,000" or "-14".
pub(crate) fn signed_count(change: i64) -> String {
    format!(
        "{}{}",
        if change > 0 { "+" } else { "" },
        format_count(change as f64)
    )
}

/// "-66.7%", or "new" when the baseline did not run the function.
pub(crate) fn describe_relative(c: &FunctionCountChange) -> String {
    c.relative
        .map_or("new".to_string(), |r| format!("{:+.1}%", r * 100.0))
}

/// The file name of a function's object (`libc.so.6` for `/usr/lib/x86_64-linux-gnu/libc.so.6`).
pub(crate) fn object_name(object: &str) -> &str {
    object.rsplit('/').next().unwrap_or(object)
}
