//! A small streaming pipeline on tokio, built to be measured: a reader
//! produces records, a coordinator routes them by key into batches for N
//! partition tasks (parse, filter, aggregate), and a writer collects the
//! output, all through channels or queues.
//!
//! Everything the investigation varies is a knob of [`Config`]: the engine
//! (SQL-like processing or a passthrough that does none), how a partition
//! waits for its next batch (busy-spin on `yield_now()`, `Notify`, or an
//! awaited channel receive), batch size, partition count, and two flags
//! that reproduce the mistakes of a hand-made investigation of such an
//! engine (phase timers that never wrap the work; a fixed sleep inside the
//! timed region).
//!
//! It is instrumented the way an async program can be: `tracing` spans
//! (through `perflab-tracing`) for the tasks and the phases, `perflab::future!`
//! around awaited receives, `perflab::sync::Mutex` for the partitions'
//! inboxes, a counter per yield and gauges for queue depths.
#![warn(unreachable_pub)]

pub mod config;
pub mod inbox;
pub mod phases;
pub mod pipeline;
pub mod record;
mod tasks;

pub use config::{Config, Engine, Wait};
pub use pipeline::{Summary, run};
