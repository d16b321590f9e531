//! The pipeline's async tasks: coordinator, partitions and writer. Each is
//! a `#[tracing::instrument]` future, so perflab sees its polls, busy and
//! idle time; each awaited receive is a `perflab::future!` of its own.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::config::Engine;
use crate::inbox::{InboxReceiver, InboxSender};
use crate::phases::{Phase, PhaseTimers};
use crate::record::{Aggregate, route_key};

/// Routes the reader's chunks by key into batches of `batch_size` for the
/// partitions, then sends each partition the end of the stream.
#[tracing::instrument(name = "coordinator", skip_all)]
pub(crate) async fn coordinator(
    mut chunks: mpsc::Receiver<Vec<String>>,
    partitions: Vec<InboxSender>,
    batch_size: usize,
    drop_partial_batches: bool,
) {
    let mut pending: Vec<Vec<String>> = partitions
        .iter()
        .map(|_| Vec::with_capacity(batch_size))
        .collect();
    while let Some(chunk) = perflab::future!("coordinator receive", chunks.recv()).await {
        let full = tracing::info_span!("route").in_scope(|| {
            let mut full = Vec::new();
            for line in chunk {
                let p = (route_key(&line) % pending.len() as u64) as usize;
                pending[p].push(line);
                if pending[p].len() >= batch_size {
                    let batch = std::mem::replace(&mut pending[p], Vec::with_capacity(batch_size));
                    full.push((p, batch));
                }
            }
            full
        });
        for (p, batch) in full {
            partitions[p].send(Some(batch)).await;
        }
    }
    for (p, rest) in pending.into_iter().enumerate() {
        if !rest.is_empty() && !drop_partial_batches {
            partitions[p].send(Some(rest)).await;
        }
        partitions[p].send(None).await;
    }
}

/// Processes batches until the end of the stream; returns the sum of the
/// values its aggregate kept.
#[tracing::instrument(name = "partition", skip_all)]
pub(crate) async fn partition(
    mut inbox: InboxReceiver,
    engine: Engine,
    rows: mpsc::Sender<Vec<String>>,
    timers: Arc<PhaseTimers>,
) -> i64 {
    let mut aggregate = Aggregate::default();
    while let Some(batch) = perflab::future!("partition receive", inbox.receive()).await {
        let out = timers.time(Phase::Process, || match engine {
            Engine::Passthrough => batch,
            Engine::Sql => batch
                .iter()
                .map(|line| {
                    aggregate
                        .apply(line)
                        .expect("the reader writes well-formed records")
                })
                .collect(),
        });
        if rows.send(out).await.is_err() {
            break;
        }
    }
    aggregate.total()
}

/// What the writer wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Written {
    /// Rows written.
    pub rows: u64,
    /// A checksum of the rows that does not depend on their order (the
    /// partitions' output interleaves differently in every run).
    pub checksum: u64,
}

/// Writes every row it receives into its sink until all partitions ended.
#[tracing::instrument(name = "writer", skip_all)]
pub(crate) async fn writer(
    mut batches: mpsc::Receiver<Vec<String>>,
    timers: Arc<PhaseTimers>,
) -> Written {
    let mut sink: Vec<u8> = Vec::with_capacity(1 << 16);
    let mut written = Written {
        rows: 0,
        checksum: 0,
    };
    while let Some(rows) = perflab::future!("writer receive", batches.recv()).await {
        timers.time(Phase::Write, || {
            for row in &rows {
                sink.extend_from_slice(row.as_bytes());
                sink.push(b'\n');
                let mut h = std::collections::hash_map::DefaultHasher::new();
                row.hash(&mut h);
                written.checksum = written.checksum.wrapping_add(h.finish());
            }
            // The sink stands for an output stream: flushed per batch.
            sink.clear();
        });
        written.rows += rows.len() as u64;
        perflab::count!("records_out", rows.len() as u64);
    }
    written
}
