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

/// A future that waits `for_how_long` on another thread: pending until a
/// sleeping thread sets its flag and wakes it.
#[perflab::measure(name = "sleeper")]
async fn sleeper(for_how_long: std::time::Duration) {
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = done.clone();
    let sleeping = std::thread::spawn(move || {
        std::thread::sleep(for_how_long);
        flag.store(true, std::sync::atomic::Ordering::Release);
    });
    std::future::poll_fn(|context| {
        if done.load(std::sync::atomic::Ordering::Acquire) {
            Poll::Ready(())
        } else {
            context.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await;
    sleeping.join().unwrap();
}

/// A future that yields until it has done `units` of busy work: each poll
/// spins a little and yields, as a receiver spinning on `yield_now` does.
#[perflab::measure(name = "spinner")]
async fn spinner(units: u32) -> u64 {
    let mut total = 0;
    for _ in 0..units {
        total ^= spin(2);
        YieldOnce(false).await;
    }
    total
}

#[test]
fn a_future_that_sleeps_is_idle_and_one_that_spins_is_busy() {
    let session = quiet_session();
    let wait = std::time::Duration::from_millis(60);
    // The executor sleeps between polls, as a real one parks its thread.
    block_on(sleeper(wait), || {
        std::thread::sleep(std::time::Duration::from_millis(2))
    });
    block_on(spinner(50), || {});
    let profile = session.finish().unwrap();

    let sleeper = profile.span("sleeper").unwrap();
    let stats = sleeper.async_stats.as_ref().unwrap();
    let idle = stats.idle_ns.unwrap();
    assert!(idle >= wait.as_nanos() as u64 / 2, "{sleeper:?}");
    assert!(stats.poll_ns * 10 < idle, "mostly idle: {sleeper:?}");
    assert_eq!(stats.wakeups, Some(stats.polls - 1));
    // Busy and idle time make up the lifetime.
    assert!((stats.poll_ns + idle).abs_diff(sleeper.inclusive_ns) <= rounding_ns(2));

    let spinner = profile.span("spinner").unwrap();
    let stats = spinner.async_stats.as_ref().unwrap();
    assert_eq!((stats.polls, stats.wakeups), (51, Some(50)));
    let idle = stats.idle_ns.unwrap();
    // Between polls the executor only polls again: little idle time (a
    // preemption there would add some, hence no tighter bound).
    assert!(stats.poll_ns > idle, "mostly busy: {spinner:?}");
    assert!((stats.poll_ns + idle).abs_diff(spinner.inclusive_ns) <= rounding_ns(2));
}

#[test]
fn a_future_wrapped_where_it_is_awaited_is_an_async_span_of_its_own() {
    let session = quiet_session();
    let received = block_on(
        async {
            let receive = async {
                YieldOnce(false).await;
                YieldOnce(false).await;
                7u32
            };
            perflab::future!("receive", receive).await
        },
        || {
            spin(1);
        },
    );
    assert_eq!(received, 7);
    let profile = session.finish().unwrap();
    let receive = profile.span("receive").unwrap();
    assert_eq!(receive.kind, perflab::profile::SpanKind::Async);
    let stats = receive.async_stats.as_ref().unwrap();
    assert_eq!((receive.calls, stats.polls, stats.wakeups), (1, 3, Some(2)));
    // The executor's work between polls is the receive's idle time.
    assert!(stats.idle_ns.unwrap() > stats.poll_ns, "{receive:?}");
}
