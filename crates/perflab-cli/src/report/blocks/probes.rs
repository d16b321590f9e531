//! Counters and gauges across runs, beside the span table, in the terminal
//! and Markdown reports.

use std::fmt::Write;

use perflab_format::result::{CounterStatsDoc, GaugeStatsDoc, ResultDocument};

use crate::units::{format_count, format_number};

/// A counter in one variant: median events per run, the total when amounts
/// were counted, and in how many runs it happened when not in all.
fn counter_cell(stats: Option<&CounterStatsDoc>) -> String {
    let Some(c) = stats else {
        return "-".to_string();
    };
    let mut cell = format_count(c.events);
    if c.total != c.events {
        let _ = write!(cell, " (total {})", format_count(c.total));
    }
    if c.runs_counted < c.runs {
        let _ = write!(cell, ", in {} of {} runs", c.runs_counted, c.runs);
    }
    cell
}

/// A level without the trailing zeros `format_number` keeps for columns of
/// metrics: `3.5`, not `3.5000`.
fn level(value: f64) -> String {
    let text = format_number(value);
    let (digits, suffix) = text.split_at(text.trim_end_matches(char::is_alphabetic).len());
    if digits.contains('.') {
        format!(
            "{}{suffix}",
            digits.trim_end_matches('0').trim_end_matches('.')
        )
    } else {
        text
    }
}

/// A gauge in one variant: median of the runs' means, and the range.
fn gauge_cell(stats: Option<&GaugeStatsDoc>) -> String {
    match stats {
        None => "-".to_string(),
        Some(GaugeStatsDoc {
            mean: Some(mean),
            min: Some(min),
            max: Some(max),
            runs,
            runs_set,
        }) => {
            let mut cell = format!("{} [{} … {}]", level(*mean), level(*min), level(*max));
            if runs_set < runs {
                let _ = write!(cell, ", set in {runs_set} of {runs} runs");
            }
            cell
        }
        Some(g) => format!("never set in {} runs", g.runs),
    }
}

/// A probe's name and one cell per variant.
pub type ProbeRow = (String, Vec<String>);

/// Rows for both kinds of probe, each under its title: what every report
/// format shows of counters and gauges.
pub fn sections(doc: &ResultDocument) -> [(String, Vec<ProbeRow>); 2] {
    let counters = doc
        .counters
        .iter()
        .map(|c| {
            let cells = c.per_variant.iter().map(|v| counter_cell(v.as_ref()));
            (c.name.clone(), cells.collect())
        })
        .collect();
    let gauges = doc
        .gauges
        .iter()
        .map(|g| {
            let cells = g.per_variant.iter().map(|v| gauge_cell(v.as_ref()));
            (g.name.clone(), cells.collect())
        })
        .collect();
    [
        ("counters: median events per run".to_string(), counters),
        (
            "gauges: median of each run's mean [smallest … largest value of any run]".to_string(),
            gauges,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counter_that_did_not_happen_in_every_run_says_in_how_many() {
        let stats = CounterStatsDoc {
            runs: 5,
            runs_counted: 2,
            events: 0.0,
            total: 0.0,
        };
        assert_eq!(counter_cell(Some(&stats)), "0, in 2 of 5 runs");
        let amounts = CounterStatsDoc {
            runs: 5,
            runs_counted: 5,
            events: 3.0,
            total: 1200.0,
        };
        assert_eq!(counter_cell(Some(&amounts)), "3 (total 1,200)");
        assert_eq!(counter_cell(None), "-");
    }

    #[test]
    fn a_gauge_never_set_is_not_shown_as_a_level_of_zero() {
        let never = GaugeStatsDoc {
            runs: 3,
            runs_set: 0,
            mean: None,
            min: None,
            max: None,
        };
        assert_eq!(gauge_cell(Some(&never)), "never set in 3 runs");
    }

    #[test]
    fn gauge_levels_drop_trailing_zeros_but_keep_suffixes() {
        assert_eq!(level(3.5), "3.5");
        assert_eq!(level(0.125), "0.125");
        assert_eq!(level(8.0), "8");
        assert_eq!(level(50_140.0), "50.14K");
        assert_eq!(level(1_000_000.0), "1M");
    }
}
