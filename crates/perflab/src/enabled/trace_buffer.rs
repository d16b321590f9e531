//! A thread's timeline when the session traces (`PERFLAB_TRACE`): a bounded
//! buffer of timestamped events, written only by its thread.
//!
//! A span is one event pushed when it ends, holding its start and end, so a
//! trace needs no pairing of enters and exits (a span still open when the
//! trace is written is not in it). The buffer's memory is mapped when the
//! table is made and touched only as events arrive. When it is full, later
//! events are counted and dropped: the trace keeps the start of the run.
//!
//! Events are packed into 16-byte slots, because on the machines perflab is
//! measured on a traced span's cost beyond an untraced one is mostly the
//! kernel's populating of the memory it is written to (about 8 ns per 24
//! bytes on this project's 2-CPU test VM): a span, a poll or an async
//! span's life whose call site's index fits in 21 bits and whose length in
//! 40 bits of ticks (minutes) takes one slot: its start, then its length,
//! site and kind in one word. Anything else, counters and gauges among
//! them, takes two slots: its start, site and kind, then its second value
//! whole. So a traced span costs one store of 16 bytes beyond an untraced
//! one (besides the out-of-line path it takes, see `span::SpanGuard`).

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

impl EventKind {
    /// Every kind, indexed by its code.
    const ALL: [EventKind; 5] = [
        EventKind::Span,
        EventKind::Poll,
        EventKind::Async,
        EventKind::Counter,
        EventKind::Gauge,
    ];

    /// Whether `end` is a time after `start`, which may be stored as a length.
    #[inline(always)]
    fn is_interval(self) -> bool {
        matches!(self, EventKind::Span | EventKind::Poll | EventKind::Async)
    }
}

/// One event: which call site, what, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TraceEvent {
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) site: u32,
    pub(crate) kind: EventKind,
}

/// One 16-byte slot: an event's start and a packed word (see the module
/// documentation), or the second value of a two-slot event.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(16))]
struct Slot {
    first: u64,
    packed: u64,
}

/// The packed word's low bits: the kind's code, or [`TWO_SLOTS`].
const KIND_BITS: u32 = 3;
const KIND_MASK: u64 = (1 << KIND_BITS) - 1;
/// The kind bits of an event whose second value is the next slot.
const TWO_SLOTS: u64 = KIND_MASK;
/// Then the call site's index, in a one-slot event.
const SITE_BITS: u32 = 21;
/// Then the length in ticks, in the word's top 40 bits.
const LENGTH_SHIFT: u32 = KIND_BITS + SITE_BITS;
const MAX_PACKED_SITE: u32 = (1 << SITE_BITS) - 1;
const MAX_PACKED_LENGTH: u64 = u64::MAX >> LENGTH_SHIFT;
/// In a two-slot event, the site's index sits in the word's top half and
/// the kind's code above the tag.
const SITE_SHIFT_TWO_SLOTS: u32 = 32;

/// The events of one thread.
pub(crate) struct TraceBuffer {
    slots: *mut UnsafeCell<MaybeUninit<Slot>>,
    /// Slots the buffer holds.
    capacity: usize,
    /// Slots whose memory is populated: pushes below it take the fast path.
    ready: AtomicUsize,
    /// Bytes mapped for the slots (a whole number of chunks).
    mapped: usize,
    /// Slots written; each below it is initialised (release on write), and
    /// the last is never the first half of a two-slot event.
    len: AtomicUsize,
    dropped: AtomicU64,
}

// SAFETY: only the owning thread writes, at and above index `len`, before
// publishing the new length with release ordering; readers read only below
// a length loaded with acquire ordering, so no slot is read while written.
// The mapping is owned by the buffer and unmapped once, when it is dropped.
unsafe impl Sync for TraceBuffer {}
// SAFETY: as above; the pointer is the buffer's own mapping.
unsafe impl Send for TraceBuffer {}

/// Memory populated at a time, ahead of the events written into it.
const CHUNK: usize = 1 << 20;

/// `madvise` advice to populate (prefault) pages writable, Linux 5.14 on.
const MADV_POPULATE_WRITE: libc::c_int = 23;

impl TraceBuffer {
    /// A buffer of `capacity` slots (as many spans; counters and gauges
    /// take two each), mapped but not touched.
    ///
    /// The slots go in an anonymous mapping of their own, populated a
    /// chunk (1 MiB, 65,536 slots) at a time ahead of the writes with one
    /// `madvise(MADV_POPULATE_WRITE)`: left to fault one 4 KiB page at a time
    /// (once per 256 slots), the faults cost a traced span about half as
    /// much again as the span itself on this project's test machine (a
    /// virtual machine, where a fault is dear). Huge pages were tried and
    /// were worse: their first use from fresh memory is dearer still on
    /// that machine. Where the advice is not known (kernels before 5.14)
    /// pages fault as written and the buffer works the same. Memory is used
    /// only as events arrive. When the mapping cannot be made, the buffer
    /// holds nothing and counts every event as dropped.
    pub(crate) fn new(capacity: usize) -> Self {
        let bytes = capacity.saturating_mul(size_of::<Slot>());
        let mapped = bytes.div_ceil(CHUNK).saturating_mul(CHUNK);
        let slots: *mut UnsafeCell<MaybeUninit<Slot>> = if mapped == 0 {
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
            capacity: if slots.is_null() { 0 } else { capacity },
            ready: AtomicUsize::new(0),
            mapped: if slots.is_null() { 0 } else { mapped },
            slots,
            len: AtomicUsize::new(0),
            dropped: AtomicU64::new(0),
        }
    }

    /// Appends `event` (on the owning thread only).
    #[inline(always)]
    pub(crate) fn push(&self, event: TraceEvent) {
        let length = event.end.wrapping_sub(event.start);
        if event.kind.is_interval() && event.site <= MAX_PACKED_SITE && length <= MAX_PACKED_LENGTH
        {
            let packed =
                length << LENGTH_SHIFT | u64::from(event.site) << KIND_BITS | event.kind as u64;
            self.append([Slot {
                first: event.start,
                packed,
            }]);
        } else {
            self.push_two_slots(event);
        }
    }

    /// Appends an event that does not fit one slot.
    #[inline(never)]
    fn push_two_slots(&self, event: TraceEvent) {
        let head = Slot {
            first: event.start,
            packed: u64::from(event.site) << SITE_SHIFT_TWO_SLOTS
                | (event.kind as u64) << KIND_BITS
                | TWO_SLOTS,
        };
        let tail = Slot {
            first: event.end,
            packed: 0,
        };
        self.append([head, tail]);
    }

    /// Writes one event's `N` slots and publishes them at once, or counts
    /// the event as dropped when they do not fit.
    #[inline(always)]
    fn append<const N: usize>(&self, slots: [Slot; N]) {
        let len = self.len.load(Relaxed);
        if len + N <= self.ready.load(Relaxed) || self.make_ready(len, N) {
            for (i, slot) in slots.into_iter().enumerate() {
                // SAFETY: `len + N` is within the capacity, within the
                // mapping; slots at and above `len` are read by nobody (see
                // the `Sync` impl), and only this thread writes.
                unsafe { (*(*self.slots.add(len + i)).get()).write(slot) };
            }
            self.len.store(len + N, Release);
        }
    }

    /// Populates the chunk holding slot `len + slots - 1`; false (and the
    /// event counted as dropped) when the buffer has no room for `slots`
    /// more.
    #[cold]
    #[inline(never)]
    fn make_ready(&self, len: usize, slots: usize) -> bool {
        if len + slots > self.capacity {
            self.dropped.store(self.dropped.load(Relaxed) + 1, Relaxed);
            return false;
        }
        let slot = size_of::<Slot>();
        // The chunk holding the event's last byte (the one before holds
        // its first, if not this one, and is populated already).
        let start = ((len + slots) * slot - 1) / CHUNK * CHUNK;
        let end = (start + CHUNK).min(self.mapped);
        // SAFETY: [start, end) lies within the mapping made in `new`; the
        // advice only populates pages, it changes no contents. Failure (an
        // old kernel) leaves the pages to fault as they are written.
        unsafe {
            libc::madvise(
                self.slots.cast::<u8>().add(start).cast(),
                end - start,
                MADV_POPULATE_WRITE,
            );
        }
        self.ready.store((end / slot).min(self.capacity), Relaxed);
        true
    }

    /// The events written so far (from any thread).
    pub(crate) fn events(&self) -> impl Iterator<Item = TraceEvent> + '_ {
        let len = self.len.load(Acquire);
        // SAFETY: every slot below a length loaded with acquire ordering
        // was initialised before that length was published.
        let slot = move |index: usize| unsafe { (*(*self.slots.add(index)).get()).assume_init() };
        let mut index = 0;
        // Only this module writes slots, each with a kind's code: a code
        // that is none (which cannot happen) ends the events.
        std::iter::from_fn(move || {
            if index >= len {
                return None;
            }
            let head = slot(index);
            let tag = head.packed & KIND_MASK;
            if tag == TWO_SLOTS {
                // `len` never ends between the two halves.
                let tail = slot(index + 1);
                index += 2;
                let code = (head.packed >> KIND_BITS) & KIND_MASK;
                EventKind::ALL.get(code as usize).map(|&kind| TraceEvent {
                    start: head.first,
                    end: tail.first,
                    site: (head.packed >> SITE_SHIFT_TWO_SLOTS) as u32,
                    kind,
                })
            } else {
                index += 1;
                EventKind::ALL.get(tag as usize).map(|&kind| TraceEvent {
                    start: head.first,
                    end: head.first.wrapping_add(head.packed >> LENGTH_SHIFT),
                    site: ((head.packed >> KIND_BITS) as u32) & MAX_PACKED_SITE,
                    kind,
                })
            }
        })
    }

    /// Events that did not fit.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Relaxed)
    }

    /// Slots the buffer holds: as many spans, half as many counters.
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }
}

impl Drop for TraceBuffer {
    fn drop(&mut self) {
        if !self.slots.is_null() {
            // SAFETY: the mapping made in `new`, unmapped once here.
            unsafe { libc::munmap(self.slots.cast(), self.mapped) };
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

    #[test]
    fn a_two_slot_event_that_does_not_fit_is_dropped_whole() {
        let buffer = TraceBuffer::new(3);
        buffer.push(event(0));
        let gauge = TraceEvent {
            start: 5,
            end: 2.5f64.to_bits(),
            site: 1,
            kind: EventKind::Gauge,
        };
        buffer.push(gauge);
        buffer.push(gauge);
        buffer.push(event(9));
        let kept: Vec<TraceEvent> = buffer.events().collect();
        assert_eq!(kept, [event(0), gauge]);
        assert_eq!(buffer.dropped(), 2);
    }

    #[test]
    fn events_written_across_a_chunk_boundary_come_back_whole() {
        let per_chunk = CHUNK / size_of::<Slot>();
        let buffer = TraceBuffer::new(3 * per_chunk);
        let mut written = Vec::new();
        // One-slot spans up to one slot before the boundary, then counters
        // of two slots, so that one straddles it.
        for start in 0..(per_chunk as u64 - 1) {
            written.push(event(start));
        }
        for start in 0..4 {
            written.push(TraceEvent {
                start,
                end: u64::MAX - start,
                site: 7,
                kind: EventKind::Counter,
            });
        }
        for &e in &written {
            buffer.push(e);
        }
        assert!(buffer.events().eq(written.iter().copied()));
    }

    fn any_event() -> impl proptest::strategy::Strategy<Value = TraceEvent> {
        use proptest::prelude::*;
        let kind = prop::sample::select(EventKind::ALL.to_vec());
        let length = prop_oneof![0..1000u64, 0..=MAX_PACKED_LENGTH + 10, any::<u64>()];
        let site = prop_oneof![0..100u32, 0..=MAX_PACKED_SITE + 10, any::<u32>()];
        (any::<u64>(), length, site, kind).prop_map(|(start, length, site, kind)| TraceEvent {
            start,
            end: start.wrapping_add(length),
            site,
            kind,
        })
    }

    proptest::proptest! {
        /// Packing into one slot or two loses nothing, whatever the site,
        /// the length (even one that wraps) or the kind.
        #[test]
        fn every_event_comes_back_exactly_as_it_was_pushed(
            written in proptest::collection::vec(any_event(), 0..200),
        ) {
            let buffer = TraceBuffer::new(400);
            for &e in &written {
                buffer.push(e);
            }
            proptest::prop_assert_eq!(buffer.events().collect::<Vec<_>>(), written);
            proptest::prop_assert_eq!(buffer.dropped(), 0);
        }
    }
}
