//! The terminal display of a sweep's progress: points done, runs, and an
//! estimate of the time left (the engine's [`SweepStatus`]).

use indicatif::{ProgressBar, ProgressStyle};

use crate::engine::progress::{NoProgress, SweepProgress, SweepStatus};

/// One line for the display: `3/8 points, 41 runs, about 2m 10s left`.
pub(super) fn describe(status: &SweepStatus) -> String {
    let left = match status.remaining_seconds() {
        Some(s) => format!(
            ", about {} left",
            humantime::format_duration(std::time::Duration::from_secs(s.round() as u64))
        ),
        None => String::new(),
    };
    format!(
        "{}/{} points, {} runs{left} (last: {})",
        status.points_done(),
        status.points.len(),
        status.runs,
        status.current
    )
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
        self.bar.set_message(describe(status));
    }

    fn finish(&mut self) {
        self.bar.finish_and_clear();
    }

    fn note(&mut self, line: &str) {
        self.bar.println(format!("perflab: {line}"));
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
    use crate::engine::progress::PointProgress;

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
        assert!(describe(&s).starts_with("1/2 points, 0 runs, about 10s left"));
    }

    #[test]
    fn the_estimate_never_exceeds_the_run_limit() {
        let s = status(vec![point(10, 10.0, Some(1.0), false)]);
        assert_eq!(s.remaining_seconds(), Some(20.0));
    }
}
