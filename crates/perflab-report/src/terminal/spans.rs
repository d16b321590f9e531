//! The span table on the terminal.

use std::fmt::{self, Write};

use perflab_format::result::ResultDocument;

use super::probes::terminal_probes;
use super::warnings_terminal;
use crate::sections::spans::{change_text, profiled_runs, zero_figures_text};
use crate::units::{format_seconds, format_share};

/// The span table for a terminal, or nothing when no run wrote a profile.
pub(crate) fn terminal_spans(out: &mut dyn Write, doc: &ResultDocument) -> fmt::Result {
    if doc.spans.is_empty() {
        terminal_probes(out, doc)?;
        warnings_terminal(out, &doc.profile_warnings)?;
        return Ok(());
    }
    let width = doc
        .spans
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let runs = profiled_runs(&doc.spans);
    if doc.variants.len() == 2 {
        writeln!(
            out,
            "  spans: self time per run (median of up to {runs} runs), B's self time relative to A's with its interval"
        )?;
        writeln!(
            out,
            "    {:width$}  {:>12}  {:>12}  change",
            "span", doc.variants[0].name, doc.variants[1].name
        )?;
        for s in &doc.spans {
            let cell = |i: usize| {
                s.per_variant
                    .get(i)
                    .cloned()
                    .flatten()
                    .map_or("-".to_string(), |v| {
                        match zero_figures_text(v.never_entered(), v.entered_in_few_runs()) {
                            Some(text) if s.name != crate::spans::UNATTRIBUTED => text,
                            _ => format_seconds(v.self_s),
                        }
                    })
            };
            let change = match change_text(s) {
                Some(text) if s.moved == Some(true) => format!("{text}  moved"),
                Some(text) => text,
                None => "-".to_string(),
            };
            writeln!(
                out,
                "    {:width$}  {:>12}  {:>12}  {change}",
                s.name,
                cell(0),
                cell(1)
            )?;
        }
    } else {
        writeln!(
            out,
            "  spans (median per run over {runs} runs; % wall is self time over wall time and exceeds 100% when threads overlap):"
        )?;
        writeln!(
            out,
            "    {:width$}  {:>10}  {:>12}  {:>12}  {:>12}  {:>12}  {:>7}",
            "span", "calls", "self", "inclusive", "p50", "p99", "% wall"
        )?;
        for s in &doc.spans {
            let Some(Some(v)) = s.per_variant.first() else {
                continue;
            };
            let unattributed = s.name == crate::spans::UNATTRIBUTED;
            if !unattributed
                && let Some(text) = zero_figures_text(v.never_entered(), v.entered_in_few_runs())
            {
                writeln!(out, "    {:width$}  {text}", s.name)?;
                continue;
            }
            let or_dash = |x: f64| {
                if unattributed {
                    "-".to_string()
                } else {
                    format_seconds(x)
                }
            };
            writeln!(
                out,
                "    {:width$}  {:>10}  {:>12}  {:>12}  {:>12}  {:>12}  {:>7}",
                s.name,
                if unattributed {
                    "-".to_string()
                } else {
                    format!("{:.0}", v.calls)
                },
                format_seconds(v.self_s),
                or_dash(v.inclusive_s),
                or_dash(v.p50_s),
                or_dash(v.p99_s),
                format_share(v.self_share_of_wall)
            )?;
        }
    }
    terminal_probes(out, doc)?;
    warnings_terminal(out, &doc.profile_warnings)?;
    Ok(())
}
