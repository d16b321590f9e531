//! Which perflab site a `tracing` callsite records into.
//!
//! Registering a site takes perflab's registry lock; a span is created far
//! more often than a callsite is registered, so each thread keeps the sites
//! it has seen, keyed by the callsite's metadata (a `'static` address, one
//! per callsite), and a new span costs a thread-local map lookup.

use std::cell::RefCell;
use std::collections::HashMap;

use perflab::span_life::RegisteredSite;
use tracing_core::Metadata;

thread_local! {
    static SEEN: RefCell<HashMap<usize, Option<RegisteredSite>>> = RefCell::new(HashMap::new());
}

/// The site of spans from the callsite of `metadata`; `None` when perflab
/// has no room for another site.
pub(crate) fn site_of(
    metadata: &'static Metadata<'static>,
    target_in_name: bool,
) -> Option<RegisteredSite> {
    // Both namings of one callsite may be in use (two layers); the key tells them apart.
    let key = (metadata as *const Metadata<'static> as usize) | usize::from(target_in_name);
    let cached = SEEN
        .try_with(|seen| seen.borrow().get(&key).copied())
        .ok()
        .flatten();
    if let Some(site) = cached {
        return site;
    }
    let site = register(metadata, target_in_name);
    let _ = SEEN.try_with(|seen| seen.borrow_mut().insert(key, site));
    site
}

#[cold]
fn register(metadata: &'static Metadata<'static>, target_in_name: bool) -> Option<RegisteredSite> {
    let name = if target_in_name {
        format!("{}::{}", metadata.target(), metadata.name())
    } else {
        metadata.name().to_string()
    };
    RegisteredSite::register(&name, metadata.target(), metadata.file(), metadata.line())
}
