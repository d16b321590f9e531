//! What a sweep has measured so far: per point its runs and how far it
//! got, and why the sweep stopped. The driver fills it; the document is
//! built from it (also while the sweep runs, as a checkpoint).

use perflab_format::vocabulary::SweepStop;

use crate::error::Error;
use perflab_runner::RunOutcome;
use perflab_store::provenance::Provenance;

/// The runs of one point.
#[derive(Debug, Clone, Default)]
pub struct PointState {
    /// Measured runs per command, in block order (so `runs[c][i]` pairs across commands).
    pub runs: Vec<Vec<RunOutcome>>,
    /// Warm-up done.
    pub warmed: bool,
    /// Reached its precision or run limit.
    pub done: bool,
    /// Wall seconds spent on its measured blocks.
    pub seconds: f64,
    /// Widest relative half-width after the last visit.
    pub widest: Option<f64>,
}

/// The state of a sweep: everything measured so far.
#[derive(Debug)]
pub struct SweepState {
    /// One entry per point of the sweep.
    pub points: Vec<PointState>,
    /// Why it stopped.
    pub stop: SweepStop,
    /// The error that stopped it, for [`SweepStop::Failed`].
    pub failure: Option<Error>,
    /// Experiment id in the store.
    pub experiment_id: Option<i64>,
    /// Seed of the visiting order.
    pub seed: u64,
    /// Provenance.
    pub provenance: Provenance,
}

impl SweepState {
    /// Measured runs over all points and commands.
    pub fn runs(&self) -> usize {
        self.points.iter().flat_map(|p| &p.runs).map(Vec::len).sum()
    }
}
