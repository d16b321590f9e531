//! Turning the threads' timelines into a `perflab-trace/1` document (the
//! Chrome trace event format; see `perflab_format::trace`).
//!
//! Each thread is a track named as in the profile's thread table. A span's
//! call and an async span's poll are complete slices (`X`) on the track of
//! the thread that ran them; an async span's life is an async slice (`b` and
//! `e` sharing an id); a counter is a process-wide running total and a gauge
//! its value (`C`), merged over threads in time order.

use std::collections::{BTreeMap, HashMap};

use perflab_format::trace::{Phase, TRACE_FORMAT, TraceDocument, TraceEvent, TraceInfo};
use serde_json::json;

use crate::imp::clock::timer;
use crate::imp::registered_sites::all_span_sites;
use crate::imp::registry::SessionShared;
use crate::imp::site::{COUNTER_SITES, GAUGE_SITES};
use crate::imp::trace_buffer::EventKind;
use crate::warnings::thread_label;

/// The trace of every thread that recorded into `shared`.
pub(crate) fn build_trace(shared: &SessionShared) -> TraceDocument {
    let timer = timer();
    let pid = u64::from(std::process::id());
    // Microseconds since the session's start, with nanosecond decimals.
    let at = |ticks: u64| timer.ns(ticks.saturating_sub(shared.start_ticks)) as f64 / 1e3;
    let length = |start: u64, end: u64| timer.ns(end.saturating_sub(start)) as f64 / 1e3;
    let spans = all_span_sites();
    let span_name = |site: u32| {
        spans
            .get(site as usize)
            .map_or("?", |site| site.location.name)
    };
    let slice = |name: &str, cat: &str, ph: Phase, ts: f64, tid: u64| TraceEvent {
        name: name.to_string(),
        cat: Some(cat.to_string()),
        ph,
        ts,
        dur: None,
        pid,
        tid,
        id: None,
        args: BTreeMap::new(),
    };
    let mut events = vec![metadata("process_name", &shared.config.name, pid, 0)];
    let mut counted: Vec<(u64, u32, u64)> = Vec::new();
    let mut gauged: Vec<(u64, u32, f64)> = Vec::new();
    let (mut dropped, mut capacity, mut async_ids) = (0, 0, 0u64);
    let tables = shared.lock_tables().clone();
    for table in &tables {
        let Some(trace) = &table.trace else {
            continue;
        };
        let thread = &table.thread;
        let tid = thread.os_tid.unwrap_or(thread.id);
        let label = thread_label(thread.id, thread.name.as_deref());
        events.push(metadata("thread_name", &label, pid, tid));
        dropped += trace.dropped();
        capacity = capacity.max(trace.capacity());
        for event in trace.events() {
            match event.kind {
                EventKind::Span | EventKind::Poll => {
                    let cat = if event.kind == EventKind::Span {
                        "span"
                    } else {
                        "poll"
                    };
                    let mut complete = slice(
                        span_name(event.site),
                        cat,
                        Phase::Complete,
                        at(event.start),
                        tid,
                    );
                    complete.dur = Some(length(event.start, event.end));
                    events.push(complete);
                }
                EventKind::Async => {
                    async_ids += 1;
                    let id = Some(format!("{async_ids:#x}"));
                    let name = span_name(event.site);
                    let mut begin = slice(name, "async", Phase::AsyncBegin, at(event.start), tid);
                    begin.id = id.clone();
                    let mut end = slice(name, "async", Phase::AsyncEnd, at(event.end), tid);
                    end.id = id;
                    events.extend([begin, end]);
                }
                EventKind::Counter => counted.push((event.start, event.site, event.end)),
                EventKind::Gauge => {
                    gauged.push((event.start, event.site, f64::from_bits(event.end)));
                }
            }
        }
    }
    // A counter's track is the process's running total, in time order.
    counted.sort_by_key(|&(ticks, _, _)| ticks);
    // By name: call sites of one name are one counter, as in the profile.
    let mut totals: HashMap<&str, u64> = HashMap::new();
    for (ticks, site, amount) in counted {
        let name = COUNTER_SITES
            .get(site as usize)
            .map_or("?", |site| site.location.name);
        let total = totals.entry(name).or_insert(0);
        *total = total.saturating_add(amount);
        let mut counter = slice(name, "counter", Phase::Counter, at(ticks), 0);
        counter.args.insert(name.to_string(), json!(*total));
        events.push(counter);
    }
    gauged.sort_by_key(|&(ticks, _, _)| ticks);
    for (ticks, site, value) in gauged {
        let name = GAUGE_SITES
            .get(site as usize)
            .map_or("?", |site| site.location.name);
        let mut gauge = slice(name, "gauge", Phase::Counter, at(ticks), 0);
        gauge.args.insert(name.to_string(), json!(value));
        events.push(gauge);
    }
    TraceDocument {
        trace_events: events,
        display_time_unit: "ns".to_string(),
        other_data: TraceInfo {
            format: TRACE_FORMAT.to_string(),
            session: shared.config.name.clone(),
            started_unix_ms: shared.started_unix_ms,
            events_per_thread: capacity as u64,
            dropped_events: dropped,
        },
    }
}

/// A process's or thread's name.
fn metadata(what: &str, name: &str, pid: u64, tid: u64) -> TraceEvent {
    TraceEvent {
        name: what.to_string(),
        cat: None,
        ph: Phase::Metadata,
        ts: 0.0,
        dur: None,
        pid,
        tid,
        id: None,
        args: BTreeMap::from([("name".to_string(), json!(name))]),
    }
}
