//! Span sites named while the program runs: `tracing` callsites, locks.
//!
//! Static sites are counted at link time; these are not, so every thread
//! table keeps room for [`REGISTERED_CAPACITY`] of them after the static
//! ones, and recording stays allocation-free. Registering is the cold path
//! (a lock and a map lookup), done once per callsite or lock, never per call.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use perflab_format::profile::SpanKind;

use crate::imp::site::{SPAN_SITES, SiteLocation, SitePurpose, SpanSite};

/// How many sites a program may register; later ones record nothing (a
/// program with more distinct `tracing` callsites than this is rare, and a
/// bound keeps every table's size fixed).
pub(crate) const REGISTERED_CAPACITY: usize = 1024;

/// Identity of a registered site: names and places are compared by value,
/// so that two callsites with the same name and target share one site.
type SiteKey = (String, String, SpanKind, SitePurpose);

#[derive(Default)]
struct Registered {
    sites: Vec<&'static SpanSite>,
    by_key: HashMap<SiteKey, &'static SpanSite>,
}

static REGISTERED: Mutex<Option<Registered>> = Mutex::new(None);

fn lock_registered() -> MutexGuard<'static, Option<Registered>> {
    REGISTERED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Span slots a thread table needs: every static site, then room for the registered ones.
pub(crate) fn table_span_slots() -> usize {
    SPAN_SITES.len() + REGISTERED_CAPACITY
}

/// What a registered site is.
pub(crate) struct SiteRequest<'a> {
    pub(crate) name: &'a str,
    pub(crate) module: &'a str,
    pub(crate) file: &'a str,
    pub(crate) line: u32,
    pub(crate) kind: SpanKind,
    pub(crate) purpose: SitePurpose,
}

/// The site for `request`, registered on first use; `None` once
/// [`REGISTERED_CAPACITY`] sites exist.
#[cold]
pub(crate) fn register(request: SiteRequest<'_>) -> Option<&'static SpanSite> {
    let key = (
        request.name.to_string(),
        request.module.to_string(),
        request.kind,
        request.purpose,
    );
    let mut registered = lock_registered();
    let registered = registered.get_or_insert_with(Registered::default);
    if let Some(site) = registered.by_key.get(&key) {
        return Some(site);
    }
    if registered.sites.len() >= REGISTERED_CAPACITY {
        return None;
    }
    let leak = |text: &str| -> &'static str { Box::leak(text.to_string().into_boxed_str()) };
    // Leaked once per distinct site (at most REGISTERED_CAPACITY): sites
    // live as long as the program, like the static ones.
    let site: &'static SpanSite = Box::leak(Box::new(SpanSite::registered(
        SiteLocation {
            name: leak(request.name),
            file: leak(request.file),
            line: request.line,
            module: leak(request.module),
        },
        request.kind,
        request.purpose,
        SPAN_SITES.len() + registered.sites.len(),
    )));
    registered.sites.push(site);
    registered.by_key.insert(key, site);
    Some(site)
}

/// Every span site, in table order: the static ones, then the registered ones.
pub(crate) fn all_span_sites() -> Vec<&'static SpanSite> {
    let registered = lock_registered();
    SPAN_SITES
        .iter()
        .chain(
            registered
                .as_ref()
                .map(|registered| registered.sites.as_slice())
                .unwrap_or_default()
                .iter()
                .copied(),
        )
        .collect()
}
