//! Helpers shared by the integration tests: busy work of known relative
//! cost, a quiet thread-only session, and a minimal executor.
#![allow(dead_code)]

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Busy work whose cost grows linearly with `units` (about 20 µs a unit here).
pub fn spin(units: u32) -> u64 {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..units * 20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x = black_box(x);
    }
    x
}

/// A session that collects from this thread only and prints and writes
/// nothing, so that tests may run in parallel.
pub fn quiet_session() -> perflab::Session {
    perflab::Session::builder()
        .this_thread_only()
        .print_table(false)
        .no_profile_file()
        .start()
}

/// Polls `future` to completion on this thread, running `between_polls`
/// each time it is pending.
pub fn block_on<F: Future>(future: F, mut between_polls: impl FnMut()) -> F::Output {
    let mut future = pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut context) {
            return value;
        }
        between_polls();
    }
}

/// A future that is pending once, then ready.
pub struct YieldOnce(pub bool);

impl Future for YieldOnce {
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

/// Allowed difference between sums of figures that are equal in timer
/// ticks: each conversion to nanoseconds rounds down by less than 1 ns.
pub fn rounding_ns(terms: u64) -> u64 {
    terms + 1
}
