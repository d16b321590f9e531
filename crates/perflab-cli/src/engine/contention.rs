//! The contention rule as every engine applies it (`--max-cpu-wait`): once
//! a block's runs are made, perflab-stats' [`ContentionRule`] judges them
//! by their CPU wait alone; a contended block's runs, already stored as
//! they finished, are marked replaced in the store and the engine measures
//! the block again, at most [`ContentionRule::max_repeats`] times, after
//! which the block is kept and counted as such. The rule never looks at the
//! timings and treats every run of a block alike, whichever variant it is;
//! a run without a CPU wait measurement never triggers it. Why the decision
//! stays valid is in perflab-stats' `sequential::contention` and
//! docs/decision.md.
//!
//! The state lives in the [`RunMaker`](super::RunMaker), which knows the
//! store and the sequence numbers of the runs it made, so that each engine
//! only says where a block begins and asks whether to keep it.

use perflab_format::contention::ContentionDoc;
use perflab_runner::RunOutcome;
use perflab_stats::{BlockFate, ContentionRule};

use crate::error::Result;
use perflab_store::RunBatch;

/// The rule of one experiment, the block under way and what it did so far.
#[derive(Debug, Clone, Default)]
pub struct Contention {
    rule: Option<ContentionRule>,
    /// The store's sequence number of the last run before the block under way.
    block_start: usize,
    /// How many times the block under way was measured again.
    repeats: usize,
    /// Whether any judged run had its CPU wait measured.
    measured: bool,
    blocks_measured_again: usize,
    runs_replaced: usize,
    blocks_kept_contended: usize,
}

impl Contention {
    /// The rule at `max_cpu_wait` (a share of wall time), or none.
    pub fn new(max_cpu_wait: Option<f64>) -> Result<Self> {
        Ok(Self {
            rule: max_cpu_wait.map(ContentionRule::new).transpose()?,
            ..Self::default()
        })
    }

    /// A new block begins (or a new measurement of it) after the run
    /// numbered `sequence`.
    pub(super) fn begin(&mut self, sequence: usize) {
        self.block_start = sequence;
    }

    /// Judges the block whose runs are `runs`, the last numbered
    /// `sequence`: true to keep it; false when it is to be measured again,
    /// its runs then marked replaced in the store under `experiment_id`
    /// (the batch of runs not yet written is written first).
    pub(super) fn keep<'r>(
        &mut self,
        runs: impl IntoIterator<Item = &'r RunOutcome>,
        sequence: usize,
        store: Option<(&mut RunBatch, i64)>,
    ) -> Result<bool> {
        let shares: Vec<Option<f64>> = runs.into_iter().map(RunOutcome::cpu_wait_share).collect();
        self.measured |= shares.iter().any(Option::is_some);
        let Some(rule) = self.rule else {
            return Ok(true);
        };
        match rule.fate(shares.iter().copied(), self.repeats) {
            BlockFate::Keep => {
                self.repeats = 0;
                Ok(true)
            }
            BlockFate::KeepContended => {
                self.repeats = 0;
                self.blocks_kept_contended += 1;
                Ok(true)
            }
            BlockFate::MeasureAgain => {
                if let Some((batch, id)) = store.filter(|_| sequence > self.block_start) {
                    batch.mark_replaced(id, self.block_start + 1..=sequence)?;
                }
                self.repeats += 1;
                self.blocks_measured_again += 1;
                self.runs_replaced += shares.len();
                Ok(false)
            }
        }
    }

    /// What the rule did, for the result document: `None` when it was off
    /// or no run's CPU wait was measured (so that such results read as
    /// they always did).
    pub fn doc(&self) -> Option<ContentionDoc> {
        let rule = self.rule?;
        (self.measured || self.blocks_measured_again > 0).then(|| ContentionDoc {
            max_cpu_wait: rule.max_cpu_wait(),
            max_repeats: rule.max_repeats(),
            blocks_measured_again: self.blocks_measured_again,
            runs_replaced: self.runs_replaced,
            blocks_kept_contended: self.blocks_kept_contended,
        })
    }
}
