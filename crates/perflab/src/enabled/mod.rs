//! The recording implementation (feature `enabled`): per-thread tables of
//! spans, counters and gauges, sessions that collect them, and the exit hook
//! that reports them. `lib.rs` takes the public API from here, or from
//! `disabled/` when the feature is off; the two expose the same items.

pub(crate) mod binding;
mod calibrate;
mod clock;
mod collect;
mod counter;
mod cpu_time;
mod exit_hook;
mod future;
mod lock_totals;
mod macros;
mod metric_totals;
pub(crate) mod registered_sites;
mod registry;
mod session;
pub(crate) mod single_writer;
pub(crate) mod site;
pub(crate) mod span;
pub mod span_life;
mod span_totals;
pub(crate) mod thread_table;
mod trace_buffer;
mod trace_document;

pub use counter::{CountAmount, GaugeValue};
pub use session::{AttachGuard, Session, SessionBuilder, SessionHandle};
pub use span::SpanGuard;

/// Whether probes record.
pub(crate) const ENABLED: bool = true;

/// Items the macros (`macros.rs`) expand to.
pub mod macro_support {
    pub use super::counter::{count, gauge};
    pub use super::future::MeasuredFuture;
    pub use super::site::{
        COUNTER_SITES, CounterSite, GAUGE_SITES, GaugeSite, SPAN_SITES, SpanKind, SpanSite,
    };
    pub use super::span::enter;
    pub use linkme;
}
