//! Counters, gauges, futures and locks across runs, beside the span table,
//! in the terminal, Markdown and HTML reports.

use perflab_format::result::{
    AsyncSpanStatsDoc, CounterStatsDoc, GaugeStatsDoc, LockStatsDoc, ResultDocument,
};

use crate::units::{format_count, format_number, format_seconds};

/// A counter in one variant: median events per run, the total when amounts
/// were counted, and in how many runs it happened when not in all.
fn counter_cell(stats: Option<&CounterStatsDoc>) -> String {
    let Some(c) = stats else {
        return "-".to_string();
    };
    let total = if c.total != c.events {
        format!(" (total {})", format_count(c.total))
    } else {
        String::new()
    };
    let runs = if c.runs_counted < c.runs {
        format!(", in {} of {} runs", c.runs_counted, c.runs)
    } else {
        String::new()
    };
    format!("{}{total}{runs}", format_count(c.events))
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
            let set = if runs_set < runs {
                format!(", set in {runs_set} of {runs} runs")
            } else {
                String::new()
            };
            format!("{} [{} … {}]{set}", level(*mean), level(*min), level(*max))
        }
        Some(g) => format!("never set in {} runs", g.runs),
    }
}

/// An async span in one variant: busy (inside polls) and idle time,
/// polls and wake-ups, medians per run.
fn future_cell(stats: Option<&AsyncSpanStatsDoc>) -> String {
    let Some(a) = stats else {
        return "-".to_string();
    };
    let idle = a
        .idle_s
        .map(|idle| format!(", idle {}", format_seconds(idle)))
        .unwrap_or_default();
    let wakeups = a
        .wakeups
        .map(|wakeups| format!(", {} wake-ups", format_count(wakeups)))
        .unwrap_or_default();
    format!(
        "busy {}{idle}, {} polls{wakeups}",
        format_seconds(a.busy_s),
        format_count(a.polls)
    )
}

/// A lock in one variant: acquisitions, how many waited and how long, how
/// long it was held, medians per run.
fn lock_cell(stats: Option<&LockStatsDoc>) -> String {
    let Some(l) = stats else {
        return "-".to_string();
    };
    let waited = if l.contended > 0.0 {
        format!(
            " {} (p99 {})",
            format_seconds(l.wait_s),
            format_seconds(l.wait_p99_s)
        )
    } else {
        String::new()
    };
    format!(
        "{} acquired, {} waited{waited}, held {} (p99 {})",
        format_count(l.acquisitions),
        format_count(l.contended),
        format_seconds(l.hold_s),
        format_seconds(l.hold_p99_s)
    )
}

/// A probe's name and one cell per variant.
pub(crate) type ProbeRow = (String, Vec<String>);

/// What each section's rows are (the first column's heading in Markdown).
pub(crate) const SECTION_KINDS: [&str; 4] = ["counter", "gauge", "future", "lock"];

/// Rows for each kind of probe, each under its title: what every report
/// format shows of counters, gauges, futures (async spans) and locks.
pub fn sections(doc: &ResultDocument) -> [(String, Vec<ProbeRow>); 4] {
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
    let futures = doc
        .spans
        .iter()
        .filter(|s| {
            s.per_variant
                .iter()
                .flatten()
                .any(|v| v.async_stats.is_some())
        })
        .map(|s| {
            let cells = s
                .per_variant
                .iter()
                .map(|v| future_cell(v.as_ref().and_then(|v| v.async_stats.as_ref())));
            (s.name.clone(), cells.collect())
        })
        .collect();
    let locks = doc
        .locks
        .iter()
        .map(|l| {
            let cells = l.per_variant.iter().map(|v| lock_cell(v.as_ref()));
            (l.name.clone(), cells.collect())
        })
        .collect();
    [
        ("counters: median events per run".to_string(), counters),
        (
            "gauges: median of each run's mean [smallest … largest value of any run]".to_string(),
            gauges,
        ),
        (
            "futures: busy time inside polls and idle time waiting, polls and wake-ups (medians per run)"
                .to_string(),
            futures,
        ),
        (
            "locks: acquisitions, those that waited and their wait, time held (medians per run)"
                .to_string(),
            locks,
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
    fn a_lock_that_never_waited_shows_no_wait_and_a_future_shows_busy_and_idle() {
        let lock = LockStatsDoc {
            runs: 3,
            acquisitions: 1200.0,
            contended: 0.0,
            wait_s: 0.0,
            wait_p99_s: 0.0,
            hold_s: 0.002,
            hold_p99_s: 0.000_004,
        };
        assert_eq!(
            lock_cell(Some(&lock)),
            "1,200 acquired, 0 waited, held 2.000 ms (p99 4.000 µs)"
        );
        let future = AsyncSpanStatsDoc {
            polls: 5000.0,
            wakeups: Some(4999.0),
            busy_s: 0.0012,
            idle_s: Some(0.048),
        };
        assert_eq!(
            future_cell(Some(&future)),
            "busy 1.200 ms, idle 48.000 ms, 5,000 polls, 4,999 wake-ups"
        );
        let older = AsyncSpanStatsDoc {
            wakeups: None,
            idle_s: None,
            ..future
        };
        assert_eq!(future_cell(Some(&older)), "busy 1.200 ms, 5,000 polls");
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
