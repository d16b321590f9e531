//! Measuring one acquisition: try first, and only a lock found taken
//! enters the wait span; the hold is two clock reads.
//!
//! Without the `enabled` feature, the same functions only acquire.

use std::sync::{LockResult, TryLockError};

pub(crate) use imp::*;

/// Tick at which a hold began; 0 when the acquisition was not recorded.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HoldStart(#[cfg_attr(not(feature = "enabled"), allow(dead_code))] u64);

/// Acquires with `try_acquire` or, when that finds the lock taken, with
/// `acquire`; the wait of a contended acquisition is measured.
#[inline(always)]
pub(crate) fn acquire<G>(
    sites: Option<&'static LockSites>,
    try_acquire: impl FnOnce() -> Result<G, TryLockError<G>>,
    acquire: impl FnOnce() -> LockResult<G>,
) -> (LockResult<G>, HoldStart) {
    imp::acquire_measured(sites, try_acquire, acquire)
}

#[cfg(feature = "enabled")]
mod imp {
    use std::collections::HashMap;
    use std::sync::{LockResult, Mutex, TryLockError};

    use perflab_format::profile::{LockMode, SpanKind};

    use super::HoldStart;
    use crate::imp::binding::current_table;
    use crate::imp::registered_sites::{SiteRequest, register};
    use crate::imp::site::{SitePurpose, SpanSite};
    use crate::imp::thread_table::bump;

    /// The two sites of one lock in one mode.
    #[derive(Debug)]
    pub(crate) struct LockSites {
        /// A span: contended acquisitions.
        pub(crate) wait: &'static SpanSite,
        /// Every acquisition, from acquired to released.
        pub(crate) hold: &'static SpanSite,
    }

    type LockKey = (String, &'static str, u32, LockMode);

    static LOCKS: Mutex<Option<HashMap<LockKey, &'static LockSites>>> = Mutex::new(None);

    fn lock_map() -> std::sync::MutexGuard<'static, Option<HashMap<LockKey, &'static LockSites>>> {
        LOCKS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The sites of lock `name` in `mode`, created at `location`; `None`
    /// when no more sites can be registered (the lock then records nothing).
    #[cold]
    pub(crate) fn lock_sites(
        name: &str,
        mode: LockMode,
        wait_label: &str,
        location: &'static std::panic::Location<'static>,
    ) -> Option<&'static LockSites> {
        let key = (name.to_string(), location.file(), location.line(), mode);
        let mut map = lock_map();
        let map = map.get_or_insert_with(HashMap::new);
        if let Some(sites) = map.get(&key) {
            return Some(sites);
        }
        let register_as = |name: &str, purpose| {
            register(SiteRequest {
                name,
                module: location.file(),
                file: location.file(),
                line: location.line(),
                kind: SpanKind::Span,
                purpose,
            })
        };
        let wait = register_as(&format!("{name} ({wait_label})"), SitePurpose::Span)?;
        let hold = register_as(name, SitePurpose::LockHold(mode))?;
        // Leaked once per distinct lock name, place and mode, like the sites.
        let sites: &'static LockSites = Box::leak(Box::new(LockSites { wait, hold }));
        map.insert(key, sites);
        Some(sites)
    }

    /// Every lock registered so far, in no particular order.
    pub(crate) fn registered_locks() -> Vec<&'static LockSites> {
        lock_map()
            .as_ref()
            .map(|map| map.values().copied().collect())
            .unwrap_or_default()
    }

    #[inline(always)]
    pub(super) fn acquire_measured<G>(
        sites: Option<&'static LockSites>,
        try_acquire: impl FnOnce() -> Result<G, TryLockError<G>>,
        acquire: impl FnOnce() -> LockResult<G>,
    ) -> (LockResult<G>, HoldStart) {
        let (Some(sites), Some(table)) = (sites, current_table()) else {
            return (acquire(), HoldStart(0));
        };
        let table = table.get();
        let result = match try_acquire() {
            Ok(guard) => Ok(guard),
            Err(TryLockError::Poisoned(poisoned)) => Err(poisoned),
            Err(TryLockError::WouldBlock) => wait_for(sites.wait, acquire),
        };
        // No probe ran since `current_table` (the wait span kept the table
        // open while it ran), so the table is still this thread's.
        (result, HoldStart(table.ticks().max(1)))
    }

    /// A contended acquisition, measured as a span.
    #[cold]
    #[inline(never)]
    fn wait_for<G>(
        wait: &'static SpanSite,
        acquire: impl FnOnce() -> LockResult<G>,
    ) -> LockResult<G> {
        let _waiting = crate::imp::span::enter(wait);
        acquire()
    }

    /// The start of a hold that needed no wait (a successful `try_lock`).
    #[inline(always)]
    pub(crate) fn hold_start(sites: Option<&'static LockSites>) -> HoldStart {
        match (sites, current_table()) {
            (Some(_), Some(table)) => HoldStart(table.get().ticks().max(1)),
            _ => HoldStart(0),
        }
    }

    /// Records the hold that began at `start`, just before the lock is released.
    #[inline(always)]
    pub(crate) fn release(sites: Option<&'static LockSites>, start: HoldStart) {
        let (Some(sites), true) = (sites, start.0 != 0) else {
            return;
        };
        let Some(table) = current_table() else {
            return;
        };
        let table = table.get();
        let Some(slot) = table.slot(sites.hold.index()) else {
            return;
        };
        let held = table.ticks().saturating_sub(start.0);
        bump(&slot.inclusive_ticks, held);
        slot.record_call(held);
    }
}

#[cfg(not(feature = "enabled"))]
mod imp {
    use std::sync::{LockResult, TryLockError};

    use perflab_format::profile::LockMode;

    use super::HoldStart;

    /// Nothing to record in a build without probes.
    #[derive(Debug)]
    pub(crate) struct LockSites;

    #[inline(always)]
    pub(crate) fn lock_sites(
        _name: &str,
        _mode: LockMode,
        _wait_label: &str,
        _location: &'static std::panic::Location<'static>,
    ) -> Option<&'static LockSites> {
        None
    }

    #[inline(always)]
    pub(super) fn acquire_measured<G>(
        _sites: Option<&'static LockSites>,
        _try_acquire: impl FnOnce() -> Result<G, TryLockError<G>>,
        acquire: impl FnOnce() -> LockResult<G>,
    ) -> (LockResult<G>, HoldStart) {
        (acquire(), HoldStart(0))
    }

    #[inline(always)]
    pub(crate) fn hold_start(_sites: Option<&'static LockSites>) -> HoldStart {
        HoldStart(0)
    }

    #[inline(always)]
    pub(crate) fn release(_sites: Option<&'static LockSites>, _start: HoldStart) {}
}
