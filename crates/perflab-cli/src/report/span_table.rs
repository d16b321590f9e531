//! The span section of the terminal and Markdown reports.

use std::fmt::Write;

use perflab_format::result::ResultDocument;

use crate::units::{format_percent, format_seconds};

/// The span table for a terminal, or nothing when no run wrote a profile.
pub fn terminal_spans(doc: &ResultDocument) -> String {
    let mut out = String::new();
    if doc.spans.is_empty() {
        out.push_str(&super::probe_table::terminal_probes(doc));
        for w in &doc.profile_warnings {
            let _ = writeln!(out, "  warning: {w}");
        }
        return out;
    }
    let width = doc
        .spans
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let runs = doc
        .spans
        .iter()
        .flat_map(|s| s.per_variant.iter().flatten())
        .map(|s| s.runs)
        .max()
        .unwrap_or(0);
    if doc.variants.len() == 2 {
        let _ = writeln!(
            out,
            "  spans: self time per run (median of up to {runs} runs), change with its interval (positive: B spends less)"
        );
        let _ = writeln!(
            out,
            "    {:width$}  {:>12}  {:>12}  change",
            "span", doc.variants[0].name, doc.variants[1].name
        );
        for s in &doc.spans {
            let cell = |i: usize| {
                s.per_variant
                    .get(i)
                    .cloned()
                    .flatten()
                    .map_or("-".to_string(), |v| format_seconds(v.self_s))
            };
            let change = match (s.change, s.ci) {
                (Some(c), Some([lo, hi])) => format!(
                    "{} [{} … {}]{}",
                    format_percent(c),
                    format_percent(lo),
                    format_percent(hi),
                    if s.moved == Some(true) { "  moved" } else { "" }
                ),
                _ => "-".to_string(),
            };
            let _ = writeln!(
                out,
                "    {:width$}  {:>12}  {:>12}  {change}",
                s.name,
                cell(0),
                cell(1)
            );
        }
    } else {
        let _ = writeln!(
            out,
            "  spans (median per run over {runs} runs; % wall is self time over wall time and exceeds 100% when threads overlap):"
        );
        let _ = writeln!(
            out,
            "    {:width$}  {:>10}  {:>12}  {:>12}  {:>12}  {:>12}  {:>7}",
            "span", "calls", "self", "inclusive", "p50", "p99", "% wall"
        );
        for s in &doc.spans {
            let Some(Some(v)) = s.per_variant.first() else {
                continue;
            };
            let unattributed = s.name == crate::spans::UNATTRIBUTED;
            let or_dash = |x: f64| {
                if unattributed {
                    "-".to_string()
                } else {
                    format_seconds(x)
                }
            };
            let _ = writeln!(
                out,
                "    {:width$}  {:>10}  {:>12}  {:>12}  {:>12}  {:>12}  {:>6.1}%",
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
                v.self_share_of_wall * 100.0
            );
        }
    }
    out.push_str(&super::probe_table::terminal_probes(doc));
    for w in &doc.profile_warnings {
        let _ = writeln!(out, "  warning: {w}");
    }
    out
}

/// The span table in Markdown, or nothing when no run wrote a profile.
pub fn markdown_spans(doc: &ResultDocument) -> String {
    let mut out = String::new();
    if doc.spans.is_empty() {
        out.push_str(&super::probe_table::markdown_probes(doc));
        for w in &doc.profile_warnings {
            let _ = writeln!(out, "\n> warning: {}", super::markdown::cell(w));
        }
        return out;
    }
    let names: Vec<String> = doc
        .variants
        .iter()
        .map(|v| format!("{} self", super::markdown::cell(&v.name)))
        .collect();
    let _ = writeln!(
        out,
        "\n| span | {} | change of self time |",
        names.join(" | ")
    );
    let _ = writeln!(out, "| --- | {}---: |", "---: | ".repeat(names.len()));
    for s in &doc.spans {
        let cells: Vec<String> = s
            .per_variant
            .iter()
            .map(|v| {
                v.as_ref().map_or("-".to_string(), |v| {
                    format!(
                        "{} ({:.1}% of wall)",
                        format_seconds(v.self_s),
                        v.self_share_of_wall * 100.0
                    )
                })
            })
            .collect();
        let change = match (s.change, s.ci) {
            (Some(c), Some([lo, hi])) => format!(
                "{} [{} … {}]{}",
                format_percent(c),
                format_percent(lo),
                format_percent(hi),
                if s.moved == Some(true) {
                    " **moved**"
                } else {
                    ""
                }
            ),
            _ => "-".to_string(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {change} |",
            super::markdown::cell(&s.name),
            cells.join(" | ")
        );
    }
    out.push_str(&super::probe_table::markdown_probes(doc));
    for w in &doc.profile_warnings {
        let _ = writeln!(out, "\n> warning: {}", super::markdown::cell(w));
    }
    out
}
