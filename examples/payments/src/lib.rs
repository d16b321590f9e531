#![deny(missing_docs)]
#![warn(unreachable_pub)]

//! A payments engine and the workloads of its performance investigation.
//!
//! The engine reads a stream of transactions (`type, client, tx, amount`),
//! applies deposits, withdrawals, disputes, resolves and chargebacks to
//! per-client accounts (`engine`), and prints the final balances
//! (`process`), on one thread or on shards of accounts (`sharded`). Two
//! versions of it (`version`) are compared by the investigation; the
//! `generator` writes the six scenarios' workloads. Everything is
//! instrumented with perflab: spans on reading, parsing, each operation,
//! the waiting of the shards and the output; counters per operation and
//! per reason an operation was ignored; gauges for the deposit store's size
//! and the shards' queues.

pub mod amount;
pub mod engine;
pub mod generator;
pub mod process;
pub mod record;
pub mod sharded;
pub mod version;

#[cfg(test)]
mod engine_tests;
#[cfg(test)]
mod generator_tests;
