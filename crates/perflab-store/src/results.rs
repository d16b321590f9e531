//! Reading experiments back for reports: finding one by id or name, its
//! stored result and its runs.

use super::Store;
use super::sql::{Row, values};
use crate::error::{Error, Result, StoreError};
use crate::spool::Write;
use perflab_format::vocabulary::{ExperimentKind, ResultStatus};
use perflab_runner::{Containment, ExitState, MetricValue, PeakMemorySource, RunOutcome};

/// A run as stored.
#[derive(Debug, Clone)]
pub struct StoredRun {
    /// Its variant's id.
    pub variant_id: i64,
    /// Its variant's name.
    pub variant: String,
    /// Whether it was a warm-up run.
    pub warmup: bool,
    /// What it measured.
    pub outcome: RunOutcome,
}

/// An experiment's row, for a report's heading.
#[derive(Debug, Clone)]
pub struct ExperimentSummary {
    /// Id.
    pub id: i64,
    /// The command that stored it.
    pub kind: ExperimentKind,
    /// Name, if given.
    pub name: Option<String>,
    /// `running`, `complete` or `incomplete`.
    pub status: ResultStatus,
    /// The metric decided on or measured.
    pub metric: Option<String>,
    /// The stored result document, if it finished (or a sweep's checkpoint).
    pub result_json: Option<String>,
}

impl Store {
    /// An experiment's row.
    pub fn experiment_summary(&self, id: i64) -> Result<ExperimentSummary> {
        let row = self
            .first_row(
                "SELECT id, kind, name, status, metric, result_json FROM experiments WHERE id = ?1",
                values![id],
            )?
            .ok_or_else(|| self.err(super::sql::missing("an experiment")))?;
        let read = || -> std::result::Result<ExperimentSummary, StoreError> {
            Ok(ExperimentSummary {
                id: row.i64(0)?,
                kind: row.word(1, "an experiment kind", ExperimentKind::from_word)?,
                name: row.opt_text(2)?,
                status: row.word(3, "a result status", ResultStatus::from_word)?,
                metric: row.opt_text(4)?,
                result_json: row.opt_text(5)?,
            })
        };
        read().map_err(|e| self.err(e))
    }

    /// Replaces the stored result document of a running experiment (a
    /// checkpoint), leaving its status alone.
    pub fn save_result_json(&self, id: i64, result_json: &str) -> Result<()> {
        self.write_to_experiment(id, Write::ResultJson(result_json.to_string()))
    }

    /// Sets the stored result document of an experiment.
    pub(crate) fn set_result_json(&self, id: i64, result_json: &str) -> Result<()> {
        self.execute(
            "UPDATE experiments SET result_json = ?2 WHERE id = ?1",
            values![id, result_json],
        )?;
        Ok(())
    }

    /// The experiment a report is about: an id (`12` or `#12`), a name (the
    /// newest experiment with it), or the newest experiment of all.
    pub fn find_experiment(&self, selector: Option<&str>) -> Result<i64> {
        let newest = match selector.map(|s| s.trim_start_matches('#')) {
            None => self.first_row("SELECT MAX(id) FROM experiments", &[])?,
            Some(text) => match text.parse::<i64>() {
                Ok(id) => {
                    self.first_row("SELECT id FROM experiments WHERE id = ?1", values![id])?
                }
                Err(_) => self.first_row(
                    "SELECT MAX(id) FROM experiments WHERE name = ?1",
                    values![text],
                )?,
            },
        };
        let newest = newest
            .map_or(Ok(None), |r| r.opt_i64(0))
            .map_err(|e| self.err(e))?;
        newest.ok_or_else(|| match selector {
            None => Error::input(
                self.path(),
                "the store holds no experiment yet; run `perflab ab`, `perflab run` or `perflab sweep` first (or point --store at another store)",
            ),
            Some(s) => Error::usage(
                "EXPERIMENT",
                format!(
                    "there is no experiment '{s}' in {}; give an id or a name from `perflab history`",
                    self.path().display()
                ),
            ),
        })
    }

    /// Every stored run of an experiment that counts, in the order they
    /// finished: runs replaced by a new measurement of their block (see
    /// [`Store::mark_replaced`]) are left out, as from every other reader.
    pub fn runs_of(&self, experiment_id: i64) -> Result<Vec<StoredRun>> {
        self.stored_runs(experiment_id, false)
    }

    /// The runs of an experiment that were replaced by a new measurement of
    /// their block, in the order they finished.
    pub fn replaced_runs_of(&self, experiment_id: i64) -> Result<Vec<StoredRun>> {
        self.stored_runs(experiment_id, true)
    }

    fn stored_runs(&self, experiment_id: i64, replaced: bool) -> Result<Vec<StoredRun>> {
        let rows = self.rows(
            "SELECT r.variant_id, v.name, r.warmup, r.wall_s, r.user_s, r.sys_s, r.peak_memory_kib,
             r.exit_code, r.signal, r.metrics_json, r.profile_json, r.peak_memory_source
             FROM runs r JOIN variants v ON v.id = r.variant_id
             WHERE r.experiment_id = ?1 AND r.replaced = ?2 ORDER BY r.sequence",
            values![experiment_id, replaced],
        )?;
        rows.iter()
            .map(stored_run)
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| self.err(e))
    }

    /// Marks the runs of an experiment with these sequence numbers as
    /// replaced by a new measurement of their block: they stay in the
    /// store, and no figure, report, history or export takes them.
    pub fn mark_replaced(
        &self,
        experiment_id: i64,
        sequences: std::ops::RangeInclusive<usize>,
    ) -> Result<()> {
        self.write_to_experiment(experiment_id, Write::Replaced(sequences))
    }

    /// Marks runs of an experiment replaced, by their sequence.
    pub(crate) fn set_replaced(
        &self,
        experiment_id: i64,
        sequences: &std::ops::RangeInclusive<usize>,
    ) -> Result<()> {
        self.execute(
            "UPDATE runs SET replaced = 1 WHERE experiment_id = ?1 AND sequence BETWEEN ?2 AND ?3",
            values![experiment_id, *sequences.start(), *sequences.end()],
        )?;
        Ok(())
    }
}

fn stored_run(r: &Row) -> std::result::Result<StoredRun, StoreError> {
    let metrics: std::collections::BTreeMap<String, f64> =
        serde_json::from_str(&r.text(9)?).unwrap_or_default();
    let exit = match (r.opt_i64(7)?, r.opt_i64(8)?) {
        (Some(code), _) => ExitState::Code(code as i32),
        (None, Some(signal)) => ExitState::Signal(signal as i32),
        (None, None) => ExitState::TimedOut,
    };
    Ok(StoredRun {
        variant_id: r.i64(0)?,
        variant: r.text(1)?,
        warmup: r.bool(2)?,
        outcome: RunOutcome {
            wall_s: r.f64(3)?,
            user_s: r.f64(4)?,
            sys_s: r.f64(5)?,
            peak_memory_kib: r.f64(6)?,
            exit,
            unreadable_metrics: Default::default(),
            metrics: metrics
                .into_iter()
                .map(|(k, value)| {
                    (
                        k,
                        MetricValue {
                            value,
                            unit: String::new(),
                        },
                    )
                })
                .collect(),
            output_tail: String::new(),
            profile_json: r.opt_text(10)?,
            // Not kept: it only compares the variants of a running experiment.
            answer: None,
            containment: Containment {
                // A word this perflab does not know reads as not known.
                peak_memory_source: r
                    .opt_text(11)?
                    .and_then(|word| PeakMemorySource::from_word(&word)),
                ..Containment::default()
            },
        },
    })
}

#[cfg(test)]
mod tests {

    use perflab_format::vocabulary::ExperimentKind;
    use perflab_runner::MetricValue;

    use super::*;
    use crate::Selection;

    /// A run whose CPU wait is a tenth of its wall time.
    fn outcome(wall_s: f64) -> RunOutcome {
        let mut run = crate::batch::tests::outcome(wall_s);
        run.metrics.insert(
            "cpu-wait".to_string(),
            MetricValue {
                value: wall_s / 10.0,
                unit: "s".into(),
            },
        );
        run
    }

    /// An experiment named "contended" with runs of 1.0 to 4.0 s, the
    /// second and third replaced by a new measurement of their block.
    fn experiment_with_replaced_runs(store: &Store) -> i64 {
        let (id, variant) = crate::batch::tests::one_variant_experiment(
            store,
            ExperimentKind::Ab,
            Some("contended"),
            Some("wall"),
        );
        for sequence in 1..=4 {
            store
                .record_run(id, variant, sequence, 0, false, &outcome(sequence as f64))
                .unwrap();
        }
        store.mark_replaced(id, 2..=3).unwrap();
        id
    }

    fn walls(runs: &[StoredRun]) -> Vec<f64> {
        runs.iter().map(|r| r.outcome.wall_s).collect()
    }

    #[test]
    fn replaced_runs_are_kept_but_no_reader_of_runs_takes_them() {
        let store = Store::in_memory().unwrap();
        let id = experiment_with_replaced_runs(&store);
        assert_eq!(walls(&store.runs_of(id).unwrap()), [1.0, 4.0]);
        assert_eq!(walls(&store.replaced_runs_of(id).unwrap()), [2.0, 3.0]);
        assert_eq!(store.count_runs(id).unwrap(), 2);
        assert_eq!(store.list_experiments(1, None).unwrap()[0].runs, 2);
        let history = store.metric_values(Some("contended"), "wall").unwrap();
        assert_eq!(history[0].values["a"], [1.0, 4.0]);
        let waits = store.metric_values(Some("contended"), "cpu-wait").unwrap();
        assert_eq!(waits[0].values["a"], [0.1, 0.4]);
    }

    #[test]
    fn copying_a_store_keeps_the_mark_of_replaced_runs() {
        let from = Store::in_memory().unwrap();
        let id = experiment_with_replaced_runs(&from);
        let to = Store::in_memory().unwrap();
        from.copy_to(&to, &Selection::default()).unwrap();
        assert_eq!(walls(&to.runs_of(id).unwrap()), [1.0, 4.0]);
        assert_eq!(walls(&to.replaced_runs_of(id).unwrap()), [2.0, 3.0]);
    }

    #[test]
    fn a_run_copied_before_it_was_replaced_is_marked_on_the_next_copy() {
        let from = Store::in_memory().unwrap();
        let id = experiment_with_replaced_runs(&from);
        from.execute("UPDATE runs SET replaced = 0", &[]).unwrap();
        let to = Store::in_memory().unwrap();
        from.copy_to(&to, &Selection::default()).unwrap();
        assert_eq!(to.count_runs(id).unwrap(), 4);
        from.mark_replaced(id, 2..=3).unwrap();
        from.copy_to(&to, &Selection::default()).unwrap();
        assert_eq!(walls(&to.replaced_runs_of(id).unwrap()), [2.0, 3.0]);
    }

    #[test]
    fn the_peak_memory_source_of_each_run_is_stored_copied_and_read_back_and_an_unknown_word_is_none()
     {
        let from = Store::in_memory().unwrap();
        let (id, variant) = crate::batch::tests::one_variant_experiment(
            &from,
            ExperimentKind::Run,
            Some("memory"),
            Some("peak-memory"),
        );
        let sources = [
            Some(PeakMemorySource::Cgroup),
            Some(PeakMemorySource::Rusage),
            None,
        ];
        for (sequence, source) in sources.iter().enumerate() {
            let mut run = outcome(1.0);
            run.containment.peak_memory_source = *source;
            from.record_run(id, variant, sequence + 1, 0, false, &run)
                .unwrap();
        }
        let read = |store: &Store| -> Vec<Option<PeakMemorySource>> {
            let runs = store.runs_of(id).unwrap();
            runs.iter()
                .map(|r| r.outcome.containment.peak_memory_source)
                .collect()
        };
        assert_eq!(read(&from), sources);
        let to = Store::in_memory().unwrap();
        from.copy_to(&to, &Selection::default()).unwrap();
        assert_eq!(read(&to), sources);
        from.execute("UPDATE runs SET peak_memory_source = 'guessed'", &[])
            .unwrap();
        assert_eq!(read(&from), [None, None, None]);
    }
}
