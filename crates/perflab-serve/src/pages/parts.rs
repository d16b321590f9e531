//! Pieces several pages share: links, badges, tables of change points and
//! of experiments.

use maud::{Markup, html};
use perflab_format::change_words::{percent_interval, signed_percent};

use crate::site::{ChangeRow, ExperimentItem, Site};
use crate::source::SeriesKey;

/// `path?k=v&...` with the present values percent-encoded.
pub(crate) fn query_link(path: &str, pairs: &[(&str, Option<&str>)]) -> String {
    let present: Vec<(&str, &str)> = pairs
        .iter()
        .filter_map(|(k, v)| v.map(|v| (*k, v)))
        .collect();
    if present.is_empty() {
        return path.to_string();
    }
    // Encoding text pairs cannot fail.
    let query = serde_urlencoded::to_string(&present).unwrap_or_default();
    format!("{path}?{query}")
}

/// The address of a series' page (and page of its commits).
pub(crate) fn series_href(k: &SeriesKey, page: Option<usize>) -> String {
    let page = page.map(|p| p.to_string());
    query_link(
        "/series",
        &[
            ("name", k.name.as_deref()),
            ("metric", Some(&k.metric)),
            ("variant", Some(&k.variant)),
            ("host", k.host.as_deref()),
            ("page", page.as_deref()),
        ],
    )
}

/// A link to an experiment's page: `#12`.
pub(crate) fn experiment_link(id: i64) -> Markup {
    html! { a href=(format!("/experiments/{id}")) { "#" (id) } }
}

/// How a comparison decided: its runs, method, confidence and thresholds,
/// the same on both compare pages.
pub(crate) fn decision_method(dec: &crate::site::ComparisonDecision) -> Markup {
    html! {
        p.provenance {
            (dec.description) "; " (dec.runs[0]) " and " (dec.runs[1]) " runs; Hodges-Lehmann with the Moses interval at "
            (format!("{:.0}%", dec.confidence * 100.0)) " confidence, GO at " (signed_percent(dec.go)) ", NO-GO at " (signed_percent(dec.nogo))
            " (the decision of " code { "perflab compare" } ")."
        }
    }
}

/// A verdict as the report's coloured badge.
pub(crate) fn verdict_badge(verdict: &str) -> Markup {
    let class = format!("badge {}", verdict.to_ascii_lowercase().replace(' ', "-"));
    html! { span class=(class) { (verdict) } }
}

/// A commit's label, linked to the repository when a URL pattern is set.
pub(crate) fn commit_cell(site: &Site, label: &str, commit: Option<&str>) -> Markup {
    match commit.and_then(|c| site.commit_link(c)) {
        Some(href) => html! { a.commit href=(href) { code { (label) } } },
        None => html! { code { (label) } },
    }
}

/// A table of change points, each linked to its series' page.
pub(crate) fn change_table(site: &Site, changes: &[ChangeRow], gate: bool) -> Markup {
    html! {
        table.changes {
            thead { tr {
                th { "series" } th { "variant" } th { "metric" } th { "from → to" } th { "measured" }
                th { "change, interval, verdict" } th { "confirmation" }
            } }
            tbody {
                @for c in changes {
                    tr class=[c.regression.then_some("regression")] {
                        td { a.series href=(series_href(&c.series, None)) { (c.series.name.as_deref().unwrap_or("(unnamed)")) } }
                        td { code { (c.series.variant) } }
                        td { (c.series.metric) }
                        td { (commit_cell(site, &c.from, c.from_commit.as_deref())) " → " (commit_cell(site, &c.to, c.to_commit.as_deref())) }
                        td { (c.started_at) }
                        td {
                            (c.description)
                            @if gate && c.fails_gate { " " span.badge.no-go { "fails the gate" } }
                        }
                        td {
                            @match &c.confirmation {
                                Some(conf) => {
                                    (if conf.confirmed { "confirmed" } else { "not confirmed" })
                                    @if let Some(id) = conf.experiment { " by " (experiment_link(id)) }
                                }
                                None if !c.confirming_abs.is_empty() => {
                                    @for (i, ab) in c.confirming_abs.iter().enumerate() {
                                        @if i > 0 { ", " }
                                        "A/B " (experiment_link(ab.id))
                                        @if let Some(v) = &ab.verdict { ": " (v) }
                                    }
                                }
                                None => { "not put to an A/B" }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A table of experiments, each linked to its page.
pub(crate) fn experiments_table(items: &[ExperimentItem]) -> Markup {
    html! {
        table.experiments {
            thead { tr {
                th { "id" } th { "kind" } th { "name" } th { "status" } th { "verdict" } th { "change" }
                th { "host" } th { "commit" } th { "started" } th.num { "runs" } th { "variants" }
            } }
            tbody {
                @for e in items {
                    tr {
                        td { (experiment_link(e.id)) }
                        td { (e.kind) }
                        td { (e.name.as_deref().unwrap_or("")) }
                        td { (e.status) }
                        td { @if let Some(v) = &e.verdict { (verdict_badge(v)) } }
                        td { @if let Some([c, lo, hi]) = e.change { (signed_percent(c)) " " (percent_interval(lo, hi)) } }
                        td { (e.host) }
                        td { @if let Some(c) = &e.commit { code { (c.chars().take(8).collect::<String>()) (if e.dirty { "+" } else { "" }) } } }
                        td { (e.started_at) }
                        td.num { (e.runs) }
                        td { (e.variants.join(", ")) }
                    }
                }
            }
        }
    }
}
