//! `#[measure]` on async functions: wall time from first poll to
//! completion, time inside polls, number of polls, across threads.

mod common;

use common::{YieldOnce, block_on, quiet_session, rounding_ns, spin};
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

#[perflab::measure(name = "fetch")]
async fn fetch(yields: u32) -> Result<u64, std::num::ParseIntError> {
    let mut total = "1".parse::<u64>()?;
    for _ in 0..yields {
        {
            let _inside = perflab::span!("inside_fetch");
            total = total.wrapping_add(spin(1));
        }
        YieldOnce(false).await;
    }
    Ok(total)
}

#[test]
fn an_async_function_records_wall_time_polls_and_time_inside_polls() {
    let session = quiet_session();
    let result = block_on(fetch(3), || {
        // Waiting time: the future is pending while the executor does this.
        spin(2);
    });
    assert!(result.is_ok());
    let profile = session.finish().unwrap();
    let fetch = profile.span("fetch").unwrap();
    let stats = fetch.async_stats.as_ref().unwrap();
    assert_eq!((fetch.calls, stats.polls, stats.cancelled), (1, 4, 0));
    assert_eq!(fetch.kind, perflab::profile::SpanKind::Async);
    // One call: its wall time is the inclusive time, the mean and the maximum.
    assert_eq!(fetch.inclusive_ns, fetch.max_ns);
    // The waiting between polls is in the wall time but not in the polls.
    assert!(fetch.inclusive_ns > stats.poll_ns, "{fetch:?}");
    // Sync spans inside a poll are children of the async function.
    let inside = profile.span("inside_fetch").unwrap();
    assert_eq!(inside.calls, 3);
    assert!(stats.poll_ns.abs_diff(fetch.self_ns + inside.inclusive_ns) <= rounding_ns(3));
    // Polls count as top-level spans of the thread; the waiting does not.
    let thread = &profile.threads[0];
    assert!(thread.attributed_ns.abs_diff(stats.poll_ns) <= rounding_ns(2));
}

#[test]
fn a_future_dropped_before_completion_is_counted_as_cancelled() {
    let session = quiet_session();
    {
        let mut future = pin!(fetch(2));
        let mut context = Context::from_waker(Waker::noop());
        assert!(future.as_mut().poll(&mut context).is_pending());
    }
    let profile = session.finish().unwrap();
    let fetch = profile.span("fetch").unwrap();
    let stats = fetch.async_stats.as_ref().unwrap();
    assert_eq!((fetch.calls, stats.polls, stats.cancelled), (0, 1, 1));
}

#[test]
fn a_future_polled_on_two_threads_is_recorded_on_both() {
    let session = quiet_session();
    let handle = session.handle();
    let mut future = Box::pin(fetch(1));
    let mut context = Context::from_waker(Waker::noop());
    assert!(future.as_mut().poll(&mut context).is_pending());
    let finished = std::thread::spawn(move || {
        let _attached = handle.attach();
        let mut context = Context::from_waker(Waker::noop());
        matches!(future.as_mut().poll(&mut context), Poll::Ready(Ok(_)))
    })
    .join()
    .unwrap();
    assert!(finished);
    let profile = session.finish().unwrap();
    let fetch = profile.span("fetch").unwrap();
    assert_eq!((fetch.calls, fetch.threads), (1, 2));
    assert_eq!(fetch.async_stats.as_ref().unwrap().polls, 2);
}

/// Futures of measured async functions stay `Send` when their body is.
#[test]
fn measured_futures_are_send_when_their_body_is() {
    fn assert_send<F: Future + Send>(_: &F) {}
    let future = fetch(0);
    assert_send(&future);
}
