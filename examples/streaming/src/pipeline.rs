//! One run of the pipeline: the reader on the calling thread, the other
//! tasks on a tokio runtime, and the program's own figures.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::config::Config;
use crate::inbox::inbox;
use crate::phases::{Phase, PhaseTimers};
use crate::record;
use crate::tasks::{self, Written};

/// Chunks the reader may get ahead of the coordinator.
const READ_AHEAD: usize = 16;

/// What a run did, and the program's own timing of it.
#[derive(Debug)]
pub struct Summary {
    /// Records the reader produced.
    pub records_in: u64,
    /// Rows the writer wrote.
    pub records_out: u64,
    /// Order-independent checksum of the rows written.
    pub checksum: u64,
    /// Sum over keys of the kept values (0 for the passthrough engine).
    pub kept_sum: i64,
    /// From the start of the tasks to the writer's end.
    pub elapsed: Duration,
    /// Each phase's time, summed over the tasks that ran it.
    pub phases: Vec<(Phase, Duration)>,
}

/// Runs the pipeline once. Errors only when the runtime cannot be built.
pub fn run(config: &Config) -> std::io::Result<Summary> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.workers.max(1))
        .enable_time()
        .build()?;
    let timers = Arc::new(PhaseTimers::new(config.misplaced_timers));
    let partitions = config.partitions.max(1);
    let batch_size = config.batch_size.max(1);

    // The timed region, as the original engine's benchmark had it: from
    // starting the tasks to the writer's last row.
    let start = Instant::now();
    let (chunk_tx, chunk_rx) = mpsc::channel::<Vec<String>>(READ_AHEAD);
    let (row_tx, row_rx) = mpsc::channel(partitions * 4);
    let (writer, partition_tasks, coordinator) = tracing::info_span!("startup").in_scope(|| {
        let writer = runtime.spawn(tasks::writer(row_rx, timers.clone()));
        let mut senders = Vec::with_capacity(partitions);
        let mut partition_tasks = Vec::with_capacity(partitions);
        for _ in 0..partitions {
            let (tx, rx) = inbox(config.wait);
            senders.push(tx);
            partition_tasks.push(runtime.spawn(tasks::partition(
                rx,
                config.engine,
                row_tx.clone(),
                timers.clone(),
            )));
        }
        let coordinator = runtime.spawn(tasks::coordinator(
            chunk_rx,
            senders,
            batch_size,
            config.drop_partial_batches,
        ));
        if !config.settle.is_zero() {
            // The second mistake: "give the partitions time to start",
            // inside the timed region.
            std::thread::sleep(config.settle);
        }
        (writer, partition_tasks, coordinator)
    });
    drop(row_tx);

    let mut next = 0;
    while next < config.records {
        let end = (next + batch_size as u64).min(config.records);
        let chunk: Vec<String> =
            timers.time(Phase::Read, || (next..end).map(record::line).collect());
        perflab::count!("records_in", end - next);
        chunk_tx
            .blocking_send(chunk)
            .expect("the coordinator ended before the end of the stream");
        next = end;
    }
    drop(chunk_tx);

    let (written, kept_sum) = runtime.block_on(async {
        coordinator.await.expect("the coordinator panicked");
        let mut kept_sum = 0;
        for p in partition_tasks {
            kept_sum += p.await.expect("a partition panicked");
        }
        let written: Written = writer.await.expect("the writer panicked");
        (written, kept_sum)
    });
    let elapsed = start.elapsed();
    Ok(Summary {
        records_in: config.records,
        records_out: written.rows,
        checksum: written.checksum,
        kept_sum,
        elapsed,
        phases: Phase::ALL.iter().map(|&p| (p, timers.total(p))).collect(),
    })
}

impl Summary {
    /// The program's own report, in the original engine's terms: each
    /// phase's time and share of the elapsed time, the rest called
    /// "framework", and the elapsed time divided by the record count.
    pub fn render(&self) -> String {
        let total = self.elapsed.as_secs_f64();
        let mut out = format!(
            "records in: {}\nrecords out: {}\nchecksum: {:016x}\nsum of kept values: {}\n",
            self.records_in, self.records_out, self.checksum, self.kept_sum
        );
        let mut phases_sum = 0.0;
        for (phase, took) in &self.phases {
            let s = took.as_secs_f64();
            phases_sum += s;
            out += &format!(
                "{:<26} {:>8.3}s {:>6.1}%\n",
                phase.name(),
                s,
                100.0 * s / total
            );
        }
        let rest = (total - phases_sum).max(0.0);
        out += &format!(
            "{:<26} {:>8.3}s {:>6.1}%\n",
            "framework (the rest)",
            rest,
            100.0 * rest / total
        );
        out += &format!(
            "elapsed {:.3}s, {:.2} µs per record\n",
            total,
            total * 1e6 / self.records_in.max(1) as f64
        );
        out
    }
}
