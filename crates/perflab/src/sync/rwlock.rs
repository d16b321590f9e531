//! [`RwLock`]: `std::sync::RwLock` that records waits and holds, reads and
//! writes apart.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};

use perflab_format::profile::LockMode;

use super::probe::{HoldStart, LockSites, acquire, hold_start, lock_sites, release};

/// A reader-writer lock that records, per lock and mode (read: shared,
/// write: exclusive), the time threads waited to acquire it and the time
/// they held it (see [the module](super)).
pub struct RwLock<T: ?Sized> {
    read_sites: Option<&'static LockSites>,
    write_sites: Option<&'static LockSites>,
    inner: std::sync::RwLock<T>,
}

/// Shared access to an [`RwLock`] until dropped.
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockReadGuard<'a, T: ?Sized + 'a> {
    sites: Option<&'static LockSites>,
    start: HoldStart,
    inner: std::sync::RwLockReadGuard<'a, T>,
}

/// Exclusive access to an [`RwLock`] until dropped.
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockWriteGuard<'a, T: ?Sized + 'a> {
    sites: Option<&'static LockSites>,
    start: HoldStart,
    inner: std::sync::RwLockWriteGuard<'a, T>,
}

impl<T> RwLock<T> {
    /// A lock named by the place it is created (`file:line`).
    #[track_caller]
    pub fn new(value: T) -> RwLock<T> {
        let location = Location::caller();
        Self::at(
            &format!("{}:{}", location.file(), location.line()),
            location,
            value,
        )
    }

    /// A lock named `name` in the report; locks with the same name are reported together.
    #[track_caller]
    pub fn named(name: &str, value: T) -> RwLock<T> {
        Self::at(name, Location::caller(), value)
    }

    fn at(name: &str, location: &'static Location<'static>, value: T) -> RwLock<T> {
        RwLock {
            read_sites: lock_sites(name, LockMode::Shared, "read wait", location),
            write_sites: lock_sites(name, LockMode::Exclusive, "write wait", location),
            inner: std::sync::RwLock::new(value),
        }
    }

    /// Consumes the lock and returns the value, as `std::sync::RwLock::into_inner`.
    pub fn into_inner(self) -> LockResult<T> {
        self.inner.into_inner()
    }
}

/// Wraps the inner guard of a result, keeping the poison flag.
fn map_result<G, W>(result: LockResult<G>, wrap: impl FnOnce(G) -> W) -> LockResult<W> {
    match result {
        Ok(inner) => Ok(wrap(inner)),
        Err(poisoned) => Err(PoisonError::new(wrap(poisoned.into_inner()))),
    }
}

/// As [`map_result`], for an attempt that may find the lock taken.
fn map_try<G, W>(result: TryLockResult<G>, wrap: impl FnOnce(G) -> W) -> TryLockResult<W> {
    match result {
        Ok(inner) => Ok(wrap(inner)),
        Err(TryLockError::Poisoned(poisoned)) => Err(TryLockError::Poisoned(PoisonError::new(
            wrap(poisoned.into_inner()),
        ))),
        Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Acquires shared access, blocking while a writer holds the lock.
    #[inline]
    pub fn read(&self) -> LockResult<RwLockReadGuard<'_, T>> {
        let sites = self.read_sites;
        let (result, start) = acquire(sites, || self.inner.try_read(), || self.inner.read());
        map_result(result, |inner| RwLockReadGuard {
            sites,
            start,
            inner,
        })
    }

    /// Acquires exclusive access, blocking while anyone holds the lock.
    #[inline]
    pub fn write(&self) -> LockResult<RwLockWriteGuard<'_, T>> {
        let sites = self.write_sites;
        let (result, start) = acquire(sites, || self.inner.try_write(), || self.inner.write());
        map_result(result, |inner| RwLockWriteGuard {
            sites,
            start,
            inner,
        })
    }

    /// Acquires shared access if no writer holds the lock.
    #[inline]
    pub fn try_read(&self) -> TryLockResult<RwLockReadGuard<'_, T>> {
        let sites = self.read_sites;
        map_try(self.inner.try_read(), |inner| RwLockReadGuard {
            sites,
            start: hold_start(sites),
            inner,
        })
    }

    /// Acquires exclusive access if nobody holds the lock.
    #[inline]
    pub fn try_write(&self) -> TryLockResult<RwLockWriteGuard<'_, T>> {
        let sites = self.write_sites;
        map_try(self.inner.try_write(), |inner| RwLockWriteGuard {
            sites,
            start: hold_start(sites),
            inner,
        })
    }

    /// Whether a thread panicked while holding the lock for writing.
    pub fn is_poisoned(&self) -> bool {
        self.inner.is_poisoned()
    }

    /// The value, through a unique borrow (no locking, nothing recorded).
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.inner.get_mut()
    }
}

impl<T: Default> Default for RwLock<T> {
    #[track_caller]
    fn default() -> RwLock<T> {
        RwLock::new(T::default())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        release(self.sites, self.start);
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        release(self.sites, self.start);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
