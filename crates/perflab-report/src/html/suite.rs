//! A suite on the HTML page: the verdict, and the matrix of cells
//! (scenario × candidate) as a table coloured by each cell's verdict, like a
//! heat map whose colours are the decision's words.

use std::fmt::{self, Write};

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
pub(crate) fn suite_html(out: &mut dyn Write, doc: &SuiteDocument) -> fmt::Result {
    let headline = suite_headline(doc);
    let (verdict, rest) = headline.split_once(": ").unwrap_or((&headline, ""));
    write!(
        out,
        r#"<p class="summary"><strong>{}</strong>: {}.</p>"#,
        esc(verdict),
        esc(rest)
    )?;
    let matrix = suite_matrix(doc);
    write!(
        out,
        r#"<table class="suite-matrix"><thead><tr><th>{}</th>"#,
        row_word(doc)
    )?;
    for c in &matrix.candidates {
        write!(out, r#"<th class="num">{}</th>"#, esc(c))?;
    }
    out.write_str("</tr></thead><tbody>")?;
    for (scenario, cells) in &matrix.rows {
        write!(out, "<tr><td>{}</td>", esc(scenario))?;
        for c in cells {
            out.write_str(&cell_html(c))?;
        }
        out.write_str("</tr>")?;
    }
    out.write_str(r#"<tr class="suite-summary"><td><strong>geometric mean</strong></td>"#)?;
    for c in &matrix.summary {
        out.write_str(&cell_html(c))?;
    }
    write!(
        out,
        r#"</tr></tbody></table><p class="chart-note">Metric: {} ({} is better). {}. {}.</p>"#,
        esc(&doc.result.metric.name),
        esc(doc.result.metric.better.as_str()),
        esc(&cell_meaning(doc)),
        esc(&verdict_rule(doc))
    )?;
    Ok(())
}
