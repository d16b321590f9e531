//! The format-neutral figures of each report section: the figures and
//! words that the terminal, Markdown and HTML forms each lay out in their
//! own way, computed once here so that the forms cannot disagree.

pub mod duet;
pub mod fixed_cost;
pub mod history;
pub mod instructions;
pub mod machine;
pub mod probes;
pub mod provenance;
pub mod sampling;
pub mod span_grid;
pub mod spans;
pub mod suite;
pub mod sweep;

use perflab_format::result::ResultDocument;

use crate::units::format_value;

/// A sample value in the document's unit.
pub fn value(doc: &ResultDocument, v: f64) -> String {
    format_value(v, &doc.metric.unit)
}

/// "faster"/"slower" style words for a change of this metric.
pub fn direction_words(doc: &ResultDocument, change: f64) -> &'static str {
    let better = change >= 0.0;
    match (doc.metric.name.as_str(), better) {
        ("wall" | "cpu" | "user" | "sys", true) => "faster",
        ("wall" | "cpu" | "user" | "sys", false) => "slower",
        (_, true) => "better",
        (_, false) => "worse",
    }
}
