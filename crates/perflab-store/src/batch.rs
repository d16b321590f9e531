//! Runs written in batches: the runs of a fast command are kept in memory
//! for a short while and written together, in one transaction.
//!
//! Why: a transaction of its own per run costs perflab about twenty system
//! calls (the write-ahead log's locks, its frames, its index), paid between
//! two runs of a command that may take under a millisecond. A batch shares
//! them among up to [`BATCH_RUNS`] runs.
//!
//! When: a batch that holds [`BATCH_RUNS`] runs is written beside the next
//! run, while its command runs ([`RunBatch::write_if_full`], given to
//! `perflab_runner::Executor::execute_beside`): a batch's write took about
//! 0.4 ms here, which came between two runs once every 64 runs. (Where
//! the executor cannot work beside a run, it does so once the run is
//! over.) A batch whose first run is [`BATCH_AGE`] old is written as the
//! next run is added, at once: for runs that slow, a write between two
//! runs is a small share of a run.
//!
//! What can be lost: the caller writes the batch on every way out, Ctrl-C
//! and a failed run included ([`RunBatch::write`]), so those lose nothing.
//! A crash or `kill -9` of perflab loses the batch in flight: at most the
//! runs that finished in the last [`BATCH_AGE`], never more than
//! [`BATCH_RUNS`] and the runs made while the batch is written (one, or a
//! duet mode's pair). Each run keeps the time it finished, not the time
//! its batch was written. (As for every write to the store, a power cut
//! may also lose the last transactions: the log is synced at checkpoints,
//! not at every commit.)

use std::time::{Duration, Instant};

use perflab_runner::RunOutcome;

use super::Store;
use crate::error::Result;
use crate::provenance::now_rfc3339;
use crate::spool::{RunRecord, Write};
use crate::sql::new_uid;

/// The most runs one batch holds.
pub(crate) const BATCH_RUNS: usize = 64;

/// How long a run may wait in memory for its batch to be written.
pub(crate) const BATCH_AGE: Duration = Duration::from_millis(500);

/// Where a run belongs: its experiment and variant, and its position.
#[derive(Debug, Clone, Copy)]
pub struct RunPlace {
    /// The experiment's id.
    pub experiment_id: i64,
    /// The variant's id.
    pub variant_id: i64,
    /// Its place among all the experiment's runs, from 1.
    pub sequence: usize,
    /// Its place among its variant's runs of the same kind (warm-up or measured), from 0.
    pub iteration: usize,
    /// Whether it is a warm-up run.
    pub warmup: bool,
}

/// Finished runs not yet written to the store.
pub struct RunBatch<'s> {
    store: &'s Store,
    pending: Vec<(RunPlace, String, RunOutcome)>,
    opened: Option<Instant>,
    age: Duration,
}

impl<'s> RunBatch<'s> {
    /// An empty batch for `store`.
    pub fn new(store: &'s Store) -> Self {
        Self::with_age(store, BATCH_AGE)
    }

    /// An empty batch written once its first run is `age` old.
    fn with_age(store: &'s Store, age: Duration) -> Self {
        Self {
            store,
            pending: Vec::with_capacity(BATCH_RUNS),
            opened: None,
            age,
        }
    }

    /// Adds a finished run; writes the batch when it is old enough, or
    /// when it holds twice a full batch's runs because nobody wrote it
    /// when it was full ([`RunBatch::write_if_full`]).
    pub fn add(&mut self, place: RunPlace, run: &RunOutcome) -> Result<()> {
        self.pending.push((place, now_rfc3339(), run.clone()));
        let opened = *self.opened.get_or_insert_with(Instant::now);
        if self.pending.len() >= 2 * BATCH_RUNS || opened.elapsed() >= self.age {
            self.write()?;
        }
        Ok(())
    }

    /// Writes the runs held once they make a full batch (64 runs): what to
    /// do beside the next run (see the module's documentation).
    pub fn write_if_full(&mut self) -> Result<()> {
        if self.pending.len() >= BATCH_RUNS {
            self.write()?;
        }
        Ok(())
    }

    /// Marks runs of `experiment_id` replaced (the contention rule's
    /// repeated blocks), writing the runs held first so that the mark finds
    /// them.
    pub fn mark_replaced(
        &mut self,
        experiment_id: i64,
        sequences: std::ops::RangeInclusive<usize>,
    ) -> Result<()> {
        self.write()?;
        self.store.mark_replaced(experiment_id, sequences)
    }

    /// Writes the runs held, in one transaction. Call it before anything
    /// that reads the runs back or ends the experiment.
    pub fn write(&mut self) -> Result<()> {
        self.opened = None;
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut pending = std::mem::take(&mut self.pending).into_iter().peekable();
        // One write per experiment (a batch holds the runs of one, in practice).
        while let Some((place, finished_at, outcome)) = pending.next() {
            let experiment_id = place.experiment_id;
            let mut runs = vec![RunRecord {
                place,
                finished_at,
                outcome,
                uid: new_uid(),
            }];
            while let Some((place, finished_at, outcome)) =
                pending.next_if(|(next, _, _)| next.experiment_id == experiment_id)
            {
                runs.push(RunRecord {
                    place,
                    finished_at,
                    outcome,
                    uid: new_uid(),
                });
            }
            self.store
                .write_to_experiment(experiment_id, Write::Runs(runs))?;
        }
        Ok(())
    }
}

impl Drop for RunBatch<'_> {
    /// Writes what is left (an early return with `?`, a panic): the runs
    /// were measured, so they are kept. An error here has nowhere to go;
    /// the callers write the batch themselves on every path they foresee.
    fn drop(&mut self) {
        let _ = self.write();
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use perflab_format::vocabulary::ExperimentKind;
    use perflab_runner::ExitState;

    use super::*;
    use crate::VariantRecord;
    use crate::provenance::Provenance;

    /// A run of `wall_s` seconds, the same in every test of the store.
    pub(crate) fn outcome(wall_s: f64) -> RunOutcome {
        RunOutcome {
            wall_s,
            user_s: 0.0,
            sys_s: 0.0,
            peak_memory_kib: 1.0,
            exit: ExitState::Code(0),
            unreadable_metrics: Default::default(),
            metrics: BTreeMap::new(),
            output_tail: String::new(),
            profile_json: None,
            answer: None,
            containment: Default::default(),
        }
    }

    /// Begins an experiment of one variant `a` running `true`; returns its
    /// id and the variant's (shared by the store's unit tests).
    pub(crate) fn one_variant_experiment(
        store: &Store,
        kind: ExperimentKind,
        name: Option<&str>,
        metric: Option<&str>,
    ) -> (i64, i64) {
        let provenance = Provenance::collect(std::path::Path::new("."));
        let variant = VariantRecord {
            name: "a",
            command: "true",
            env: &[],
            cwd: None,
        };
        let (id, variants) = store
            .begin_experiment(kind, name, metric, &provenance, "{}", &[variant])
            .unwrap();
        (id, variants[0])
    }

    fn experiment(store: &Store) -> (i64, i64) {
        one_variant_experiment(store, ExperimentKind::Run, None, None)
    }

    fn place(experiment_id: i64, variant_id: i64, sequence: usize) -> RunPlace {
        RunPlace {
            experiment_id,
            variant_id,
            sequence,
            iteration: sequence - 1,
            warmup: false,
        }
    }

    #[test]
    fn runs_wait_in_the_batch_until_it_is_full_then_are_written_in_order() {
        let store = Store::in_memory().unwrap();
        let (id, variant) = experiment(&store);
        let mut batch = RunBatch::with_age(&store, Duration::MAX);
        for sequence in 1..BATCH_RUNS {
            batch
                .add(place(id, variant, sequence), &outcome(sequence as f64))
                .unwrap();
            batch.write_if_full().unwrap();
        }
        assert_eq!(store.count_runs(id).unwrap(), 0);
        batch
            .add(place(id, variant, BATCH_RUNS), &outcome(BATCH_RUNS as f64))
            .unwrap();
        assert_eq!(store.count_runs(id).unwrap(), 0, "a full batch waits");
        batch.write_if_full().unwrap();
        assert_eq!(store.count_runs(id).unwrap(), BATCH_RUNS as i64);
        let walls: Vec<f64> = store
            .runs_of(id)
            .unwrap()
            .iter()
            .map(|r| r.outcome.wall_s)
            .collect();
        let expected: Vec<f64> = (1..=BATCH_RUNS).map(|s| s as f64).collect();
        assert_eq!(walls, expected);
    }

    #[test]
    fn writing_the_batch_keeps_every_run_added_so_far_and_dropping_it_too() {
        let store = Store::in_memory().unwrap();
        let (id, variant) = experiment(&store);
        let mut batch = RunBatch::with_age(&store, Duration::MAX);
        batch.add(place(id, variant, 1), &outcome(1.0)).unwrap();
        batch.add(place(id, variant, 2), &outcome(2.0)).unwrap();
        assert_eq!(store.count_runs(id).unwrap(), 0);
        batch.write().unwrap();
        assert_eq!(store.count_runs(id).unwrap(), 2);
        batch.add(place(id, variant, 3), &outcome(3.0)).unwrap();
        drop(batch);
        assert_eq!(store.count_runs(id).unwrap(), 3);
    }

    #[test]
    fn a_full_batch_nobody_wrote_is_written_once_it_holds_twice_as_many_runs() {
        let store = Store::in_memory().unwrap();
        let (id, variant) = experiment(&store);
        let mut batch = RunBatch::with_age(&store, Duration::MAX);
        for sequence in 1..2 * BATCH_RUNS {
            batch
                .add(place(id, variant, sequence), &outcome(sequence as f64))
                .unwrap();
        }
        assert_eq!(store.count_runs(id).unwrap(), 0);
        let last = 2 * BATCH_RUNS;
        batch
            .add(place(id, variant, last), &outcome(last as f64))
            .unwrap();
        assert_eq!(store.count_runs(id).unwrap(), last as i64);
    }

    #[test]
    fn a_run_that_finds_its_batch_old_enough_writes_it_at_once() {
        let store = Store::in_memory().unwrap();
        let (id, variant) = experiment(&store);
        let mut batch = RunBatch::with_age(&store, Duration::ZERO);
        batch.add(place(id, variant, 1), &outcome(1.0)).unwrap();
        assert_eq!(store.count_runs(id).unwrap(), 1);
        batch.add(place(id, variant, 2), &outcome(2.0)).unwrap();
        assert_eq!(store.count_runs(id).unwrap(), 2);
    }
}
