//! A sampling profile in a report (experiments of kind `profile`): which
//! functions take the samples, by self and by inclusive share, each with its
//! sample count and interval, and for two profiles which shares moved.
//!
//! The figures are those `perflab profile` stored (`perflab-sampling/1`);
//! only the folded stacks are read besides, for the HTML page to draw the
//! flame graph again.

use perflab_format::sampling::{FunctionShare, SampledProfile, SamplingDocument, ShareChange};

use crate::sampling::FEW_SAMPLES;
use crate::units::format_count;

/// Rows of each function table and of the table of moved shares.
pub(crate) const TOP_FUNCTIONS: usize = 10;

/// A stored sampling profile with the stacks it was counted from.
#[derive(Debug, Clone)]
pub struct SamplingReport {
    /// The document `perflab profile` stored.
    pub doc: SamplingDocument,
    /// Folded stacks (`frame;frame COUNT` lines) per profiled command, baseline first.
    pub folded: Vec<(String, String)>,
}

/// The functions of `profile` with samples of their own, largest self share first.
pub(crate) fn by_self(profile: &SampledProfile, top: usize) -> Vec<&FunctionShare> {
    let mut functions: Vec<&FunctionShare> = profile
        .functions
        .iter()
        .filter(|f| f.self_samples > 0)
        .collect();
    functions.sort_by(|a, b| {
        b.self_samples
            .cmp(&a.self_samples)
            .then(a.name.cmp(&b.name))
    });
    functions.truncate(top);
    functions
}

/// The functions of `profile`, largest inclusive share first.
pub(crate) fn by_inclusive(profile: &SampledProfile, top: usize) -> Vec<&FunctionShare> {
    let mut functions: Vec<&FunctionShare> = profile.functions.iter().collect();
    functions.sort_by(|a, b| {
        b.inclusive_samples
            .cmp(&a.inclusive_samples)
            .then(a.name.cmp(&b.name))
    });
    functions.truncate(top);
    functions
}

/// The changes whose interval excludes zero, largest first.
pub fn moved(doc: &SamplingDocument, top: usize) -> Vec<&ShareChange> {
    doc.changes.iter().filter(|c| c.moved).take(top).collect()
}

/// " (few samples)" for a count too small to read a share from.
pub fn few(samples: u64) -> &'static str {
    if samples > 0 && samples < FEW_SAMPLES {
        " (few samples)"
    } else {
        ""
    }
}

/// How the samples of one profile were taken, in one sentence.
pub(crate) fn describe_profile(doc: &SamplingDocument, profile: &SampledProfile) -> String {
    let unwinding = match doc.sampler.call_graph.as_str() {
        "dwarf" => "DWARF-unwound",
        _ => "frame-pointer",
    };
    let unknown = if profile.unknown_samples > 0 {
        format!(
            "; {} of them in code perf could not name",
            format_count(profile.unknown_samples as f64)
        )
    } else {
        String::new()
    };
    format!(
        "{} samples of {} at {} Hz ({unwinding} stacks), {:.2} s under {}{unknown}",
        format_count(profile.samples as f64),
        doc.sampler.event,
        doc.sampler.frequency_hz,
        profile.wall_s,
        doc.sampler.tool
    )
}
