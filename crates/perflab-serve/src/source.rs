//! What the pages need computed as the `perflab` command computes it: the
//! change points of every series (`perflab history --changes`), one
//! experiment's report (`perflab report`) and one series' history
//! (`perflab history --metric`). The command supplies them through
//! [`StoreSource`], so that each is written once, in the command's library.

use perflab_format::history::VariantHistory;
use perflab_format::vocabulary::Better;
use perflab_report::changes::StoreChanges;
use perflab_report::page::ExperimentReport;
use perflab_store::Store;
use serde::{Deserialize, Serialize};

/// Why a [`StoreSource`] could not answer.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// What was asked for is not in the store (an experiment id, a series).
    #[error("{0}")]
    NotFound(String),
    /// The store could not be read, or what it holds could not be computed.
    #[error("{0}")]
    Failed(String),
}

/// One series: the experiments of one name, one metric, one variant, one host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SeriesKey {
    /// The experiments' name (None: unnamed experiments).
    pub name: Option<String>,
    /// The metric.
    pub metric: String,
    /// The variant.
    pub variant: String,
    /// The host (None: experiments whose host is unknown).
    pub host: Option<String>,
}

/// One series' history, as `perflab history --metric` computes it.
#[derive(Debug, Clone)]
pub struct SeriesHistory {
    /// Which way the metric is better.
    pub better: Better,
    /// The metric's unit.
    pub unit: String,
    /// The thresholds (GO, NO-GO) and confidence its steps were judged at.
    pub judged_at: (f64, f64, f64),
    /// The series: its steps, change points and total change.
    pub series: VariantHistory,
}

/// The computations of the `perflab` command that the pages show.
pub trait StoreSource: Send + Sync + 'static {
    /// The change points of every series in the store, as `perflab history
    /// --changes` finds them.
    ///
    /// # Errors
    /// [`SourceError::Failed`] when the store cannot be read.
    fn changes(&self, store: &Store) -> Result<StoreChanges, SourceError>;

    /// What `perflab report ID` shows of experiment `id`.
    ///
    /// # Errors
    /// [`SourceError::NotFound`] for an id the store does not hold.
    fn experiment(&self, store: &Store, id: i64) -> Result<ExperimentReport, SourceError>;

    /// The history of one series, as `perflab history --metric` computes it.
    ///
    /// # Errors
    /// [`SourceError::NotFound`] when the store holds no such series.
    fn series(&self, store: &Store, key: &SeriesKey) -> Result<SeriesHistory, SourceError>;
}
