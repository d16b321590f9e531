//! How many runs an experiment makes and how long it may take: the limits
//! every engine (A/B, suite, sweep, bisect step) stops at, validated with
//! the rest of an experiment's or a sweep's configuration.

use std::time::Duration;

/// The run limits of an experiment. In an A/B or a suite a count is of runs
/// per variant (pairs); in a sweep, of runs per command and point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunLimits {
    /// Runs before the first decision (a sweep's point may stop).
    pub min_runs: usize,
    /// Runs at most.
    pub max_runs: usize,
    /// Stop after this long (once there is something to report).
    pub max_time: Option<Duration>,
    /// Unmeasured runs of each variant (command) first.
    pub warmup: usize,
    /// Per-run timeout.
    pub timeout: Option<Duration>,
}

impl RunLimits {
    /// True when `max_time` has passed after `elapsed`.
    pub fn out_of_time(&self, elapsed: Duration) -> bool {
        self.max_time.is_some_and(|t| elapsed >= t)
    }
}
