//! The HTML of every page, as maud templates: checked at compile time,
//! every string from the store escaped by maud. What perflab-report
//! renders (an experiment's sections, the history chart) is its own HTML,
//! whose strings perflab-report escapes, inserted as it is.
//!
//! No page needs JavaScript: charts are inline SVG, filters and paging are
//! plain links and GET forms.

mod commits;
mod parts;

pub use commits::compare_commits_page;

use maud::{DOCTYPE, Markup, PreEscaped, html};
use perflab_format::change_words::{percent_interval, signed_percent};
use perflab_report::html::charts::history::history_chart;
use perflab_report::html::{experiment_sections_html, report_style};
use perflab_report::page::ExperimentReport;

use crate::error::PageError;
use crate::site::{CompareData, HomeData, SeriesData, Site};
use parts::{
    change_table, commit_cell, decision_method, experiment_link, experiments_table, query_link,
    series_href, verdict_badge,
};

/// The style of the pages beyond the report's own.
const SITE_STYLE: &str = "
main { max-width: 1280px; }
table.experiments td, table.changes td { overflow-wrap: break-word; }
nav.site { display: flex; gap: 18px; align-items: baseline; padding: 10px 0 4px; border-bottom: 1px solid var(--line); margin-bottom: 16px; }
nav.site a.brand { font-weight: 700; font-size: 18px; }
form.filters { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: end; margin: 8px 0 12px; font-size: 13px; }
form.filters label { display: flex; flex-direction: column; gap: 2px; }
form.filters input { font: inherit; padding: 3px 6px; width: 11em; }
.pager { display: flex; gap: 14px; font-size: 13px; margin: 4px 0 18px; }
.host { margin-top: 6px; }
.side-by-side { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 18px; }
.empty { color: var(--muted); }
";

fn layout(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · perflab" }
                style { (PreEscaped(report_style())) (PreEscaped(SITE_STYLE)) }
            }
            body {
                main {
                    nav.site {
                        a.brand href="/" { "perflab" }
                        a href="/" { "Home" }
                        a href="/compare" { "Compare" }
                        a href="/api" { "JSON API" }
                    }
                    (body)
                    footer { "Read-only view of the store. Intervals are confidence intervals at the level stated with each figure." }
                }
            }
        }
    }
}

/// The home page.
pub fn home_page(site: &Site, d: &HomeData) -> Markup {
    let f = &d.filters;
    let body = html! {
        h1 { "Regressions" }
        p.provenance {
            (d.watched_series) " of " (d.series) " series are watched (measured at their host's newest commit). "
            "Each series' change points are found with a false-alarm rate of " (format!("{:.0}%", d.false_alarm * 100.0))
            "; confirmed ones were put to an interleaved A/B (" code { "perflab history --changes --confirm" } ")."
        }
        @if d.regressions.is_empty() {
            p.empty #no-regressions { "No watched series has regressed." }
        }
        @for host in &d.regressions {
            section.host {
                h2 {
                    "Host " code { (if host.host.is_empty() { "(unknown)" } else { &host.host }) }
                    @if let Some(step) = &host.newest_step { span.provenance { " newest commit " code { (step) } } }
                }
                (change_table(site, &host.changes, true))
                @if host.total > host.changes.len() {
                    p.provenance { (host.changes.len()) " newest of " (host.total) " shown." }
                }
            }
        }
        @for why in &d.skipped {
            p.note { "Left out: " (why) }
        }
        h1 #experiments { "Experiments" }
        form.filters method="get" action="/" {
            label { "name contains" input type="text" name="name" maxlength="200" value=[f.name.as_deref()]; }
            label { "host" input type="text" name="host" maxlength="200" value=[f.host.as_deref()]; }
            label { "branch" input type="text" name="branch" maxlength="200" value=[f.branch.as_deref()]; }
            label { "since" input type="date" name="since" value=[f.since.as_deref()]; }
            label { "until" input type="date" name="until" value=[f.until.as_deref()]; }
            button type="submit" { "Filter" }
            a href="/" { "clear" }
        }
        p.provenance { (d.experiments.total) " experiments; page " (d.experiments.page) " of " (d.experiments.pages) "." }
        (experiments_table(&d.experiments.items))
        (pager(d.experiments.page, d.experiments.pages, |page| home_href(d, page)))
        h1 { "Changed most" }
        p.provenance { "Series whose newest change point lies within their last " (d.recent_commits) " commits, largest change first." }
        @if d.most_changed.is_empty() {
            p.empty { "No series changed within its last " (d.recent_commits) " commits." }
        } @else {
            (change_table(site, &d.most_changed, false))
        }
    };
    layout("Home", body)
}

fn home_href(d: &HomeData, page: usize) -> String {
    let f = &d.filters;
    let page_text = page.to_string();
    let per_page = d.experiments.per_page.to_string();
    query_link(
        "/",
        &[
            ("name", f.name.as_deref()),
            ("host", f.host.as_deref()),
            ("branch", f.branch.as_deref()),
            ("since", f.since.as_deref()),
            ("until", f.until.as_deref()),
            ("per_page", Some(per_page.as_str())),
            ("page", Some(page_text.as_str())),
        ],
    ) + "#experiments"
}

fn pager(page: usize, pages: usize, href: impl Fn(usize) -> String) -> Markup {
    html! {
        nav.pager {
            @if page > 1 { a rel="prev" href=(href(page - 1)) { "← newer" } }
            span { "page " (page) " of " (pages) }
            @if page < pages { a rel="next" href=(href(page + 1)) { "older →" } }
        }
    }
}

/// A series page.
pub fn series_page(site: &Site, d: &SeriesData) -> Markup {
    let k = &d.key;
    let title = format!(
        "{} of {} ({}) on {}",
        k.metric,
        k.name.as_deref().unwrap_or("(unnamed)"),
        k.variant,
        k.host.as_deref().unwrap_or("(unknown host)")
    );
    let body = html! {
        h1 { (title) }
        p.provenance {
            "Each commit's runs with the interval of its level; change points found over the whole series (E-divisive means), "
            "each judged between the segments around it. "
            a href=(format!("/api{}", series_href(k, None))) { "This page as JSON" } "."
        }
        (PreEscaped(history_chart(&d.history, &d.unit)))
        h2 { "Change points" }
        @if d.change_points.is_empty() {
            p.empty { "No change point: the series stayed at one level." }
        } @else {
            table {
                thead { tr { th { "from" } th { "to" } th { "measured" } th { "change, interval, verdict" } th.num { "p" } th { "confirmation" } th { "" } } }
                tbody {
                    @for c in &d.change_points {
                        tr class=[c.regression.then_some("regression")] {
                            td { (commit_cell(site, &c.from, c.from_commit.as_deref())) }
                            td { (commit_cell(site, &c.to, c.to_commit.as_deref())) }
                            td { (c.started_at) }
                            td { (c.description) }
                            td.num { (format!("{:.3}", c.p_value)) }
                            td {
                                @if let Some(conf) = &c.confirmation {
                                    (if conf.confirmed { "confirmed" } else { "not confirmed" })
                                    @if let Some(id) = conf.experiment { " by " (experiment_link(id)) }
                                }
                                @if let Some(ids) = d.confirmed_by.get(&c.to) {
                                    "A/B " @for (i, id) in ids.iter().enumerate() { @if i > 0 { ", " } (experiment_link(*id)) }
                                }
                            }
                            td {
                                a.compare-commits href=(commits::compare_commits_href(
                                    k,
                                    c.from_commit.as_deref().unwrap_or(&c.from),
                                    c.to_commit.as_deref().unwrap_or(&c.to),
                                )) { "compare the two commits" }
                            }
                        }
                    }
                }
            }
        }
        @if !d.confirmations.is_empty() {
            h2 { "Confirming A/Bs" }
            (experiments_table(&d.confirmations))
        }
        h2 #commits { "Commits, newest first" }
        table {
            thead { tr { th { "commit" } th { "measured" } th { "experiments" } th.num { "runs" } th.num { "level" } th { "change point from here" } } }
            tbody {
                @for s in &d.steps {
                    tr class=[s.step.change.as_ref().is_some_and(|j| j.regression).then_some("regression")] {
                        td { (commit_cell(site, &s.step.label, s.step.commit.as_deref())) }
                        td { (s.step.started_at) }
                        td { @for (i, id) in s.step.experiments.iter().enumerate() { @if i > 0 { ", " } (experiment_link(*id)) } }
                        td.num { (s.step.values.len()) }
                        td.num { (s.level) }
                        td { (s.change.as_deref().unwrap_or("")) }
                    }
                }
            }
        }
        (pager(d.page, d.pages, |page| format!("{}#commits", series_href(k, Some(page)))))
    };
    layout(&title, body)
}

/// An experiment page: the report's sections for it.
pub fn experiment_page(_site: &Site, d: &ExperimentReport) -> Markup {
    let title = d.title();
    let body = html! {
        p.provenance {
            a href=(format!("/api/experiments/{}", d.id)) { "This experiment as JSON" }
            " · compare it: "
            a href=(format!("/compare?a={}&b={}", d.id, d.id)) { "with itself" }
            " (edit the URL's b)"
        }
        (PreEscaped(experiment_sections_html(std::slice::from_ref(d))))
    };
    layout(&title, body)
}

/// The compare page: two experiments side by side with the decision.
pub fn compare_page(_site: &Site, d: &CompareData) -> Markup {
    let title = format!("{} against {}", d.b.title(), d.a.title());
    let body = html! {
        h1 { "Compare" }
        (compare_form(Some(d)))
        h2 { (title) }
        @if let Some(dec) = &d.decision {
            p.summary {
                (verdict_badge(&dec.verdict)) " "
                (d.metric.as_deref().unwrap_or("")) " of " code { (d.b_variant.as_deref().unwrap_or("")) } " in " (experiment_link(d.b.id))
                " against " code { (d.a_variant.as_deref().unwrap_or("")) } " in " (experiment_link(d.a.id)) ": "
                strong { (signed_percent(dec.change)) } " " (percent_interval(dec.ci[0], dec.ci[1]))
            }
            (decision_method(dec))
        }
        @if let Some(note) = &d.note { p.note { (note) } }
        div.side-by-side {
            div { (PreEscaped(experiment_sections_html(std::slice::from_ref(&d.a)))) }
            div { (PreEscaped(experiment_sections_html(std::slice::from_ref(&d.b)))) }
        }
    };
    layout(&title, body)
}

/// The compare page before two experiments are chosen.
pub(crate) fn compare_form_page() -> Markup {
    layout(
        "Compare",
        html! {
            h1 { "Compare" }
            p { "Two experiments side by side, with the decision of " code { "perflab compare" } " on their samples." }
            (compare_form(None))
        },
    )
}

fn compare_form(d: Option<&CompareData>) -> Markup {
    let a = d.map(|d| d.a.id.to_string());
    let b = d.map(|d| d.b.id.to_string());
    html! {
        form.filters method="get" action="/compare" {
            label { "baseline id" input type="text" name="a" maxlength="20" value=[a.as_deref()]; }
            label { "its variant" input type="text" name="a_variant" maxlength="200" value=[d.and_then(|d| d.a_variant.as_deref())]; }
            label { "candidate id" input type="text" name="b" maxlength="20" value=[b.as_deref()]; }
            label { "its variant" input type="text" name="b_variant" maxlength="200" value=[d.and_then(|d| d.b_variant.as_deref())]; }
            button type="submit" { "Compare" }
        }
    }
}

/// The page of an error: its status and message.
pub(crate) fn error_page(e: &PageError) -> Markup {
    let title = match e {
        PageError::BadRequest(_) => "Bad request",
        PageError::NotFound(_) => "Not found",
        PageError::Failed(_) => "The store could not be read",
    };
    layout(
        title,
        html! {
            h1 { (title) }
            p.note #error { (e.to_string()) }
            p { a href="/" { "Home" } }
        },
    )
}

/// The index of the JSON API.
pub(crate) fn api_index_page() -> Markup {
    layout(
        "JSON API",
        html! {
            h1 { "JSON API" }
            p { "Every page has its JSON twin under " code { "/api" } ", with the same parameters; see docs/guide/serve.md for the schemas." }
            ul {
                li { code { "/api/home" } " — regressions, experiments (name, host, branch, since, until, page, per_page), changed most (commits)" }
                li { code { "/api/experiments/ID" } " — what perflab report shows of one experiment" }
                li { code { "/api/series?name=&metric=&variant=&host=&page=" } " — one series' history and change points" }
                li { code { "/api/compare?a=ID&b=ID&a_variant=&b_variant=" } " — two experiments and the decision between them" }
                li { code { "/api/compare/commits?name=&metric=&variant=&host=&base=&head=" } " — two commits of a series and the decision between their runs" }
            }
        },
    )
}
