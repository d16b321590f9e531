//! A sampling profile in a report (experiments of kind `profile`): which
//! functions take the samples, by self and by inclusive share, each with its
//! sample count and interval, and for two profiles which shares moved.
//!
//! The figures are those `perflab profile` stored (`perflab-sampling/1`);
//! only the folded stacks are read besides, for the HTML page to draw the
//! flame graph again.

use std::fmt::Write;

use perflab_format::sampling::{FunctionShare, SampledProfile, SamplingDocument, ShareChange};

use super::markdown::cell;
use crate::profile::shares::FEW_SAMPLES;
use crate::units::format_count;

/// Rows of each function table and of the table of moved shares.
pub const TOP_FUNCTIONS: usize = 10;

/// A stored sampling profile with the stacks it was counted from.
#[derive(Debug, Clone)]
pub struct SamplingReport {
    /// The document `perflab profile` stored.
    pub doc: SamplingDocument,
    /// Folded stacks (`frame;frame COUNT` lines) per profiled command, baseline first.
    pub folded: Vec<(String, String)>,
}

/// The functions of `profile` with samples of their own, largest self share first.
pub fn by_self(profile: &SampledProfile, top: usize) -> Vec<&FunctionShare> {
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
pub fn by_inclusive(profile: &SampledProfile, top: usize) -> Vec<&FunctionShare> {
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

/// "41.2%".
pub fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// "38.0% … 44.5%".
pub fn share_interval(ci: [f64; 2]) -> String {
    format!("{} … {}", percent(ci[0]), percent(ci[1]))
}

/// "+4.1" (percentage points).
pub fn points(change: f64) -> String {
    format!("{:+.1}", change * 100.0)
}

/// "+1.0 … +7.2" (percentage points).
pub fn points_interval(ci: [f64; 2]) -> String {
    format!("{} … {}", points(ci[0]), points(ci[1]))
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
pub fn describe_profile(doc: &SamplingDocument, profile: &SampledProfile) -> String {
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

fn shares_table(out: &mut String, heading: &str, rows: &[&FunctionShare], inclusive: bool) {
    let _ = writeln!(
        out,
        "\n| function ({heading}) | samples | share | interval |\n| --- | ---: | ---: | ---: |"
    );
    for f in rows {
        let (samples, share, ci) = if inclusive {
            (f.inclusive_samples, f.inclusive_share, f.inclusive_ci)
        } else {
            (f.self_samples, f.self_share, f.self_ci)
        };
        let _ = writeln!(
            out,
            "| `{}` | {}{} | {} | {} |",
            cell(&f.name),
            format_count(samples as f64),
            few(samples),
            percent(share),
            share_interval(ci)
        );
    }
}

fn changes_markdown(out: &mut String, doc: &SamplingDocument) {
    let [a, b] = [&doc.profiles[0], &doc.profiles[1]];
    let _ = writeln!(
        out,
        "\n**Shares that moved** from {} ({} samples) to {} ({} samples), in percentage points with {:.0}% Newcombe intervals:",
        cell(&a.name),
        format_count(a.samples as f64),
        cell(&b.name),
        format_count(b.samples as f64),
        doc.confidence * 100.0
    );
    let rows = moved(doc, TOP_FUNCTIONS);
    if rows.is_empty() {
        let _ = writeln!(
            out,
            "\nNone: every function's share is the same within its interval."
        );
        return;
    }
    let _ = writeln!(
        out,
        "\n| function | self {a} → {b} | change | interval | inclusive {a} → {b} | change | interval |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        a = cell(&a.name),
        b = cell(&b.name)
    );
    for c in &rows {
        let _ = writeln!(
            out,
            "| `{}` | {} → {} | {} | {} | {} → {} | {} | {} |",
            cell(&c.name),
            percent(c.self_shares[0]),
            percent(c.self_shares[1]),
            points(c.self_change),
            points_interval(c.self_ci),
            percent(c.inclusive_shares[0]),
            percent(c.inclusive_shares[1]),
            points(c.inclusive_change),
            points_interval(c.inclusive_ci)
        );
    }
    match doc.changes.len() - rows.len() {
        0 => {}
        1 => {
            let _ = writeln!(
                out,
                "\n1 other function is not shown: it did not move beyond its interval, or moved less."
            );
        }
        others => {
            let _ = writeln!(
                out,
                "\n{others} other functions are not shown: they did not move beyond their intervals, or moved less."
            );
        }
    }
}

/// The profile section in Markdown: per profiled command its top functions
/// by self and by inclusive share, the shares that moved, and the warnings.
pub fn sampling_markdown(doc: &SamplingDocument) -> String {
    let mut out = String::new();
    for (i, profile) in doc.profiles.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "**{}**: `{}`: {}. Shares are of all samples, with {:.0}% Wilson intervals.",
            cell(&profile.name),
            cell(&profile.command),
            describe_profile(doc, profile),
            doc.confidence * 100.0
        );
        if profile.functions.is_empty() {
            let _ = writeln!(out, "\nNo samples: there is nothing to rank.");
            continue;
        }
        shares_table(
            &mut out,
            "by self share",
            &by_self(profile, TOP_FUNCTIONS),
            false,
        );
        shares_table(
            &mut out,
            "by inclusive share",
            &by_inclusive(profile, TOP_FUNCTIONS),
            true,
        );
    }
    if doc.profiles.len() == 2 {
        changes_markdown(&mut out, doc);
    }
    for w in &doc.warnings {
        let _ = writeln!(out, "\n> warning: {}", cell(w));
    }
    out
}
