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
#![warn(unreachable_pub)]

// The one switch between recording and doing nothing: `imp` is the
// recording implementation (`enabled/`) or the empty one (`disabled/`), and
// everything below declares the public API once on top of either.
#[cfg(feature = "enabled")]
#[path = "enabled/mod.rs"]
mod imp;
#[cfg(not(feature = "enabled"))]
#[path = "disabled/mod.rs"]
mod imp;

mod duration_text;
mod histogram;
mod output;
mod session_lock_table;
mod session_table;
pub mod sync;
mod warnings;

#[cfg(feature = "alloc")]
mod alloc;

#[cfg(feature = "alloc")]
pub use alloc::CountingAllocator;
pub use histogram::PERCENTILE_RELATIVE_ERROR;
pub use imp::span_life;
pub use imp::{
    AttachGuard, CountAmount, GaugeValue, Session, SessionBuilder, SessionHandle, SpanGuard,
};
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
pub use session_table::render_table;
pub use warnings::{INSTRUMENTATION_COST_SHARE, NEAR_SPAN_COST_FACTOR};

/// Whether probes record (the `enabled` feature is on).
pub const ENABLED: bool = imp::ENABLED;

/// Default share of a thread's wall time left outside spans above which the
/// report warns. The C header (`PERFLAB__UNATTRIBUTED_THRESHOLD` in
/// `include/perflab.h`) and the Python package (`UNATTRIBUTED_THRESHOLD` in
/// `python/src/perflab/_report.py`) keep copies of this value.
pub const DEFAULT_UNATTRIBUTED_THRESHOLD: f64 = 0.10;

/// Environment variable that, set to `0`, stops sessions from printing their
/// table. The C header and the Python package read the same variable.
pub const TABLE_ENV: &str = "PERFLAB_TABLE";

/// Items the macros expand to; not part of the API.
#[doc(hidden)]
pub use imp::macro_support as __private;

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
#[macro_export]
macro_rules! span {
    ($name:expr) => {
        $crate::__enter_span!($name, Span)
    };
    ($name:expr, $body:block) => {{
        let __perflab_span = $crate::span!($name);
        $body
    }};
}

/// Counts an event: `count!("retries")` adds 1, `count!("bytes", n)` adds `n`
/// (any integer; negative amounts count as zero).
///
/// A counter that exists in the code but is never reached in a session is
/// reported as never incremented.
#[macro_export]
macro_rules! count {
    ($name:expr) => {
        $crate::count!($name, 1u64)
    };
    ($name:expr, $amount:expr) => {
        $crate::__count!($name, $amount)
    };
}

/// Sets a gauge (a level: queue depth, pool utilisation) to a number. The
/// report gives the last, smallest, largest and mean value set.
#[macro_export]
macro_rules! gauge {
    ($name:expr, $value:expr) => {
        $crate::__gauge!($name, $value)
    };
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
#[macro_export]
macro_rules! future {
    ($name:expr, $future:expr) => {
        $crate::__measure_future!($name, $future)
    };
}

/// Enters the span of a `#[measure]` function; used by the attribute.
#[doc(hidden)]
#[macro_export]
macro_rules! __enter_function {
    ($name:expr) => {
        $crate::__enter_span!($name, Function)
    };
}
