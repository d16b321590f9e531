//! How long the runs waited for a CPU, and what the contention rule did
//! about it (a variant's `cpu_wait` and the `contention` section of a
//! `perflab-result/1` document, both optional: absent when no run's CPU
//! wait was measured, so documents written before they existed, and runs
//! made where it cannot be measured, read as they are).

use serde::{Deserialize, Serialize};

/// A variant's CPU wait over its measured runs: the time each run's tasks
/// were runnable but waiting for a CPU, as a share of its wall time.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CpuWaitDoc {
    /// Runs whose CPU wait was measured.
    pub runs: usize,
    /// The median run's wait, a fraction of its wall time.
    pub median_share: f64,
    /// The largest wait of a run, a fraction of its wall time.
    pub worst_share: f64,
}

/// What the contention rule did: a block in which a run waited for a CPU
/// for more than `max_cpu_wait` of its wall time was measured again, at
/// most `max_repeats` times; the replaced runs are kept in the store,
/// marked, and left out of every figure.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ContentionDoc {
    /// The threshold, a fraction of a run's wall time.
    pub max_cpu_wait: f64,
    /// How many times one block could be measured again.
    pub max_repeats: usize,
    /// Blocks measured again (a block measured again twice counts twice).
    pub blocks_measured_again: usize,
    /// Runs replaced by those measurements.
    pub runs_replaced: usize,
    /// Blocks kept although a run waited for more than the threshold,
    /// because they had been measured again `max_repeats` times.
    pub blocks_kept_contended: usize,
}
