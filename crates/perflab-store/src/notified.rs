//! The change points whose regression was posted to a webhook (`perflab
//! history --changes --notify`), so that each is posted once: a CI job
//! running the command after every commit finds the same regression at
//! each run until the series changes again, and must not post it again.
//!
//! A change point is known by its series (experiment name, metric, variant,
//! host) and the labels of the two steps it lies between. A post is
//! recorded only after the webhook accepted it, so one that failed is
//! posted again by the next run. Two processes recording the same change
//! point at once store it once (the unique index).

use super::Store;
use super::sql::values;
use crate::error::{Result, StoreError};
use crate::provenance::now_rfc3339;

/// The table of this file: schema version 5. Names and hosts that are
/// unknown are stored as empty text, so that the unique index, which
/// treats NULLs as distinct, holds for them too.
pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS notified_changes (
    id {id},
    name TEXT NOT NULL,
    metric TEXT NOT NULL,
    variant TEXT NOT NULL,
    host TEXT NOT NULL,
    from_step TEXT NOT NULL,
    to_step TEXT NOT NULL,
    to_commit TEXT,
    sent_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS notified_changes_by_change
    ON notified_changes(name, metric, variant, host, from_step, to_step);
";

/// A change point of one series, as the record of its notification knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotifiedChange<'a> {
    /// The experiments' name (None when unnamed).
    pub name: Option<&'a str>,
    /// The metric.
    pub metric: &'a str,
    /// The variant.
    pub variant: &'a str,
    /// The host its experiments ran on (None when unknown).
    pub host: Option<&'a str>,
    /// The label of the last step before the change.
    pub from_step: &'a str,
    /// The label of the first step after it.
    pub to_step: &'a str,
    /// The full commit of the first step after it, if any (kept for the
    /// reader of the table; not part of the key).
    pub to_commit: Option<&'a str>,
}

impl Store {
    /// True when the regression of `change` was already posted.
    pub fn was_notified(&self, change: &NotifiedChange<'_>) -> Result<bool> {
        let row = self.first_row(
            "SELECT COUNT(*) FROM notified_changes
             WHERE name = ?1 AND metric = ?2 AND variant = ?3 AND host = ?4
               AND from_step = ?5 AND to_step = ?6",
            values![
                change.name.unwrap_or_default(),
                change.metric,
                change.variant,
                change.host.unwrap_or_default(),
                change.from_step,
                change.to_step
            ],
        )?;
        let count = row
            .map_or(Ok(0), |r| r.i64(0))
            .map_err(|e: StoreError| self.err(e))?;
        Ok(count > 0)
    }

    /// Records that the regression of `change` was posted (once: recording
    /// it again changes nothing).
    pub fn record_notified(&self, change: &NotifiedChange<'_>) -> Result<()> {
        self.execute(
            "INSERT INTO notified_changes
                 (name, metric, variant, host, from_step, to_step, to_commit, sent_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT (name, metric, variant, host, from_step, to_step) DO NOTHING",
            values![
                change.name.unwrap_or_default(),
                change.metric,
                change.variant,
                change.host.unwrap_or_default(),
                change.from_step,
                change.to_step,
                change.to_commit,
                now_rfc3339()
            ],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change<'a>(name: Option<&'a str>, to_step: &'a str) -> NotifiedChange<'a> {
        NotifiedChange {
            name,
            metric: "wall",
            variant: "A",
            host: None,
            from_step: "a1b2c3d4",
            to_step,
            to_commit: Some("e5f6a7b8c9"),
        }
    }

    #[test]
    fn a_change_point_recorded_as_notified_is_known_by_its_series_and_steps_only() {
        let store = Store::in_memory().unwrap();
        let sent = change(Some("insert-10K"), "e5f6a7b8");
        assert!(!store.was_notified(&sent).unwrap());
        store.record_notified(&sent).unwrap();
        assert!(store.was_notified(&sent).unwrap());
        // Recording it again keeps one row.
        store.record_notified(&sent).unwrap();
        let rows = store
            .rows("SELECT COUNT(*) FROM notified_changes", &[])
            .unwrap();
        assert_eq!(rows[0].i64(0).unwrap(), 1);
        // Another series, or another change point of the same series, is news.
        assert!(!store.was_notified(&change(None, "e5f6a7b8")).unwrap());
        assert!(
            !store
                .was_notified(&change(Some("insert-10K"), "0badc0de"))
                .unwrap()
        );
        let unnamed = change(None, "e5f6a7b8");
        store.record_notified(&unnamed).unwrap();
        store.record_notified(&unnamed).unwrap();
        assert!(store.was_notified(&unnamed).unwrap());
        let rows = store
            .rows("SELECT COUNT(*) FROM notified_changes", &[])
            .unwrap();
        assert_eq!(rows[0].i64(0).unwrap(), 2);
    }
}
