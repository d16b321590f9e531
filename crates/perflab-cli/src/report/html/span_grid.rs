//! A sweep's span breakdowns on the page: one table, a row per point and
//! command, a column per span (see [`crate::report::blocks::span_grid`]).

use std::fmt::Write;

use super::escape::esc;
use crate::report::blocks::span_grid::{SpanGrid, share_cell};
use crate::units::format_seconds;

/// The grid as an HTML table.
pub fn span_grid_html(grid: &SpanGrid) -> String {
    let mut out = String::from(
        r#"<p>Self time of each span as a share of wall time, per point and command (median over its profiled runs; above 100% when threads overlap).</p><table><thead><tr><th>point</th><th class="num">runs</th><th class="num">wall time per run</th>"#,
    );
    for c in &grid.columns {
        let _ = write!(out, r#"<th class="num"><code>{}</code></th>"#, esc(c));
    }
    if grid.others {
        out.push_str(r#"<th class="num">other spans</th>"#);
    }
    out.push_str(r#"<th class="num">(unattributed)</th></tr></thead><tbody>"#);
    for r in &grid.rows {
        let _ = write!(
            out,
            r#"<tr><td>{}</td><td class="num">{}</td><td class="num">{}</td>"#,
            esc(&r.variant),
            r.runs,
            esc(&r.wall_s.map_or("-".to_string(), format_seconds))
        );
        for s in &r.shares {
            let _ = write!(out, r#"<td class="num">{}</td>"#, share_cell(*s));
        }
        if grid.others {
            let _ = write!(
                out,
                r#"<td class="num">{}</td>"#,
                share_cell(Some(r.others))
            );
        }
        let _ = write!(
            out,
            r#"<td class="num">{}</td></tr>"#,
            share_cell(Some(r.unattributed))
        );
    }
    out.push_str("</tbody></table>");
    out
}
