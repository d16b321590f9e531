//! Counters that only their owning thread writes.
//!
//! A relaxed load and store instead of an atomic add: plain moves on x86 and
//! ARM, no locked instruction, because no other thread ever writes the field
//! (readers on other threads may see a slightly old value, never a torn one).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Adds `amount` to a field only its owning thread writes.
#[inline(always)]
pub(crate) fn bump(field: &AtomicU64, amount: u64) {
    field.store(field.load(Relaxed).wrapping_add(amount), Relaxed);
}
