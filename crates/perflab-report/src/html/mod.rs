//! The report as one self-contained HTML page: styles inline, charts as
//! inline SVG, no scripts, and a Content-Security-Policy that forbids every
//! network access, so the file opens the same anywhere, offline, forever.
//!
//! Every string that comes from a user or a program is escaped with
//! [`escape::esc`]; charts live in [`charts`], the SVG primitives in [`svg`].

pub mod charts;
pub mod escape;
pub mod inline_svg;
mod profile_tables;
mod spans;
mod suite;
pub mod svg;
mod tables;

use std::fmt::Write;

use perflab_format::vocabulary::ResultStatus;

use charts::change::change_chart;
use charts::distribution::distribution_chart;
use charts::flamegraph::flamegraph_chart;
use charts::history::history_chart;
use charts::share_changes::share_changes_chart;
use charts::shares::shares_chart;
use charts::spans::spans_chart;
use charts::sweep::sweep_charts;
use escape::esc;

use crate::page::{ExperimentReport, ReportData};
use crate::sections::cpu_wait::cpu_wait_lines;
use crate::sections::duet::duet_line;
use crate::sections::machine::machine_line;
use crate::sections::provenance::provenance_line;
use crate::sections::sampling::SamplingReport;
use crate::sections::span_grid::span_grid;

const STYLE: &str = include_str!("style.css");

/// No network, no scripts, no plugins: only the inline styles and data images.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

fn badge(verdict: &str) -> String {
    let class = verdict.to_ascii_lowercase().replace(' ', "-");
    format!(
        r#"<span class="badge {}">{}</span>"#,
        esc(&class),
        esc(verdict)
    )
}

fn experiment_html(e: &ExperimentReport, out: &mut String, chart_id: &mut usize) {
    let _ = write!(
        out,
        r#"<section class="experiment" id="experiment-{}"><h2>{}"#,
        e.id,
        esc(&e.title())
    );
    if let Some(verdict) = e
        .result
        .as_ref()
        .and_then(|r| r.verdict.map(|v| v.as_str()))
    {
        out.push_str(&badge(verdict));
    }
    if e.status != ResultStatus::Complete {
        let _ = write!(
            out,
            r#"<span class="badge status">{}</span>"#,
            esc(e.status.as_str())
        );
    }
    out.push_str("</h2>");
    if let Some(line) = e.provenance().and_then(provenance_line) {
        let _ = write!(
            out,
            r#"<p class="provenance">{}</p>"#,
            esc(&line.replace('`', ""))
        );
    }
    if let Some(machine) = e.result.as_ref().and_then(|r| r.machine.as_ref()) {
        let _ = write!(
            out,
            r#"<p class="provenance">{}</p>"#,
            esc(&machine_line(machine))
        );
    }
    if let Some(duet) = e.result.as_ref().and_then(|r| r.duet.as_ref()) {
        let _ = write!(
            out,
            r#"<p class="provenance">{}</p>"#,
            esc(&duet_line(duet))
        );
    }
    for line in e.result.iter().flat_map(cpu_wait_lines) {
        let _ = write!(out, r#"<p class="provenance">{}</p>"#, esc(&line));
    }
    if let Some(why) = &e.missing {
        let _ = write!(
            out,
            r#"<p class="note">No result to show: {}.</p>"#,
            esc(why)
        );
    }
    for w in &e.warnings {
        let _ = write!(out, r#"<p class="note">Warning: {}</p>"#, esc(w));
    }
    match (&e.sweep, &e.suite, &e.result) {
        (Some(sweep), _, _) => {
            for chart in sweep_charts(sweep) {
                out.push_str(&chart);
            }
            out.push_str(&tables::sweep_table(sweep));
            for w in &sweep.result.warnings {
                let _ = write!(out, r#"<p class="note">Warning: {}</p>"#, esc(w));
            }
        }
        (None, Some(suite), _) => out.push_str(&suite::suite_html(suite)),
        (None, None, Some(result)) => {
            out.push_str(&tables::decision_summary(result));
            for w in &result.warnings {
                let _ = write!(out, r#"<p class="note">Warning: {}</p>"#, esc(w));
            }
            for w in result.machine.iter().flat_map(|m| &m.warnings) {
                let _ = write!(out, r#"<p class="note">Machine state: {}</p>"#, esc(w));
            }
            if let Some(d) = &result.decision {
                out.push_str(&change_chart(&result.metric.name, result.metric.better, d));
            }
            if let Some(chart) = distribution_chart(result) {
                out.push_str(&chart);
            }
            out.push_str(&tables::variants_table(result));
            let probes = tables::probes_tables(result);
            if !probes.is_empty() {
                let _ = write!(out, "<h3>{}</h3>", tables::probes_heading(result));
                out.push_str(&probes);
            }
        }
        (None, None, None) => {}
    }
    if let Some(sampling) = &e.sampling {
        *chart_id += 1;
        sampling_html(sampling, out, *chart_id);
    }
    if let Some(doc) = &e.instructions {
        out.push_str("<h3>Instruction counts</h3>");
        out.push_str(&profile_tables::instructions_tables(doc));
    }
    let with_spans = e.result.as_ref().filter(|r| !r.spans.is_empty());
    if !e.spans.is_empty() || with_spans.is_some() {
        out.push_str("<h3>Span breakdown</h3>");
    }
    if let Some(result) = with_spans {
        out.push_str(&spans::spans_table(result));
    }
    if e.sweep.is_some() && !e.spans.is_empty() {
        out.push_str(&spans::span_grid_html(&span_grid(&e.spans)));
    } else {
        for v in &e.spans {
            *chart_id += 1;
            out.push_str(&spans_chart(v, *chart_id));
        }
    }
    // The profiles' warnings, grouped as on the terminal: a warning every
    // profile gave is one line with its count, not one box per run.
    let profile_warnings = match &e.result {
        Some(r) if e.sweep.is_none() && !r.profile_warnings.is_empty() => &r.profile_warnings,
        _ => &e.span_warnings,
    };
    for w in profile_warnings {
        let _ = write!(out, r#"<p class="note">Profile warning: {}</p>"#, esc(w));
    }
    if let Some((history, unit)) = &e.history {
        let _ = write!(out, "<h3>History over commits</h3>");
        out.push_str(&history_chart(history, unit));
        out.push_str(&tables::history_table(history, unit));
    }
    out.push_str("</section>");
}

/// A sampling profile: per command its shares chart and tables, the shares
/// that moved, the flame graph (`id` keeps its ids unique) and the warnings.
fn sampling_html(sampling: &SamplingReport, out: &mut String, id: usize) {
    let doc = &sampling.doc;
    for profile in &doc.profiles {
        out.push_str(&profile_tables::profile_summary(doc, profile));
        if let Some(chart) = shares_chart(doc, profile) {
            out.push_str(&chart);
        }
        out.push_str(&profile_tables::sampled_profile_tables(profile));
        if let Some(off_cpu) = &profile.off_cpu {
            out.push_str(&profile_tables::off_cpu_tables(off_cpu));
        }
    }
    if doc.profiles.len() == 2 {
        if let Some(chart) = share_changes_chart(doc) {
            out.push_str(&chart);
        }
        out.push_str(&profile_tables::share_changes_table(doc));
    }
    if !doc.off_cpu_changes.is_empty() {
        out.push_str(&profile_tables::off_cpu_changes_table(doc));
    }
    for w in &doc.warnings {
        let _ = write!(out, r#"<p class="note">Warning: {}</p>"#, esc(w));
    }
    match flamegraph_chart(sampling, id) {
        Ok(chart) => out.push_str(&chart),
        Err(why) => {
            let _ = write!(out, r#"<p class="note">No flame graph: {}.</p>"#, esc(&why));
        }
    }
}

/// The sections of `experiments` as the report shows them, without the
/// page around them: for pages that show experiments among other things
/// (`perflab serve`), so that an experiment reads the same everywhere.
pub fn experiment_sections_html(experiments: &[ExperimentReport]) -> String {
    let mut out = String::with_capacity(32 * 1024);
    let mut chart_id = 0;
    for e in experiments {
        experiment_html(e, &mut out, &mut chart_id);
    }
    out
}

/// The report's style sheet, for pages that embed its sections.
pub fn report_style() -> &'static str {
    STYLE
}

/// The report as one HTML page.
pub fn report_html(data: &ReportData) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let title = match data.experiments.as_slice() {
        [one] => format!("perflab report: {}", one.title()),
        many => format!("perflab report: {} experiments", many.len()),
    };
    let _ = write!(
        out,
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{}</title><style>{STYLE}</style></head><body><main><header class="page"><h1>{}</h1><p>Every number carries its interval and the runs it rests on. Written by perflab {}; this file is self-contained (no scripts, no network).</p></header>"#,
        esc(&title),
        esc(&title),
        esc(env!("CARGO_PKG_VERSION"))
    );
    let mut chart_id = 0;
    let (data, shared) = data.shared_warnings_apart();
    for e in &data.experiments {
        experiment_html(e, &mut out, &mut chart_id);
    }
    if !shared.is_empty() {
        out.push_str("<section><h2>Profile warnings of several experiments</h2>");
        for (w, n) in &shared {
            let _ = write!(
                out,
                r#"<p class="note">Profile warning: {} (in {n} experiments)</p>"#,
                esc(w)
            );
        }
        out.push_str("</section>");
    }
    out.push_str("<footer>Intervals are confidence intervals at the level stated with each chart. Hover over a mark for its exact value.</footer></main></body></html>\n");
    out
}
