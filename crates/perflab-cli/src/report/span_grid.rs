//! The span breakdowns of a sweep as one grid: a row per point and command,
//! a column per span (the largest few, the rest summed), each cell the
//! span's share of the threads' time, so that a phase that grows along the
//! sweep can be read down its column instead of across a table per point.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::markdown::cell;
use super::span_breakdown::VariantSpans;
use crate::units::format_seconds;

/// Spans given a column of their own; the others share one.
pub const SPAN_COLUMNS: usize = 5;

/// The grid of a sweep's breakdowns.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanGrid {
    /// Span names of the columns, largest share first.
    pub columns: Vec<String>,
    /// True when the spans beyond the columns have a column of their own.
    pub others: bool,
    /// One row per variant (point and command), in store order.
    pub rows: Vec<SpanGridRow>,
    /// Distinct warnings of the profiles, with the number of variants giving each.
    pub warnings: Vec<(String, usize)>,
}

/// One variant's shares.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanGridRow {
    /// The variant (`bench n=1000`).
    pub variant: String,
    /// Runs with a profile.
    pub runs: usize,
    /// Thread time per run, ns.
    pub thread_ns: f64,
    /// Share of each column's span (`None` where the span never ran).
    pub shares: Vec<Option<f64>>,
    /// Share of the spans without a column.
    pub others: f64,
    /// Share of the time no span covers.
    pub unattributed: f64,
}

/// The grid of `variants`, columns for the spans with the largest share anywhere.
pub fn span_grid(variants: &[VariantSpans]) -> SpanGrid {
    let mut largest: BTreeMap<&str, f64> = BTreeMap::new();
    for s in variants.iter().flat_map(|v| &v.spans) {
        let share = largest.entry(&s.name).or_default();
        *share = share.max(s.share);
    }
    let mut ranked: Vec<(&str, f64)> = largest.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let others = ranked.len() > SPAN_COLUMNS;
    let columns: Vec<String> = ranked
        .iter()
        .take(SPAN_COLUMNS)
        .map(|(name, _)| name.to_string())
        .collect();
    let rows = variants
        .iter()
        .map(|v| {
            let share = |name: &str| v.spans.iter().find(|s| s.name == name).map(|s| s.share);
            SpanGridRow {
                variant: v.variant.clone(),
                runs: v.runs,
                thread_ns: v.thread_ns,
                shares: columns.iter().map(|c| share(c)).collect(),
                others: v
                    .spans
                    .iter()
                    .filter(|s| !columns.contains(&s.name))
                    .map(|s| s.share)
                    .sum(),
                unattributed: v.unattributed_share,
            }
        })
        .collect();
    let mut warnings: BTreeMap<&str, usize> = BTreeMap::new();
    for w in variants.iter().flat_map(|v| &v.warnings) {
        *warnings.entry(w).or_default() += 1;
    }
    SpanGrid {
        columns,
        others,
        rows,
        warnings: warnings
            .into_iter()
            .map(|(w, n)| (w.to_string(), n))
            .collect(),
    }
}

/// "19.4%", or "-" for a span that did not run.
pub fn share_cell(share: Option<f64>) -> String {
    share.map_or("-".to_string(), |s| format!("{:.1}%", s * 100.0))
}

/// "(in 3 of 10 points)" after a warning that not every variant gave.
pub fn warning_spread(count: usize, of: usize) -> String {
    if count == of {
        String::new()
    } else {
        format!(" (in {count} of {of} profiled variants)")
    }
}

/// The grid as a Markdown table with the warnings under it.
pub fn span_grid_markdown(grid: &SpanGrid) -> String {
    let mut out = String::from(
        "Self time of each span as a share of the threads' time, per point and command (mean over its profiled runs).\n\n| point | runs | thread time per run |",
    );
    for c in &grid.columns {
        let _ = write!(out, " `{}` |", cell(c));
    }
    if grid.others {
        out.push_str(" other spans |");
    }
    out.push_str(" *(unattributed)* |\n| --- | ---: | ---: |");
    let columns = grid.columns.len() + usize::from(grid.others) + 1;
    out.push_str(&" ---: |".repeat(columns));
    out.push('\n');
    for r in &grid.rows {
        let _ = write!(
            out,
            "| {} | {} | {} |",
            cell(&r.variant),
            r.runs,
            format_seconds(r.thread_ns * 1e-9)
        );
        for s in &r.shares {
            let _ = write!(out, " {} |", share_cell(*s));
        }
        if grid.others {
            let _ = write!(out, " {} |", share_cell(Some(r.others)));
        }
        let _ = writeln!(out, " {} |", share_cell(Some(r.unattributed)));
    }
    for (w, n) in &grid.warnings {
        let _ = writeln!(
            out,
            "\n> warning: {}{}",
            cell(w),
            warning_spread(*n, grid.rows.len())
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::span_breakdown::SpanShare;

    fn variant(name: &str, shares: &[(&str, f64)], warnings: &[&str]) -> VariantSpans {
        VariantSpans {
            variant: name.into(),
            runs: 3,
            thread_ns: 1e6,
            spans: shares
                .iter()
                .map(|(n, share)| SpanShare {
                    name: n.to_string(),
                    self_ns: share * 1e6,
                    share: *share,
                    calls: 1.0,
                })
                .collect(),
            unattributed_ns: 1e5,
            unattributed_share: 0.1,
            warnings: warnings.iter().map(|w| w.to_string()).collect(),
        }
    }

    #[test]
    fn columns_are_the_spans_largest_anywhere_and_the_rest_are_summed() {
        let small = [("a", 0.3), ("b", 0.2), ("c", 0.1), ("d", 0.05), ("e", 0.04)];
        let mut large = small.to_vec();
        large.push(("f", 0.5));
        let grid = span_grid(&[
            variant("x n=1", &small, &["w"]),
            variant("x n=2", &large, &["w", "only here"]),
        ]);
        assert_eq!(grid.columns, ["f", "a", "b", "c", "d"]);
        assert!(grid.others);
        assert_eq!(grid.rows[0].shares[0], None, "f did not run at n=1");
        assert!((grid.rows[1].others - 0.04).abs() < 1e-12);
        assert_eq!(
            grid.warnings,
            [("only here".to_string(), 1), ("w".to_string(), 2)]
        );
        let md = span_grid_markdown(&grid);
        assert!(md.contains("| x n=1 | 3 | 1.000 ms | - | 30.0% |"), "{md}");
        assert!(md.contains("> warning: only here (in 1 of 2 profiled variants)"));
        assert!(md.contains("> warning: w\n"), "{md}");
    }
}
