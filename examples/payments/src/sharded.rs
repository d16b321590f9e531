//! The multi-threaded path: accounts sharded over worker threads by client
//! id, one bounded channel per shard, the reading thread dispatching.
//!
//! A client's operations all go to one shard, in stream order, so each
//! shard owns its accounts and the deposits of its clients outright: no
//! locks, and the results are those of one thread. (A dispute naming
//! another client's deposit finds nothing in its shard and is ignored as
//! an unknown reference instead of as another client's: ignored either way.)
//!
//! The waiting is what this path adds, so it is instrumented: the span
//! `dispatch.send_wait` is each send (it blocks while the shard's channel is
//! full), `shard.recv_wait` each receive (it blocks while the channel is
//! empty), and the gauge `queue_depth` the records queued for a shard when
//! it takes the next message. Time spent blocked shows as span time beyond
//! the thread's CPU time (perflab's `mostly_waiting` warning).

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use crate::engine::{Account, Engine, GAUGE_EVERY};
use crate::record::{ClientId, Record};

/// Records a shard's channel holds before a send blocks, whatever the
/// message size, so that both versions buffer alike.
pub const QUEUED_RECORDS: usize = 8192;

/// One channel message: a record (`v1`) or a batch of them (`v2`).
enum Message {
    One(Record),
    Many(Vec<Record>),
}

impl Message {
    fn len(&self) -> usize {
        match self {
            Message::One(_) => 1,
            Message::Many(batch) => batch.len(),
        }
    }
}

/// A shard's sending end and the records queued for it.
struct Shard<'a> {
    sender: SyncSender<Message>,
    queued: &'a AtomicUsize,
}

impl Shard<'_> {
    fn send(&self, message: Message) {
        self.queued.fetch_add(message.len(), Ordering::Relaxed);
        let _wait = perflab::span!("dispatch.send_wait");
        // The worker ends only after the channel closes, so a send cannot fail.
        self.sender.send(message).expect("shard worker alive");
    }
}

/// Applies `records` on `threads` shards, sending `batch` records per
/// message; the accounts of every shard at the end.
pub fn apply<H: BuildHasher + Default>(
    records: Vec<Record>,
    threads: usize,
    batch: usize,
) -> Vec<(ClientId, Account)> {
    let _apply = perflab::span!("apply");
    let queued: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(0)).collect();
    std::thread::scope(|scope| {
        let mut shards = Vec::with_capacity(threads);
        let mut workers = Vec::with_capacity(threads);
        for depth in &queued {
            let (sender, receiver) = sync_channel(QUEUED_RECORDS.div_ceil(batch));
            shards.push(Shard {
                sender,
                queued: depth,
            });
            workers.push(scope.spawn(move || work::<H>(receiver, depth)));
        }
        dispatch(records, &shards, batch);
        drop(shards);
        let _join = perflab::span!("apply.join_wait");
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("shard worker panicked"))
            .collect()
    })
}

fn dispatch(records: Vec<Record>, shards: &[Shard<'_>], batch: usize) {
    let shard_of = |r: &Record| usize::from(r.client) % shards.len();
    if batch <= 1 {
        for record in records {
            shards[shard_of(&record)].send(Message::One(record));
        }
        return;
    }
    let mut pending: Vec<Vec<Record>> = shards.iter().map(|_| Vec::with_capacity(batch)).collect();
    for record in records {
        let shard = shard_of(&record);
        pending[shard].push(record);
        if pending[shard].len() == batch {
            let full = std::mem::replace(&mut pending[shard], Vec::with_capacity(batch));
            shards[shard].send(Message::Many(full));
        }
    }
    for (shard, rest) in shards.iter().zip(pending) {
        if !rest.is_empty() {
            shard.send(Message::Many(rest));
        }
    }
}

fn work<H: BuildHasher + Default>(
    receiver: Receiver<Message>,
    queued: &AtomicUsize,
) -> Vec<(ClientId, Account)> {
    let _shard = perflab::span!("shard");
    let mut engine = Engine::<H>::new();
    let mut applied = 0usize;
    loop {
        let message = {
            let _wait = perflab::span!("shard.recv_wait");
            receiver.recv()
        };
        let Ok(message) = message else { break };
        perflab::gauge!(
            "queue_depth",
            queued.fetch_sub(message.len(), Ordering::Relaxed)
        );
        let mut apply = |record: &Record| {
            engine.apply(record);
            applied += 1;
            if applied.is_multiple_of(GAUGE_EVERY) {
                perflab::gauge!("stored_deposits", engine.stored_deposits());
            }
        };
        match &message {
            Message::One(record) => apply(record),
            Message::Many(batch) => batch.iter().for_each(apply),
        }
    }
    perflab::gauge!("stored_deposits", engine.stored_deposits());
    engine.accounts().collect()
}
