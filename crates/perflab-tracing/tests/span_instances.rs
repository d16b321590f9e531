//! How the layer finds a span's instance: spans entered several times,
//! nested spans of one callsite, spans that move between threads, spans
//! that outlive the short list of a thread's recent instances, and two
//! subscribers whose span ids are the same.

use std::hint::black_box;

use perflab::profile::{Profile, SpanKind};
use tracing_subscriber::layer::SubscriberExt;

fn session() -> perflab::Session {
    perflab::Session::builder()
        .this_thread_only()
        .print_table(false)
        .no_profile_file()
        .start()
}

fn dispatch() -> tracing::Dispatch {
    tracing::Dispatch::new(tracing_subscriber::registry().with(perflab_tracing::layer()))
}

/// `(calls, polls)` of span `name`; polls are entries, counted for every
/// span whether it is reported as async or not.
fn calls_and_polls(profile: &Profile, name: &str) -> (u64, u64) {
    let span = profile
        .span(name)
        .unwrap_or_else(|| panic!("no span {name}"));
    let polls = span
        .async_stats
        .as_ref()
        .map_or(span.calls, |stats| stats.polls);
    (span.calls, polls)
}

#[tracing::instrument]
fn recurse(depth: u32) -> u32 {
    if depth == 0 {
        black_box(0)
    } else {
        recurse(depth - 1) + 1
    }
}

#[test]
fn a_span_entered_three_times_is_one_async_call_with_three_polls() {
    let session = session();
    tracing::dispatcher::with_default(&dispatch(), || {
        let span = tracing::info_span!("thrice");
        for _ in 0..3 {
            span.in_scope(|| black_box(1));
        }
    });
    let profile = session.finish().unwrap();
    let span = profile.span("thrice").unwrap();
    assert_eq!((span.calls, span.kind), (1, SpanKind::Async));
    assert_eq!(span.async_stats.as_ref().unwrap().polls, 3);
}

#[test]
fn nested_spans_of_one_callsite_are_each_a_call_and_the_outermost_is_the_inclusive_time() {
    let session = session();
    tracing::dispatcher::with_default(&dispatch(), || {
        for _ in 0..3 {
            assert_eq!(recurse(11), 11);
        }
    });
    let profile = session.finish().unwrap();
    let span = profile.span("recurse").unwrap();
    assert_eq!((span.calls, span.kind), (36, SpanKind::Span));
    // The recursion is the thread's only attributed time, counted once.
    assert!(
        profile.threads[0].attributed_ns.abs_diff(span.inclusive_ns) <= 2,
        "{span:?}"
    );
    assert!(span.self_ns <= span.inclusive_ns);
}

#[test]
fn a_span_made_on_one_thread_entered_on_another_and_closed_on_the_first_is_one_call() {
    let session = session();
    let handle = session.handle();
    let dispatch = dispatch();
    let span = tracing::dispatcher::with_default(&dispatch, || tracing::info_span!("travels"));
    let other = dispatch.clone();
    let span = std::thread::spawn(move || {
        let _attached = handle.attach();
        tracing::dispatcher::with_default(&other, || span.in_scope(|| black_box(1)));
        span
    })
    .join()
    .unwrap();
    tracing::dispatcher::with_default(&dispatch, || {
        span.in_scope(|| black_box(2));
        drop(span);
        // The instance is free again: later spans here are recorded apart.
        for _ in 0..3 {
            tracing::info_span!("after").in_scope(|| black_box(3));
        }
    });
    let profile = session.finish().unwrap();
    assert_eq!(calls_and_polls(&profile, "travels"), (1, 2));
    assert_eq!(profile.span("travels").unwrap().threads, 2);
    assert_eq!(calls_and_polls(&profile, "after"), (3, 3));
}

#[test]
fn a_span_closed_on_another_thread_without_being_entered_there_is_recorded_once() {
    let session = session();
    let handle = session.handle();
    let dispatch = dispatch();
    let span = tracing::dispatcher::with_default(&dispatch, || {
        let span = tracing::info_span!("closed_elsewhere");
        span.in_scope(|| black_box(1));
        span
    });
    let other = dispatch.clone();
    std::thread::spawn(move || {
        let _attached = handle.attach();
        tracing::dispatcher::with_default(&other, || drop(span));
    })
    .join()
    .unwrap();
    // This thread's next spans reuse nothing of the closed one by mistake.
    tracing::dispatcher::with_default(&dispatch, || {
        for _ in 0..20 {
            tracing::info_span!("later").in_scope(|| black_box(2));
        }
    });
    let profile = session.finish().unwrap();
    assert_eq!(calls_and_polls(&profile, "closed_elsewhere"), (1, 1));
    assert_eq!(calls_and_polls(&profile, "later"), (20, 20));
}

#[test]
fn spans_open_while_many_newer_ones_are_made_are_found_on_this_thread_and_on_others() {
    let session = session();
    let handle = session.handle();
    let dispatch = dispatch();
    // Far more open spans than a thread keeps in its short list.
    let spans: Vec<tracing::Span> = tracing::dispatcher::with_default(&dispatch, || {
        (0..40).map(|_| tracing::info_span!("long_lived")).collect()
    });
    let (here, there): (Vec<_>, Vec<_>) = spans
        .into_iter()
        .enumerate()
        .partition(|(index, _)| index % 2 == 0);
    tracing::dispatcher::with_default(&dispatch, || {
        for (_, span) in here.iter().rev() {
            span.in_scope(|| black_box(1));
            span.in_scope(|| black_box(2));
        }
    });
    let other = dispatch.clone();
    std::thread::spawn(move || {
        let _attached = handle.attach();
        tracing::dispatcher::with_default(&other, || {
            for (_, span) in there {
                span.in_scope(|| black_box(3));
                span.in_scope(|| black_box(4));
            }
        });
    })
    .join()
    .unwrap();
    tracing::dispatcher::with_default(&dispatch, || drop(here));
    let profile = session.finish().unwrap();
    assert_eq!(calls_and_polls(&profile, "long_lived"), (40, 80));
}

#[test]
fn two_subscribers_whose_span_ids_are_the_same_keep_their_spans_apart() {
    let session = session();
    let first = dispatch();
    let second = dispatch();
    tracing::dispatcher::with_default(&first, || {
        // Open spans of the first subscriber, more than the short list
        // holds, pushed out by the second subscriber's spans below.
        let outer: Vec<tracing::Span> = (0..10).map(|_| tracing::info_span!("outer")).collect();
        tracing::dispatcher::with_default(&second, || {
            let inner: Vec<tracing::Span> = (0..10).map(|_| tracing::info_span!("inner")).collect();
            for span in &inner {
                span.in_scope(|| black_box(1));
            }
        });
        for span in &outer {
            span.in_scope(|| black_box(2));
            span.in_scope(|| black_box(3));
        }
    });
    let profile = session.finish().unwrap();
    assert_eq!(calls_and_polls(&profile, "inner"), (10, 10));
    assert_eq!(calls_and_polls(&profile, "outer"), (10, 20));
}

#[test]
fn a_span_entered_on_another_thread_is_told_from_another_subscribers_span_of_the_same_id() {
    let session = session();
    let handle = session.handle();
    let first = dispatch();
    let second = dispatch();
    // Both made here, each the first span of its registry: the same id.
    let mine = tracing::dispatcher::with_default(&first, || tracing::info_span!("mine"));
    let theirs = tracing::dispatcher::with_default(&second, || tracing::info_span!("theirs"));
    assert_eq!(mine.id(), theirs.id());
    std::thread::spawn(move || {
        let _attached = handle.attach();
        tracing::dispatcher::with_default(&second, || {
            theirs.in_scope(|| black_box(1));
            drop(theirs);
        });
    })
    .join()
    .unwrap();
    tracing::dispatcher::with_default(&first, || {
        mine.in_scope(|| black_box(2));
        mine.in_scope(|| black_box(3));
        drop(mine);
    });
    let profile = session.finish().unwrap();
    assert_eq!(calls_and_polls(&profile, "theirs"), (1, 1));
    assert_eq!(calls_and_polls(&profile, "mine"), (1, 2));
}

#[test]
fn spans_of_threads_that_ended_are_recorded_when_later_threads_close_them() {
    let session = session();
    let dispatch = dispatch();
    let mut left_open = Vec::new();
    for _ in 0..4 {
        let here = dispatch.clone();
        let handle = session.handle();
        // Each thread makes spans, closes some and leaves one open; the
        // next thread takes over its pool of instances.
        let span = std::thread::spawn(move || {
            let _attached = handle.attach();
            tracing::dispatcher::with_default(&here, || {
                for _ in 0..5 {
                    tracing::info_span!("short").in_scope(|| black_box(1));
                }
                let span = tracing::info_span!("outlives_its_thread");
                span.in_scope(|| black_box(2));
                span
            })
        })
        .join()
        .unwrap();
        left_open.push(span);
    }
    tracing::dispatcher::with_default(&dispatch, || {
        for span in &left_open {
            span.in_scope(|| black_box(3));
        }
        drop(left_open);
    });
    let profile = session.finish().unwrap();
    assert_eq!(calls_and_polls(&profile, "short"), (20, 20));
    assert_eq!(calls_and_polls(&profile, "outlives_its_thread"), (4, 8));
}
