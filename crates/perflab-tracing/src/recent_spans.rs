//! The span instances this thread created most recently, so that entering
//! and closing them skips the registry.
//!
//! Most `tracing` spans live on one thread (`info_span!(..).entered()`,
//! `#[instrument]` on a sync function): created, entered, exited and closed
//! there within a few calls. Finding their instance through the registry
//! (a slab look-up, then a lock on the span's extensions) on every entry
//! and on close costs more than perflab's own span; a short list of the
//! instances this thread created, searched from the newest, finds it
//! without either. A span entered or closed on another thread (a future
//! moved between workers), or pushed out of the list by newer ones, is
//! still found through the registry, where every instance is also kept.
//!
//! An entry is only trusted while its instance is open: `tracing` reuses
//! the ids of closed spans, so an id in the list whose instance has been
//! closed (on any thread) may now name another span, and is skipped.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use perflab::span_life::SpanLife;
use tracing_core::span::Id;

/// One span instance, shared by the registry's extensions of the span and
/// by the lists of recent spans.
#[derive(Debug)]
pub(crate) struct Instance {
    pub(crate) life: SpanLife,
    closed: AtomicBool,
}

impl Instance {
    pub(crate) fn new(life: SpanLife) -> Instance {
        Instance {
            life,
            closed: AtomicBool::new(false),
        }
    }

    /// Ends the instance (once, whichever thread closes it) and marks it
    /// closed, so that lists holding its id no longer trust it.
    pub(crate) fn close(&self) {
        if !self.closed.swap(true, Ordering::AcqRel) {
            self.life.close();
        }
    }

    fn is_open(&self) -> bool {
        !self.closed.load(Ordering::Acquire)
    }
}

/// How many instances each thread remembers: enough for the spans a
/// thread nests while creating them, small enough to search in a few
/// comparisons.
const REMEMBERED: usize = 8;

thread_local! {
    static RECENT: RefCell<Vec<(Id, Arc<Instance>)>> = const { RefCell::new(Vec::new()) };
}

/// Remembers `instance`, just created on this thread as span `id`.
pub(crate) fn remember(id: &Id, instance: &Arc<Instance>) {
    let _ = RECENT.try_with(|recent| {
        if let Ok(mut recent) = recent.try_borrow_mut() {
            if recent.len() == REMEMBERED {
                recent.remove(0);
            }
            recent.push((id.clone(), Arc::clone(instance)));
        }
    });
}

/// The open instance of span `id` if this thread remembers it.
pub(crate) fn find(id: &Id) -> Option<Arc<Instance>> {
    RECENT
        .try_with(|recent| {
            let recent = recent.try_borrow().ok()?;
            recent
                .iter()
                .rev()
                .find(|(known, instance)| known == id && instance.is_open())
                .map(|(_, instance)| Arc::clone(instance))
        })
        .ok()
        .flatten()
}

/// Takes span `id` (being closed) out of this thread's list: its
/// instance if it is there and open.
pub(crate) fn take(id: &Id) -> Option<Arc<Instance>> {
    RECENT
        .try_with(|recent| {
            let mut recent = recent.try_borrow_mut().ok()?;
            let at = recent.iter().rposition(|(known, _)| known == id)?;
            let (_, instance) = recent.remove(at);
            instance.is_open().then_some(instance)
        })
        .ok()
        .flatten()
}
