//! Span timelines: a session with a trace path writes every span's call,
//! every poll and life of an async span, and every counter and gauge, with
//! their times, as a `perflab-trace/1` document (the Chrome trace event format).

mod common;

use std::collections::BTreeMap;
use std::process::Command;

use common::{YieldOnce, block_on, spin};
use perflab::profile::Profile;
use perflab_format::trace::{Phase, TraceDocument, TraceEvent};

#[perflab::measure(name = "inner")]
fn inner() -> u64 {
    spin(1)
}

#[perflab::measure(name = "fetch")]
async fn fetch() -> u64 {
    YieldOnce(false).await;
    spin(1)
}

/// Runs `work` in a thread-only session tracing to a file; returns the trace and profile.
fn traced(work: impl FnOnce()) -> (TraceDocument, Profile) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.json");
    let session = perflab::Session::builder()
        .this_thread_only()
        .print_table(false)
        .no_profile_file()
        .trace_path(&path)
        .start();
    work();
    let profile = session.finish().unwrap();
    let text = std::fs::read_to_string(&path).expect("the session wrote its trace");
    (TraceDocument::from_json_str(&text).unwrap(), profile)
}

fn slices<'a>(trace: &'a TraceDocument, name: &str) -> Vec<&'a TraceEvent> {
    trace
        .trace_events
        .iter()
        .filter(|event| event.name == name && event.ph == Phase::Complete)
        .collect()
}

#[test]
fn a_trace_holds_exactly_the_calls_made_each_inside_its_caller() {
    let (trace, profile) = traced(|| {
        let _outer = perflab::span!("outer");
        for _ in 0..3 {
            inner();
        }
    });
    let outer = slices(&trace, "outer");
    let inners = slices(&trace, "inner");
    assert_eq!((outer.len(), inners.len()), (1, 3), "{trace:#?}");
    let (start, end) = (outer[0].ts, outer[0].ts + outer[0].dur.unwrap());
    for call in &inners {
        assert!(
            start <= call.ts && call.ts + call.dur.unwrap() <= end,
            "{call:?} outside {outer:?}"
        );
        assert_eq!(call.tid, outer[0].tid);
        assert_eq!(call.cat.as_deref(), Some("span"));
    }
    // The calls follow each other, and their lengths are the profile's.
    let mut starts: Vec<f64> = inners.iter().map(|call| call.ts).collect();
    starts.sort_by(f64::total_cmp);
    assert!(starts.windows(2).all(|pair| pair[0] < pair[1]));
    let traced_ns: f64 = inners.iter().map(|call| call.dur.unwrap() * 1e3).sum();
    let profiled_ns = profile.span("inner").unwrap().inclusive_ns as f64;
    assert!(
        (traced_ns - profiled_ns).abs() <= 3.0,
        "{traced_ns} against {profiled_ns}"
    );
    let thread = trace
        .trace_events
        .iter()
        .find(|event| event.ph == Phase::Metadata && event.name == "thread_name")
        .unwrap();
    assert_eq!(thread.tid, outer[0].tid);
    assert_eq!(trace.other_data.dropped_events, 0);
    assert_eq!(trace.display_time_unit, "ns");
}

#[test]
fn an_async_span_is_an_async_slice_over_its_polls() {
    let (trace, _) = traced(|| {
        block_on(fetch(), || {});
    });
    let polls = slices(&trace, "fetch");
    assert_eq!(polls.len(), 2, "{trace:#?}");
    assert!(polls.iter().all(|poll| poll.cat.as_deref() == Some("poll")));
    let life: Vec<&TraceEvent> = trace
        .trace_events
        .iter()
        .filter(|event| event.name == "fetch" && event.cat.as_deref() == Some("async"))
        .collect();
    assert_eq!(life.len(), 2, "{life:?}");
    let (begin, end) = (life[0], life[1]);
    assert_eq!((begin.ph, end.ph), (Phase::AsyncBegin, Phase::AsyncEnd));
    assert_eq!(begin.id, end.id);
    for poll in polls {
        assert!(begin.ts <= poll.ts && poll.ts + poll.dur.unwrap() <= end.ts + 1e-3);
    }
}

#[test]
fn counters_are_running_totals_and_gauges_their_values_in_time_order() {
    let (trace, _) = traced(|| {
        for depth in [3, 1, 4] {
            perflab::count!("records", 2);
            perflab::gauge!("queue_depth", depth);
        }
    });
    let values = |name: &str| -> Vec<f64> {
        trace
            .trace_events
            .iter()
            .filter(|event| event.name == name && event.ph == Phase::Counter)
            .map(|event| event.args[name].as_f64().unwrap())
            .collect()
    };
    assert_eq!(values("records"), [2.0, 4.0, 6.0]);
    assert_eq!(values("queue_depth"), [3.0, 1.0, 4.0]);
}

/// A session of this thread only that writes no file and records no
/// timeline.
fn untraced_session() -> perflab::Session {
    perflab::Session::builder()
        .this_thread_only()
        .print_table(false)
        .no_profile_file()
        .no_trace_file()
        .start()
}

#[test]
fn without_a_trace_path_nothing_is_traced() {
    let session = untraced_session();
    inner();
    assert!(session.finish().is_some());
}

/// Calls of span `name` in `profile` (0 when it never ran there).
fn calls(profile: &Profile, name: &str) -> u64 {
    profile.span(name).map_or(0, |span| span.calls)
}

#[test]
fn a_span_open_across_an_untraced_session_inside_a_traced_one_ends_in_the_traced_timeline() {
    let mut inner_profile = None;
    let (trace, profile) = traced(|| {
        let outer = perflab::span!("outer");
        let untraced = untraced_session();
        inner();
        // Ended while the untraced session is the thread's.
        drop(outer);
        inner_profile = untraced.finish();
    });
    assert_eq!(slices(&trace, "outer").len(), 1);
    assert!(slices(&trace, "inner").is_empty());
    assert_eq!(calls(&profile, "outer"), 1);
    assert_eq!(calls(&profile, "inner"), 0);
    let inner_profile = inner_profile.unwrap();
    assert_eq!(calls(&inner_profile, "inner"), 1);
    assert_eq!(calls(&inner_profile, "outer"), 0);
}

#[test]
fn a_span_open_across_a_traced_session_inside_an_untraced_one_stays_out_of_the_timeline() {
    let outer_session = untraced_session();
    let outer = perflab::span!("outer");
    let (trace, profile) = traced(|| {
        inner();
        // Ended while the traced session is the thread's.
        drop(outer);
    });
    let outer_profile = outer_session.finish().unwrap();
    assert_eq!(slices(&trace, "inner").len(), 1);
    assert!(slices(&trace, "outer").is_empty());
    assert_eq!(calls(&profile, "outer"), 0);
    assert_eq!(calls(&outer_profile, "outer"), 1);
    assert_eq!(calls(&outer_profile, "inner"), 0);
}

/// The child of `events_past_the_buffer_are_dropped_counted_and_warned_about`.
#[test]
fn child_traces_more_spans_than_its_buffer_holds() {
    if std::env::var_os("PERFLAB_TRACE_CHILD").is_none() {
        return;
    }
    let session = perflab::Session::builder().print_table(false).start();
    for _ in 0..10 {
        let _span = perflab::span!("step");
    }
    drop(session);
}

#[test]
fn events_past_the_buffer_are_dropped_counted_and_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.json");
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_traces_more_spans_than_its_buffer_holds",
            "--nocapture",
        ])
        .env("PERFLAB_TRACE_CHILD", "1")
        .env("PERFLAB_TRACE", &path)
        .env("PERFLAB_TRACE_EVENTS", "4")
        .env_remove("PERFLAB_PROFILE")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let trace = TraceDocument::from_json_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(slices(&trace, "step").len(), 4);
    assert_eq!(trace.other_data.dropped_events, 6);
    assert_eq!(trace.other_data.events_per_thread, 4);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("is missing 6 events") && stderr.contains("PERFLAB_TRACE_EVENTS"),
        "{stderr}"
    );
    let by_name: BTreeMap<&str, usize> =
        trace
            .trace_events
            .iter()
            .fold(BTreeMap::new(), |mut counts, event| {
                *counts.entry(event.name.as_str()).or_default() += 1;
                counts
            });
    assert_eq!(by_name.get("thread_name"), Some(&1), "{by_name:?}");
}
