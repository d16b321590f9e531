//! `perflab serve`: the store as a web application (perflab-serve), whose
//! figures this command's library computes as `perflab history --changes`,
//! `perflab history --metric` and `perflab report` do.

use perflab_report::changes::StoreChanges;
use perflab_report::page::ExperimentReport;
use perflab_serve::{SeriesHistory, SeriesKey, Site, SourceError, StoreSource};
use perflab_stats::{DEFAULT_CONFIDENCE, Exchangeable, Thresholds};
use perflab_store::{Location, Store};

use crate::cli::{ServeArgs, serve_error};
use crate::error::{EXIT_OK, Error, Result};
use crate::gather::gather;
use crate::metric_direction::metric_direction;
use crate::metric_history::{HistoryQuery, metric_history};
use crate::metric_history_changes::store_changes;

/// `perflab serve`: serves until stopped.
pub fn serve(args: &ServeArgs, location: &Location) -> Result<i32> {
    let settings = args.settings()?;
    let (thresholds, confidence) = args.decision.decision()?;
    let store = Store::open_read_only(location, "--store")?;
    let site = Site::new(
        store,
        CommandSource {
            thresholds,
            confidence,
        },
        args.commit_url.clone(),
    );
    let scheme = if settings.tls.is_some() {
        "https"
    } else {
        "http"
    };
    perflab_serve::serve(site, settings, |addr| {
        eprintln!(
            "perflab: serving {} on {scheme}://{addr}/ (Ctrl-C stops)",
            location
        );
    })
    .map_err(serve_error)?;
    Ok(EXIT_OK)
}

/// The figures of the pages, computed by this library's history and report code.
pub struct CommandSource {
    /// The thresholds change points are judged at.
    pub thresholds: Thresholds,
    /// Their confidence level.
    pub confidence: f64,
}

impl Default for CommandSource {
    fn default() -> Self {
        CommandSource {
            thresholds: Thresholds::default(),
            confidence: DEFAULT_CONFIDENCE,
        }
    }
}

fn failed(e: Error) -> SourceError {
    match e {
        Error::Usage { message, .. } => SourceError::NotFound(message),
        other => SourceError::Failed(other.to_string()),
    }
}

impl StoreSource for CommandSource {
    fn changes(&self, store: &Store) -> std::result::Result<StoreChanges, SourceError> {
        store_changes(
            store,
            (None, None, None),
            Exchangeable::Groups,
            self.thresholds,
            self.confidence,
        )
        .map_err(failed)
    }

    fn experiment(
        &self,
        store: &Store,
        id: i64,
    ) -> std::result::Result<ExperimentReport, SourceError> {
        let mut data = gather(store, &[id.to_string()], true).map_err(failed)?;
        data.experiments.pop().ok_or_else(|| {
            SourceError::NotFound(format!("there is no experiment #{id} in the store"))
        })
    }

    fn series(
        &self,
        store: &Store,
        key: &SeriesKey,
    ) -> std::result::Result<SeriesHistory, SourceError> {
        let missing = || {
            SourceError::NotFound(format!(
                "the store holds no series of metric '{}', name '{}', variant '{}' on host '{}'",
                key.metric,
                key.name.as_deref().unwrap_or("(unnamed)"),
                key.variant,
                key.host.as_deref().unwrap_or("(unknown)")
            ))
        };
        let (better, unit) = metric_direction(store, &key.metric, None).map_err(|_| missing())?;
        // As `perflab history --changes` follows it: the variants of the
        // newest experiment with their commands; a variant given up since
        // is followed through every experiment that ran it.
        let mut query = HistoryQuery {
            metric: key.metric.clone(),
            better,
            name: key.name.clone(),
            variants: Vec::new(),
            reference: None,
            host: Some(key.host.clone().unwrap_or_default()),
            thresholds: self.thresholds,
            confidence: self.confidence,
            exchangeable: Exchangeable::Groups,
        };
        let mut history = metric_history(store, &query).map_err(failed)?;
        if !history.series.iter().any(|s| s.variant == key.variant) {
            query.variants = vec![key.variant.clone()];
            history = metric_history(store, &query).map_err(failed)?;
        }
        let series = history
            .series
            .into_iter()
            .find(|s| s.variant == key.variant && !s.steps.is_empty())
            .ok_or_else(missing)?;
        Ok(SeriesHistory {
            better,
            unit,
            judged_at: (history.go, history.nogo, history.confidence),
            series,
        })
    }
}
