//! The entries open on this thread, innermost last: `tracing` tells a
//! layer which span was exited, and the entry to close is found here
//! without another lookup in the registry.

use std::cell::RefCell;
use std::sync::Arc;

use perflab::span_life::{Entry, SpanLife};
use tracing_core::span::Id;

thread_local! {
    static OPEN: RefCell<Vec<(Id, Arc<SpanLife>, Entry)>> = const { RefCell::new(Vec::new()) };
}

/// Enters `life` on this thread.
pub(crate) fn push(id: &Id, life: Arc<SpanLife>) {
    let entry = life.enter();
    let _ = OPEN.try_with(|open| {
        if let Ok(mut open) = open.try_borrow_mut() {
            open.push((id.clone(), life, entry));
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
            let Some(at) = open.iter().rposition(|(open_id, _, _)| open_id == id) else {
                return;
            };
            open.remove(at)
        };
        let (_, life, entry) = found;
        life.exit(entry);
    });
}
