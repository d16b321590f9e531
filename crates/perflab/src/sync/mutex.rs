//! [`Mutex`]: `std::sync::Mutex` that records waits and holds.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};

use perflab_format::profile::LockMode;

use super::probe::{HoldStart, LockSites, acquire, hold_start, lock_sites, release};

/// A mutual-exclusion lock that records, per lock, the time threads waited
/// to acquire it and the time they held it (see [the module](super)).
pub struct Mutex<T: ?Sized> {
    sites: Option<&'static LockSites>,
    inner: std::sync::Mutex<T>,
}

/// Holds a [`Mutex`] until dropped; derefs to the protected value.
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct MutexGuard<'a, T: ?Sized + 'a> {
    sites: Option<&'static LockSites>,
    start: HoldStart,
    // Dropped after `Drop::drop` has read the clock: the hold ends just
    // before the unlock.
    inner: std::sync::MutexGuard<'a, T>,
}

impl<T> Mutex<T> {
    /// A lock named by the place it is created (`file:line`).
    #[track_caller]
    pub fn new(value: T) -> Mutex<T> {
        let location = Location::caller();
        Self::at(
            &format!("{}:{}", location.file(), location.line()),
            location,
            value,
        )
    }

    /// A lock named `name` in the report; locks with the same name are reported together.
    #[track_caller]
    pub fn named(name: &str, value: T) -> Mutex<T> {
        Self::at(name, Location::caller(), value)
    }

    fn at(name: &str, location: &'static Location<'static>, value: T) -> Mutex<T> {
        Mutex {
            sites: lock_sites(name, LockMode::Exclusive, "lock wait", location),
            inner: std::sync::Mutex::new(value),
        }
    }

    /// Consumes the lock and returns the value, as `std::sync::Mutex::into_inner`.
    pub fn into_inner(self) -> LockResult<T> {
        self.inner.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Acquires the lock, blocking until it is free, as `std::sync::Mutex::lock`.
    #[inline]
    pub fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        let (result, start) = acquire(self.sites, || self.inner.try_lock(), || self.inner.lock());
        self.guard(result, start)
    }

    /// Acquires the lock if it is free, as `std::sync::Mutex::try_lock`;
    /// a successful attempt counts as an uncontended acquisition.
    #[inline]
    pub fn try_lock(&self) -> TryLockResult<MutexGuard<'_, T>> {
        match self.inner.try_lock() {
            Ok(inner) => Ok(self.wrap(inner, hold_start(self.sites))),
            Err(TryLockError::Poisoned(poisoned)) => Err(TryLockError::Poisoned(PoisonError::new(
                self.wrap(poisoned.into_inner(), hold_start(self.sites)),
            ))),
            Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
        }
    }

    /// Whether a thread panicked while holding the lock.
    pub fn is_poisoned(&self) -> bool {
        self.inner.is_poisoned()
    }

    /// The value, through a unique borrow (no locking, nothing recorded).
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.inner.get_mut()
    }

    #[inline(always)]
    fn wrap<'a>(&self, inner: std::sync::MutexGuard<'a, T>, start: HoldStart) -> MutexGuard<'a, T> {
        MutexGuard {
            sites: self.sites,
            start,
            inner,
        }
    }

    #[inline(always)]
    fn guard<'a>(
        &'a self,
        result: LockResult<std::sync::MutexGuard<'a, T>>,
        start: HoldStart,
    ) -> LockResult<MutexGuard<'a, T>> {
        match result {
            Ok(inner) => Ok(self.wrap(inner, start)),
            Err(poisoned) => Err(PoisonError::new(self.wrap(poisoned.into_inner(), start))),
        }
    }
}

impl<T: Default> Default for Mutex<T> {
    #[track_caller]
    fn default() -> Mutex<T> {
        Mutex::new(T::default())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        release(self.sites, self.start);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
