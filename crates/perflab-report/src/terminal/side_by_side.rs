//! Every metric of an A/B experiment side by side: wall time, CPU, memory,
//! instruction counts, counters and extracted metrics, each for A and B.

use std::collections::BTreeMap;
use std::fmt::{self, Write};

use perflab_runner::{RunOutcome, builtin_metric};

use crate::sections::peak_memory::{PEAK_MEMORY, source_line};
use crate::units::format_value;

/// Metrics every run has.
const ALWAYS: [&str; 4] = ["wall", "cpu", "peak-memory", "instructions"];

/// A table of the median of every metric for A and B and B's difference
/// from A (`B / A - 1`, not oriented: the sign says which is larger). The
/// decision metric is left out: the decision above reports it with its
/// interval. Each median rests on the runs counted in its column header.
/// Under the table, where peak memory has a row, a line says where it was
/// read, unless `memory_source_said`: the report above already said it
/// (its decision or a guard is about peak memory), and once is enough.
pub fn write_side_by_side(
    out: &mut dyn Write,
    names: [&str; 2],
    runs: [&[RunOutcome]; 2],
    decided_on: &str,
    memory_source_said: bool,
) -> fmt::Result {
    let mut metrics: BTreeMap<String, String> = BTreeMap::new();
    for run in runs.iter().flat_map(|r| r.iter()) {
        for (name, value) in &run.metrics {
            metrics
                .entry(name.clone())
                .or_insert_with(|| value.unit.clone());
        }
    }
    let mut order: Vec<(String, String)> = ALWAYS
        .iter()
        .filter(|n| **n != "instructions" || metrics.contains_key(**n))
        .map(|n| {
            let unit = builtin_metric(n).map_or("", |(_, u)| u).to_string();
            (n.to_string(), unit)
        })
        .collect();
    order.extend(
        metrics
            .into_iter()
            .filter(|(n, _)| !ALWAYS.contains(&n.as_str())),
    );
    let shows_memory = order.iter().any(|(name, _)| name == PEAK_MEMORY)
        && decided_on != PEAK_MEMORY
        && !memory_source_said;
    let rows: Vec<_> = order
        .into_iter()
        .filter(|(name, _)| name != decided_on)
        .filter_map(|(name, unit)| {
            let medians = [0, 1].map(|i| {
                let values: Vec<f64> = runs[i].iter().filter_map(|r| r.metric(&name)).collect();
                perflab_stats::median(&values)
                    .ok()
                    .map(|m| (m, values.len()))
            });
            let [Some(a), Some(b)] = medians else {
                return None;
            };
            Some((name, unit, a, b))
        })
        .collect();
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "  other metrics (medians; B vs A is B / A - 1, not a decision):"
    )?;
    let cells: Vec<[String; 4]> = rows
        .into_iter()
        .map(|(name, unit, (a, na), (b, nb))| {
            let vs = if a != 0.0 {
                format!("{:+.1}%", (b / a - 1.0) * 100.0)
            } else {
                "-".to_string()
            };
            [
                name,
                format!("{} ({na})", format_value(a, &unit)),
                format!("{} ({nb})", format_value(b, &unit)),
                vs,
            ]
        })
        .collect();
    let header = [
        "metric".to_string(),
        names[0].to_string(),
        names[1].to_string(),
        "B vs A".to_string(),
    ];
    // Columns as wide as their widest cell (at least the usual widths), so
    // that a long unit or variant name does not push its row out of line.
    let minimum = [26, 16, 16, 9];
    let widths: Vec<usize> = (0..4)
        .map(|column| {
            std::iter::once(&header)
                .chain(&cells)
                .map(|row| row[column].chars().count())
                .max()
                .unwrap_or(0)
                .max(minimum[column])
        })
        .collect();
    for row in std::iter::once(&header).chain(&cells) {
        writeln!(
            out,
            "    {:<w0$} {:>w1$} {:>w2$} {:>w3$}",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
        )?;
    }
    let sources = runs
        .iter()
        .flat_map(|r| r.iter())
        .map(|r| r.containment.peak_memory_source);
    if let Some(line) = source_line(sources).filter(|_| shows_memory) {
        writeln!(out, "    {line}")?;
    }
    Ok(())
}

/// [`write_side_by_side`] as a `String`.
pub fn side_by_side(
    names: [&str; 2],
    runs: [&[RunOutcome]; 2],
    decided_on: &str,
    memory_source_said: bool,
) -> String {
    crate::render_to_string(|out| {
        write_side_by_side(out, names, runs, decided_on, memory_source_said)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use perflab_runner::{FakeExecutor, MetricValue};

    #[test]
    fn every_metric_but_the_decided_one_is_shown_for_both_variants() {
        let mut a = FakeExecutor::outcome(1.0);
        a.metrics.insert(
            "counter.page-faults".into(),
            MetricValue {
                value: 100.0,
                unit: String::new(),
            },
        );
        let mut b = FakeExecutor::outcome(2.0);
        b.metrics.insert(
            "counter.page-faults".into(),
            MetricValue {
                value: 150.0,
                unit: String::new(),
            },
        );
        let text = side_by_side(["A", "B"], [&[a], &[b]], "wall", false);
        assert!(!text.contains("wall"), "{text}");
        assert!(text.contains("counter.page-faults"), "{text}");
        assert!(text.contains("+50.0%"), "{text}");
        assert!(text.contains("cpu"), "{text}");
    }

    #[test]
    fn long_values_widen_their_column_and_rows_stay_aligned() {
        let mut a = FakeExecutor::outcome(1.0);
        let mut b = FakeExecutor::outcome(1.0);
        for (run, value) in [(&mut a, 18.454e6), (&mut b, 18.375e6)] {
            run.metrics.insert(
                "items_per_s".into(),
                MetricValue {
                    value,
                    unit: "blocks/s".into(),
                },
            );
        }
        let text = side_by_side(["baseline", "fast"], [&[a], &[b]], "wall", false);
        let lines: Vec<&str> = text.lines().skip(1).collect();
        let width = lines[0].chars().count();
        assert!(
            lines.iter().all(|line| line.chars().count() == width),
            "{text}"
        );
    }
}
