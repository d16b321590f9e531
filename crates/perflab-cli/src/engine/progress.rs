//! What an engine tells a progress display while it runs. The displays
//! themselves (terminal bars) are the rendering layer's `progress` module;
//! engines see only these traits, and tests pass [`NoProgress`].

use perflab_stats::{Better, Interval, Verdict};

/// The decision so far, as a progress display shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecisionSoFar {
    /// The decision metric's change, positive when the candidate is better.
    pub interval: Interval,
    /// Which way the decision metric is better, to word the change as the
    /// candidate's value relative to the baseline's, as every report does.
    pub better: Better,
    /// The verdict at this point.
    pub verdict: Verdict,
}

/// Something that shows the progress of an A/B experiment or a suite.
pub trait Progress {
    /// `done` of at most `total` steps are finished; `decision` is the latest decision state.
    fn update(&mut self, done: usize, total: usize, decision: Option<DecisionSoFar>);
    /// Whether the next [`update`](Progress::update) would show a decision
    /// given to it: an engine works the decision so far out only then, since
    /// that costs more than a run of a fast command.
    fn shows_decision(&mut self) -> bool {
        true
    }
    /// The work is over.
    fn finish(&mut self);
    /// A line about the experiment under way (what it waits for); on
    /// stderr unless the display shows it otherwise.
    fn note(&mut self, line: &str) {
        eprintln!("perflab: {line}");
    }
}

/// One point of a sweep as the progress display sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct PointProgress {
    /// Blocks measured (one run of every command each).
    pub blocks: usize,
    /// Wall seconds its measured blocks took.
    pub seconds: f64,
    /// Widest relative half-width of its intervals, once known.
    pub widest: Option<f64>,
    /// Finished (precise or at its run limit).
    pub done: bool,
}

/// The state of a sweep after a visit.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepStatus {
    /// Every point.
    pub points: Vec<PointProgress>,
    /// Measured runs so far.
    pub runs: usize,
    /// Seconds since the sweep started.
    pub elapsed: f64,
    /// Target relative half-width.
    pub precision: f64,
    /// Blocks before a point may stop.
    pub min_runs: usize,
    /// Blocks at most per point.
    pub max_runs: usize,
    /// Label of the point just visited.
    pub current: String,
}

impl SweepStatus {
    /// Points finished.
    pub fn points_done(&self) -> usize {
        self.points.iter().filter(|p| p.done).count()
    }

    /// Estimated seconds left, or None before any point has been timed.
    ///
    /// A point's interval narrows about as 1/sqrt(blocks), so it needs about
    /// blocks · (widest / precision)² blocks in all, within the run limits;
    /// each remaining block costs what that point's blocks cost so far (or the
    /// average block, for a point not yet measured).
    pub fn remaining_seconds(&self) -> Option<f64> {
        let timed: Vec<&PointProgress> = self.points.iter().filter(|p| p.blocks > 0).collect();
        if timed.is_empty() {
            return None;
        }
        let average = timed.iter().map(|p| p.seconds).sum::<f64>()
            / timed.iter().map(|p| p.blocks).sum::<usize>() as f64;
        let mut left = 0.0;
        for p in self.points.iter().filter(|p| !p.done) {
            let needed = match p.widest {
                Some(w) if p.blocks > 0 && self.precision > 0.0 => {
                    (p.blocks as f64 * (w / self.precision).powi(2)).ceil() as usize
                }
                _ => self.min_runs,
            }
            .clamp(self.min_runs, self.max_runs);
            let per_block = if p.blocks > 0 {
                p.seconds / p.blocks as f64
            } else {
                average
            };
            left += needed.saturating_sub(p.blocks) as f64 * per_block;
        }
        Some(left)
    }
}

/// Something that shows a sweep's progress.
pub trait SweepProgress {
    /// After each visit of a point.
    fn update(&mut self, status: &SweepStatus);
    /// The sweep is over.
    fn finish(&mut self);
    /// A line about the sweep under way (what it waits for); on stderr
    /// unless the display shows it otherwise.
    fn note(&mut self, line: &str) {
        eprintln!("perflab: {line}");
    }
}

/// Shows nothing (not a terminal, `--quiet`, tests).
#[derive(Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn update(&mut self, _: usize, _: usize, _: Option<DecisionSoFar>) {}
    fn shows_decision(&mut self) -> bool {
        false
    }
    fn finish(&mut self) {}
}

impl SweepProgress for NoProgress {
    fn update(&mut self, _: &SweepStatus) {}
    fn finish(&mut self) {}
}
