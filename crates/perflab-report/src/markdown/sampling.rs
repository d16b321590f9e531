//! A sampling profile as Markdown: per profiled command its top functions
//! by self and inclusive share, and for two profiles the shares that moved.

use std::fmt::Write;

use perflab_format::sampling::{FunctionShare, SamplingDocument};

use super::cell;
use crate::sections::sampling::*;
use crate::units::{
    format_count, format_points, format_points_interval, format_share, format_share_interval,
};

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
            format_share(share),
            format_share_interval(ci)
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
            format_share(c.self_shares[0]),
            format_share(c.self_shares[1]),
            format_points(c.self_change),
            format_points_interval(c.self_ci),
            format_share(c.inclusive_shares[0]),
            format_share(c.inclusive_shares[1]),
            format_points(c.inclusive_change),
            format_points_interval(c.inclusive_ci)
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
