//! Spans on the page: the result's span table (figures, changes, moved
//! marks) and a sweep's span grid, a row per point and command, a column
//! per span (see [`crate::sections::span_grid`]).

use std::fmt::{self, Write};

use super::escape::esc;
use perflab_format::result::ResultDocument;

use crate::sections::span_grid::{SpanGrid, share_cell};
use crate::sections::spans::{change_text, profiled_runs, zero_figures_text};
use crate::units::{format_seconds, format_share};

/// The grid as an HTML table.
pub(crate) fn span_grid_html(out: &mut dyn Write, grid: &SpanGrid) -> fmt::Result {
    out.write_str(
        r#"<p>Self time of each span as a share of wall time, per point and command (median over its profiled runs; above 100% when threads overlap).</p><table><thead><tr><th>point</th><th class="num">runs</th><th class="num">wall time per run</th>"#,
    )?;
    for c in &grid.columns {
        write!(out, r#"<th class="num"><code>{}</code></th>"#, esc(c))?;
    }
    if grid.others {
        out.write_str(r#"<th class="num">other spans</th>"#)?;
    }
    out.write_str(r#"<th class="num">(unattributed)</th></tr></thead><tbody>"#)?;
    for r in &grid.rows {
        write!(
            out,
            r#"<tr><td>{}</td><td class="num">{}</td><td class="num">{}</td>"#,
            esc(&r.variant),
            r.runs,
            esc(&r.wall_s.map_or("-".to_string(), format_seconds))
        )?;
        for s in &r.shares {
            write!(out, r#"<td class="num">{}</td>"#, share_cell(*s))?;
        }
        if grid.others {
            write!(
                out,
                r#"<td class="num">{}</td>"#,
                share_cell(Some(r.others))
            )?;
        }
        write!(
            out,
            r#"<td class="num">{}</td></tr>"#,
            share_cell(Some(r.unattributed))
        )?;
    }
    out.write_str("</tbody></table>")?;
    Ok(())
}

/// The result's span table: each variant's self time per run and share of
/// wall time, and for a comparison each span's change of self time with its
/// interval, the spans that moved marked, as on the terminal.
pub(crate) fn spans_table(out: &mut dyn Write, doc: &ResultDocument) -> fmt::Result {
    let compared = doc.spans.iter().any(|s| s.change.is_some());
    write!(
        out,
        "<p>Self time per run (median of up to {} runs) and its share of wall time (above 100% when threads overlap){}.</p><table class=\"spans\"><thead><tr><th>span</th>",
        profiled_runs(&doc.spans),
        if compared {
            "; the second variant's self time relative to the first's with its interval, <strong>moved</strong> where the interval excludes zero"
        } else {
            ""
        }
    )?;
    for v in &doc.variants {
        write!(out, r#"<th class="num">{} self</th>"#, esc(&v.name))?;
    }
    if compared {
        out.write_str(r#"<th class="num">change of self time</th><th></th>"#)?;
    }
    out.write_str("</tr></thead><tbody>")?;
    for s in &doc.spans {
        let moved = s.moved == Some(true);
        write!(
            out,
            r#"<tr{}><td><code>{}</code></td>"#,
            if moved { r#" class="moved""# } else { "" },
            // A long path breaks at its `::`, not in the middle of a word.
            esc(&s.name).replace("::", "::<wbr>")
        )?;
        for v in &s.per_variant {
            // The time and its share may go on two lines, each whole.
            let html = v.as_ref().map_or("-".to_string(), |v| {
                if s.name != crate::spans::UNATTRIBUTED
                    && let Some(text) =
                        zero_figures_text(v.never_entered(), v.entered_in_few_runs())
                {
                    return esc(&text);
                }
                format!(
                    r#"<span class="whole">{}</span> <span class="whole">({} of wall)</span>"#,
                    esc(&format_seconds(v.self_s)),
                    esc(&format_share(v.self_share_of_wall))
                )
            });
            write!(out, r#"<td class="num wrap">{html}</td>"#)?;
        }
        if compared {
            write!(
                out,
                r#"<td class="num">{}</td><td>{}</td>"#,
                esc(&change_text(s).unwrap_or_else(|| "-".into())),
                if moved {
                    r#"<span class="badge moved">moved</span>"#
                } else {
                    ""
                }
            )?;
        }
        out.write_str("</tr>")?;
    }
    out.write_str("</tbody></table>")?;
    Ok(())
}
