//! Spans named while the program runs, whose instances may be entered
//! several times: a `tracing` span is created, entered at each poll of the
//! future it instruments (or once, around a sync function), and closed.
//! This is the interface `perflab-tracing` builds on.
//!
//! Each entry is a frame on the entering thread's stack, as a `span!` is,
//! so self time, nesting and the thread's attributed time work the same.
//! One instance is one call, from its first entry to its last exit; an
//! instance entered more than once makes its site async, and reports polls
//! (entries), busy time (inside entries), wake-ups (entries after the
//! first) and idle time (the rest of its lifetime), as `#[measure]` on an
//! async function does.

use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering::Relaxed};

use perflab_format::profile::SpanKind;

use crate::imp::binding::current_table;
use crate::imp::registered_sites::{SiteRequest, register};
use crate::imp::site::{SitePurpose, SpanSite};
use crate::imp::span::{Frame, note_unwound};
use crate::imp::thread_table::{SpanSlot, ThreadTable, bump};
use crate::imp::trace_buffer::EventKind;

/// A span site named while the program runs (not by a macro).
#[derive(Debug, Clone, Copy)]
pub struct RegisteredSite {
    site: &'static SpanSite,
}

impl RegisteredSite {
    /// The site of spans named `name` in `module`: the same name and module
    /// always give the same site, and sites with the same name are reported
    /// together. `None` once the program has registered the most sites a
    /// table has room for (1024); such spans record nothing.
    ///
    /// Registering takes a lock: do it once per callsite and keep the site.
    pub fn register(
        name: &str,
        module: &str,
        file: Option<&str>,
        line: Option<u32>,
    ) -> Option<RegisteredSite> {
        register(SiteRequest {
            name,
            module,
            file: file.unwrap_or(module),
            line: line.unwrap_or(0),
            kind: SpanKind::Span,
            purpose: SitePurpose::Span,
        })
        .map(|site| RegisteredSite { site })
    }

    /// The span's name.
    pub fn name(&self) -> &'static str {
        self.site.location.name
    }
}

/// One instance of a registered span, shared by every thread that enters
/// it: create it with the instance, [`enter`](SpanLife::enter) and
/// [`exit`](SpanLife::exit) it any number of times, [`close`](SpanLife::close) it once.
#[derive(Debug)]
pub struct SpanLife {
    // Always a `&'static SpanSite`; atomic so that `restart` can reuse the
    // instance in place while another thread may still hold a reference.
    site: AtomicPtr<SpanSite>,
    // Written with loads and stores, not atomic adds: an instance is
    // entered by one thread at a time in practice (a poll), and a rare
    // concurrent entry may lose an update but never corrupt a table.
    first_enter_ticks: AtomicU64,
    last_exit_ticks: AtomicU64,
    busy_ticks: AtomicU64,
    entries: AtomicU64,
}

/// An open entry of a [`SpanLife`] on the thread that entered it; give it
/// back to [`SpanLife::exit`] on that thread.
#[must_use = "an entry is closed by SpanLife::exit"]
pub struct Entry {
    /// Null when nothing is recorded, and once the frame is closed: without
    /// an `Option` around the frame, an entry is a word smaller to move.
    table: *const ThreadTable,
    slot: *const SpanSlot,
    frame: Frame,
}

impl SpanLife {
    /// A new instance of `site`, not yet entered.
    pub fn new(site: RegisteredSite) -> SpanLife {
        SpanLife {
            site: AtomicPtr::new(std::ptr::from_ref(site.site).cast_mut()),
            first_enter_ticks: AtomicU64::new(0),
            last_exit_ticks: AtomicU64::new(0),
            busy_ticks: AtomicU64::new(0),
            entries: AtomicU64::new(0),
        }
    }

    /// Makes this instance a new, not yet entered instance of `site`, as
    /// [`new`](SpanLife::new) does, in place: a pool of instances reuses one
    /// without allocating. Call it only once the previous instance is
    /// closed and no thread enters it any more.
    #[inline]
    pub fn restart(&self, site: RegisteredSite) {
        self.site
            .store(std::ptr::from_ref(site.site).cast_mut(), Relaxed);
        self.first_enter_ticks.store(0, Relaxed);
        self.last_exit_ticks.store(0, Relaxed);
        self.busy_ticks.store(0, Relaxed);
        self.entries.store(0, Relaxed);
    }

    #[inline(always)]
    fn site(&self) -> &'static SpanSite {
        // SAFETY: only ever set from a `&'static SpanSite` (`new`, `restart`).
        unsafe { &*self.site.load(Relaxed) }
    }

    /// Enters the instance on the calling thread.
    #[inline]
    pub fn enter(&self) -> Entry {
        let bound = current_table();
        let site = self.site();
        let recording = bound
            .as_ref()
            .and_then(|table| Some((table.get(), table.get().slot(site.index())?)));
        let Some((table, slot)) = recording else {
            return Entry {
                table: std::ptr::null(),
                slot: std::ptr::null(),
                frame: Frame::unopened(),
            };
        };
        let entries = self.entries.load(Relaxed);
        self.entries.store(entries + 1, Relaxed);
        if entries > 0 {
            bump(&slot.wakeups, 1);
        }
        slot.active
            .store(slot.active.load(Relaxed).wrapping_add(1), Relaxed);
        let frame = Frame::open(table);
        if self.first_enter_ticks.load(Relaxed) == 0 {
            self.first_enter_ticks
                .store(frame.start_ticks.max(1), Relaxed);
        }
        Entry { table, slot, frame }
    }

    /// Exits an entry made by [`enter`](SpanLife::enter) on this thread.
    #[inline]
    pub fn exit(&self, mut entry: Entry) {
        if let Some((elapsed, end)) = entry.close() {
            self.busy_ticks
                .store(self.busy_ticks.load(Relaxed).wrapping_add(elapsed), Relaxed);
            self.last_exit_ticks.store(end, Relaxed);
        }
    }

    /// Ends the instance: one call, from its first entry to its last exit,
    /// recorded on the calling thread. An instance never entered records nothing.
    pub fn close(&self) {
        let first = self.first_enter_ticks.load(Relaxed);
        if first == 0 {
            return;
        }
        let Some(table) = current_table() else {
            return;
        };
        let site = self.site();
        let Some(slot) = table.get().slot(site.index()) else {
            return;
        };
        let last = self.last_exit_ticks.load(Relaxed);
        let lifetime = last.saturating_sub(first);
        slot.record_call(lifetime);
        if self.entries.load(Relaxed) > 1 {
            // The instance's life, from its first entry to its last exit.
            table.get().trace(EventKind::Async, slot.index, first, last);
        }
        if self.entries.load(Relaxed) > 1 {
            site.reentered.store(true, Relaxed);
            let idle = lifetime.saturating_sub(self.busy_ticks.load(Relaxed));
            bump(&slot.idle_ticks, idle);
            // The entries added their busy time; with the idle time the
            // inclusive time is the lifetime, as for `#[measure]` async fns.
            bump(&slot.inclusive_ticks, idle);
        }
    }
}

impl Entry {
    /// Closes the frame; its duration and end tick, if it was recording.
    #[inline(always)]
    fn close(&mut self) -> Option<(u64, u64)> {
        if self.table.is_null() {
            return None;
        }
        // SAFETY: set from live references in `SpanLife::enter` on this
        // thread (an `Entry` is not `Send`); the open frame keeps the table
        // alive (see `binding::BoundTable`).
        let (table, slot) = unsafe { (&*self.table, &*self.slot) };
        self.table = std::ptr::null();
        let frame = &self.frame;
        let closed = frame.close(table, slot);
        let active = slot.active.load(Relaxed).wrapping_sub(1);
        slot.active.store(active, Relaxed);
        if active == 0 {
            bump(&slot.inclusive_ticks, closed.elapsed_ticks);
        }
        bump(&slot.polls, 1);
        bump(&slot.poll_ticks, closed.elapsed_ticks);
        // Each entry is a slice on the thread's track, as a poll is.
        table.trace(
            EventKind::Poll,
            slot.index,
            frame.start_ticks,
            closed.end_ticks,
        );
        Some((closed.elapsed_ticks, closed.end_ticks))
    }
}

impl Drop for Entry {
    // Inlined, so that after `exit`, which has just nulled the table, the
    // test folds away instead of costing a call per entry.
    #[inline]
    fn drop(&mut self) {
        // An entry dropped without `exit` (a panic between enter and exit)
        // still closes its frame, so the thread's stack stays balanced.
        if !self.table.is_null() {
            let slot = self.slot;
            self.close();
            // SAFETY: as in `close`.
            note_unwound(unsafe { &*slot });
        }
    }
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("recording", &!self.table.is_null())
            .finish()
    }
}
