//! The pipeline's knobs.

use std::time::Duration;

/// What a partition does with a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// Parse the record, filter out negative values, aggregate a running sum
    /// per key and format an output row.
    Sql,
    /// Forward the record unchanged: the cost of the pipeline alone.
    Passthrough,
}

/// How a partition waits for its next batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Wait {
    /// Poll a locked queue and `tokio::task::yield_now()` while it is empty
    /// (the original engine's partition receiver).
    Spin,
    /// The same queue, and sleep on a `tokio::sync::Notify` while it is
    /// empty: the coordinator wakes the partition when it pushes.
    Notify,
    /// An awaited receive on a bounded `tokio::sync::mpsc` channel: the task
    /// is parked until a batch arrives.
    Recv,
}

/// One run of the pipeline.
#[derive(Clone, Debug)]
pub struct Config {
    /// Records the reader produces.
    pub records: u64,
    /// Records per batch, from the reader to the coordinator and from the
    /// coordinator to each partition.
    pub batch_size: usize,
    /// Partition tasks; records are routed to them by key.
    pub partitions: usize,
    /// Worker threads of the tokio runtime.
    pub workers: usize,
    /// What a partition does with a record.
    pub engine: Engine,
    /// How a partition waits for its next batch.
    pub wait: Wait,
    /// The first mistake of the original investigation: each phase's timer
    /// is started and stopped before the work it names, so every phase reads
    /// 0.000s and the whole run is left as "framework".
    pub misplaced_timers: bool,
    /// The second mistake: a fixed sleep ("let the partitions start") inside
    /// the timed region, which a per-record division spreads over records.
    pub settle: Duration,
    /// A bug for the suite's expectations to catch: the coordinator does not
    /// send the partial batches left at the end of the stream, so records
    /// are dropped (and the run is faster).
    pub drop_partial_batches: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            records: 100_000,
            batch_size: 100,
            partitions: 4,
            workers: 2,
            engine: Engine::Sql,
            wait: Wait::Spin,
            misplaced_timers: false,
            settle: Duration::ZERO,
            drop_partial_batches: false,
        }
    }
}
