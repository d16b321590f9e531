//! The program's own phase timers (read, process, write), kept the way the
//! original engine kept them, and the `tracing` spans perflab sees: both
//! wrap exactly the same code, so when the timers are misplaced the spans
//! are too, and perflab's table shows what the program's own figures hide.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A phase of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The reader producing a chunk of records.
    Read,
    /// A partition processing a batch.
    Process,
    /// The writer writing a batch of output rows.
    Write,
}

impl Phase {
    /// Every phase, in pipeline order.
    pub const ALL: [Phase; 3] = [Phase::Read, Phase::Process, Phase::Write];

    /// The phase's name, as the program prints it.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Read => "read",
            Phase::Process => "process",
            Phase::Write => "write",
        }
    }

    // A tracing span name must be a literal at its callsite: one per phase.
    fn span(self) -> tracing::Span {
        match self {
            Phase::Read => tracing::info_span!("read"),
            Phase::Process => tracing::info_span!("process"),
            Phase::Write => tracing::info_span!("write"),
        }
    }
}

/// Time each phase took, summed over the tasks that ran it.
#[derive(Debug, Default)]
pub struct PhaseTimers {
    nanos: [AtomicU64; 3],
    misplaced: bool,
}

impl PhaseTimers {
    /// Timers that wrap the work, or (`misplaced`) the original engine's
    /// timers, started and stopped before the work they name.
    pub fn new(misplaced: bool) -> Self {
        PhaseTimers {
            nanos: Default::default(),
            misplaced,
        }
    }

    /// Runs `work` as `phase`, timing it (or, misplaced, timing nothing).
    pub fn time<T>(&self, phase: Phase, work: impl FnOnce() -> T) -> T {
        let span = phase.span();
        if self.misplaced {
            let start = Instant::now();
            span.in_scope(|| ());
            self.add(phase, start.elapsed());
            work()
        } else {
            let start = Instant::now();
            let out = span.in_scope(work);
            self.add(phase, start.elapsed());
            out
        }
    }

    fn add(&self, phase: Phase, took: Duration) {
        let nanos = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        self.nanos[phase as usize].fetch_add(nanos, Ordering::Relaxed);
    }

    /// The time `phase` took so far.
    pub fn total(&self, phase: Phase) -> Duration {
        Duration::from_nanos(self.nanos[phase as usize].load(Ordering::Relaxed))
    }
}
