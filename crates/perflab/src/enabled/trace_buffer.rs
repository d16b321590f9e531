//! A thread's timeline when the session traces (`PERFLAB_TRACE`): a bounded
//! buffer of timestamped events, written only by its thread.
//!
//! A span is one event pushed when it ends, holding its start and end, so a
//! traced span costs one store of 24 bytes beyond an untraced one (besides
//! the out-of-line path it takes, see `span::SpanGuard`), and a
//! trace needs no pairing of enters and exits (a span still open when the
//! trace is written is not in it). The buffer's memory is mapped when the
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
    events: *mut UnsafeCell<MaybeUninit<TraceEvent>>,
    capacity: usize,
    /// Events whose memory is populated: pushes below it take the fast path.
    ready: AtomicUsize,
    /// Bytes mapped for the events (a whole number of chunks).
    mapped: usize,
    /// Events written; each below it is initialised (release on write).
    len: AtomicUsize,
    dropped: AtomicU64,
}

// SAFETY: only the owning thread writes, at index `len`, before publishing
// the new length with release ordering; readers read only below a length
// loaded with acquire ordering, so no slot is read while written. The
// mapping is owned by the buffer and unmapped once, when it is dropped.
unsafe impl Sync for TraceBuffer {}
// SAFETY: as above; the pointer is the buffer's own mapping.
unsafe impl Send for TraceBuffer {}

/// Memory populated at a time, ahead of the events written into it.
const CHUNK: usize = 1 << 20;

/// `madvise` advice to populate (prefault) pages writable, Linux 5.14 on.
const MADV_POPULATE_WRITE: libc::c_int = 23;

impl TraceBuffer {
    /// A buffer of `capacity` events, mapped but not touched.
    ///
    /// The events go in an anonymous mapping of their own, populated a
    /// chunk (1 MiB, 43,690 events) at a time ahead of the writes with one
    /// `madvise(MADV_POPULATE_WRITE)`: left to fault one 4 KiB page at a time
    /// (once per 170 events), the faults cost a traced span about half as
    /// much again as the span itself on this project's test machine (a
    /// virtual machine, where a fault is dear). Huge pages were tried and
    /// were worse: their faults compact memory. Where the advice is not
    /// known (kernels before 5.14) pages fault as written and the buffer
    /// works the same. Memory is used only as events arrive. When the
    /// mapping cannot be made, the buffer holds nothing and counts every
    /// event as dropped.
    pub(crate) fn new(capacity: usize) -> Self {
        let bytes = capacity.saturating_mul(size_of::<TraceEvent>());
        let mapped = bytes.div_ceil(CHUNK).saturating_mul(CHUNK);
        let events: *mut UnsafeCell<MaybeUninit<TraceEvent>> = if mapped == 0 {
            std::ptr::null_mut()
        } else {
            // SAFETY: an anonymous private mapping with no address hint
            // touches no existing memory; the result is checked.
            unsafe {
                let address = libc::mmap(
                    std::ptr::null_mut(),
                    mapped,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                );
                if address == libc::MAP_FAILED {
                    std::ptr::null_mut()
                } else {
                    address.cast()
                }
            }
        };
        TraceBuffer {
            capacity: if events.is_null() { 0 } else { capacity },
            ready: AtomicUsize::new(0),
            mapped: if events.is_null() { 0 } else { mapped },
            events,
            len: AtomicUsize::new(0),
            dropped: AtomicU64::new(0),
        }
    }

    /// Appends `event` (on the owning thread only).
    #[inline(always)]
    pub(crate) fn push(&self, event: TraceEvent) {
        let len = self.len.load(Relaxed);
        if len < self.ready.load(Relaxed) || self.make_ready(len) {
            // SAFETY: `len` is below the capacity, within the mapping; slots
            // at and above it are read by nobody (see the `Sync` impl), and
            // only this thread writes.
            unsafe { (*(*self.events.add(len)).get()).write(event) };
            self.len.store(len + 1, Release);
        }
    }

    /// Populates the next chunk for event `len`; false (and the event
    /// counted as dropped) when the buffer is full.
    #[cold]
    #[inline(never)]
    fn make_ready(&self, len: usize) -> bool {
        if len >= self.capacity {
            self.dropped.store(self.dropped.load(Relaxed) + 1, Relaxed);
            return false;
        }
        let event = size_of::<TraceEvent>();
        // The chunk holding the event's last byte (the one before holds its first).
        let start = ((len + 1) * event - 1) / CHUNK * CHUNK;
        let end = (start + CHUNK).min(self.mapped);
        // SAFETY: [start, end) lies within the mapping made in `new`; the
        // advice only populates pages, it changes no contents. Failure (an
        // old kernel) leaves the pages to fault as they are written.
        unsafe {
            libc::madvise(
                self.events.cast::<u8>().add(start).cast(),
                end - start,
                MADV_POPULATE_WRITE,
            );
        }
        self.ready.store((end / event).min(self.capacity), Relaxed);
        true
    }

    /// The events written so far (from any thread).
    pub(crate) fn events(&self) -> impl Iterator<Item = TraceEvent> + '_ {
        let len = self.len.load(Acquire);
        // SAFETY: every slot below a length loaded with acquire ordering
        // was initialised before that length was published.
        (0..len).map(move |index| unsafe { (*(*self.events.add(index)).get()).assume_init() })
    }

    /// Events that did not fit.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Relaxed)
    }

    /// Events the buffer holds.
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }
}

impl Drop for TraceBuffer {
    fn drop(&mut self) {
        if !self.events.is_null() {
            // SAFETY: the mapping made in `new`, unmapped once here.
            unsafe { libc::munmap(self.events.cast(), self.mapped) };
        }
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
