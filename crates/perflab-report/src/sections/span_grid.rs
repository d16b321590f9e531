//! The span breakdowns of a sweep as one grid: a row per point and command,
//! a column per span (the largest few, the rest summed), each cell the
//! span's self time as a share of wall time, so that a phase that grows along the
//! sweep can be read down its column instead of across a table per point.

use std::collections::BTreeMap;

use super::spans::VariantSpans;
use crate::units::format_share;

/// Spans given a column of their own; the others share one.
pub(crate) const SPAN_COLUMNS: usize = 5;

/// The grid of a sweep's breakdowns.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SpanGrid {
    /// Span names of the columns, largest share first.
    pub columns: Vec<String>,
    /// True when the spans beyond the columns have a column of their own.
    pub others: bool,
    /// One row per variant (point and command), in store order.
    pub rows: Vec<SpanGridRow>,
}

/// One variant's shares.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SpanGridRow {
    /// The variant (`bench n=1000`).
    pub variant: String,
    /// Runs with a profile.
    pub runs: usize,
    /// Wall time of the profiled session per run (median), seconds.
    pub wall_s: Option<f64>,
    /// Share of each column's span (`None` where the span never ran).
    pub shares: Vec<Option<f64>>,
    /// Share of the spans without a column.
    pub others: f64,
    /// Share of the time no span covers.
    pub unattributed: f64,
}

/// The grid of `variants`, columns for the spans with the largest share anywhere.
pub(crate) fn span_grid(variants: &[VariantSpans]) -> SpanGrid {
    let mut largest: BTreeMap<&str, f64> = BTreeMap::new();
    for s in variants.iter().flat_map(|v| &v.spans) {
        let share = largest.entry(&s.name).or_default();
        *share = share.max(s.share_of_wall);
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
            let share = |name: &str| {
                v.spans
                    .iter()
                    .find(|s| s.name == name)
                    .map(|s| s.share_of_wall)
            };
            SpanGridRow {
                variant: v.variant.clone(),
                runs: v.runs,
                wall_s: v.wall_s,
                shares: columns.iter().map(|c| share(c)).collect(),
                others: v
                    .spans
                    .iter()
                    .filter(|s| !columns.contains(&s.name))
                    .map(|s| s.share_of_wall)
                    .sum(),
                unattributed: v.unattributed.share_of_wall,
            }
        })
        .collect();
    SpanGrid {
        columns,
        others,
        rows,
    }
}

/// "19.4%", or "-" for a span that did not run.
pub(crate) fn share_cell(share: Option<f64>) -> String {
    share.map_or("-".to_string(), format_share)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sections::spans::SpanShare;

    fn share(name: &str, share: f64) -> SpanShare {
        SpanShare {
            name: name.to_string(),
            self_s: share * 1e-3,
            share_of_wall: share,
            calls: 1.0,
            never_entered: false,
            entered_in_few_runs: None,
        }
    }

    fn variant(name: &str, shares: &[(&str, f64)]) -> VariantSpans {
        VariantSpans {
            variant: name.into(),
            runs: 3,
            wall_s: Some(1e-3),
            spans: shares.iter().map(|(n, s)| share(n, *s)).collect(),
            unattributed: share(crate::spans::UNATTRIBUTED, 0.1),
        }
    }

    #[test]
    fn columns_are_the_spans_largest_anywhere_and_the_rest_are_summed() {
        let small = [("a", 0.3), ("b", 0.2), ("c", 0.1), ("d", 0.05), ("e", 0.04)];
        let mut large = small.to_vec();
        large.push(("f", 0.5));
        let grid = span_grid(&[variant("x n=1", &small), variant("x n=2", &large)]);
        assert_eq!(grid.columns, ["f", "a", "b", "c", "d"]);
        assert!(grid.others);
        assert_eq!(grid.rows[0].shares[0], None, "f did not run at n=1");
        assert_eq!(grid.rows[0].shares[1], Some(0.3));
        assert!((grid.rows[1].others - 0.04).abs() < 1e-12);
        assert_eq!(grid.rows[1].unattributed, 0.1);
    }
}
