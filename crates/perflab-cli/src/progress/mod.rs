//! Progress on a terminal: runs done and the interval as it narrows; for
//! sweeps, points done and the time left. None in a CI job: job logs keep
//! every redraw, and some give the job a terminal.
//!
//! The engine reports progress through its traits
//! ([`crate::engine::progress`]); the bars here implement them.

mod sweep;

pub use sweep::{TerminalSweepProgress, sweep_progress_for};

use indicatif::{ProgressBar, ProgressStyle};

use crate::engine::progress::{DecisionSoFar, NoProgress, Progress};
use perflab_format::change_words::ChangeWords;

/// A progress bar on stderr.
pub struct TerminalProgress {
    bar: ProgressBar,
    /// When the decision was last shown: it is shown anew at most every
    /// [`DECISION_EVERY`].
    decision_shown: Option<std::time::Instant>,
}

/// How often the bar's decision is brought up to date: faster than anyone
/// reads, slower than runs of a fast command end.
const DECISION_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

impl TerminalProgress {
    /// A bar for `total` steps labelled `what`; `None` when stderr is not a
    /// terminal or in a CI job.
    pub fn new(what: &str, total: usize) -> Option<Self> {
        if !live_display_wanted() {
            return None;
        }
        let bar = ProgressBar::new(total as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix} {bar:25.cyan/blue} {pos}/{len} {msg} [{elapsed}]",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix(what.to_string());
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        Some(Self {
            bar,
            decision_shown: None,
        })
    }
}

impl Progress for TerminalProgress {
    fn update(&mut self, done: usize, total: usize, decision: Option<DecisionSoFar>) {
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
        if let Some(e) = decision {
            let change = ChangeWords::from_improvement(
                "",
                e.better,
                e.interval.estimate,
                Some([e.interval.lo, e.interval.hi]),
            );
            self.bar
                .set_message(format!("B relative to A {} {}", change.cell(), e.verdict));
        }
    }

    fn shows_decision(&mut self) -> bool {
        let due = self
            .decision_shown
            .is_none_or(|at| at.elapsed() >= DECISION_EVERY);
        if due {
            self.decision_shown = Some(std::time::Instant::now());
        }
        due
    }

    fn finish(&mut self) {
        self.bar.finish_and_clear();
    }

    fn note(&mut self, line: &str) {
        self.bar.println(format!("perflab: {line}"));
    }
}

/// A terminal progress bar when possible and wanted, else nothing.
pub fn progress_for(what: &str, total: usize, quiet: bool) -> Box<dyn Progress> {
    match (quiet, TerminalProgress::new(what, total)) {
        (false, Some(p)) => Box::new(p),
        _ => Box::new(NoProgress),
    }
}

/// True when stderr is a terminal a person watches: not redirected, and not
/// a CI job's log.
pub fn live_display_wanted() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && !perflab_store::ci::in_ci()
}
