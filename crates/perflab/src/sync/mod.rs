//! Locks that measure themselves: [`Mutex`] and [`RwLock`], drop-in
//! replacements for `std::sync::Mutex` and `std::sync::RwLock` (same
//! methods, same poisoning) that record, per lock and mode, how long
//! threads waited to acquire it and how long they held it.
//!
//! ```
//! let queue = perflab::sync::Mutex::named("queue", Vec::<u32>::new());
//! queue.lock().unwrap().push(1);
//! # assert_eq!(queue.lock().unwrap().len(), 1);
//! ```
//!
//! A lock is named at its creation (`Mutex::named`), or by its place of
//! creation (`file:line`, with `Mutex::new`); every acquisition of that lock
//! counts for it, whichever line acquires it, because the question a lock
//! answers is "is this lock contended, and by how much", and locks with the
//! same name are reported together. The profile's `locks` give, per lock
//! and mode: acquisitions, contended acquisitions, wait (total, p50, p99,
//! max) and hold (total, p50, p99, max). A contended acquisition is also a
//! span, `<name> (lock wait)` (`read wait`, `write wait` for an `RwLock`),
//! so time blocked on a lock is attributed in the span table and taken out
//! of the self time of the span that waited.
//!
//! Why std's locks and not parking_lot's: since Rust 1.62 std's locks are
//! futex-based and as fast when uncontended, they need no dependency, and
//! wrapping them keeps the std API (poisoning included) so that switching a
//! program over is a change of `use` line.
//!
//! Cost: an acquisition first tries the lock; if it is free (uncontended)
//! the only additions are two clock reads (acquire, release) and a few
//! thread-local stores. A contended acquisition also enters the wait span.
//! `cargo bench -p perflab --bench span_cost` measures both beside a bare
//! `std::sync::Mutex`. Without the `enabled` feature the wrappers are the
//! std locks and nothing more.

mod mutex;
mod probe;
mod rwlock;

pub use mutex::{Mutex, MutexGuard};
#[cfg(feature = "enabled")]
pub(crate) use probe::registered_locks;
pub use rwlock::{RwLock, RwLockReadGuard, RwLockWriteGuard};
