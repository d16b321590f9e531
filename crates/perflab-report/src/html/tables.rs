//! The tables and sentences of the HTML page (numbers a chart cannot show
//! exactly: commands, run counts, intervals).

use std::fmt::{self, Write};

use perflab_format::result::ResultDocument;
use perflab_format::vocabulary::Better;

use super::escape::esc;
use crate::sections::guard::GuardWords;
use crate::sections::history::describe_judgement;
use crate::sections::sweep::{
    describe_ratio, describe_series, fixed_part_warnings, value_with_precision,
};
use crate::sections::{decision_change, variant_names};
use crate::units::format_value;
use perflab_format::history::MetricHistory;
use perflab_format::sweep::SweepDocument;

/// The verdict in one sentence, with its interval and run count.
pub(crate) fn decision_summary(out: &mut dyn Write, doc: &ResultDocument) -> fmt::Result {
    let Some(d) = &doc.decision else {
        return Ok(());
    };
    let (a, b) = variant_names(doc);
    let words = decision_change(doc, d);
    write!(
        out,
        r#"<p class="summary"><strong>{}</strong>: {} (<strong>{}</strong>, {:.0}% interval <strong>{}</strong>, {} runs per variant). {}.</p>"#,
        esc(d.verdict.as_str()),
        esc(&words.sentence(b, a)),
        esc(&words.percent()),
        d.confidence * 100.0,
        esc(&words.percent_interval()),
        d.runs,
        esc(&capitalise(&d.reason))
    )?;
    if let Some(note) = &d.runs_needed_note {
        write!(out, r#"<p class="note">Next: {}.</p>"#, esc(note))?;
    }
    for g in &doc.guards {
        write!(
            out,
            r#"<p class="summary">Guard {}.</p>"#,
            esc(&GuardWords::new(g).line(g.status.as_str()))
        )?;
    }
    Ok(())
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The variants with their commands and summaries.
pub(crate) fn variants_table(out: &mut dyn Write, doc: &ResultDocument) -> fmt::Result {
    let unit = &doc.metric.unit;
    out.write_str(
        r#"<table><thead><tr><th>variant</th><th>command</th><th class="num">runs</th><th class="num">median</th><th class="num">mean ± sd</th><th class="num">min … max</th></tr></thead><tbody>"#,
    )?;
    for v in &doc.variants {
        let s = &v.summary;
        let command = crate::sections::command_line(v)
            .map(|c| format!("<code>{}</code>", esc(&c)))
            .unwrap_or_default();
        write!(
            out,
            r#"<tr><td>{}</td><td>{command}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{} ± {}</td><td class="num">{} … {}</td></tr>"#,
            esc(&v.name),
            v.runs,
            esc(&format_value(s.median, unit)),
            esc(&format_value(s.mean, unit)),
            esc(&format_value(s.sd, unit)),
            esc(&format_value(s.min, unit)),
            esc(&format_value(s.max, unit)),
        )?;
    }
    out.write_str("</tbody></table>")?;
    Ok(())
}

/// "Counters and gauges", "Futures and locks", ...: the kinds of probe the
/// result has, for the heading over [`probes_tables`].
pub(crate) fn probes_heading(doc: &ResultDocument) -> String {
    let present: Vec<&str> = crate::sections::probes::sections(doc)
        .iter()
        .zip(["counters", "gauges", "futures", "locks"])
        .filter(|((_, rows), _)| !rows.is_empty())
        .map(|(_, kind)| kind)
        .collect();
    let text = match present.as_slice() {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    text[..1.min(text.len())].to_uppercase() + &text[1.min(text.len())..]
}

/// Counters, gauges, futures and locks across runs, one table each, under their titles.
pub(crate) fn probes_tables(out: &mut dyn Write, doc: &ResultDocument) -> fmt::Result {
    for (title, rows) in crate::sections::probes::sections(doc) {
        if rows.is_empty() {
            continue;
        }
        let title = title[..1].to_uppercase() + &title[1..];
        write!(out, "<p>{}</p><table><thead><tr><th>name</th>", esc(&title))?;
        for v in &doc.variants {
            write!(out, r#"<th class="num">{}</th>"#, esc(&v.name))?;
        }
        out.write_str("</tr></thead><tbody>")?;
        for (name, cells) in rows {
            write!(out, "<tr><td><code>{}</code></td>", esc(&name))?;
            for cell in cells {
                write!(out, r#"<td class="num">{}</td>"#, esc(&cell))?;
            }
            out.write_str("</tr>")?;
        }
        out.write_str("</tbody></table>")?;
    }
    Ok(())
}

/// The sweep's points, ratios, growth exponents and cliffs.
pub(crate) fn sweep_table(out: &mut dyn Write, doc: &SweepDocument) -> fmt::Result {
    let s = &doc.sweep;
    let metric = &doc.result.metric;
    let unit = &metric.unit;
    let has_reference = s.commands.iter().any(|c| c.reference);
    if let Some(size) = &s.size {
        out.write_str(r#"<ul class="growth">"#)?;
        for series in &s.series {
            let name = if series.fixed.is_empty() {
                series.command.clone()
            } else {
                format!("{} {}", series.command, series.fixed)
            };
            write!(
                out,
                "<li><strong>{}</strong>: {}</li>",
                esc(&name),
                esc(&describe_series(doc, series, size))
            )?;
        }
        out.write_str("</ul>")?;
    }
    for warning in fixed_part_warnings(doc) {
        write!(out, r#"<p class="note">Warning: {}</p>"#, esc(&warning))?;
    }
    write!(
        out,
        r#"<table><thead><tr><th>point</th><th>command</th><th class="num">runs</th><th class="num">{}</th>{}{}</tr></thead><tbody>"#,
        esc(&metric.name),
        s.per_item
            .as_deref()
            .map(|p| format!(r#"<th class="num">per item ({})</th>"#, esc(p)))
            .unwrap_or_default(),
        if has_reference {
            "<th>vs reference</th>"
        } else {
            ""
        }
    )?;
    for p in &s.points {
        for (i, r) in p.results.iter().enumerate() {
            let point = if i == 0 { esc(&p.label) } else { String::new() };
            let value = r
                .value
                .map(|v| value_with_precision(&v, unit))
                .unwrap_or_else(|| "(fewer than 2 runs)".into());
            write!(
                out,
                r#"<tr><td>{point}</td><td>{}</td><td class="num">{}{}</td><td class="num">{}</td>"#,
                esc(&r.command),
                r.runs,
                if r.precise { "" } else { "*" },
                esc(&value)
            )?;
            if s.per_item.is_some() {
                let text = r
                    .per_item
                    .map(|v| {
                        if metric.better == Better::Higher {
                            format!("{:.4e}", v.estimate)
                        } else {
                            format_value(v.estimate, unit)
                        }
                    })
                    .unwrap_or_default();
                write!(out, r#"<td class="num">{}</td>"#, esc(&text))?;
            }
            if has_reference {
                let text = r
                    .ratio
                    .map(|v| describe_ratio(&v, &metric.name))
                    .unwrap_or_default();
                write!(out, "<td>{}</td>", esc(&text))?;
            }
            out.write_str("</tr>")?;
        }
    }
    out.write_str("</tbody></table>")?;
    let commands: Vec<String> = s
        .commands
        .iter()
        .map(|c| {
            format!(
                "{}{}: <code>{}</code>",
                esc(&c.name),
                if c.reference { " (reference)" } else { "" },
                esc(&c.template)
            )
        })
        .collect();
    write!(
        out,
        r#"<p class="chart-note">Commands: {}. Values are geometric means with ±{:.0}% target precision at {:.0}% confidence; * marks a point that did not reach it.</p>"#,
        commands.join("; "),
        s.precision * 100.0,
        s.confidence * 100.0
    )?;
    Ok(())
}

/// The table under the history chart.
pub(crate) fn history_table(out: &mut dyn Write, e: &MetricHistory, unit: &str) -> fmt::Result {
    for s in &e.series {
        write!(
            out,
            r#"<table><thead><tr><th>{} at commit</th><th>experiments</th><th class="num">runs</th><th class="num">median</th><th>change point: segment before → from here</th></tr></thead><tbody>"#,
            esc(&s.variant)
        )?;
        for step in &s.steps {
            let regression = step.change.as_ref().is_some_and(|j| j.regression);
            let experiments: Vec<String> =
                step.experiments.iter().map(|id| format!("#{id}")).collect();
            write!(
                out,
                r#"<tr{}><td><code>{}</code></td><td>{}</td><td class="num">{}</td><td class="num">{}</td><td>{}</td></tr>"#,
                if regression {
                    r#" class="regression""#
                } else {
                    ""
                },
                esc(&step.label),
                esc(&experiments.join(", ")),
                step.values.len(),
                esc(&format_value(step.median, unit)),
                esc(&step
                    .change
                    .as_ref()
                    .map(|j| describe_judgement(&e.metric, e.better, j))
                    .unwrap_or_default())
            )?;
        }
        if let (Some(total), Some(first), Some(last)) = (&s.total, s.steps.first(), s.steps.last())
        {
            write!(
                out,
                r#"<tr><td colspan="4"><strong>total</strong> <code>{}</code> → <code>{}</code></td><td>{}</td></tr>"#,
                esc(&first.label),
                esc(&last.label),
                esc(&describe_judgement(&e.metric, e.better, total))
            )?;
        }
        out.write_str("</tbody></table>")?;
    }
    Ok(())
}
