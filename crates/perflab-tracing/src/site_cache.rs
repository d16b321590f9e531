//! Which perflab site a `tracing` callsite records into.
//!
//! Registering a site takes perflab's registry lock; a span is created far
//! more often than a callsite is registered, so each thread keeps the sites
//! it has seen, keyed by the callsite's metadata (a `'static` address, one
//! per callsite), and a new span costs a thread-local map lookup, hashed by
//! that address alone; spans made over and over at one callsite (a loop,
//! a function called in one) find it in the last one looked up, before the map.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use perflab::span_life::RegisteredSite;
use tracing_core::Metadata;

/// A hasher for the cache's keys, addresses: a multiplicative hash (the
/// golden-ratio constant of Knuth's "Fibonacci hashing"), with the high
/// bits folded into the low ones the map indexes by. The keys are few and
/// not chosen by an adversary, so SipHash's protection is not needed.
#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_usize(self.0 as usize ^ usize::from(b));
        }
    }

    fn write_usize(&mut self, n: usize) {
        let h = (n as u64 ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 29);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type Sites = HashMap<usize, Option<RegisteredSite>, BuildHasherDefault<AddressHasher>>;

thread_local! {
    static SEEN: RefCell<Sites> = RefCell::new(Sites::default());
    static LAST: Cell<Option<(usize, Option<RegisteredSite>)>> = const { Cell::new(None) };
}

/// The site of spans from the callsite of `metadata`; `None` when perflab
/// has no room for another site.
pub(crate) fn site_of(
    metadata: &'static Metadata<'static>,
    target_in_name: bool,
) -> Option<RegisteredSite> {
    // Both namings of one callsite may be in use (two layers); the key tells them apart.
    let key = (metadata as *const Metadata<'static> as usize) | usize::from(target_in_name);
    if let Ok(Some((last, site))) = LAST.try_with(Cell::get) {
        if last == key {
            return site;
        }
    }
    let cached = SEEN
        .try_with(|seen| seen.borrow().get(&key).copied())
        .ok()
        .flatten();
    let site = match cached {
        Some(site) => site,
        None => {
            let site = register(metadata, target_in_name);
            let _ = SEEN.try_with(|seen| seen.borrow_mut().insert(key, site));
            site
        }
    };
    let _ = LAST.try_with(|last| last.set(Some((key, site))));
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
