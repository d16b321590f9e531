//! Where a command's executor is made, kept and ended.
//!
//! Making an executor ready (its cgroups, its fork server's start) waits
//! on the kernel, as opening the store and reading the checkout do; and so
//! do its end (the server's death, the cgroups' removal) and the store's
//! closing (its checkpoint's syncs). A command that makes runs at once
//! (`run`, `ab` and its suites, `sweep`) therefore has its executor made
//! ready on a thread of its own as it begins, beside the store's opening,
//! and ended beside the store's closing, instead of each after the other.
//!
//! The executor made early is the one the command would make later: a
//! plain one. Runs that read perf events need another, made when asked
//! for (the early one is then ended). A shield raised meanwhile changes
//! nothing: it leaves every process of perflab's, the fork server among
//! them, where it is, whenever it started.

use std::sync::mpsc::{Receiver, sync_channel};

use perflab_runner::{Executor, PerfEventSet, ProcessExecutor};

use crate::error::Result;

/// A command's executor: made ready early or when asked for, lent to the
/// command, ended with [`ExecutorSlot::end_beside`].
#[derive(Default)]
pub struct ExecutorSlot {
    /// The executor being made ready on a thread of its own, handed over
    /// as soon as it is (the thread's own end is not waited for).
    preparing: Option<Receiver<ProcessExecutor>>,
    /// The executor lent to the command.
    ready: Option<ProcessExecutor>,
}

impl ExecutorSlot {
    /// A slot whose executor is made ready at once, on a thread of its own
    /// (see the module's documentation). Where no thread can be started,
    /// it is made when asked for.
    pub fn preparing_early() -> Self {
        let (handover, preparing) = sync_channel(1);
        let started = std::thread::Builder::new()
            .name("perflab-prepare".into())
            .spawn(move || {
                let mut executor = ProcessExecutor::default();
                executor.prepare();
                // The slot waits for it whatever happens (see `drop`).
                let _ = handover.send(executor);
            });
        ExecutorSlot {
            preparing: started.ok().map(|_| preparing),
            ready: None,
        }
    }

    /// The executor of runs that read perf events where `perf_events` is
    /// set, ready for their first run (see [`Executor::prepare`]): the one
    /// made early where it fits, else a new one. A command asks once, when
    /// its input is checked.
    pub fn ready(&mut self, perf_events: bool) -> Result<&mut ProcessExecutor> {
        let early = self.preparing.take().and_then(|r| r.recv().ok());
        let executor = match early {
            Some(executor) if !perf_events => executor,
            unfit => {
                drop(unfit);
                fresh_executor(perf_events)?
            }
        };
        Ok(self.ready.insert(executor))
    }

    /// Ends the executor on a thread of its own while `end` runs on this
    /// one; returns once both are done.
    pub fn end_beside<T>(self, end: impl FnOnce() -> T) -> T {
        std::thread::scope(|scope| {
            scope.spawn(move || drop(self));
            end()
        })
    }
}

impl Drop for ExecutorSlot {
    fn drop(&mut self) {
        // An executor still being made is waited for and ended: its fork
        // server and cgroups must not outlive the command.
        if let Some(preparing) = self.preparing.take() {
            drop(preparing.recv());
        }
    }
}

/// Real processes, reading perf events when `perf_events` is set, made
/// ready for their first run.
fn fresh_executor(perf_events: bool) -> Result<ProcessExecutor> {
    let mut executor = if perf_events {
        // What the machine lacks is said once, here.
        let events = PerfEventSet::probe()?;
        for note in &events.notes {
            eprintln!("perflab: note: {note}");
        }
        ProcessExecutor::with_perf_events(events)
    } else {
        ProcessExecutor::default()
    };
    executor.prepare();
    Ok(executor)
}
