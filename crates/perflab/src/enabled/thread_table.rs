//! Per-thread storage: one table per (thread, session), one slot per call site.
//!
//! Only the owning thread writes a table. Fields are atomics written with a
//! relaxed load and store (plain moves on x86 and ARM, no locked
//! instructions) so that a session ending on another thread may read them
//! without a data race. A reader may see one call's fields half-updated;
//! that is the price of never making the writer wait.

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering, Ordering::Relaxed};

use crate::histogram::TickHistogram;
use crate::imp::clock::Timer;
use crate::imp::cpu_time::ThreadCpuClock;
use crate::imp::trace_buffer::{EventKind, TraceBuffer, TraceEvent};

pub(crate) use crate::imp::single_writer::bump;

/// `SpanSlot::pending_ticks` when no call waits to enter the histogram.
pub(crate) const NO_PENDING: u64 = u64::MAX;

/// `ThreadTable::end_runnable_wait_ns` when the system did not tell it.
pub(crate) const UNKNOWN: u64 = u64::MAX;

/// Figures of one span call site on one thread, in timer ticks.
pub(crate) struct SpanSlot {
    /// The site's index in the table, for the trace's events.
    pub(crate) index: u32,
    /// The table holding the slot, for a traced span, whose guard keeps
    /// only its slot (see `span::SpanGuard`). Tables do not move once a
    /// slot exists (a thread's tables live in an `Arc`), and a slot lives
    /// no longer than its table.
    pub(crate) table: *const ThreadTable,
    pub(crate) calls: AtomicU64,
    /// Sum of call durations, recursive calls included (for the mean).
    pub(crate) call_ticks: AtomicU64,
    /// Time inside the span, counted only by outermost (non-recursive) calls.
    pub(crate) inclusive_ticks: AtomicU64,
    pub(crate) self_ticks: AtomicU64,
    pub(crate) min_ticks: AtomicU64,
    pub(crate) max_ticks: AtomicU64,
    /// Calls of this site currently open on the thread (recursion depth).
    pub(crate) active: AtomicU32,
    pub(crate) unwound: AtomicU64,
    pub(crate) polls: AtomicU64,
    pub(crate) poll_ticks: AtomicU64,
    pub(crate) cancelled: AtomicU64,
    /// Polls after an instance's first: each follows a wake-up.
    pub(crate) wakeups: AtomicU64,
    /// Lifetime minus busy time of the instances that completed here.
    pub(crate) idle_ticks: AtomicU64,
    /// Duration of the latest call, not yet in the histogram ([`NO_PENDING`] if none).
    pub(crate) pending_ticks: AtomicU64,
    #[cfg(feature = "alloc")]
    pub(crate) alloc: crate::alloc::SlotAllocs,
    pub(crate) histogram: TickHistogram,
}

impl SpanSlot {
    pub(crate) fn new(index: u32, table: *const ThreadTable) -> Self {
        SpanSlot {
            index,
            table,
            calls: AtomicU64::new(0),
            call_ticks: AtomicU64::new(0),
            inclusive_ticks: AtomicU64::new(0),
            self_ticks: AtomicU64::new(0),
            min_ticks: AtomicU64::new(u64::MAX),
            max_ticks: AtomicU64::new(0),
            active: AtomicU32::new(0),
            unwound: AtomicU64::new(0),
            polls: AtomicU64::new(0),
            poll_ticks: AtomicU64::new(0),
            cancelled: AtomicU64::new(0),
            wakeups: AtomicU64::new(0),
            idle_ticks: AtomicU64::new(0),
            pending_ticks: AtomicU64::new(NO_PENDING),
            #[cfg(feature = "alloc")]
            alloc: crate::alloc::SlotAllocs::default(),
            histogram: TickHistogram::new(),
        }
    }

    /// Counts one completed call of `elapsed` ticks.
    #[inline(always)]
    pub(crate) fn record_call(&self, elapsed: u64) {
        bump(&self.calls, 1);
        bump(&self.call_ticks, elapsed);
        if elapsed < self.min_ticks.load(Relaxed) {
            self.min_ticks.store(elapsed, Relaxed);
        }
        if elapsed > self.max_ticks.load(Relaxed) {
            self.max_ticks.store(elapsed, Relaxed);
        }
        // The histogram is one call behind: this call's duration waits in
        // `pending` and the previous one is counted. A bucket address that
        // depends on a clock read just taken stalls the pipeline (about 8 ns
        // here, measured); one loaded from memory does not.
        let previous = self.pending_ticks.load(Relaxed);
        self.pending_ticks.store(elapsed, Relaxed);
        if previous != NO_PENDING {
            self.histogram.record(previous);
        }
    }
}

/// Running total of an event counter on one thread.
#[derive(Default)]
pub(crate) struct CounterCell {
    pub(crate) events: AtomicU64,
    pub(crate) total: AtomicU64,
}

/// Samples of a gauge on one thread. Floats are stored as their bits.
pub(crate) struct GaugeCell {
    pub(crate) samples: AtomicU64,
    pub(crate) sum: AtomicU64,
    pub(crate) min: AtomicU64,
    pub(crate) max: AtomicU64,
    pub(crate) last: AtomicU64,
    /// Tick of the last sample, to find the latest value across threads.
    pub(crate) last_ticks: AtomicU64,
}

impl GaugeCell {
    fn new() -> Self {
        GaugeCell {
            samples: AtomicU64::new(0),
            sum: AtomicU64::new(0f64.to_bits()),
            min: AtomicU64::new(f64::INFINITY.to_bits()),
            max: AtomicU64::new(f64::NEG_INFINITY.to_bits()),
            last: AtomicU64::new(0f64.to_bits()),
            last_ticks: AtomicU64::new(0),
        }
    }

    #[inline(always)]
    pub(crate) fn record(&self, value: f64, now: u64) {
        let get = |field: &AtomicU64| f64::from_bits(field.load(Relaxed));
        bump(&self.samples, 1);
        self.sum.store((get(&self.sum) + value).to_bits(), Relaxed);
        if value < get(&self.min) {
            self.min.store(value.to_bits(), Relaxed);
        }
        if value > get(&self.max) {
            self.max.store(value.to_bits(), Relaxed);
        }
        self.last.store(value.to_bits(), Relaxed);
        self.last_ticks.store(now, Relaxed);
    }
}

/// Who a table belongs to.
#[derive(Debug, Clone)]
pub(crate) struct ThreadIdentity {
    /// perflab's own number for the thread.
    pub(crate) id: u64,
    pub(crate) name: Option<String>,
    pub(crate) os_tid: Option<u64>,
    pub(crate) cpu_clock: ThreadCpuClock,
}

/// Everything one thread recorded for one session.
///
/// In declaration order (`repr(C)`), so that what every span reads (the
/// timer flag, the slots, the stack's sums, and for a traced span the
/// timeline's pointer) sits together at the start, on the first cache line.
#[repr(C)]
pub(crate) struct ThreadTable {
    pub(crate) timer: &'static Timer,
    slots: Box<[AtomicPtr<SpanSlot>]>,
    /// Spans open on this thread in this table.
    pub(crate) depth: AtomicU32,
    /// Copy of `timer.reads_tsc()`, read on every clock read.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    reads_tsc: bool,
    /// Time of the spans finished inside the innermost open span (or at top level).
    pub(crate) children_ticks: AtomicU64,
    /// Time inside top-level spans.
    pub(crate) attributed_ticks: AtomicU64,
    /// The thread's timeline, when the session traces.
    pub(crate) trace: Option<Box<TraceBuffer>>,
    pub(crate) counters: Box<[CounterCell]>,
    pub(crate) gauges: Box<[GaugeCell]>,
    #[cfg(feature = "alloc")]
    pub(crate) children_allocs: crate::alloc::AllocCount,
    pub(crate) thread: ThreadIdentity,
    pub(crate) start_ticks: u64,
    pub(crate) start_cpu_ns: Option<u64>,
    /// The thread's time waiting for a CPU so far, when the table was made.
    pub(crate) start_runnable_wait_ns: Option<u64>,
    pub(crate) end_ticks: AtomicU64,
    pub(crate) end_cpu_ns: AtomicU64,
    /// The same when the thread ended ([`UNKNOWN`] if it could not be read).
    pub(crate) end_runnable_wait_ns: AtomicU64,
    /// Set (with release ordering, after the end figures) when the thread ends.
    pub(crate) ended: AtomicBool,
}

impl ThreadTable {
    /// A table with room for `spans`, `counters` and `gauges` call sites,
    /// and for `trace_events` events of a timeline (none when 0).
    pub(crate) fn new(
        timer: &'static Timer,
        thread: ThreadIdentity,
        spans: usize,
        counters: usize,
        gauges: usize,
        trace_events: usize,
    ) -> Self {
        ThreadTable {
            timer,
            reads_tsc: timer.reads_tsc(),
            slots: (0..spans)
                .map(|_| AtomicPtr::new(std::ptr::null_mut()))
                .collect(),
            counters: (0..counters).map(|_| CounterCell::default()).collect(),
            gauges: (0..gauges).map(|_| GaugeCell::new()).collect(),
            depth: AtomicU32::new(0),
            children_ticks: AtomicU64::new(0),
            attributed_ticks: AtomicU64::new(0),
            #[cfg(feature = "alloc")]
            children_allocs: crate::alloc::AllocCount::default(),
            thread,
            start_ticks: timer.ticks(),
            start_cpu_ns: crate::imp::cpu_time::this_thread_ns(),
            start_runnable_wait_ns: crate::imp::cpu_time::runnable_wait_ns(None),
            end_ticks: AtomicU64::new(0),
            end_cpu_ns: AtomicU64::new(0),
            end_runnable_wait_ns: AtomicU64::new(UNKNOWN),
            ended: AtomicBool::new(false),
            trace: (trace_events > 0).then(|| Box::new(TraceBuffer::new(trace_events))),
        }
    }

    /// Adds an event to the timeline, when the session traces.
    #[inline(always)]
    pub(crate) fn trace(&self, kind: EventKind, site: u32, start: u64, end: u64) {
        if let Some(trace) = &self.trace {
            trace.push(TraceEvent {
                start,
                end,
                site,
                kind,
            });
        }
    }

    /// Current time in timer ticks.
    #[inline(always)]
    pub(crate) fn ticks(&self) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if self.reads_tsc {
            // SAFETY: the timer only reads the TSC after quanta checked that
            // the CPU has an invariant one.
            return unsafe { core::arch::x86_64::_rdtsc() };
        }
        self.timer.ticks()
    }

    /// The slot of span site `index`, allocated on this thread's first call
    /// of the site. `None` for an index past the table (never for linked sites).
    #[inline(always)]
    pub(crate) fn slot(&self, index: usize) -> Option<&SpanSlot> {
        let cell = self.slots.get(index)?;
        let slot = cell.load(Ordering::Acquire);
        if slot.is_null() {
            return Some(self.allocate_slot(cell, index));
        }
        // SAFETY: non-null slots are created by `allocate_slot` from a Box and
        // freed only when the table is dropped.
        Some(unsafe { &*slot })
    }

    #[cold]
    #[inline(never)]
    fn allocate_slot(&self, cell: &AtomicPtr<SpanSlot>, index: usize) -> &SpanSlot {
        let index = index as u32;
        #[cfg(feature = "alloc")]
        let slot = crate::alloc::uncounted(|| Box::into_raw(Box::new(SpanSlot::new(index, self))));
        #[cfg(not(feature = "alloc"))]
        let slot = Box::into_raw(Box::new(SpanSlot::new(index, self)));
        // Only the owning thread allocates, so a plain release store publishes it.
        cell.store(slot, Ordering::Release);
        // SAFETY: just created from a Box; lives until the table is dropped.
        unsafe { &*slot }
    }

    /// Calls `each(index, slot)` for every slot this thread has used (from any thread).
    pub(crate) fn for_each_slot(&self, mut each: impl FnMut(usize, &SpanSlot)) {
        for (index, cell) in self.slots.iter().enumerate() {
            let slot = cell.load(Ordering::Acquire);
            if !slot.is_null() {
                // SAFETY: as in `slot`; the table outlives this borrow.
                each(index, unsafe { &*slot });
            }
        }
    }

    /// Records that the owning thread ends now (called on that thread).
    pub(crate) fn mark_ended(&self) {
        self.end_ticks.store(self.ticks(), Relaxed);
        let cpu = crate::imp::cpu_time::this_thread_ns().unwrap_or(0);
        self.end_cpu_ns.store(cpu, Relaxed);
        let wait = crate::imp::cpu_time::runnable_wait_ns(None).unwrap_or(UNKNOWN);
        self.end_runnable_wait_ns.store(wait, Relaxed);
        self.ended.store(true, Ordering::Release);
    }
}

impl Drop for ThreadTable {
    fn drop(&mut self) {
        for cell in self.slots.iter() {
            let slot = cell.load(Ordering::Acquire);
            if !slot.is_null() {
                // SAFETY: created by Box::into_raw in `allocate_slot`, freed once here.
                drop(unsafe { Box::from_raw(slot) });
            }
        }
    }
}
