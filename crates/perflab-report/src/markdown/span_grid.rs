//! A sweep's span grid as a Markdown table.

use std::fmt::{self, Write};

use super::cell;
use crate::sections::span_grid::{SpanGrid, share_cell};
use crate::units::format_seconds;

/// The grid as a Markdown table.
pub(crate) fn write_span_grid_markdown(out: &mut dyn Write, grid: &SpanGrid) -> fmt::Result {
    out.write_str(
        "Self time of each span as a share of wall time, per point and command (median over its profiled runs; above 100% when threads overlap).\n\n| point | runs | wall time per run |",
    )?;
    for c in &grid.columns {
        write!(out, " `{}` |", cell(c))?;
    }
    if grid.others {
        out.write_str(" other spans |")?;
    }
    out.write_str(" *(unattributed)* |\n| --- | ---: | ---: |")?;
    let columns = grid.columns.len() + usize::from(grid.others) + 1;
    out.write_str(&" ---: |".repeat(columns))?;
    out.write_char('\n')?;
    for r in &grid.rows {
        write!(
            out,
            "| {} | {} | {} |",
            cell(&r.variant),
            r.runs,
            r.wall_s.map_or("-".to_string(), format_seconds)
        )?;
        for s in &r.shares {
            write!(out, " {} |", share_cell(*s))?;
        }
        if grid.others {
            write!(out, " {} |", share_cell(Some(r.others)))?;
        }
        writeln!(out, " {} |", share_cell(Some(r.unattributed)))?;
    }
    Ok(())
}

/// [`write_span_grid_markdown`] as a `String`.
#[cfg(test)]
pub(crate) fn span_grid_markdown(grid: &SpanGrid) -> String {
    crate::render_to_string(|out| write_span_grid_markdown(out, grid))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sections::span_grid::SpanGridRow;

    #[test]
    fn a_row_gives_its_runs_wall_time_and_a_dash_where_a_span_did_not_run() {
        let grid = SpanGrid {
            columns: vec!["f".into(), "a".into()],
            others: true,
            rows: vec![SpanGridRow {
                variant: "x n=1".into(),
                runs: 3,
                wall_s: Some(1e-3),
                shares: vec![None, Some(0.3)],
                others: 0.04,
                unattributed: 0.1,
            }],
        };
        let md = span_grid_markdown(&grid);
        assert!(
            md.contains("| x n=1 | 3 | 1.000 ms | - | 30.0% | 4.0% | 10.0% |"),
            "{md}"
        );
    }
}
