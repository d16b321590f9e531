//! A thread's timeline when the session traces (`PERFLAB_TRACE`): a bounded
//! buffer of timestamped events, written only by its thread.
//!
//! A span is one event pushed when it ends, holding its start and end, so a
//! traced span costs one store of 24 bytes beyond an untraced one, and a
//! trace needs no pairing of enters and exits (a span still open when the
//! trace is written is not in it). The buffer's memory is reserved when the
//! table is made and touched only as events arrive. When it is full, later
//! events are counted and dropped: the trace keeps the start of the run.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicU64, AtomicUsize};

/// What an event records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum EventKind {
    /// A span's call: `start` and `end` ticks.
    Span,
    /// One poll of an async span: `start` and `end` ticks.
    Poll,
    /// An async span's life from first poll to completion.
    Async,
    /// A counter incremented by `end` at `start` ticks.
    Counter,
    /// A gauge set to `f64::from_bits(end)` at `start` ticks.
    Gauge,
}

/// One event: which call site, what, and when.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TraceEvent {
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) site: u32,
    pub(crate) kind: EventKind,
}

/// The events of one thread.
pub(crate) struct TraceBuffer {
    events: Box<[UnsafeCell<MaybeUninit<TraceEvent>>]>,
    /// Events written; each below it is initialised (release on write).
    len: AtomicUsize,
    dropped: AtomicU64,
}

// SAFETY: only the owning thread writes, at index `len`, before publishing
// the new length with release ordering; readers read only below a length
// loaded with acquire ordering, so no slot is read while written.
unsafe impl Sync for TraceBuffer {}

impl TraceBuffer {
    /// A buffer of `capacity` events, reserved but not touched.
    pub(crate) fn new(capacity: usize) -> Self {
        let events = (0..0).map(|_| UnsafeCell::new(MaybeUninit::uninit()));
        let mut events: Vec<UnsafeCell<MaybeUninit<TraceEvent>>> = events.collect();
        events.reserve_exact(capacity);
        // SAFETY: `MaybeUninit` needs no initialisation, and the capacity
        // was just reserved.
        unsafe { events.set_len(capacity) };
        TraceBuffer {
            events: events.into_boxed_slice(),
            len: AtomicUsize::new(0),
            dropped: AtomicU64::new(0),
        }
    }

    /// Appends `event` (on the owning thread only).
    #[inline(always)]
    pub(crate) fn push(&self, event: TraceEvent) {
        let len = self.len.load(Relaxed);
        match self.events.get(len) {
            Some(cell) => {
                // SAFETY: slots at and above `len` are read by nobody (see
                // the `Sync` impl), and only this thread writes.
                unsafe { (*cell.get()).write(event) };
                self.len.store(len + 1, Release);
            }
            None => self.note_dropped(),
        }
    }

    #[cold]
    #[inline(never)]
    fn note_dropped(&self) {
        self.dropped.store(self.dropped.load(Relaxed) + 1, Relaxed);
    }

    /// The events written so far (from any thread).
    pub(crate) fn events(&self) -> impl Iterator<Item = TraceEvent> + '_ {
        let len = self.len.load(Acquire);
        // SAFETY: every slot below a length loaded with acquire ordering
        // was initialised before that length was published.
        self.events[..len]
            .iter()
            .map(|cell| unsafe { (*cell.get()).assume_init() })
    }

    /// Events that did not fit.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Relaxed)
    }

    /// Events the buffer holds.
    pub(crate) fn capacity(&self) -> usize {
        self.events.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(start: u64) -> TraceEvent {
        TraceEvent {
            start,
            end: start + 1,
            site: 3,
            kind: EventKind::Span,
        }
    }

    #[test]
    fn events_come_back_in_order_and_those_past_the_capacity_are_counted() {
        let buffer = TraceBuffer::new(2);
        for start in 0..5 {
            buffer.push(event(start));
        }
        let starts: Vec<u64> = buffer.events().map(|e| e.start).collect();
        assert_eq!(starts, [0, 1]);
        assert_eq!(buffer.dropped(), 3);
        assert_eq!(buffer.capacity(), 2);
    }
}
