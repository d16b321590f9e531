//! Summing counters and gauges over every thread, and merging call sites
//! that share a name.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

use perflab_format::profile::{CounterRecord, GaugeRecord};

use crate::imp::site::{COUNTER_SITES, GAUGE_SITES};
use crate::imp::thread_table::ThreadTable;

pub(crate) fn counter_records(tables: &[Arc<ThreadTable>]) -> Vec<CounterRecord> {
    let mut records: Vec<CounterRecord> = Vec::new();
    for (index, site) in COUNTER_SITES.iter().enumerate() {
        let (mut events, mut total, mut threads) = (0u64, 0u64, 0u32);
        for table in tables {
            if let Some(cell) = table.counters.get(index) {
                let cell_events = cell.events.load(Relaxed);
                events += cell_events;
                total += cell.total.load(Relaxed);
                threads += u32::from(cell_events > 0);
            }
        }
        let location = &site.location;
        match records
            .iter_mut()
            .find(|record| record.name == location.name)
        {
            Some(record) => {
                record.events += events;
                record.total += total;
                record.threads = record.threads.max(threads);
                record
                    .also_at
                    .push(format!("{}:{}", location.file, location.line));
            }
            None => records.push(CounterRecord {
                name: location.name.to_string(),
                file: location.file.to_string(),
                line: location.line,
                also_at: Vec::new(),
                events,
                total,
                threads,
            }),
        }
    }
    records
}

/// Merged samples of one gauge.
struct GaugeTotals {
    samples: u64,
    sum: f64,
    min: f64,
    max: f64,
    last: f64,
    last_ticks: u64,
}

pub(crate) fn gauge_records(tables: &[Arc<ThreadTable>]) -> Vec<GaugeRecord> {
    let mut merged: Vec<(usize, GaugeTotals, Vec<String>)> = Vec::new();
    for (index, site) in GAUGE_SITES.iter().enumerate() {
        let mut totals = GaugeTotals {
            samples: 0,
            sum: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            last: 0.0,
            last_ticks: 0,
        };
        for table in tables {
            let Some(cell) = table.gauges.get(index) else {
                continue;
            };
            let samples = cell.samples.load(Relaxed);
            if samples == 0 {
                continue;
            }
            let get = |field: &std::sync::atomic::AtomicU64| f64::from_bits(field.load(Relaxed));
            totals.samples += samples;
            totals.sum += get(&cell.sum);
            totals.min = totals.min.min(get(&cell.min));
            totals.max = totals.max.max(get(&cell.max));
            let last_ticks = cell.last_ticks.load(Relaxed);
            if last_ticks >= totals.last_ticks {
                totals.last_ticks = last_ticks;
                totals.last = get(&cell.last);
            }
        }
        let same = merged
            .iter_mut()
            .find(|(first, _, _)| GAUGE_SITES[*first].location.name == site.location.name);
        match same {
            Some((_, sum, also_at)) => {
                sum.samples += totals.samples;
                sum.sum += totals.sum;
                sum.min = sum.min.min(totals.min);
                sum.max = sum.max.max(totals.max);
                if totals.samples > 0 && totals.last_ticks >= sum.last_ticks {
                    sum.last_ticks = totals.last_ticks;
                    sum.last = totals.last;
                }
                also_at.push(format!("{}:{}", site.location.file, site.location.line));
            }
            None => merged.push((index, totals, Vec::new())),
        }
    }
    merged
        .into_iter()
        .map(|(index, totals, also_at)| {
            let location = &GAUGE_SITES[index].location;
            let set = totals.samples > 0;
            GaugeRecord {
                name: location.name.to_string(),
                file: location.file.to_string(),
                line: location.line,
                also_at,
                samples: totals.samples,
                last: if set { totals.last } else { 0.0 },
                min: if set { totals.min } else { 0.0 },
                max: if set { totals.max } else { 0.0 },
                mean: if set {
                    totals.sum / totals.samples as f64
                } else {
                    0.0
                },
            }
        })
        .collect()
}
