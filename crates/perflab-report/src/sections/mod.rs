//! The format-neutral figures of each report section: the figures and
//! words that the terminal, Markdown and HTML forms each lay out in their
//! own way, computed once here so that the forms cannot disagree.

pub mod cpu_wait;
pub mod duet;
pub mod fixed_cost;
pub mod guard;
pub mod history;
pub mod instructions;
pub mod machine;
pub mod peak_memory;
pub mod probes;
pub mod provenance;
pub mod sampling;
pub mod span_grid;
pub mod spans;
pub mod suite;
pub mod sweep;

use perflab_format::change_words::{ChangeWords, thresholds_sentence};
use perflab_format::result::{DecisionDoc, GuardDoc, ResultDocument};
use perflab_format::vocabulary::Better;

use crate::units::format_value;

/// A sample value in the document's unit.
pub fn value(doc: &ResultDocument, v: f64) -> String {
    format_value(v, &doc.metric.unit)
}

/// The names of the baseline and the candidate, for sentences about the
/// change ("A" and "B" when the document has fewer than two variants).
pub fn variant_names(doc: &ResultDocument) -> (&str, &str) {
    match doc.variants.as_slice() {
        [a, b, ..] => (a.name.as_str(), b.name.as_str()),
        _ => ("A", "B"),
    }
}

/// The decision's change as the candidate's value over the baseline's.
pub(crate) fn decision_change<'a>(doc: &'a ResultDocument, d: &DecisionDoc) -> ChangeWords<'a> {
    ChangeWords::from_improvement(&doc.metric.name, doc.metric.better, d.change, Some(d.ci))
}

/// "B takes 1.21× as long as A (+20.8%), 95% interval [+18.0%, +24.0%]".
pub(crate) fn decision_sentence(doc: &ResultDocument, d: &DecisionDoc) -> String {
    let (a, b) = variant_names(doc);
    decision_change(doc, d).sentence_with_interval(b, a, d.confidence)
}

/// A guard's change as the candidate's value over the baseline's (guards
/// of documents that do not record the direction are read as lower is better).
pub(crate) fn guard_change(g: &GuardDoc) -> ChangeWords<'_> {
    ChangeWords::from_improvement(
        &g.metric,
        g.better.unwrap_or(Better::Lower),
        g.change,
        Some(g.ci),
    )
}

/// The thresholds in the terms of the change.
pub fn thresholds(doc: &ResultDocument, d: &DecisionDoc) -> String {
    thresholds_sentence(doc.metric.better, d.go, d.nogo)
}

/// A variant's command line as a report's table shows it: its environment
/// settings (`KEY=value`) before the command, or None when the variant has
/// no command (samples read from files).
pub(crate) fn command_line(v: &perflab_format::result::VariantDoc) -> Option<String> {
    let env: Vec<String> = v.env.iter().map(|(k, val)| format!("{k}={val}")).collect();
    v.command
        .as_deref()
        .map(|c| format!("{} {c}", env.join(" ")).trim().to_string())
}
