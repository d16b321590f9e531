//! Instrumentation for Rust programs: where the time goes, at near the cost
//! of two clock reads per span.
//!
//! ```no_run
//! #[perflab::measure]
//! fn parse(input: &str) -> usize {
//!     input.lines().count()
//! }
//!
//! #[perflab::main]
//! fn main() {
//!     let lines = {
//!         let _phase = perflab::span!("read");
//!         std::fs::read_to_string("input.txt").unwrap_or_default()
//!     };
//!     let count = parse(&lines);
//!     perflab::count!("lines", count);
//!     perflab::gauge!("lines per byte", count as f64 / lines.len().max(1) as f64);
//! }
//! ```
//!
//! At the end of the session a table goes to stderr and, if
//! `PERFLAB_PROFILE` names a path, a `perflab-profile/1` JSON document is
//! written there (see [`profile`]). See the crate's README for what each
//! figure means and what it costs.
//!
//! With the default feature `enabled` off, every probe compiles to nothing
//! and the API stays the same.
#![deny(missing_docs)]

#[cfg(feature = "enabled")]
mod binding;
#[cfg(feature = "enabled")]
mod calibrate;
#[cfg(feature = "enabled")]
mod clock;
#[cfg(feature = "enabled")]
mod collect;
#[cfg(feature = "enabled")]
mod counter;
#[cfg(feature = "enabled")]
mod cpu_time;
#[cfg(not(feature = "enabled"))]
mod disabled;
mod duration_text;
#[cfg(feature = "enabled")]
mod exit_hook;
#[cfg(feature = "enabled")]
mod future;
mod histogram;
#[cfg(feature = "enabled")]
mod lock_totals;
#[cfg(feature = "enabled")]
mod metric_totals;
mod output;
#[cfg(feature = "enabled")]
mod registered_sites;
#[cfg(feature = "enabled")]
mod registry;
#[cfg(feature = "enabled")]
mod session;
mod session_lock_table;
mod session_table;
#[cfg(feature = "enabled")]
mod single_writer;
#[cfg(feature = "enabled")]
mod site;
#[cfg(feature = "enabled")]
mod span;
#[cfg(feature = "enabled")]
pub mod span_life;
#[cfg(feature = "enabled")]
mod span_totals;
pub mod sync;
#[cfg(feature = "enabled")]
mod thread_table;
mod warnings;

#[cfg(feature = "alloc")]
mod alloc;

#[cfg(feature = "alloc")]
pub use alloc::CountingAllocator;
#[cfg(feature = "enabled")]
pub use counter::{CountAmount, GaugeValue};
#[cfg(not(feature = "enabled"))]
pub use disabled::{
    AttachGuard, CountAmount, DEFAULT_UNATTRIBUTED_THRESHOLD, GaugeValue, Session, SessionBuilder,
    SessionHandle, SpanGuard, TABLE_ENV,
};
pub use histogram::PERCENTILE_RELATIVE_ERROR;
pub use output::write_profile;
pub use perflab_format::profile;
pub use perflab_format::profile::Profile;
/// Runs `main` inside a process-wide [`Session`] that reports when main
/// returns or the program calls `std::process::exit`.
/// `#[perflab::main(name = "name")]` names the session.
pub use perflab_macros::main;
/// Measures a function, method or async function as a span.
///
/// `#[measure]` names the span `module::path::function`; `#[measure("name")]`
/// or `#[measure(name = "name")]` names it. Methods are named by module and
/// method, not by type: give them a name if two types share one.
pub use perflab_macros::measure;
#[cfg(feature = "enabled")]
pub use session::{
    AttachGuard, DEFAULT_UNATTRIBUTED_THRESHOLD, Session, SessionBuilder, SessionHandle, TABLE_ENV,
};
pub use session_table::render_table;
#[cfg(feature = "enabled")]
pub use span::SpanGuard;
pub use warnings::{INSTRUMENTATION_COST_SHARE, NEAR_SPAN_COST_FACTOR};

/// Whether probes record (the `enabled` feature is on).
pub const ENABLED: bool = cfg!(feature = "enabled");

/// Items the macros expand to; not part of the API.
#[doc(hidden)]
pub mod __private {
    #[cfg(feature = "enabled")]
    pub use crate::counter::{count, gauge};
    #[cfg(feature = "enabled")]
    pub use crate::future::MeasuredFuture;
    #[cfg(feature = "enabled")]
    pub use crate::site::{
        COUNTER_SITES, CounterSite, GAUGE_SITES, GaugeSite, SPAN_SITES, SpanKind, SpanSite,
    };
    #[cfg(feature = "enabled")]
    pub use crate::span::enter;
    #[cfg(feature = "enabled")]
    pub use linkme;
}

/// Declares the static call site of a span; expands to `&'static SpanSite`.
#[cfg(feature = "enabled")]
#[doc(hidden)]
#[macro_export]
macro_rules! __span_site {
    ($name:expr, $kind:ident) => {{
        #[$crate::__private::linkme::distributed_slice($crate::__private::SPAN_SITES)]
        #[linkme(crate = $crate::__private::linkme)]
        static __PERFLAB_SPAN_SITE: $crate::__private::SpanSite = $crate::__private::SpanSite::new(
            $name,
            $crate::__private::SpanKind::$kind,
            ::core::file!(),
            ::core::line!(),
            ::core::module_path!(),
        );
        &__PERFLAB_SPAN_SITE
    }};
}

/// Enters a span named `$name` and returns its guard: the span lasts until
/// the guard is dropped. With a block, runs the block inside the span and
/// returns its value.
///
/// ```
/// let _phase = perflab::span!("parse");
/// let sum = perflab::span!("sum", { (1..=10).sum::<u32>() });
/// # assert_eq!(sum, 55);
/// ```
///
/// Bind the guard to a named variable (`let _phase`); `let _ = span!(..)`
/// drops it at once and measures nothing. A guard cannot cross threads or
/// be held across `.await`; put `#[measure]` on async functions instead.
#[cfg(feature = "enabled")]
#[macro_export]
macro_rules! span {
    ($name:expr) => {
        $crate::__private::enter($crate::__span_site!($name, Span))
    };
    ($name:expr, $body:block) => {{
        let __perflab_span = $crate::span!($name);
        $body
    }};
}

/// Enters a span named `$name` (disabled build: nothing).
#[cfg(not(feature = "enabled"))]
#[macro_export]
macro_rules! span {
    ($name:expr) => {{
        const _: &str = $name;
        $crate::SpanGuard::disabled()
    }};
    ($name:expr, $body:block) => {{
        const _: &str = $name;
        $body
    }};
}

/// Counts an event: `count!("retries")` adds 1, `count!("bytes", n)` adds `n`
/// (any integer; negative amounts count as zero).
///
/// A counter that exists in the code but is never reached in a session is
/// reported as never incremented.
#[cfg(feature = "enabled")]
#[macro_export]
macro_rules! count {
    ($name:expr) => {
        $crate::count!($name, 1u64)
    };
    ($name:expr, $amount:expr) => {{
        #[$crate::__private::linkme::distributed_slice($crate::__private::COUNTER_SITES)]
        #[linkme(crate = $crate::__private::linkme)]
        static __PERFLAB_COUNTER_SITE: $crate::__private::CounterSite =
            $crate::__private::CounterSite::new(
                $name,
                ::core::file!(),
                ::core::line!(),
                ::core::module_path!(),
            );
        $crate::__private::count(&__PERFLAB_COUNTER_SITE, $amount)
    }};
}

/// Counts an event (disabled build: the amount is type-checked, not evaluated).
#[cfg(not(feature = "enabled"))]
#[macro_export]
macro_rules! count {
    ($name:expr) => {{
        const _: &str = $name;
    }};
    ($name:expr, $amount:expr) => {{
        const _: &str = $name;
        if false {
            let _ = $amount;
        }
    }};
}

/// Sets a gauge (a level: queue depth, pool utilisation) to a number. The
/// report gives the last, smallest, largest and mean value set.
#[cfg(feature = "enabled")]
#[macro_export]
macro_rules! gauge {
    ($name:expr, $value:expr) => {{
        #[$crate::__private::linkme::distributed_slice($crate::__private::GAUGE_SITES)]
        #[linkme(crate = $crate::__private::linkme)]
        static __PERFLAB_GAUGE_SITE: $crate::__private::GaugeSite =
            $crate::__private::GaugeSite::new(
                $name,
                ::core::file!(),
                ::core::line!(),
                ::core::module_path!(),
            );
        $crate::__private::gauge(&__PERFLAB_GAUGE_SITE, $value)
    }};
}

/// Sets a gauge (disabled build: the value is type-checked, not evaluated).
#[cfg(not(feature = "enabled"))]
#[macro_export]
macro_rules! gauge {
    ($name:expr, $value:expr) => {{
        const _: &str = $name;
        if false {
            let _ = $value;
        }
    }};
}

/// Measures a future as an async span named `$name`: one call from first
/// poll to completion, its polls, busy time (inside polls), wake-ups and
/// idle time (waiting to be woken), as `#[measure]` on an async function.
///
/// The way to see how long a task waits on a channel or a notification:
///
/// ```
/// # async fn example(mut receiver: std::sync::mpsc::Receiver<u32>) {
/// # let receive = async { receiver.recv().ok() };
/// // With a tokio channel: perflab::future!("partition receive", receiver.recv()).await
/// let batch = perflab::future!("partition receive", receive).await;
/// # }
/// ```
///
/// A receive that is mostly idle waited for data; one that is busy and
/// woken thousands of times per item is spinning.
#[cfg(feature = "enabled")]
#[macro_export]
macro_rules! future {
    ($name:expr, $future:expr) => {
        $crate::__private::MeasuredFuture::new($crate::__span_site!($name, Async), $future)
    };
}

/// Measures a future as an async span (disabled build: the future unchanged).
#[cfg(not(feature = "enabled"))]
#[macro_export]
macro_rules! future {
    ($name:expr, $future:expr) => {{
        const _: &str = $name;
        $future
    }};
}

/// Enters the span of a `#[measure]` function; used by the attribute.
#[cfg(feature = "enabled")]
#[doc(hidden)]
#[macro_export]
macro_rules! __enter_function {
    ($name:expr) => {
        $crate::__private::enter($crate::__span_site!($name, Function))
    };
}

/// Enters the span of a `#[measure]` function (disabled build: nothing).
#[cfg(not(feature = "enabled"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __enter_function {
    ($name:expr) => {
        $crate::SpanGuard::disabled()
    };
}

/// Wraps the body of a `#[measure]` async function; used by the attribute.
#[cfg(feature = "enabled")]
#[doc(hidden)]
#[macro_export]
macro_rules! __measure_future {
    ($name:expr, $future:expr) => {
        $crate::__private::MeasuredFuture::new($crate::__span_site!($name, Async), $future)
    };
}

/// Wraps the body of a `#[measure]` async function (disabled build: unchanged).
#[cfg(not(feature = "enabled"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __measure_future {
    ($name:expr, $future:expr) => {
        $future
    };
}
