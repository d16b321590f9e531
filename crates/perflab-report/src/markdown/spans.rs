//! Spans in Markdown: the result's span table (each variant's self time and
//! share of wall time, the change with its interval and the spans that
//! moved) and the breakdown of one variant.

use std::fmt::{self, Write};

use perflab_format::result::ResultDocument;

use super::probes::markdown_probes;
use super::{cell, warnings_markdown};
use crate::sections::spans::{VariantSpans, change_text, zero_figures_text};
use crate::units::{format_number, format_seconds, format_share};

/// The span table in Markdown, or nothing when no run wrote a profile;
/// then the counters and gauges, and the profiles' warnings.
pub(crate) fn markdown_spans(out: &mut dyn Write, doc: &ResultDocument) -> fmt::Result {
    if !doc.spans.is_empty() {
        let names: Vec<String> = doc
            .variants
            .iter()
            .map(|v| format!("{} self", cell(&v.name)))
            .collect();
        writeln!(
            out,
            "\n| span | {} | change of self time |",
            names.join(" | ")
        )?;
        writeln!(out, "| --- | {}---: |", "---: | ".repeat(names.len()))?;
    }
    for s in &doc.spans {
        let cells: Vec<String> = s
            .per_variant
            .iter()
            .map(|v| {
                v.as_ref().map_or("-".to_string(), |v| {
                    if s.name != crate::spans::UNATTRIBUTED
                        && let Some(text) =
                            zero_figures_text(v.never_entered(), v.entered_in_few_runs())
                    {
                        return text;
                    }
                    format!(
                        "{} ({} of wall)",
                        format_seconds(v.self_s),
                        format_share(v.self_share_of_wall)
                    )
                })
            })
            .collect();
        let change = match change_text(s) {
            Some(text) if s.moved == Some(true) => format!("{text} **moved**"),
            Some(text) => text,
            None => "-".to_string(),
        };
        writeln!(
            out,
            "| {} | {} | {change} |",
            cell(&s.name),
            cells.join(" | ")
        )?;
    }
    markdown_probes(out, doc)?;
    warnings_markdown(out, &doc.profile_warnings)?;
    Ok(())
}

/// The spans of one variant as a Markdown table.
pub(crate) fn variant_spans_markdown(out: &mut dyn Write, v: &VariantSpans) -> fmt::Result {
    let wall = v
        .wall_s
        .map(|w| format!(", {} of wall time per run", format_seconds(w)))
        .unwrap_or_default();
    writeln!(
        out,
        "**{}**: {} profiled runs{wall}.\n",
        cell(&v.variant),
        v.runs
    )?;
    writeln!(
        out,
        "| span | self time per run | share of wall time | calls per run |\n| --- | ---: | ---: | ---: |"
    )?;
    for s in &v.spans {
        if let Some(text) = zero_figures_text(s.never_entered, s.entered_in_few_runs) {
            writeln!(out, "| `{}` | {text} | | |", cell(&s.name))?;
            continue;
        }
        writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            cell(&s.name),
            format_seconds(s.self_s),
            format_share(s.share_of_wall),
            format_number(s.calls)
        )?;
    }
    writeln!(
        out,
        "| *(unattributed: no span)* | {} | {} | |",
        format_seconds(v.unattributed.self_s),
        format_share(v.unattributed.share_of_wall)
    )?;
    Ok(())
}
