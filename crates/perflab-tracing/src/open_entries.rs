//! The entries open on this thread, innermost last: `tracing` tells a
//! layer which span was exited, and the entry to close is found here
//! without another lookup in the registry.

use std::cell::RefCell;
use std::sync::Arc;

use perflab::span_life::Entry;

use crate::recent_spans::Instance;
use tracing_core::span::Id;

/// Entries of this thread, innermost last.
struct OpenEntries(Vec<(Id, Arc<Instance>, Entry)>);

impl Drop for OpenEntries {
    fn drop(&mut self) {
        // The thread is ending inside spans it never exited (a guard was
        // leaked): its tables may already be gone, so the frames are left
        // open rather than closed into them.
        for (_, _, entry) in self.0.drain(..) {
            std::mem::forget(entry);
        }
    }
}

thread_local! {
    static OPEN: RefCell<OpenEntries> = const { RefCell::new(OpenEntries(Vec::new())) };
}

/// Enters `instance` on this thread.
pub(crate) fn push(id: &Id, instance: Arc<Instance>) {
    let entry = instance.life.enter();
    let _ = OPEN.try_with(|open| {
        if let Ok(mut open) = open.try_borrow_mut() {
            open.0.push((id.clone(), instance, entry));
        }
    });
}

/// Exits the innermost open entry of span `id` on this thread. Spans exit
/// in the reverse order of entry in well-formed code; one exited out of
/// order is still found, and closed (the spans entered after it then count
/// as its children until they exit).
pub(crate) fn pop(id: &Id) {
    let _ = OPEN.try_with(|open| {
        let found = {
            let Ok(mut open) = open.try_borrow_mut() else {
                return;
            };
            let Some(at) = open.0.iter().rposition(|(open_id, _, _)| open_id == id) else {
                return;
            };
            open.0.remove(at)
        };
        let (_, instance, entry) = found;
        instance.life.exit(entry);
    });
}
