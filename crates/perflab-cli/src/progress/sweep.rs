//! Progress of a sweep: points done, runs, and an estimate of the time left
//! from each point's own speed and how far its interval still has to narrow.

use indicatif::{ProgressBar, ProgressStyle};

use super::NoProgress;

/// One point as the progress display sees it.
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

    /// One line for the display: `3/8 points, 41 runs, about 2m 10s left`.
    pub fn describe(&self) -> String {
        let left = match self.remaining_seconds() {
            Some(s) => format!(
                ", about {} left",
                humantime::format_duration(std::time::Duration::from_secs(s.round() as u64))
            ),
            None => String::new(),
        };
        format!(
            "{}/{} points, {} runs{left} (last: {})",
            self.points_done(),
            self.points.len(),
            self.runs,
            self.current
        )
    }
}

/// Something that shows a sweep's progress.
pub trait SweepProgress {
    /// After each visit of a point.
    fn update(&mut self, status: &SweepStatus);
    /// The sweep is over.
    fn finish(&mut self);
}

impl SweepProgress for NoProgress {
    fn update(&mut self, _: &SweepStatus) {}
    fn finish(&mut self) {}
}

/// A bar of points done on stderr, with runs and the time left.
pub struct TerminalSweepProgress {
    bar: ProgressBar,
}

impl TerminalSweepProgress {
    /// A bar for `points` points; None when stderr is not a terminal or in a CI job.
    pub fn new(points: usize) -> Option<Self> {
        if !super::live_display_wanted() {
            return None;
        }
        let bar = ProgressBar::new(points as u64);
        bar.set_style(
            ProgressStyle::with_template("sweep {bar:25.cyan/blue} {msg} [{elapsed}]")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        Some(Self { bar })
    }
}

impl SweepProgress for TerminalSweepProgress {
    fn update(&mut self, status: &SweepStatus) {
        self.bar.set_position(status.points_done() as u64);
        self.bar.set_message(status.describe());
    }

    fn finish(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// A terminal display when possible and wanted, else nothing.
pub fn sweep_progress_for(points: usize, quiet: bool) -> Box<dyn SweepProgress> {
    match (quiet, TerminalSweepProgress::new(points)) {
        (false, Some(p)) => Box::new(p),
        _ => Box::new(NoProgress),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(points: Vec<PointProgress>) -> SweepStatus {
        SweepStatus {
            points,
            runs: 0,
            elapsed: 0.0,
            precision: 0.02,
            min_runs: 5,
            max_runs: 30,
            current: "n=1".into(),
        }
    }

    fn point(blocks: usize, seconds: f64, widest: Option<f64>, done: bool) -> PointProgress {
        PointProgress {
            blocks,
            seconds,
            widest,
            done,
        }
    }

    #[test]
    fn nothing_can_be_estimated_before_the_first_block() {
        assert_eq!(
            status(vec![point(0, 0.0, None, false)]).remaining_seconds(),
            None
        );
    }

    #[test]
    fn a_point_twice_as_wide_as_wanted_needs_four_times_its_blocks() {
        // 5 blocks at 1 s each, ±4 % against 2 %: 20 blocks in all, 15 to go.
        let s = status(vec![point(5, 5.0, Some(0.04), false)]);
        assert_eq!(s.remaining_seconds(), Some(15.0));
    }

    #[test]
    fn unmeasured_points_cost_the_average_block_and_finished_points_nothing() {
        let s = status(vec![
            point(5, 10.0, Some(0.01), true),
            point(0, 0.0, None, false),
        ]);
        // The unmeasured point needs the minimum 5 blocks at 2 s each.
        assert_eq!(s.remaining_seconds(), Some(10.0));
        assert_eq!(s.points_done(), 1);
        assert!(
            s.describe()
                .starts_with("1/2 points, 0 runs, about 10s left")
        );
    }

    #[test]
    fn the_estimate_never_exceeds_the_run_limit() {
        let s = status(vec![point(10, 10.0, Some(1.0), false)]);
        assert_eq!(s.remaining_seconds(), Some(20.0));
    }
}
