//! Span instances, kept without an allocation, a reference count or a
//! registry look-up per span.
//!
//! Most `tracing` spans live on one thread within a few calls
//! (`info_span!(..).entered()`, `#[instrument]` on a sync function): made,
//! entered, exited and closed there. Each thread therefore keeps a pool of
//! instances that it reuses (the one just closed is the next one made), and
//! finds the instances it made most recently in a short list, its
//! *unpublished* instances, searched newest first: a span's whole life then
//! costs a few loads and stores besides perflab's own frame.
//!
//! A span may still be entered or closed on another thread (a future moved
//! between workers, a span handed to a spawned thread), so every live
//! instance is findable from any thread, in one of two places:
//! - in the unpublished list of the thread that made it, which other
//!   threads read (a list is a few atomic pointers; all lists are reached
//!   through [`POOLS`]);
//! - or in the registry, in the span's extensions ([`Published`]): an
//!   instance pushed out of its thread's list while its span is still open
//!   is put there first (once per such span, as every span was before), and
//!   so is one that another thread had to search the lists for (an
//!   instance of another subscriber's span, which this layer cannot
//!   publish, goes to [`STRANDED`] instead).
//!
//! A thread looks in its own list, then in the registry, then in every
//! thread's list, then in the registry once more: an instance missing from
//! a list was published before it left, so the last look finds it.
//!
//! An instance is named by its span's [`SpanKey`] while its span is open and
//! by nothing once it is closed (its id is then 0); `tracing` reuses the ids
//! of closed spans, and only one open span has a given key, so an instance
//! found under a key is that span's, whatever list or extension pointed to
//! it. Instances live as long as the program: a thread's pool goes, when the
//! thread ends, to the next thread that starts making spans.

use std::cell::RefCell;
use std::ptr;
use std::sync::Mutex;
use std::sync::atomic::{
    AtomicPtr, AtomicU64, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};

use perflab::span_life::{Entry, RegisteredSite, SpanLife};

/// A span as the layer knows it: the span's id and the subscriber it
/// belongs to (ids are unique only within one registry, and two
/// subscribers may run at once on different threads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SpanKey {
    /// The id space: one per layer added to a subscriber.
    pub(crate) id_space: u64,
    /// The span's id (`tracing_core::span::Id::into_u64`, never 0).
    pub(crate) id: u64,
}

/// Id of an instance whose span is closed.
const FREE: u64 = 0;

/// `Instance::slot` of an instance in no unpublished list.
const NO_SLOT: usize = usize::MAX;

/// How many instances each thread keeps unpublished: enough for the spans
/// a thread nests while making them, few enough to search in a few loads.
const UNPUBLISHED: usize = 8;

/// One span instance.
#[derive(Debug)]
pub(crate) struct Instance {
    /// The span's id while it is open; [`FREE`] once it is closed.
    id: AtomicU64,
    /// The span's id space (written before `id`).
    id_space: AtomicU64,
    pub(crate) life: SpanLife,
    /// The pool the instance belongs to.
    home: &'static Shared,
    /// Which slot of its home's unpublished list holds it, or [`NO_SLOT`];
    /// used by the thread owning the pool only.
    slot: AtomicUsize,
}

impl Instance {
    /// Whether this is the instance of the open span `key`.
    #[inline]
    fn is(&self, key: SpanKey) -> bool {
        self.id.load(Acquire) == key.id && self.id_space.load(Relaxed) == key.id_space
    }

    /// The key of its span, if it is open.
    fn key(&self) -> Option<SpanKey> {
        let id = self.id.load(Acquire);
        (id != FREE).then(|| SpanKey {
            id_space: self.id_space.load(Relaxed),
            id,
        })
    }
}

/// An instance put into its span's extensions in the registry.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Published(pub(crate) &'static Instance);

/// What other threads see of a thread's pool.
#[derive(Debug)]
struct Shared {
    /// The instances the owning thread made most recently and did not
    /// publish; null where none was put yet.
    unpublished: [AtomicPtr<Instance>; UNPUBLISHED],
    /// Instances of this pool closed by other threads since the owner last
    /// looked for them.
    freed_elsewhere: AtomicUsize,
}

/// Every pool's shared part, for the threads searching other lists.
static POOLS: Mutex<Vec<&'static Shared>> = Mutex::new(Vec::new());

/// Open instances pushed out of a list while another subscriber's span
/// was being made (the layer can publish only into its own registry):
/// searched after the lists.
static STRANDED: Mutex<Vec<&'static Instance>> = Mutex::new(Vec::new());

/// Pools of threads that ended, for the next threads to reuse.
static IDLE: Mutex<Vec<PoolParts>> = Mutex::new(Vec::new());

/// A pool without its thread.
struct PoolParts {
    shared: &'static Shared,
    /// Instances whose spans this thread closed, ready for reuse.
    free: Vec<&'static Instance>,
    /// Every instance of the pool.
    all: Vec<&'static Instance>,
    /// The unpublished slot the next new instance goes into.
    next_slot: usize,
}

/// A thread's pool, and the entries open on the thread.
struct Pool {
    parts: PoolParts,
    /// The slot of the instance made last: looked in first.
    newest_slot: usize,
    /// Entries open on this thread, innermost last.
    open: Vec<(SpanKey, &'static Instance, Entry)>,
}

impl Drop for Pool {
    fn drop(&mut self) {
        // The thread is ending inside spans it never exited (a guard was
        // leaked): its tables may already be gone, so the frames are left
        // open rather than closed into them.
        for (_, _, entry) in self.open.drain(..) {
            std::mem::forget(entry);
        }
        let parts = PoolParts {
            shared: self.parts.shared,
            free: std::mem::take(&mut self.parts.free),
            all: std::mem::take(&mut self.parts.all),
            next_slot: self.parts.next_slot,
        };
        if let Ok(mut idle) = IDLE.lock() {
            idle.push(parts);
        }
    }
}

thread_local! {
    static POOL: RefCell<Option<Pool>> = const { RefCell::new(None) };
}

impl Pool {
    #[cold]
    fn start() -> Pool {
        let parts = IDLE.lock().ok().and_then(|mut idle| idle.pop());
        let parts = parts.unwrap_or_else(|| {
            let shared: &'static Shared = Box::leak(Box::new(Shared {
                unpublished: std::array::from_fn(|_| AtomicPtr::new(ptr::null_mut())),
                freed_elsewhere: AtomicUsize::new(0),
            }));
            if let Ok(mut pools) = POOLS.lock() {
                pools.push(shared);
            }
            PoolParts {
                shared,
                free: Vec::new(),
                all: Vec::new(),
                next_slot: 0,
            }
        });
        Pool {
            parts,
            newest_slot: 0,
            open: Vec::new(),
        }
    }

    /// An instance ready to be made into a new one: the last one closed
    /// here, else one closed elsewhere, else a new one.
    #[inline]
    fn take_free(&mut self, site: RegisteredSite) -> &'static Instance {
        if let Some(instance) = self.parts.free.pop() {
            instance.life.restart(site);
            return instance;
        }
        self.take_free_cold(site)
    }

    #[cold]
    fn take_free_cold(&mut self, site: RegisteredSite) -> &'static Instance {
        let parts = &mut self.parts;
        if parts.shared.freed_elsewhere.swap(0, Acquire) > 0 {
            // `free` is empty, so every instance without a span is one
            // closed on another thread.
            parts.free.extend(
                parts
                    .all
                    .iter()
                    .copied()
                    .filter(|instance| instance.key().is_none()),
            );
        }
        if let Some(instance) = parts.free.pop() {
            instance.life.restart(site);
            return instance;
        }
        let instance: &'static Instance = Box::leak(Box::new(Instance {
            id: AtomicU64::new(FREE),
            id_space: AtomicU64::new(0),
            life: SpanLife::new(site),
            home: parts.shared,
            slot: AtomicUsize::new(NO_SLOT),
        }));
        parts.all.push(instance);
        instance
    }

    /// This thread's unpublished instance of `key`, newest first.
    #[inline]
    fn find_here(&self, key: SpanKey) -> Option<&'static Instance> {
        let lists = &self.parts.shared.unpublished;
        let newest = lists[self.newest_slot].load(Acquire);
        // SAFETY (here and below): the lists hold only leaked instances.
        if let Some(instance) = unsafe { newest.as_ref() } {
            if instance.is(key) {
                return Some(instance);
            }
        }
        lists.iter().find_map(|slot| {
            let instance = unsafe { slot.load(Acquire).as_ref() }?;
            instance.is(key).then_some(instance)
        })
    }
}

/// Runs `work` with this thread's pool; `None` while the thread is ending
/// or when called again from inside `work`.
#[inline]
fn with_pool<R>(work: impl FnOnce(&mut Pool) -> R) -> Option<R> {
    POOL.try_with(|pool| {
        let mut pool = pool.try_borrow_mut().ok()?;
        Some(work(pool.get_or_insert_with(Pool::start)))
    })
    .ok()
    .flatten()
}

/// Makes the instance of the new span `key` on this thread. `publish` puts
/// an instance into its span's extensions; it is called for an older
/// instance pushed out of this thread's list while its span is still open.
#[inline]
pub(crate) fn create(
    key: SpanKey,
    site: RegisteredSite,
    publish: impl FnOnce(SpanKey, &'static Instance),
) {
    with_pool(|pool| {
        let instance = pool.take_free(site);
        instance.id_space.store(key.id_space, Relaxed);
        instance.id.store(key.id, Release);
        let lists = &pool.parts.shared.unpublished;
        let slot = instance.slot.load(Relaxed);
        if slot != NO_SLOT && ptr::eq(lists[slot].load(Relaxed), instance) {
            // Reused in the slot it already has: the usual case.
            pool.newest_slot = slot;
            return;
        }
        // A slot without an open span if there is one, else the oldest.
        let start = pool.parts.next_slot;
        let slot = (0..UNPUBLISHED)
            .map(|step| (start + step) % UNPUBLISHED)
            .find(|&slot| {
                // SAFETY: the lists hold only leaked instances.
                unsafe { lists[slot].load(Relaxed).as_ref() }
                    .is_none_or(|old| old.slot.load(Relaxed) != slot || old.key().is_none())
            })
            .unwrap_or(start);
        pool.parts.next_slot = (slot + 1) % UNPUBLISHED;
        // SAFETY: the lists hold only leaked instances.
        if let Some(old) = unsafe { lists[slot].load(Relaxed).as_ref() } {
            if old.slot.load(Relaxed) == slot {
                old.slot.store(NO_SLOT, Relaxed);
                match old.key() {
                    // Still open: findable in the registry before it
                    // leaves the list.
                    Some(old_key) if old_key.id_space == key.id_space => publish(old_key, old),
                    Some(_) => strand(old),
                    None => {}
                }
            }
        }
        instance.slot.store(slot, Relaxed);
        lists[slot].store(ptr::from_ref(instance).cast_mut(), Release);
        pool.newest_slot = slot;
    });
}

/// The instance of open span `key` wherever it was made: `published` reads
/// the span's extensions, `publish` writes them.
#[inline]
fn find(
    pool: Option<&Pool>,
    key: SpanKey,
    published: impl Fn() -> Option<Published>,
    publish: impl FnOnce(SpanKey, &'static Instance),
) -> Option<&'static Instance> {
    if let Some(instance) = pool.and_then(|pool| pool.find_here(key)) {
        return Some(instance);
    }
    find_elsewhere(key, published, publish)
}

#[cold]
#[inline(never)]
fn find_elsewhere(
    key: SpanKey,
    published: impl Fn() -> Option<Published>,
    publish: impl FnOnce(SpanKey, &'static Instance),
) -> Option<&'static Instance> {
    let in_registry = || {
        published()
            .map(|Published(instance)| instance)
            .filter(|instance| instance.is(key))
    };
    if let Some(instance) = in_registry() {
        return Some(instance);
    }
    let in_lists = POOLS.lock().ok().and_then(|pools| {
        pools.iter().find_map(|shared| {
            shared.unpublished.iter().find_map(|slot| {
                // SAFETY: the lists hold only leaked instances.
                let instance = unsafe { slot.load(Acquire).as_ref() }?;
                instance.is(key).then_some(instance)
            })
        })
    });
    let in_lists = in_lists.or_else(|| {
        let mut stranded = STRANDED.lock().ok()?;
        stranded.retain(|instance| instance.key().is_some());
        stranded.iter().copied().find(|instance| instance.is(key))
    });
    match in_lists {
        Some(instance) => {
            // Found the slow way: the next look on any thread finds it in
            // the registry.
            publish(key, instance);
            Some(instance)
        }
        None => in_registry(),
    }
}

#[cold]
fn strand(instance: &'static Instance) {
    if let Ok(mut stranded) = STRANDED.lock() {
        if !stranded.iter().any(|known| ptr::eq(*known, instance)) {
            stranded.push(instance);
        }
    }
}

/// Enters span `key` on this thread.
#[inline]
pub(crate) fn enter(
    key: SpanKey,
    published: impl Fn() -> Option<Published>,
    publish: impl FnOnce(SpanKey, &'static Instance),
) {
    with_pool(|pool| {
        if let Some(instance) = find(Some(&*pool), key, published, publish) {
            let entry = instance.life.enter();
            pool.open.push((key, instance, entry));
        }
    });
}

/// Exits the innermost open entry of span `key` on this thread. Spans exit
/// in the reverse order of entry in well-formed code; one exited out of
/// order is still found, and closed (the spans entered after it then count
/// as its children until they exit).
#[inline]
pub(crate) fn exit(key: SpanKey) {
    with_pool(|pool| {
        // The innermost entry, in well-formed code: taken off the top
        // rather than removed from the middle (no move of the rest).
        let (_, instance, entry) = if pool.open.last().is_some_and(|(open, _, _)| *open == key) {
            pool.open.pop()?
        } else {
            let at = pool.open.iter().rposition(|(open, _, _)| *open == key)?;
            pool.open.remove(at)
        };
        // Inside the pool's borrow, so that the entry is not moved out of
        // it first: closing a frame reaches no `tracing` code, so nothing
        // re-enters the pool.
        instance.life.exit(entry);
        Some(())
    });
}

/// Closes span `key`: records its call and frees its instance for reuse.
#[inline]
pub(crate) fn close(key: SpanKey, published: impl Fn() -> Option<Published>) {
    let here = with_pool(|pool| {
        let instance = pool.find_here(key)?;
        instance.life.close();
        instance.id.store(FREE, Release);
        if ptr::eq(instance.home, pool.parts.shared) {
            pool.parts.free.push(instance);
        } else {
            instance.home.freed_elsewhere.fetch_add(1, Release);
        }
        Some(())
    })
    .flatten();
    if here.is_none() {
        close_elsewhere(key, published);
    }
}

/// Closes span `key` made on another thread, or pushed out of this
/// thread's list, or closed while this thread is ending.
#[cold]
#[inline(never)]
fn close_elsewhere(key: SpanKey, published: impl Fn() -> Option<Published>) {
    let Some(instance) = find_elsewhere(key, published, |_, _| {}) else {
        return;
    };
    instance.life.close();
    instance.id.store(FREE, Release);
    let home = instance.home;
    let freed_here = with_pool(|pool| {
        if ptr::eq(home, pool.parts.shared) {
            pool.parts.free.push(instance);
            true
        } else {
            false
        }
    });
    if freed_here != Some(true) {
        home.freed_elsewhere.fetch_add(1, Release);
    }
}
