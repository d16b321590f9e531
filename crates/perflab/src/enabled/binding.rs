//! Which table a thread records into.
//!
//! The hot path reads two thread-local cells (table pointer, generation) and
//! one global generation number. A span reads a table pointer of its own,
//! null when the table records a timeline, so that one test tells it both
//! that it records and that it records no timeline: an untraced span runs
//! no instruction for timelines, and a traced one takes a path out of line.
//! Everything else, choosing the session, creating the table, noting the
//! thread's end, is in cold functions here.
//!
//! A thread records into the innermost session it started or attached to
//! that is still running; failing that, into the most recently started
//! process-wide session; failing that, nowhere (probes are then no-ops).

use std::cell::{Cell, RefCell};
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use crate::imp::clock::timer;
use crate::imp::cpu_time::{ThreadCpuClock, os_thread_id};
use crate::imp::registered_sites::table_span_slots;
use crate::imp::registry::{self, GENERATION, SessionShared};
use crate::imp::site::{COUNTER_SITES, GAUGE_SITES};
use crate::imp::thread_table::{ThreadIdentity, ThreadTable};

/// Generation value of a binding that must be looked up again.
const STALE: u64 = 0;

struct Binding {
    /// The table probes record into; null when none.
    table: Cell<*const ThreadTable>,
    /// The same table when its session records no timeline; null when it
    /// does, or when there is no table.
    untraced_table: Cell<*const ThreadTable>,
    generation: Cell<u64>,
}

/// What a rebind found: the thread's table, and the same table again
/// only if it records no timeline.
#[derive(Clone, Copy)]
struct Tables {
    table: *const ThreadTable,
    untraced_table: *const ThreadTable,
}

impl Tables {
    const NONE: Tables = Tables {
        table: ptr::null(),
        untraced_table: ptr::null(),
    };

    fn of(table: *const ThreadTable) -> Tables {
        // SAFETY: a non-null table comes from the thread's state, which
        // holds an `Arc` of it (see `BoundTable`).
        let traced = unsafe { table.as_ref() }.is_some_and(|table| table.trace.is_some());
        Tables {
            table,
            untraced_table: if traced { ptr::null() } else { table },
        }
    }
}

thread_local! {
    // Const-initialised and without a destructor: accessing it is a plain
    // thread-pointer-relative load, with no lazy-initialisation check.
    static BINDING: Binding = const {
        Binding {
            table: Cell::new(ptr::null()),
            untraced_table: Cell::new(ptr::null()),
            generation: Cell::new(STALE),
        }
    };
    static THREAD_STATE: RefCell<Option<ThreadState>> = const { RefCell::new(None) };
}

static NEXT_THREAD_ID: AtomicU64 = AtomicU64::new(1);

/// A table the calling thread records into, as a probe holds it.
///
/// Why a handle's table is alive whenever the handle is used (argued here
/// once, so that probes need no `unsafe`):
/// - Handles come only from [`current_table`], which hands out tables that
///   the thread's [`ThreadState`] holds an `Arc` of, and the handle is not
///   `Send`, so only that thread uses it.
/// - The state lets go of a table in two places only, both on this thread:
///   [`ThreadState::forget_finished`], during a rebind, and only for a table
///   of a finished session in which no frame is open (`depth == 0`); and the
///   state's drop at thread exit, which also nulls the binding.
/// - So a handle stays valid until the thread's next rebind, and for as long
///   as a frame it opened is open (a span guard, a poll). Probes use a handle
///   right away, or open a frame before running any code that could probe
///   (and so rebind) again.
#[derive(Clone, Copy)]
pub(crate) struct BoundTable {
    table: NonNull<ThreadTable>,
}

impl BoundTable {
    /// The table.
    #[inline(always)]
    pub(crate) fn get(&self) -> &ThreadTable {
        // SAFETY: see the type's documentation.
        unsafe { self.table.as_ref() }
    }
}

/// The table the calling thread records into, or `None` when no session
/// wants its data.
#[inline(always)]
pub(crate) fn current_table() -> Option<BoundTable> {
    let table = BINDING.with(|binding| {
        if binding.generation.get() == GENERATION.load(Ordering::Relaxed) {
            binding.table.get()
        } else {
            rebind(binding).table
        }
    });
    NonNull::new(table.cast_mut()).map(|table| BoundTable { table })
}

/// The table the calling thread records into when it records no timeline;
/// `None` when no session wants the thread's data or when the table
/// records a timeline (then [`current_table`] has it). Spans start with
/// this, so that an untraced span pays nothing for timelines.
#[inline(always)]
pub(crate) fn current_untraced_table() -> Option<BoundTable> {
    let table = BINDING.with(|binding| {
        if binding.generation.get() == GENERATION.load(Ordering::Relaxed) {
            binding.untraced_table.get()
        } else {
            rebind(binding).untraced_table
        }
    });
    NonNull::new(table.cast_mut()).map(|table| BoundTable { table })
}

/// The table the calling thread records into, right after
/// [`current_untraced_table`] found none and before any other probe: that
/// look-up left the binding current (or emptied it), so this one reads the
/// table without checking the generation again.
#[inline(always)]
pub(crate) fn table_after_untraced_miss() -> Option<BoundTable> {
    let table = BINDING.with(|binding| binding.table.get());
    NonNull::new(table.cast_mut()).map(|table| BoundTable { table })
}

#[cold]
#[inline(never)]
fn rebind(binding: &Binding) -> Tables {
    #[cfg(feature = "alloc")]
    return crate::alloc::uncounted(|| rebind_counted(binding));
    #[cfg(not(feature = "alloc"))]
    rebind_counted(binding)
}

fn rebind_counted(binding: &Binding) -> Tables {
    let generation = GENERATION.load(Ordering::Acquire);
    let found = THREAD_STATE.try_with(|state| {
        let mut state = state.try_borrow_mut().ok()?;
        Some(
            state
                .get_or_insert_with(ThreadState::new)
                .table_for_current_session(),
        )
    });
    match found {
        Ok(Some(table)) => {
            let tables = Tables::of(table);
            binding.set(tables, generation);
            tables
        }
        // Re-entered while the state is borrowed: record nothing this once
        // and look again next time (the generation stays stale). The cells
        // are emptied all the same, so that they never hold a table the
        // state may have let go of (see `table_after_untraced_miss`).
        Ok(None) => {
            binding.set(Tables::NONE, binding.generation.get());
            Tables::NONE
        }
        // The thread is ending and its state is gone: stop recording.
        Err(_) => {
            binding.set(Tables::NONE, generation);
            Tables::NONE
        }
    }
}

impl Binding {
    fn set(&self, tables: Tables, generation: u64) {
        self.table.set(tables.table);
        self.untraced_table.set(tables.untraced_table);
        self.generation.set(generation);
    }
}

/// Makes the calling thread look its session up again on its next probe.
fn mark_stale() {
    let _ = BINDING.try_with(|binding| binding.generation.set(STALE));
}

/// Binds the calling thread to `session` (innermost) and creates its table now,
/// so that the thread's wall time starts with the session.
pub(crate) fn bind(session: &Arc<SessionShared>) {
    let _ = THREAD_STATE.try_with(|state| {
        if let Ok(mut state) = state.try_borrow_mut() {
            let state = state.get_or_insert_with(ThreadState::new);
            state.bound.push(session.clone());
            state.table_for_current_session();
        }
    });
    mark_stale();
}

/// Undoes the innermost [`bind`] of `session` on the calling thread.
pub(crate) fn unbind(session: &Arc<SessionShared>) {
    let _ = THREAD_STATE.try_with(|state| {
        if let Ok(mut state) = state.try_borrow_mut() {
            if let Some(state) = state.as_mut() {
                if let Some(at) = state
                    .bound
                    .iter()
                    .rposition(|bound| Arc::ptr_eq(bound, session))
                {
                    state.bound.remove(at);
                }
            }
        }
    });
    mark_stale();
}

/// perflab's number for the calling thread, if it has one (not during thread exit).
pub(crate) fn current_thread_id() -> Option<u64> {
    THREAD_STATE
        .try_with(|state| {
            state
                .try_borrow()
                .ok()
                .and_then(|state| state.as_ref().map(|state| state.identity.id))
        })
        .ok()
        .flatten()
}

/// Cold-path state of one thread; dropping it (at thread exit) closes its tables.
struct ThreadState {
    identity: ThreadIdentity,
    /// Sessions this thread started or attached to, innermost last.
    bound: Vec<Arc<SessionShared>>,
    /// This thread's table in each session it recorded into. Holding the
    /// `Arc` keeps a table alive while a guard on this thread points into it.
    tables: Vec<(Weak<SessionShared>, Arc<ThreadTable>)>,
}

impl ThreadState {
    fn new() -> Self {
        let thread = std::thread::current();
        ThreadState {
            identity: ThreadIdentity {
                id: NEXT_THREAD_ID.fetch_add(1, Ordering::Relaxed),
                name: thread.name().map(str::to_string),
                os_tid: os_thread_id(),
                cpu_clock: ThreadCpuClock::of_this_thread(),
            },
            bound: Vec::new(),
            tables: Vec::new(),
        }
    }

    fn table_for_current_session(&mut self) -> *const ThreadTable {
        self.forget_finished();
        let session = match self
            .bound
            .iter()
            .rev()
            .find(|session| !session.is_finished())
        {
            Some(session) => session.clone(),
            None => match registry::default_session() {
                Some(session) => session,
                None => return ptr::null(),
            },
        };
        if let Some((_, table)) = self
            .tables
            .iter()
            .find(|(owner, _)| ptr::eq(owner.as_ptr(), Arc::as_ptr(&session)))
        {
            return Arc::as_ptr(table);
        }
        let table = Arc::new(ThreadTable::new(
            timer(),
            self.identity.clone(),
            table_span_slots(),
            COUNTER_SITES.len(),
            GAUGE_SITES.len(),
            session.config.trace_events(),
        ));
        session.lock_tables().push(table.clone());
        self.tables.push((Arc::downgrade(&session), table.clone()));
        Arc::as_ptr(&table)
    }

    /// Lets go of tables of finished sessions, once no span is open in them.
    fn forget_finished(&mut self) {
        self.bound.retain(|session| !session.is_finished());
        self.tables.retain(|(owner, table)| {
            let running = owner
                .upgrade()
                .is_some_and(|session| !session.is_finished());
            running || table.depth.load(Ordering::Relaxed) != 0
        });
    }
}

impl Drop for ThreadState {
    fn drop(&mut self) {
        for (owner, table) in &self.tables {
            match owner.upgrade() {
                // Under the session's lock, so that a session reading this
                // thread's CPU clock knows the thread is still there.
                Some(session) => {
                    let _tables = session.lock_tables();
                    table.mark_ended();
                }
                None => table.mark_ended(),
            }
        }
        let _ = BINDING.try_with(|binding| binding.set(Tables::NONE, STALE));
    }
}
