//! `#[measure]` on async functions: a wrapper future.
//!
//! One call is the future's life from first poll to completion (its wall
//! time, which includes waiting). Each poll is also a frame on the polling
//! thread's stack, so time inside polls shows as self time, attributes the
//! thread's time, and nests sync spans beneath it, on whichever thread polls.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

use crate::imp::binding::{BoundTable, current_table};
use crate::imp::site::SpanSite;
use crate::imp::span::{Frame, note_unwound};
use crate::imp::thread_table::{SpanSlot, ThreadTable, bump};
use crate::imp::trace_buffer::EventKind;

pin_project! {
    /// A future measured as one call of an async span.
    #[must_use = "futures do nothing unless polled"]
    pub struct MeasuredFuture<F> {
        #[pin]
        inner: F,
        site: &'static SpanSite,
        // Tick of the first recorded poll; 0 until then.
        first_poll_ticks: u64,
        // Time inside this future's polls so far.
        busy_ticks: u64,
        completed: bool,
    }

    impl<F> PinnedDrop for MeasuredFuture<F> {
        fn drop(this: Pin<&mut Self>) {
            if this.first_poll_ticks != 0 && !this.completed {
                note_cancelled(this.site);
            }
        }
    }
}

impl<F> MeasuredFuture<F> {
    /// Wraps `inner`; used by `#[measure]`.
    pub fn new(site: &'static SpanSite, inner: F) -> Self {
        MeasuredFuture {
            inner,
            site,
            first_poll_ticks: 0,
            busy_ticks: 0,
            completed: false,
        }
    }
}

/// One poll as a frame on the polling thread's stack; closed explicitly on
/// return, or by its drop when the poll panics.
struct PollFrame<'a> {
    table: &'a ThreadTable,
    slot: &'a SpanSlot,
    frame: Frame,
    open: bool,
}

impl PollFrame<'_> {
    /// Closes the frame; returns the tick at which the poll ended and its duration.
    fn close(&mut self) -> (u64, u64) {
        self.open = false;
        let closed = self.frame.close(self.table, self.slot);
        bump(&self.slot.polls, 1);
        bump(&self.slot.poll_ticks, closed.elapsed_ticks);
        self.table.trace(
            EventKind::Poll,
            self.slot.index,
            self.frame.start_ticks,
            closed.end_ticks,
        );
        (closed.end_ticks, closed.elapsed_ticks)
    }
}

impl Drop for PollFrame<'_> {
    fn drop(&mut self) {
        if self.open {
            self.close();
            note_unwound(self.slot);
        }
    }
}

impl<F: Future> Future for MeasuredFuture<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let inner = this.inner;
        let table = current_table();
        let recording = table
            .as_ref()
            .map(BoundTable::get)
            .and_then(|table| Some((table, table.slot(this.site.index())?)));
        let Some((table, slot)) = recording else {
            let result = inner.poll(cx);
            *this.completed |= result.is_ready();
            return result;
        };
        let mut poll_frame = PollFrame {
            table,
            slot,
            frame: Frame::open(table),
            open: true,
        };
        if *this.first_poll_ticks == 0 {
            *this.first_poll_ticks = poll_frame.frame.start_ticks.max(1);
        } else {
            bump(&slot.wakeups, 1);
        }
        // The frame is open, so the table stays alive through the inner
        // poll's own probes (see `BoundTable`).
        let result = inner.poll(cx);
        let (end_ticks, poll_ticks) = poll_frame.close();
        *this.busy_ticks = this.busy_ticks.wrapping_add(poll_ticks);
        if result.is_ready() {
            *this.completed = true;
            let wall = end_ticks.saturating_sub(*this.first_poll_ticks);
            bump(&slot.inclusive_ticks, wall);
            bump(&slot.idle_ticks, wall.saturating_sub(*this.busy_ticks));
            slot.record_call(wall);
            table.trace(
                EventKind::Async,
                slot.index,
                *this.first_poll_ticks,
                end_ticks,
            );
        }
        result
    }
}

#[cold]
fn note_cancelled(site: &'static SpanSite) {
    let table = current_table();
    if let Some(slot) = table
        .as_ref()
        .and_then(|table| table.get().slot(site.index()))
    {
        bump(&slot.cancelled, 1);
    }
}
