//! `#[tracing::instrument]` on sync and async functions, recorded through
//! the layer: calls, self and inclusive time, nesting, and the busy and
//! idle time of an instrumented future.

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use perflab::profile::{Profile, SpanKind};
use tracing_subscriber::layer::SubscriberExt;

/// Busy work whose cost grows linearly with `units`.
fn spin(units: u32) -> u64 {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..units * 20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x = black_box(x);
    }
    x
}

#[tracing::instrument]
fn leaf(units: u32) -> u64 {
    spin(units)
}

#[tracing::instrument]
fn parent(units: u32) -> u64 {
    spin(units) ^ leaf(2 * units)
}

/// Pending `polls` times (waking itself), sleeping `pause` each time it is
/// pending, as a task waiting on a timer; spins a unit per poll.
#[tracing::instrument]
async fn waiting_task(polls: u32) -> u64 {
    let mut total = 0;
    for _ in 0..polls {
        total ^= leaf(1);
        PendingOnce(false).await;
    }
    total
}

struct PendingOnce(bool);

impl Future for PendingOnce {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, context: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            context.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

fn block_on<F: Future>(future: F, mut between_polls: impl FnMut()) -> F::Output {
    let mut future = pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut context) {
            return value;
        }
        between_polls();
    }
}

fn recorded(work: impl FnOnce()) -> Profile {
    let session = perflab::Session::builder()
        .this_thread_only()
        .print_table(false)
        .no_profile_file()
        .start();
    let subscriber = tracing_subscriber::registry().with(perflab_tracing::layer());
    tracing::subscriber::with_default(subscriber, work);
    session.finish().unwrap()
}

#[test]
fn nested_instrumented_functions_get_self_and_inclusive_time() {
    let profile = recorded(|| {
        for _ in 0..5 {
            black_box(parent(1));
        }
    });
    let parent = profile.span("parent").unwrap();
    let leaf = profile.span("leaf").unwrap();
    assert_eq!((parent.calls, leaf.calls), (5, 5));
    assert_eq!((parent.kind, leaf.kind), (SpanKind::Span, SpanKind::Span));
    // The leaf is inside the parent: the parent's self time is the rest.
    assert!(parent.self_ns + leaf.inclusive_ns <= parent.inclusive_ns + 2);
    assert!(parent.inclusive_ns - (parent.self_ns + leaf.inclusive_ns) <= 3);
    assert_eq!(leaf.self_ns, leaf.inclusive_ns);
    // The top-level span covers the thread's attributed time.
    assert!(
        profile.threads[0]
            .attributed_ns
            .abs_diff(parent.inclusive_ns)
            <= 2
    );
}

#[test]
fn an_instrumented_future_is_async_with_its_busy_and_idle_time() {
    let pause = Duration::from_millis(5);
    let profile = recorded(|| {
        black_box(block_on(waiting_task(4), || std::thread::sleep(pause)));
    });
    let task = profile.span("waiting_task").unwrap();
    assert_eq!((task.calls, task.kind), (1, SpanKind::Async));
    let stats = task.async_stats.as_ref().unwrap();
    // Five polls; tracing also enters the span to drop the finished future,
    // which counts as one more entry.
    assert!([5, 6].contains(&stats.polls), "{stats:?}");
    assert_eq!(stats.wakeups, Some(stats.polls - 1));
    let idle = stats.idle_ns.unwrap();
    // Four sleeps between polls: idle, and the lifetime is busy + idle.
    assert!(idle >= 4 * pause.as_nanos() as u64, "{task:?}");
    assert!(
        (stats.poll_ns + idle).abs_diff(task.inclusive_ns) <= 3,
        "{task:?}"
    );
    // Work inside the polls is the future's children; the rest of the
    // polls is its self time.
    let leaf = profile.span("leaf").unwrap();
    assert_eq!(leaf.calls, 4);
    assert!(stats.poll_ns.abs_diff(task.self_ns + leaf.inclusive_ns) <= 3);
}

#[test]
fn spans_without_a_session_record_nothing_and_do_not_fail() {
    let subscriber = tracing_subscriber::registry().with(perflab_tracing::layer());
    let value = tracing::subscriber::with_default(subscriber, || parent(1));
    assert_ne!(value, 0);
}

#[test]
fn a_future_polled_on_two_threads_records_one_call_with_polls_on_both() {
    let session = perflab::Session::builder()
        .this_thread_only()
        .print_table(false)
        .no_profile_file()
        .start();
    let handle = session.handle();
    let dispatch =
        tracing::Dispatch::new(tracing_subscriber::registry().with(perflab_tracing::layer()));
    let mut future = tracing::dispatcher::with_default(&dispatch, || Box::pin(waiting_task(1)));
    let mut context = Context::from_waker(Waker::noop());
    tracing::dispatcher::with_default(&dispatch, || {
        assert!(future.as_mut().poll(&mut context).is_pending());
    });
    let other = dispatch.clone();
    std::thread::spawn(move || {
        let _attached = handle.attach();
        tracing::dispatcher::with_default(&other, || {
            let mut context = Context::from_waker(Waker::noop());
            assert!(future.as_mut().poll(&mut context).is_ready());
            drop(future);
        });
    })
    .join()
    .unwrap();
    let profile = session.finish().unwrap();
    let task = profile.span("waiting_task").unwrap();
    assert_eq!(
        (task.calls, task.threads, task.kind),
        (1, 2, SpanKind::Async)
    );
    let stats = task.async_stats.as_ref().unwrap();
    assert!([2, 3].contains(&stats.polls), "{stats:?}");
    assert_eq!(profile.span("leaf").unwrap().calls, 1);
}

#[test]
fn a_span_made_on_one_thread_and_closed_on_another_is_recorded_once_beside_later_spans() {
    let session = perflab::Session::builder()
        .this_thread_only()
        .print_table(false)
        .no_profile_file()
        .start();
    let handle = session.handle();
    let dispatch =
        tracing::Dispatch::new(tracing_subscriber::registry().with(perflab_tracing::layer()));
    // Made and entered here (this thread remembers it), then moved to
    // another thread that enters it again and closes it there.
    let moved = tracing::dispatcher::with_default(&dispatch, || {
        let span = tracing::info_span!("moved");
        span.in_scope(|| black_box(spin(1)));
        span
    });
    let other = dispatch.clone();
    std::thread::spawn(move || {
        let _attached = handle.attach();
        tracing::dispatcher::with_default(&other, || {
            moved.in_scope(|| black_box(spin(1)));
            drop(moved);
        });
    })
    .join()
    .unwrap();
    // Spans made here afterwards, more than this thread remembers, each
    // recorded once and never taken for the closed one.
    tracing::dispatcher::with_default(&dispatch, || {
        for _ in 0..20 {
            black_box(parent(1));
        }
    });
    let profile = session.finish().unwrap();
    let moved = profile.span("moved").unwrap();
    assert_eq!(
        (moved.calls, moved.threads, moved.kind),
        (1, 2, SpanKind::Async)
    );
    assert_eq!(moved.async_stats.as_ref().unwrap().polls, 2);
    assert_eq!(profile.span("parent").unwrap().calls, 20);
    assert_eq!(profile.span("leaf").unwrap().calls, 20);
}
