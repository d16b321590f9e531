//! The page comparing two commits of a series.

use maud::{Markup, html};
use perflab_format::change_words::{percent_interval, signed_percent};

use super::layout;
use super::parts::{commit_cell, decision_method, experiment_link, series_href, verdict_badge};
use crate::compare_commits::CommitsCompareData;
use crate::site::Site;

/// Two commits of a series with the decision between their runs.
pub fn compare_commits_page(site: &Site, d: &CommitsCompareData) -> Markup {
    let k = &d.key;
    let title = format!(
        "{} against {}: {} of {} ({}) on {}",
        d.head.label,
        d.base.label,
        k.metric,
        k.name.as_deref().unwrap_or("(unnamed)"),
        k.variant,
        k.host.as_deref().unwrap_or("(unknown host)")
    );
    let body = html! {
        h1 { "Compare two commits" }
        p.provenance {
            "Of the series " a.series href=(series_href(k, None)) { (k.metric) " of " (k.name.as_deref().unwrap_or("(unnamed)")) " (" (k.variant) ")" }
            " on " (k.host.as_deref().unwrap_or("(unknown host)")) ". "
            a href=(format!("/api{}", commits_href(d))) { "This page as JSON" } "."
        }
        h2 { (title) }
        @if let Some(dec) = &d.decision {
            p.summary {
                (verdict_badge(&dec.verdict)) " "
                code { (d.head.label) } " against " code { (d.base.label) } ": "
                strong { (signed_percent(dec.change)) } " " (percent_interval(dec.ci[0], dec.ci[1]))
            }
            (decision_method(dec))
        }
        @if let Some(note) = &d.note { p.note { (note) } }
        table {
            thead { tr { th { "" } th { "commit" } th { "measured" } th { "experiments" } th.num { "runs" } th.num { "median" } } }
            tbody {
                @for (side, step) in [("base", &d.base), ("head", &d.head)] {
                    tr {
                        td { (side) }
                        td { (commit_cell(site, &step.label, step.commit.as_deref())) }
                        td { (step.started_at) }
                        td { @for (i, id) in step.experiments.iter().enumerate() { @if i > 0 { ", " } (experiment_link(*id)) } }
                        td.num { (step.values.len()) }
                        td.num { (format!("{:.4} {}", step.median, d.unit)) }
                    }
                }
            }
        }
    };
    layout(&title, body)
}

/// The address of the page comparing `d`'s two commits.
fn commits_href(d: &CommitsCompareData) -> String {
    let given = |s: &perflab_format::history::Step| s.commit.clone().unwrap_or(s.label.clone());
    compare_commits_href(&d.key, &given(&d.base), &given(&d.head))
}

/// The address of the page comparing commits `base` and `head` of a series.
pub(crate) fn compare_commits_href(k: &crate::source::SeriesKey, base: &str, head: &str) -> String {
    super::parts::query_link(
        "/compare/commits",
        &[
            ("name", k.name.as_deref()),
            ("metric", Some(&k.metric)),
            ("variant", Some(&k.variant)),
            ("host", k.host.as_deref()),
            ("base", Some(base)),
            ("head", Some(head)),
        ],
    )
}
