//! Per-path latency statistics, computed on two worker threads.

use std::collections::HashMap;

use crate::input::Record;

/// Latency figures of one path.
#[derive(Debug, Clone)]
pub(crate) struct PathStats {
    pub path: String,
    pub requests: usize,
    pub errors: usize,
    pub p50_us: u32,
    pub p99_us: u32,
    pub score: f64,
}

/// Splits the records between two threads, then merges their groups.
pub(crate) fn compute(records: &[Record]) -> Vec<PathStats> {
    let half = records.len() / 2;
    let (left, right) = records.split_at(half);
    let groups = std::thread::scope(|scope| {
        let workers: Vec<_> = [left, right]
            .into_iter()
            .enumerate()
            .map(|(index, part)| {
                std::thread::Builder::new()
                    .name(format!("worker-{index}"))
                    .spawn_scoped(scope, move || group(part))
                    .expect("spawn a worker thread")
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("worker thread"))
            .collect::<Vec<_>>()
    });
    let mut merged: HashMap<String, Vec<&Record>> = HashMap::new();
    for part in groups {
        for (path, mut records) in part {
            merged.entry(path).or_default().append(&mut records);
        }
    }
    let mut stats: Vec<PathStats> = merged
        .into_iter()
        .map(|(path, records)| summarise(path, records))
        .collect();
    stats.sort_by(|a, b| a.path.cmp(&b.path));
    stats
}

#[perflab::measure]
fn group(records: &[Record]) -> HashMap<String, Vec<&Record>> {
    let mut groups: HashMap<String, Vec<&Record>> = HashMap::new();
    for (index, record) in records.iter().enumerate() {
        if index % 1024 == 0 {
            perflab::gauge!("records_left", records.len() - index);
        }
        groups.entry(record.path.clone()).or_default().push(record);
    }
    groups
}

#[perflab::measure]
fn summarise(path: String, records: Vec<&Record>) -> PathStats {
    let mut latencies: Vec<u32> = records.iter().map(|record| record.latency_us).collect();
    latencies.sort_unstable();
    let at = |fraction: f64| {
        let rank = ((fraction * latencies.len() as f64).ceil() as usize).clamp(1, latencies.len());
        latencies[rank - 1]
    };
    let errors = records.iter().filter(|record| record.status >= 500).count();
    if errors > records.len() / 4 {
        perflab::count!("paths_over_error_budget");
    }
    PathStats {
        requests: records.len(),
        errors,
        p50_us: at(0.5),
        p99_us: at(0.99),
        score: score(&latencies),
        path,
    }
}

/// An anomaly score: the mean squared distance from the median, over many windows.
#[perflab::measure]
fn score(sorted: &[u32]) -> f64 {
    let median = f64::from(sorted[sorted.len() / 2]);
    let mut total = 0.0;
    for window in sorted.windows(16).step_by(4) {
        total += window
            .iter()
            .map(|&value| (f64::from(value) - median).powi(2))
            .sum::<f64>();
    }
    total / sorted.len() as f64
}
