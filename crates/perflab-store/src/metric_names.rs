//! The names of the metrics each experiment's runs reported, kept in the
//! table `experiment_metrics` (schema version 6) as the runs are written,
//! so that the series of a store (an experiment name and a metric, for
//! `perflab history --changes` and `perflab serve`) are read from a small
//! table instead of from every run's metrics.
//!
//! Only measured runs count (a warm-up run's metrics name no series). A run
//! replaced later by a new measurement of its block leaves its names: they
//! are the names its block's new runs report too.

use std::collections::{BTreeSet, HashSet};
use std::sync::Mutex;

use crate::error::Result;
use crate::sql::values;
use crate::{Store, spool};

/// The (experiment, metric name) pairs this process has stored, so that
/// each is written once rather than with every run.
#[derive(Debug, Default)]
pub(crate) struct Recorded(Mutex<HashSet<(i64, String)>>);

impl Recorded {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<(i64, String)>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Store {
    /// The metric names the measured runs among `runs` report that this
    /// process has not stored for `experiment` yet, sorted.
    pub(crate) fn unrecorded_metric_names(
        &self,
        experiment: i64,
        runs: &[spool::RunRecord],
    ) -> Vec<String> {
        let recorded = self.metric_names.lock();
        let names: BTreeSet<&String> = runs
            .iter()
            .filter(|r| !r.place.warmup)
            .flat_map(|r| r.outcome.metrics.keys())
            .filter(|name| !recorded.contains(&(experiment, (*name).clone())))
            .collect();
        names.into_iter().cloned().collect()
    }

    /// Stores metric names of `experiment` (a name it has already is left
    /// as it is, as another process may have stored it).
    pub(crate) fn record_metric_names(&self, experiment: i64, names: &[String]) -> Result<()> {
        for name in names {
            self.execute(
                "INSERT INTO experiment_metrics (experiment_id, metric) VALUES (?1, ?2)
                 ON CONFLICT DO NOTHING",
                values![experiment, name],
            )?;
        }
        Ok(())
    }

    /// Remembers names stored for `experiment`, once their write is committed.
    pub(crate) fn remember_metric_names(&self, experiment: i64, names: Vec<String>) {
        self.metric_names
            .lock()
            .extend(names.into_iter().map(|name| (experiment, name)));
    }

    /// Stores the metric names of every measured run of `experiment` (the
    /// runs copied into this store by `transfer`).
    pub(crate) fn record_metric_names_of_runs(&self, experiment: i64) -> Result<()> {
        self.execute(
            &format!(
                "INSERT INTO experiment_metrics (experiment_id, metric)
                 SELECT DISTINCT r.experiment_id, j.key FROM runs r, {} j
                 WHERE r.experiment_id = ?1 AND r.warmup = 0 AND r.replaced = 0
                 ON CONFLICT DO NOTHING",
                self.db.dialect().metric_names_of_run()
            ),
            values![experiment],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use perflab_format::vocabulary::ExperimentKind;
    use perflab_runner::{MetricValue, RunOutcome};

    use crate::batch::tests::{one_variant_experiment, outcome};
    use crate::schema::SCHEMA_VERSION;
    use crate::sql::Value;
    use crate::{Selection, Store};

    fn reporting(metrics: &[&str]) -> RunOutcome {
        let mut run = outcome(0.5);
        for name in metrics {
            let value = MetricValue {
                value: 2.0,
                unit: String::new(),
            };
            run.metrics.insert((*name).to_string(), value);
        }
        run
    }

    /// An experiment named `name` whose warm-up run reports `warmup` and
    /// whose two measured runs report `measured`.
    fn experiment(store: &Store, name: &str, warmup: &[&str], measured: &[&str]) -> i64 {
        let (id, variant) = one_variant_experiment(store, ExperimentKind::Run, Some(name), None);
        store
            .record_run(id, variant, 1, 0, true, &reporting(warmup))
            .unwrap();
        for sequence in 2..=3 {
            store
                .record_run(
                    id,
                    variant,
                    sequence,
                    sequence - 2,
                    false,
                    &reporting(measured),
                )
                .unwrap();
        }
        id
    }

    fn stored_names(store: &Store) -> Vec<(i64, String)> {
        store
            .rows(
                "SELECT experiment_id, metric FROM experiment_metrics ORDER BY experiment_id, metric",
                &[],
            )
            .unwrap()
            .into_iter()
            .map(|r| (r.i64(0).unwrap(), r.text(1).unwrap()))
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(Option<String>, String)> {
        list.iter()
            .map(|(n, m)| (Some((*n).to_string()), (*m).to_string()))
            .collect()
    }

    #[test]
    fn the_metric_names_of_measured_runs_are_stored_once_and_name_the_series() {
        let store = Store::in_memory().unwrap();
        let a = experiment(&store, "parse", &["warm-only"], &["cost", "cpu-wait"]);
        let b = experiment(&store, "insert", &[], &["cost"]);
        assert_eq!(
            stored_names(&store),
            vec![
                (a, "cost".to_string()),
                (a, "cpu-wait".to_string()),
                (b, "cost".to_string())
            ]
        );
        assert_eq!(
            store.named_metrics().unwrap(),
            pairs(&[("insert", "cost"), ("parse", "cost"), ("parse", "cpu-wait")])
        );
    }

    #[test]
    fn the_values_of_many_names_read_at_once_are_those_of_each_name_read_alone() {
        let store = Store::in_memory().unwrap();
        for name in ["parse", "insert", "parse", "scan"] {
            experiment(&store, name, &[], &["cost"]);
        }
        let (unnamed, variant) = one_variant_experiment(&store, ExperimentKind::Run, None, None);
        store
            .record_run(unnamed, variant, 1, 0, false, &reporting(&["cost"]))
            .unwrap();
        let names = [Some("parse".to_string()), Some("insert".to_string()), None];
        for metric in ["cost", "wall"] {
            let together = store.metric_values_of_names(&names, metric).unwrap();
            assert_eq!(together.len(), 3, "scan was not asked for");
            for name in &names {
                let alone = store.metric_values(name.as_deref(), metric).unwrap();
                assert_eq!(together[name], alone, "{name:?} {metric}");
            }
            assert_eq!(together[&Some("parse".to_string())].len(), 2);
        }
        assert!(
            store
                .metric_values_of_names(&[], "cost")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn copied_runs_bring_their_metric_names_into_the_receiving_store() {
        let from = Store::in_memory().unwrap();
        experiment(&from, "parse", &["warm-only"], &["cost"]);
        let to = Store::in_memory().unwrap();
        from.copy_to(&to, &Selection::default()).unwrap();
        assert_eq!(to.named_metrics().unwrap(), pairs(&[("parse", "cost")]));
        // Copying again stores nothing twice.
        from.copy_to(&to, &Selection::default()).unwrap();
        assert_eq!(stored_names(&to).len(), 1);
    }

    #[test]
    fn a_store_of_schema_5_is_migrated_with_the_metric_names_of_its_runs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        {
            let store = Store::open(&path).unwrap();
            experiment(&store, "parse", &["warm-only"], &["cost"]);
            experiment(&store, "insert", &[], &["bytes"]);
            // As schema 5 left it: no table of names, no indexes.
            store
                .db
                .batch(
                    "DROP TABLE experiment_metrics; DROP INDEX experiments_by_name;
                     DROP INDEX experiments_by_host; DROP INDEX results_by_metric;
                     ALTER TABLE runs DROP COLUMN peak_memory_source;
                     PRAGMA user_version = 5;",
                )
                .unwrap();
        }
        let store = Store::open(&path).unwrap();
        let version = store.rows("PRAGMA user_version", &[]).unwrap();
        assert_eq!(version[0].i64(0).unwrap(), SCHEMA_VERSION);
        assert_eq!(
            store.named_metrics().unwrap(),
            pairs(&[("insert", "bytes"), ("parse", "cost")])
        );
        let indexes = store
            .rows(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND name = ?1",
                &[Value::Text("experiments_by_name".into())],
            )
            .unwrap();
        assert_eq!(indexes.len(), 1, "the index of names is made");
        assert_eq!(
            store.metric_values(Some("insert"), "bytes").unwrap().len(),
            1
        );
    }
}
