//! Allocation counting per span (feature `alloc`).
//!
//! [`CountingAllocator`] wraps any global allocator and counts, per thread,
//! allocations and bytes requested. A span reads the thread's counts when it
//! opens and closes, on its own thread; an async function does the same for
//! every poll, on whichever thread polls, so the figures stay right when
//! work moves between threads. Self and inclusive split as for time.

use std::alloc::{GlobalAlloc, Layout};
#[cfg(feature = "enabled")]
use std::cell::Cell;
#[cfg(feature = "enabled")]
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// A global allocator that counts allocations for perflab, then defers to `A`.
///
/// ```ignore
/// #[global_allocator]
/// static ALLOCATOR: perflab::CountingAllocator<std::alloc::System> =
///     perflab::CountingAllocator::new(std::alloc::System);
/// ```
#[derive(Debug, Default)]
pub struct CountingAllocator<A> {
    inner: A,
}

impl<A> CountingAllocator<A> {
    /// Wraps `inner`.
    pub const fn new(inner: A) -> Self {
        CountingAllocator { inner }
    }
}

#[cfg(feature = "enabled")]
thread_local! {
    // Const and without destructor: usable from inside the allocator, even
    // while the thread is being torn down.
    static THREAD_ALLOCS: (Cell<u64>, Cell<u64>) = const { (Cell::new(0), Cell::new(0)) };
}

/// Whether any allocation went through a `CountingAllocator` (otherwise the
/// profile leaves allocation figures out rather than report zeros).
#[cfg(feature = "enabled")]
static INSTALLED: AtomicBool = AtomicBool::new(false);

#[inline(always)]
fn note(bytes: usize) {
    #[cfg(feature = "enabled")]
    {
        if !INSTALLED.load(Relaxed) {
            INSTALLED.store(true, Relaxed);
        }
        let _ = THREAD_ALLOCS.try_with(|(allocs, total)| {
            allocs.set(allocs.get().wrapping_add(1));
            total.set(total.get().wrapping_add(bytes as u64));
        });
    }
    #[cfg(not(feature = "enabled"))]
    let _ = bytes;
}

// SAFETY: every method forwards to `inner` with the caller's arguments
// unchanged; counting touches only thread-local cells and never allocates.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAllocator<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: forwarded contract.
        unsafe { self.inner.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: forwarded contract.
        unsafe { self.inner.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded contract.
        unsafe { self.inner.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // A reallocation counts as one allocation of the new size.
        note(new_size);
        // SAFETY: forwarded contract.
        unsafe { self.inner.realloc(ptr, layout, new_size) }
    }
}

/// The calling thread's allocations and bytes so far.
#[cfg(feature = "enabled")]
#[inline(always)]
fn thread_counts() -> (u64, u64) {
    THREAD_ALLOCS
        .try_with(|(allocs, bytes)| (allocs.get(), bytes.get()))
        .unwrap_or((0, 0))
}

/// Runs `work` (perflab's own cold-path bookkeeping) without its allocations
/// showing in the thread's counts, so they are never charged to a span.
#[cfg(feature = "enabled")]
pub(crate) fn uncounted<R>(work: impl FnOnce() -> R) -> R {
    let before = thread_counts();
    let result = work();
    let _ = THREAD_ALLOCS.try_with(|(allocs, bytes)| {
        allocs.set(before.0);
        bytes.set(before.1);
    });
    result
}

/// Allocations and bytes, written by one thread.
#[cfg(feature = "enabled")]
#[derive(Default)]
pub(crate) struct AllocCount {
    allocs: AtomicU64,
    bytes: AtomicU64,
}

/// A span site's allocation figures on one thread.
#[cfg(feature = "enabled")]
#[derive(Default)]
pub(crate) struct SlotAllocs {
    self_count: AllocCount,
    inclusive: AllocCount,
}

/// What a frame remembers to split its allocations into self and children.
#[cfg(feature = "enabled")]
#[derive(Default)]
pub(crate) struct FrameAllocs {
    start: (u64, u64),
    saved_children: (u64, u64),
}

#[cfg(feature = "enabled")]
impl FrameAllocs {
    #[inline(always)]
    pub(crate) fn open(children: &AllocCount) -> Self {
        let saved_children = (children.allocs.load(Relaxed), children.bytes.load(Relaxed));
        children.allocs.store(0, Relaxed);
        children.bytes.store(0, Relaxed);
        FrameAllocs {
            start: thread_counts(),
            saved_children,
        }
    }

    #[inline(always)]
    /// `children` is the thread's running count of allocations made by
    /// nested spans, `slot` the span's figures, and `outermost` whether this
    /// call is not a recursive call of the same span.
    pub(crate) fn close(&self, children: &AllocCount, slot: &SlotAllocs, outermost: bool) {
        let now = thread_counts();
        let inclusive = (
            now.0.wrapping_sub(self.start.0),
            now.1.wrapping_sub(self.start.1),
        );
        let inner = (children.allocs.load(Relaxed), children.bytes.load(Relaxed));
        children
            .allocs
            .store(self.saved_children.0.wrapping_add(inclusive.0), Relaxed);
        children
            .bytes
            .store(self.saved_children.1.wrapping_add(inclusive.1), Relaxed);
        let bump = crate::imp::single_writer::bump;
        bump(&slot.self_count.allocs, inclusive.0.saturating_sub(inner.0));
        bump(&slot.self_count.bytes, inclusive.1.saturating_sub(inner.1));
        // Recursive calls: only the outermost adds to inclusive figures.
        if outermost {
            bump(&slot.inclusive.allocs, inclusive.0);
            bump(&slot.inclusive.bytes, inclusive.1);
        }
    }
}

/// Sums over threads when a report is built.
#[cfg(feature = "enabled")]
#[derive(Default, Clone)]
pub(crate) struct AllocTotals {
    self_allocs: u64,
    self_bytes: u64,
    inclusive_allocs: u64,
    inclusive_bytes: u64,
}

#[cfg(feature = "enabled")]
impl AllocTotals {
    pub(crate) fn add(&mut self, slot: &SlotAllocs) {
        self.self_allocs += slot.self_count.allocs.load(Relaxed);
        self.self_bytes += slot.self_count.bytes.load(Relaxed);
        self.inclusive_allocs += slot.inclusive.allocs.load(Relaxed);
        self.inclusive_bytes += slot.inclusive.bytes.load(Relaxed);
    }

    pub(crate) fn merge(&mut self, other: &AllocTotals) {
        self.self_allocs += other.self_allocs;
        self.self_bytes += other.self_bytes;
        self.inclusive_allocs += other.inclusive_allocs;
        self.inclusive_bytes += other.inclusive_bytes;
    }

    pub(crate) fn into_stats(self) -> Option<perflab_format::profile::AllocStats> {
        INSTALLED
            .load(Relaxed)
            .then_some(perflab_format::profile::AllocStats {
                self_allocs: self.self_allocs,
                self_bytes: self.self_bytes,
                inclusive_allocs: self.inclusive_allocs,
                inclusive_bytes: self.inclusive_bytes,
            })
    }
}
