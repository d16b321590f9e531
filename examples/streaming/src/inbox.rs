//! A partition's inbox: how batches reach a partition, and how the
//! partition waits for the next one. The three waiting strategies of
//! [`Wait`] behind one sender and one receiver.

use std::collections::VecDeque;
use std::sync::Arc;

use tokio::sync::{Notify, mpsc};

use crate::config::Wait;

/// A batch of records, or the end of the stream.
pub type Message = Option<Vec<String>>;

/// Batches waiting in a channel-backed inbox before the sender waits.
const CHANNEL_CAPACITY: usize = 64;

/// The locked queue of the spinning and notified inboxes. A perflab mutex,
/// so the profile shows how often the coordinator and the partition
/// contend for it and how long each holds it.
type Queue = Arc<perflab::sync::Mutex<VecDeque<Message>>>;

/// The coordinator's end of one partition's inbox.
pub enum InboxSender {
    /// A locked queue, polled by a spinning partition.
    Spin(Queue),
    /// A locked queue and the partition's wake-up.
    Notify(Queue, Arc<Notify>),
    /// A bounded channel.
    Recv(mpsc::Sender<Message>),
}

/// A partition's end of its inbox.
pub enum InboxReceiver {
    /// See [`InboxSender::Spin`].
    Spin(Queue),
    /// See [`InboxSender::Notify`].
    Notify(Queue, Arc<Notify>),
    /// See [`InboxSender::Recv`].
    Recv(mpsc::Receiver<Message>),
}

/// A new inbox waiting the `wait` way.
pub fn inbox(wait: Wait) -> (InboxSender, InboxReceiver) {
    let queue = || {
        Arc::new(perflab::sync::Mutex::named(
            "partition inbox",
            VecDeque::new(),
        ))
    };
    match wait {
        Wait::Spin => {
            let q = queue();
            (InboxSender::Spin(q.clone()), InboxReceiver::Spin(q))
        }
        Wait::Notify => {
            let (q, n) = (queue(), Arc::new(Notify::new()));
            (
                InboxSender::Notify(q.clone(), n.clone()),
                InboxReceiver::Notify(q, n),
            )
        }
        Wait::Recv => {
            let (tx, rx) = mpsc::channel(CHANNEL_CAPACITY);
            (InboxSender::Recv(tx), InboxReceiver::Recv(rx))
        }
    }
}

fn push(queue: &Queue, message: Message) {
    let mut q = queue.lock().expect("partition inbox poisoned");
    q.push_back(message);
    perflab::gauge!("partition_queue_depth", q.len() as u64);
}

fn pop(queue: &Queue) -> Option<Message> {
    queue.lock().expect("partition inbox poisoned").pop_front()
}

impl InboxSender {
    /// Hands a batch (or the end of the stream) to the partition.
    pub async fn send(&self, message: Message) {
        match self {
            InboxSender::Spin(q) => push(q, message),
            InboxSender::Notify(q, n) => {
                push(q, message);
                // Stores a permit when the partition is not waiting yet, so
                // a push just before it sleeps is not lost.
                n.notify_one();
            }
            InboxSender::Recv(tx) => {
                perflab::gauge!(
                    "partition_queue_depth",
                    (tx.max_capacity() - tx.capacity() + 1) as u64
                );
                tx.send(message)
                    .await
                    .expect("a partition ended before the end of the stream");
            }
        }
    }
}

impl InboxReceiver {
    /// The next batch, or `None` at the end of the stream; waits the
    /// inbox's way while there is none.
    pub async fn receive(&mut self) -> Message {
        match self {
            InboxReceiver::Spin(q) => loop {
                if let Some(message) = pop(q) {
                    return message;
                }
                perflab::count!("partition_yields");
                tokio::task::yield_now().await;
            },
            InboxReceiver::Notify(q, n) => loop {
                if let Some(message) = pop(q) {
                    return message;
                }
                n.notified().await;
            },
            InboxReceiver::Recv(rx) => rx.recv().await.flatten(),
        }
    }
}
