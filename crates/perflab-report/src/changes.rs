//! The change points of every series in a store, as `perflab history
//! --changes` shows them (the CLI's `metric_history_changes` finds them).

use std::collections::BTreeMap;

use perflab_format::history::ChangePointDoc;

/// One change point of one series.
#[derive(Debug, Clone)]
pub struct SeriesChange {
    /// The experiments' name.
    pub name: Option<String>,
    /// The metric.
    pub metric: String,
    /// Its unit.
    pub unit: String,
    /// Which way the metric is better.
    pub better: perflab_format::vocabulary::Better,
    /// The variant.
    pub variant: String,
    /// The host its experiments ran on (None if unknown).
    pub host: Option<String>,
    /// The change point.
    pub change: ChangePointDoc,
    /// The experiments of the first step after it, oldest first: whose
    /// command an A/B confirming it runs.
    pub experiments_after: Vec<i64>,
    /// The runs of the commits on either side of it (its two segments), by
    /// commit: what an A/B confirming it is sized from.
    pub runs_around: Vec<Vec<f64>>,
    /// Whether its series was measured at the newest commit of its host.
    pub watched: bool,
    /// Whether it is its series' newest change point.
    pub newest: bool,
}

/// Every change point in the store.
#[derive(Debug, Clone)]
pub struct StoreChanges {
    /// Change points, newest first.
    pub changes: Vec<SeriesChange>,
    /// How many series (name, metric, variant, host) were judged.
    pub series: usize,
    /// How many of them are watched.
    pub watched_series: usize,
    /// The step label of each judged series' host's newest commit, which
    /// makes a series of that host watched (the host is empty if unknown).
    pub newest_steps: BTreeMap<String, String>,
    /// Probability that a series without change shows a change point.
    pub false_alarm: f64,
    /// Series left out, and why.
    pub skipped: Vec<String>,
}

impl StoreChanges {
    /// The change points that fail the command: the newest of a watched
    /// series, when it is a regression (confirmed, when it was put to an
    /// A/B: [`ChangePointDoc::is_regression`]).
    pub fn watched_regressions(&self) -> impl Iterator<Item = &SeriesChange> {
        self.changes
            .iter()
            .filter(|c| c.watched && c.newest && c.change.is_regression())
    }
}
