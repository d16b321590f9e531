//! Summing one span call site over every thread, and merging call sites
//! that share a name and kind, into span records.
//!
//! Sites registered while the program runs (`tracing` callsites, locks)
//! are summed like the static ones; a lock's hold site is reported with
//! its lock (see [`crate::sync`]), not as a span.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

use perflab_format::profile::{AsyncStats, SpanKind, SpanRecord};

use crate::histogram::MergedHistogram;
#[cfg(test)]
use crate::histogram::PERCENTILE_RELATIVE_ERROR;
use crate::imp::clock::Timer;
use crate::imp::registered_sites::all_span_sites;
use crate::imp::site::{SiteLocation, SitePurpose, SpanSite};
use crate::imp::thread_table::{NO_PENDING, SpanSlot, ThreadTable};

/// Sums of one span site over every thread, in ticks.
#[derive(Clone)]
pub(crate) struct SpanTotals {
    calls: u64,
    call_ticks: u64,
    inclusive_ticks: u64,
    self_ticks: u64,
    min_ticks: u64,
    max_ticks: u64,
    threads: u32,
    unwound: u64,
    polls: u64,
    poll_ticks: u64,
    cancelled: u64,
    wakeups: u64,
    idle_ticks: u64,
    #[cfg(feature = "alloc")]
    alloc: crate::alloc::AllocTotals,
    histogram: MergedHistogram,
}

impl SpanTotals {
    pub(crate) fn new() -> Self {
        SpanTotals {
            calls: 0,
            call_ticks: 0,
            inclusive_ticks: 0,
            self_ticks: 0,
            min_ticks: u64::MAX,
            max_ticks: 0,
            threads: 0,
            unwound: 0,
            polls: 0,
            poll_ticks: 0,
            cancelled: 0,
            wakeups: 0,
            idle_ticks: 0,
            #[cfg(feature = "alloc")]
            alloc: Default::default(),
            histogram: MergedHistogram::new(),
        }
    }

    fn add(&mut self, slot: &SpanSlot) {
        let calls = slot.calls.load(Relaxed);
        let polls = slot.polls.load(Relaxed);
        if calls > 0 || polls > 0 {
            self.threads += 1;
        }
        self.calls += calls;
        self.call_ticks += slot.call_ticks.load(Relaxed);
        self.inclusive_ticks += slot.inclusive_ticks.load(Relaxed);
        self.self_ticks += slot.self_ticks.load(Relaxed);
        self.min_ticks = self.min_ticks.min(slot.min_ticks.load(Relaxed));
        self.max_ticks = self.max_ticks.max(slot.max_ticks.load(Relaxed));
        self.unwound += slot.unwound.load(Relaxed);
        self.polls += polls;
        self.poll_ticks += slot.poll_ticks.load(Relaxed);
        self.cancelled += slot.cancelled.load(Relaxed);
        self.wakeups += slot.wakeups.load(Relaxed);
        self.idle_ticks += slot.idle_ticks.load(Relaxed);
        #[cfg(feature = "alloc")]
        self.alloc.add(&slot.alloc);
        slot.histogram.add_to(&mut self.histogram);
        let pending = slot.pending_ticks.load(Relaxed);
        if pending != NO_PENDING {
            self.histogram.record(pending);
        }
    }

    pub(crate) fn merge(&mut self, other: SpanTotals) {
        self.calls += other.calls;
        self.call_ticks += other.call_ticks;
        self.inclusive_ticks += other.inclusive_ticks;
        self.self_ticks += other.self_ticks;
        self.min_ticks = self.min_ticks.min(other.min_ticks);
        self.max_ticks = self.max_ticks.max(other.max_ticks);
        self.threads = self.threads.max(other.threads);
        self.unwound += other.unwound;
        self.polls += other.polls;
        self.poll_ticks += other.poll_ticks;
        self.cancelled += other.cancelled;
        self.wakeups += other.wakeups;
        self.idle_ticks += other.idle_ticks;
        #[cfg(feature = "alloc")]
        self.alloc.merge(&other.alloc);
        self.histogram.merge(&other.histogram);
    }

    pub(crate) fn record(
        &self,
        location: &SiteLocation,
        kind: SpanKind,
        timer: &Timer,
    ) -> SpanRecord {
        let called = self.calls > 0;
        let (min_ns, max_ns) = if called {
            (timer.ns(self.min_ticks), timer.ns(self.max_ticks))
        } else {
            (0, 0)
        };
        let percentile = |fraction: f64| {
            self.histogram
                .percentile(fraction, self.min_ticks, self.max_ticks)
                .map(|ticks| (timer.ns_f64(ticks).round() as u64).clamp(min_ns, max_ns))
                .unwrap_or(0)
        };
        SpanRecord {
            name: location.name.to_string(),
            kind,
            file: location.file.to_string(),
            line: location.line,
            also_at: Vec::new(),
            calls: self.calls,
            inclusive_ns: timer.ns(self.inclusive_ticks),
            self_ns: timer.ns(self.self_ticks),
            mean_ns: if called {
                thousandths(timer.ns_f64(self.call_ticks as f64 / self.calls as f64))
            } else {
                0.0
            },
            min_ns,
            p50_ns: percentile(0.50),
            p95_ns: percentile(0.95),
            p99_ns: percentile(0.99),
            max_ns,
            threads: self.threads,
            unwound: self.unwound,
            async_stats: (kind == SpanKind::Async).then(|| AsyncStats {
                polls: self.polls,
                poll_ns: timer.ns(self.poll_ticks),
                cancelled: self.cancelled,
                wakeups: Some(self.wakeups),
                idle_ns: Some(timer.ns(self.idle_ticks)),
            }),
            #[cfg(feature = "alloc")]
            alloc: self.alloc.clone().into_stats(),
            #[cfg(not(feature = "alloc"))]
            alloc: None,
        }
    }
}

/// Every span site (static, then registered) with its sums over `tables`.
pub(crate) fn site_totals(tables: &[Arc<ThreadTable>]) -> Vec<(&'static SpanSite, SpanTotals)> {
    let mut totals: Vec<(&'static SpanSite, SpanTotals)> = all_span_sites()
        .into_iter()
        .map(|site| (site, SpanTotals::new()))
        .collect();
    for table in tables {
        table.for_each_slot(|index, slot| {
            if let Some((_, total)) = totals.get_mut(index) {
                total.add(slot);
            }
        });
    }
    totals
}

/// One record per (name, kind), in order of self time, never-entered spans last.
pub(crate) fn span_records(
    totals: Vec<(&'static SpanSite, SpanTotals)>,
    timer: &Timer,
) -> Vec<SpanRecord> {
    let mut merged: Vec<(&'static SpanSite, SpanTotals, Vec<String>)> = Vec::new();
    for (site, total) in totals {
        if site.purpose != SitePurpose::Span {
            continue;
        }
        let kind = site.reported_kind();
        let same = merged.iter_mut().find(|(other, _, _)| {
            other.location.name == site.location.name && other.reported_kind() == kind
        });
        match same {
            Some((_, sum, also_at)) => {
                sum.merge(total);
                also_at.push(format!("{}:{}", site.location.file, site.location.line));
            }
            None => merged.push((site, total, Vec::new())),
        }
    }
    let mut records: Vec<SpanRecord> = merged
        .into_iter()
        .map(|(site, total, also_at)| {
            let mut record = total.record(&site.location, site.reported_kind(), timer);
            record.also_at = also_at;
            record
        })
        .collect();
    let entered = |record: &SpanRecord| {
        record.calls > 0
            || record
                .async_stats
                .as_ref()
                .is_some_and(|stats| stats.polls > 0)
    };
    records.sort_by(|a, b| {
        entered(b)
            .cmp(&entered(a))
            .then(b.self_ns.cmp(&a.self_ns))
            .then(a.name.cmp(&b.name))
    });
    records
}

/// Rounds to 0.001 (picoseconds are noise), so that the number reads back
/// from JSON exactly as written.
pub(crate) fn thousandths(ns: f64) -> f64 {
    (ns * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn exact_nearest_rank(sorted: &[u64], fraction: f64) -> u64 {
        let rank = ((fraction * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        sorted[rank - 1]
    }

    proptest! {
        /// Through the recording path (a slot, its one-behind histogram) and
        /// the merge: percentiles within the stated error of sorted values.
        #[test]
        fn recorded_percentiles_match_exact_sorted_values_within_the_stated_error(
            values in prop::collection::vec(1u64..100_000_000, 1..300),
        ) {
            let slot = SpanSlot::new(0, std::ptr::null());
            for &value in &values {
                slot.record_call(value);
            }
            let mut totals = SpanTotals::new();
            totals.add(&slot);
            let mut sorted = values.clone();
            sorted.sort_unstable();
            prop_assert_eq!(totals.calls, values.len() as u64);
            prop_assert_eq!(totals.min_ticks, sorted[0]);
            prop_assert_eq!(totals.max_ticks, sorted[sorted.len() - 1]);
            for fraction in [0.5, 0.95, 0.99] {
                let exact = exact_nearest_rank(&sorted, fraction) as f64;
                let estimate = totals
                    .histogram
                    .percentile(fraction, totals.min_ticks, totals.max_ticks)
                    .unwrap();
                prop_assert!((estimate - exact).abs() <= exact * PERCENTILE_RELATIVE_ERROR);
            }
        }
    }
}
