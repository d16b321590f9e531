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

use std::fmt::{self, Write};

use perflab_format::history::MetricHistory;
use perflab_format::instructions::InstructionsDocument;
use perflab_format::result::ResultDocument;
use perflab_format::sampling::SamplingDocument;
use perflab_format::suite::SuiteDocument;
use perflab_format::sweep::SweepDocument;
use perflab_format::vocabulary::ResultStatus;

use charts::change::change_chart;
use charts::distribution::distribution_chart;
use charts::flamegraph::flamegraph_chart;
use charts::history::write_history_chart;
use charts::share_changes::share_changes_chart;
use charts::shares::shares_chart;
use charts::spans::spans_chart;
use charts::sweep::sweep_charts;
use escape::esc;

use crate::Render;
use crate::bisect::BisectDocument;
use crate::changes::StoreChanges;
use crate::page::{ExperimentReport, ReportData};
use crate::sections::cpu_wait::cpu_wait_lines;
use crate::sections::duet::duet_line;
use crate::sections::machine::machine_line;
use crate::sections::peak_memory;
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

fn experiment_html(out: &mut dyn Write, e: &ExperimentReport, chart_id: &mut usize) -> fmt::Result {
    write!(
        out,
        r#"<section class="experiment" id="experiment-{}"><h2>{}"#,
        e.id,
        esc(&e.title())
    )?;
    if let Some(verdict) = e
        .result
        .as_ref()
        .and_then(|r| r.verdict.map(|v| v.as_str()))
    {
        out.write_str(&badge(verdict))?;
    }
    if e.status != ResultStatus::Complete {
        write!(
            out,
            r#"<span class="badge status">{}</span>"#,
            esc(e.status.as_str())
        )?;
    }
    out.write_str("</h2>")?;
    if let Some(line) = e.provenance().and_then(provenance_line) {
        write!(
            out,
            r#"<p class="provenance">{}</p>"#,
            esc(&line.replace('`', ""))
        )?;
    }
    if let Some(machine) = e.result.as_ref().and_then(|r| r.machine.as_ref()) {
        write!(
            out,
            r#"<p class="provenance">{}</p>"#,
            esc(&machine_line(machine))
        )?;
    }
    if let Some(duet) = e.result.as_ref().and_then(|r| r.duet.as_ref()) {
        write!(
            out,
            r#"<p class="provenance">{}</p>"#,
            esc(&duet_line(duet))
        )?;
    }
    for line in e.result.iter().flat_map(cpu_wait_lines) {
        write!(out, r#"<p class="provenance">{}</p>"#, esc(&line))?;
    }
    if let Some(why) = &e.missing {
        write!(
            out,
            r#"<p class="note">No result to show: {}.</p>"#,
            esc(why)
        )?;
    }
    for w in &e.warnings {
        write!(out, r#"<p class="note">Warning: {}</p>"#, esc(w))?;
    }
    match (&e.sweep, &e.suite, &e.result) {
        (Some(sweep), _, _) => sweep_html(out, sweep)?,
        (None, Some(suite), _) => suite::suite_html(out, suite)?,
        (None, None, Some(result)) => result_html(out, result)?,
        (None, None, None) => {}
    }
    if let Some(sampling) = &e.sampling {
        *chart_id += 1;
        sampling_html(out, sampling, *chart_id)?;
    }
    if let Some(doc) = &e.instructions {
        out.write_str("<h3>Instruction counts</h3>")?;
        profile_tables::instructions_tables(out, doc)?;
    }
    let with_spans = e.result.as_ref().filter(|r| !r.spans.is_empty());
    if !e.spans.is_empty() || with_spans.is_some() {
        out.write_str("<h3>Span breakdown</h3>")?;
    }
    if let Some(result) = with_spans {
        spans::spans_table(out, result)?;
    }
    if e.sweep.is_some() && !e.spans.is_empty() {
        spans::span_grid_html(out, &span_grid(&e.spans))?;
    } else {
        for v in &e.spans {
            *chart_id += 1;
            spans_chart(out, v, *chart_id)?;
        }
    }
    // The profiles' warnings, grouped as on the terminal: a warning every
    // profile gave is one line with its count, not one box per run.
    let profile_warnings = match &e.result {
        Some(r) if e.sweep.is_none() && !r.profile_warnings.is_empty() => &r.profile_warnings,
        _ => &e.span_warnings,
    };
    for w in profile_warnings {
        write!(out, r#"<p class="note">Profile warning: {}</p>"#, esc(w))?;
    }
    if let Some((history, unit)) = &e.history {
        write!(out, "<h3>History over commits</h3>")?;
        history_html(out, history, unit)?;
    }
    out.write_str("</section>")
}

/// A sweep as its experiment's section shows it: the charts, the table and
/// the warnings.
fn sweep_html(out: &mut dyn Write, sweep: &SweepDocument) -> fmt::Result {
    sweep_charts(out, sweep)?;
    tables::sweep_table(out, sweep)?;
    for w in &sweep.result.warnings {
        write!(out, r#"<p class="note">Warning: {}</p>"#, esc(w))?;
    }
    Ok(())
}

/// A result as its experiment's section shows it: the verdict, the
/// warnings, the change and distribution charts, the variants and the
/// counters and gauges.
fn result_html(out: &mut dyn Write, result: &ResultDocument) -> fmt::Result {
    tables::decision_summary(out, result)?;
    for w in &result.warnings {
        write!(out, r#"<p class="note">Warning: {}</p>"#, esc(w))?;
    }
    for w in result.machine.iter().flat_map(|m| &m.warnings) {
        write!(out, r#"<p class="note">Machine state: {}</p>"#, esc(w))?;
    }
    if let Some(line) = peak_memory::document_line(result) {
        write!(out, r#"<p class="note">{}</p>"#, esc(&line))?;
    }
    if let Some(d) = &result.decision {
        change_chart(out, &result.metric.name, result.metric.better, d)?;
    }
    distribution_chart(out, result)?;
    tables::variants_table(out, result)?;
    // The heading names the kinds of table that follow, so the tables are
    // written apart first: no tables, no heading.
    let probes = crate::render_to_string(|text| tables::probes_tables(text, result));
    if !probes.is_empty() {
        write!(out, "<h3>{}</h3>", tables::probes_heading(result))?;
        out.write_str(&probes)?;
    }
    Ok(())
}

/// A metric's history: its chart and its table.
fn history_html(out: &mut dyn Write, history: &MetricHistory, unit: &str) -> fmt::Result {
    write_history_chart(out, history, unit)?;
    tables::history_table(out, history, unit)
}

/// A sampling profile: per command its shares chart and tables, the shares
/// that moved, the warnings and the flame graph (`id` keeps its ids unique).
fn sampling_html(out: &mut dyn Write, sampling: &SamplingReport, id: usize) -> fmt::Result {
    sampling_tables_html(out, &sampling.doc)?;
    match flamegraph_chart(sampling, id) {
        Ok(chart) => out.write_str(&chart),
        Err(why) => write!(out, r#"<p class="note">No flame graph: {}.</p>"#, esc(&why)),
    }
}

/// A sampling profile without its flame graph: per command its shares
/// chart and tables, the shares that moved and the warnings.
fn sampling_tables_html(out: &mut dyn Write, doc: &SamplingDocument) -> fmt::Result {
    for profile in &doc.profiles {
        out.write_str(&profile_tables::profile_summary(doc, profile))?;
        shares_chart(out, doc, profile)?;
        profile_tables::sampled_profile_tables(out, profile)?;
        if let Some(off_cpu) = &profile.off_cpu {
            profile_tables::off_cpu_tables(out, off_cpu)?;
        }
    }
    if doc.profiles.len() == 2 {
        share_changes_chart(out, doc)?;
        profile_tables::share_changes_table(out, doc)?;
    }
    if !doc.off_cpu_changes.is_empty() {
        profile_tables::off_cpu_changes_table(out, doc)?;
    }
    for w in &doc.warnings {
        write!(out, r#"<p class="note">Warning: {}</p>"#, esc(w))?;
    }
    Ok(())
}

/// The sections of `experiments` as the report shows them, without the
/// page around them: for pages that show experiments among other things
/// (`perflab serve`), so that an experiment reads the same everywhere.
pub fn write_experiment_sections_html(
    out: &mut dyn Write,
    experiments: &[ExperimentReport],
) -> fmt::Result {
    let mut chart_id = 0;
    for e in experiments {
        experiment_html(out, e, &mut chart_id)?;
    }
    Ok(())
}

/// [`write_experiment_sections_html`] as a `String`, allocated once for a
/// typical experiment.
pub fn experiment_sections_html(experiments: &[ExperimentReport]) -> String {
    let mut text = String::with_capacity(32 * 1024);
    write_experiment_sections_html(&mut text, experiments)
        .expect("a Display implementation returned an error unexpectedly");
    text
}

/// The report's style sheet, for pages that embed its sections.
pub fn report_style() -> &'static str {
    STYLE
}

/// The report as one HTML page.
pub fn write_report_html(out: &mut dyn Write, data: &ReportData) -> fmt::Result {
    let title = match data.experiments.as_slice() {
        [one] => format!("perflab report: {}", one.title()),
        many => format!("perflab report: {} experiments", many.len()),
    };
    write!(
        out,
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{}</title><style>{STYLE}</style></head><body><main><header class="page"><h1>{}</h1><p>Every number carries its interval and the runs it rests on. Written by perflab {}; this file is self-contained (no scripts, no network).</p></header>"#,
        esc(&title),
        esc(&title),
        esc(env!("CARGO_PKG_VERSION"))
    )?;
    let mut chart_id = 0;
    let (data, shared) = data.shared_warnings_apart();
    for e in &data.experiments {
        experiment_html(out, e, &mut chart_id)?;
    }
    if !shared.is_empty() {
        out.write_str("<section><h2>Profile warnings of several experiments</h2>")?;
        for (w, n) in &shared {
            write!(
                out,
                r#"<p class="note">Profile warning: {} (in {n} experiments)</p>"#,
                esc(w)
            )?;
        }
        out.write_str("</section>")?;
    }
    out.write_str("<footer>Intervals are confidence intervals at the level stated with each chart. Hover over a mark for its exact value.</footer></main></body></html>\n")?;
    Ok(())
}

/// [`write_report_html`] as a `String`, allocated once for a typical page.
pub fn report_html(data: &ReportData) -> String {
    let mut text = String::with_capacity(64 * 1024);
    write_report_html(&mut text, data)
        .expect("a Display implementation returned an error unexpectedly");
    text
}

/// Renders HTML. A `perflab report` page is the only standalone HTML file;
/// every other kind is written as the fragment its experiment's section of
/// that page shows (no `<html>` around it), for pages that embed it, with
/// [`report_style`] as its style sheet.
pub struct HtmlReport;

impl Render for HtmlReport {
    /// The verdict, charts, variants and counters of the result's section.
    fn result(&self, out: &mut dyn Write, doc: &ResultDocument) -> fmt::Result {
        result_html(out, doc)
    }

    fn suite(&self, out: &mut dyn Write, doc: &SuiteDocument) -> fmt::Result {
        suite::suite_html(out, doc)
    }

    fn sweep(&self, out: &mut dyn Write, doc: &SweepDocument) -> fmt::Result {
        sweep_html(out, doc)
    }

    fn history(&self, out: &mut dyn Write, history: &MetricHistory, unit: &str) -> fmt::Result {
        history_html(out, history, unit)
    }

    /// Nothing: `perflab history --changes` has no HTML form (`perflab
    /// serve` draws its own page of change points).
    fn changes(&self, _out: &mut dyn Write, _changes: &StoreChanges) -> fmt::Result {
        Ok(())
    }

    /// The profile's charts and tables without the flame graph, which is
    /// drawn from the recorded stacks the document does not carry; its
    /// tables list a fixed number of functions, so `top` is not used.
    fn sampling(&self, out: &mut dyn Write, doc: &SamplingDocument, _top: usize) -> fmt::Result {
        sampling_tables_html(out, doc)
    }

    /// The instruction counts' tables; `top` is not used, as for sampling.
    fn instructions(
        &self,
        out: &mut dyn Write,
        doc: &InstructionsDocument,
        _top: usize,
    ) -> fmt::Result {
        profile_tables::instructions_tables(out, doc)
    }

    /// Nothing: a bisection is written as JSON and Markdown only.
    fn bisection(&self, _out: &mut dyn Write, _doc: &BisectDocument) -> fmt::Result {
        Ok(())
    }

    fn report_page(&self, out: &mut dyn Write, data: &ReportData) -> fmt::Result {
        write_report_html(out, data)
    }
}
