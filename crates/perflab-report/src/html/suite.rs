//! A suite on the HTML page: the verdict, and the matrix of cells
//! (scenario × candidate) as a table coloured by each cell's verdict, like a
//! heat map whose colours are the decision's words.

use std::fmt::Write;

use perflab_format::suite::SuiteDocument;

use super::escape::esc;
use crate::sections::suite::{
    MatrixCell, cell_meaning, row_word, suite_headline, suite_matrix, verdict_rule,
};

fn cell_html(c: &MatrixCell) -> String {
    let class = c.verdict.as_str().to_ascii_lowercase();
    let runs = c.runs.map(|r| format!(" · {r} runs")).unwrap_or_default();
    // A summary's verdict combines its column's cells: said so, so that it
    // is not read as the verdict of the interval above it.
    let verdict_of = c
        .verdict_of
        .as_ref()
        .map(|of| format!("verdict of {}: ", esc(of)))
        .unwrap_or_default();
    format!(
        r#"<td class="num suite-cell verdict-{}" title="{}"><span class="whole">{}</span><br>{}<strong>{}</strong>{}</td>"#,
        esc(&class),
        esc(&c.line()),
        esc(&c.change),
        verdict_of,
        esc(c.verdict.as_str()),
        esc(&runs)
    )
}

/// The suite's summary sentence and matrix table.
pub fn suite_html(doc: &SuiteDocument) -> String {
    let mut out = String::new();
    let headline = suite_headline(doc);
    let (verdict, rest) = headline.split_once(": ").unwrap_or((&headline, ""));
    let _ = write!(
        out,
        r#"<p class="summary"><strong>{}</strong>: {}.</p>"#,
        esc(verdict),
        esc(rest)
    );
    let matrix = suite_matrix(doc);
    let _ = write!(
        out,
        r#"<table class="suite-matrix"><thead><tr><th>{}</th>"#,
        row_word(doc)
    );
    for c in &matrix.candidates {
        let _ = write!(out, r#"<th class="num">{}</th>"#, esc(c));
    }
    out.push_str("</tr></thead><tbody>");
    for (scenario, cells) in &matrix.rows {
        let _ = write!(out, "<tr><td>{}</td>", esc(scenario));
        for c in cells {
            out.push_str(&cell_html(c));
        }
        out.push_str("</tr>");
    }
    out.push_str(r#"<tr class="suite-summary"><td><strong>geometric mean</strong></td>"#);
    for c in &matrix.summary {
        out.push_str(&cell_html(c));
    }
    let _ = write!(
        out,
        r#"</tr></tbody></table><p class="chart-note">Metric: {} ({} is better). {}. {}.</p>"#,
        esc(&doc.result.metric.name),
        esc(doc.result.metric.better.as_str()),
        esc(&cell_meaning(doc)),
        esc(&verdict_rule(doc))
    );
    out
}
