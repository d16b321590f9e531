//! Counters (events: a pool fallback, a retry) and gauges (levels: queue
//! depth, pool utilisation). Same hot path as spans: the thread's table, a
//! cell per call site, no shared cache line between threads.

use crate::imp::binding::current_table;
use crate::imp::site::{CounterSite, GaugeSite};
use crate::imp::thread_table::bump;
use crate::imp::trace_buffer::EventKind;

/// An amount a counter can add. Negative amounts count as zero: counters only grow.
pub trait CountAmount {
    /// The amount as an unsigned count.
    fn to_count(self) -> u64;
}

macro_rules! count_amount_unsigned {
    ($($t:ty),*) => {$(
        impl CountAmount for $t {
            #[inline(always)]
            fn to_count(self) -> u64 { self as u64 }
        }
    )*};
}
macro_rules! count_amount_signed {
    ($($t:ty),*) => {$(
        impl CountAmount for $t {
            #[inline(always)]
            fn to_count(self) -> u64 { self.max(0) as u64 }
        }
    )*};
}
count_amount_unsigned!(u8, u16, u32, u64, usize);
count_amount_signed!(i8, i16, i32, i64, isize);

/// A value a gauge can take.
pub trait GaugeValue {
    /// The value as a float.
    fn to_gauge(self) -> f64;
}

macro_rules! gauge_value {
    ($($t:ty),*) => {$(
        impl GaugeValue for $t {
            #[inline(always)]
            fn to_gauge(self) -> f64 { self as f64 }
        }
    )*};
}
gauge_value!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64);

/// Adds `amount` to the counter of `site` on the calling thread.
#[inline(always)]
pub fn count(site: &'static CounterSite, amount: impl CountAmount) {
    // Converted first: a user's `to_count` may probe, and so rebind.
    let amount = amount.to_count();
    let Some(table) = current_table() else {
        return;
    };
    let table = table.get();
    if let Some(cell) = table.counters.get(site.index()) {
        bump(&cell.events, 1);
        bump(&cell.total, amount);
        if table.trace.is_some() {
            table.trace(
                EventKind::Counter,
                site.index() as u32,
                table.ticks(),
                amount,
            );
        }
    }
}

/// Sets the gauge of `site` to `value` on the calling thread. NaN and
/// infinite values are ignored: they would poison the mean.
#[inline(always)]
pub fn gauge(site: &'static GaugeSite, value: impl GaugeValue) {
    let value = value.to_gauge();
    if !value.is_finite() {
        return;
    }
    let Some(table) = current_table() else {
        return;
    };
    let table = table.get();
    if let Some(cell) = table.gauges.get(site.index()) {
        let now = table.ticks();
        cell.record(value, now);
        table.trace(EventKind::Gauge, site.index() as u32, now, value.to_bits());
    }
}
