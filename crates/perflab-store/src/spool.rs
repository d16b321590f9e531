//! Runs kept when the PostgreSQL server is lost mid-experiment: a local
//! spool store that the experiment goes on in, moved into the shared store
//! by the next command that reaches the server.
//!
//! Why: a measured run is the expensive thing; a network or a server that
//! goes away must not take it, nor the result of the experiment. So a store
//! on a server remembers what it wrote of each experiment this process
//! began and has not finished (its record, variants, runs, replaced marks,
//! attachments: a journal, in memory). When a write of such an experiment
//! fails because the server is gone (the connection closed or reset, the
//! server shutting down, or no answer within `PERFLAB_STORE_TIMEOUT`), the
//! experiment is written again, from the journal, into a SQLite store in
//! `.perflab/spool/` of the working folder, one file per server and
//! database ([`Spool::for_server`]); that write and every later one of the
//! experiment go there, and the command ends as usual, saying where its
//! runs went.
//!
//! The copy keeps the stable ids (`uid`) of the experiment and of every
//! run, as sent to the server: moving the spool into the shared store
//! ([`Store::move_spool`], the copy of `transfer`, as `perflab push`)
//! therefore completes the experiment the server holds in part (its runs
//! stored before the loss, and the run in flight if its transaction was
//! committed after all) rather than storing it twice, and moving again
//! after a failed move stores nothing twice either.
//!
//! What is not spooled: a server that cannot be reached when a command
//! starts (the command fails, as nothing was measured yet), and an
//! experiment begun after the loss (beginning it fails). The journal holds
//! an experiment's runs in memory until it finishes, which a store file
//! does not need: it is kept for stores on a server only.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use perflab_format::vocabulary::{ExperimentKind, ResultStatus, Verdict};
use perflab_runner::RunOutcome;

use crate::error::{Error, Result, StoreError};
use crate::provenance::Provenance;
use crate::sql::values;
use crate::{RunPlace, Selection, Store, TransferSummary, VariantRecord};

/// The folder of the spool files, in the working folder.
const SPOOL_FOLDER: &str = ".perflab/spool";

/// The spool of a store: where its file goes, what this process wrote of
/// its running experiments, and the spool store once the server was lost.
#[derive(Default)]
pub(crate) struct Spool {
    /// The spool file; `None` for a store that is not spooled (a file).
    path: Option<PathBuf>,
    state: RefCell<State>,
}

#[derive(Default)]
struct State {
    /// The experiments begun and not finished, by their id in this store.
    journals: HashMap<i64, Journal>,
    /// The spool store, once the server was lost.
    diverted: Option<Diverted>,
}

/// What this process wrote of one experiment, to write it again.
struct Journal {
    begun: Begun,
    writes: Vec<Write>,
}

/// An experiment's record as it was begun.
pub(crate) struct Begun {
    pub(crate) kind: ExperimentKind,
    pub(crate) name: Option<String>,
    pub(crate) metric: Option<String>,
    pub(crate) provenance: Provenance,
    pub(crate) config_json: String,
    pub(crate) variants: Vec<OwnedVariant>,
    pub(crate) uid: String,
    /// The variants' ids in the store it was begun in, in order.
    pub(crate) variant_ids: Vec<i64>,
}

/// A [`VariantRecord`] owning its fields.
pub(crate) struct OwnedVariant {
    name: String,
    command: String,
    env: Vec<(String, String)>,
    cwd: Option<PathBuf>,
}

impl OwnedVariant {
    pub(crate) fn of(v: &VariantRecord<'_>) -> Self {
        Self {
            name: v.name.to_string(),
            command: v.command.to_string(),
            env: v.env.to_vec(),
            cwd: v.cwd.map(Path::to_path_buf),
        }
    }

    fn record(&self) -> VariantRecord<'_> {
        VariantRecord {
            name: &self.name,
            command: &self.command,
            env: &self.env,
            cwd: self.cwd.as_deref(),
        }
    }
}

/// The spool store and the ids the diverted experiments have there.
struct Diverted {
    store: Box<Store>,
    experiments: HashMap<i64, Ids>,
}

/// Where an experiment's writes go in one store: its id there, and its
/// variants' ids there by their ids in the store it was begun in (empty:
/// the same ids).
#[derive(Debug, Clone, Default)]
pub(crate) struct Ids {
    pub(crate) experiment: i64,
    variants: HashMap<i64, i64>,
}

impl Ids {
    /// The ids of the store the experiment was begun in.
    pub(crate) fn same(experiment: i64) -> Self {
        Self {
            experiment,
            variants: HashMap::new(),
        }
    }

    /// The id of the variant `id` names in the store it was begun in.
    pub(crate) fn variant(&self, id: i64) -> i64 {
        self.variants.get(&id).copied().unwrap_or(id)
    }
}

/// One finished run to store, with its stable id.
#[derive(Debug, Clone)]
pub(crate) struct RunRecord {
    pub(crate) place: RunPlace,
    pub(crate) finished_at: String,
    pub(crate) outcome: RunOutcome,
    pub(crate) uid: String,
}

/// One write to a running experiment.
pub(crate) enum Write {
    /// Finished runs, in one transaction.
    Runs(Vec<RunRecord>),
    /// Runs replaced by a new measurement of their block, by sequence.
    Replaced(RangeInclusive<usize>),
    /// A checkpoint of the result document.
    ResultJson(String),
    /// A document attached to the experiment.
    Attachment { kind: String, body: String },
    /// A variant's folded stacks.
    Folded {
        variant_id: i64,
        samples: u64,
        folded: String,
    },
    /// The experiment's end: its status and result.
    Finish {
        status: ResultStatus,
        verdict: Option<Verdict>,
        change: Option<(f64, f64, f64)>,
        finished_at: String,
        result_json: Option<String>,
    },
}

impl Write {
    /// Writes it into `store`, where the experiment's ids are `ids`.
    fn apply(&self, store: &Store, ids: &Ids) -> Result<()> {
        match self {
            Write::Runs(runs) => store.insert_runs(runs, ids),
            Write::Replaced(sequences) => store.set_replaced(ids.experiment, sequences),
            Write::ResultJson(json) => store.set_result_json(ids.experiment, json),
            Write::Attachment { kind, body } => store.insert_attachment(ids.experiment, kind, body),
            Write::Folded {
                variant_id,
                samples,
                folded,
            } => store.insert_folded(ids.experiment, ids.variant(*variant_id), *samples, folded),
            Write::Finish {
                status,
                verdict,
                change,
                finished_at,
                result_json,
            } => {
                store.set_finished(
                    ids.experiment,
                    *status,
                    *verdict,
                    *change,
                    finished_at,
                    result_json.as_deref(),
                )?;
                store.write_back_if_deleted()
            }
        }
    }
}

impl Spool {
    /// The spool of a store on the server `key` names (see
    /// `PostgresConnection::server_key`): `.perflab/spool/KEY.db` in the
    /// working folder (none where the working folder is unknown).
    pub(crate) fn for_server(key: &str) -> Self {
        let path = std::env::current_dir()
            .ok()
            .map(|dir| dir.join(SPOOL_FOLDER).join(format!("{key}.db")));
        Self {
            path,
            state: RefCell::default(),
        }
    }

    /// Remembers an experiment just begun, when the store is spooled.
    pub(crate) fn begun(&self, id: i64, begun: impl FnOnce() -> Begun) {
        if self.path.is_some() {
            self.state.borrow_mut().journals.insert(
                id,
                Journal {
                    begun: begun(),
                    writes: Vec::new(),
                },
            );
        }
    }
}

impl Store {
    /// Writes `write` to experiment `id`: into the spool once the
    /// experiment was diverted there, else into this store; when this
    /// store's server is lost and the experiment was begun by this
    /// process, the experiment is diverted into the spool (see the module).
    pub(crate) fn write_to_experiment(&self, id: i64, write: Write) -> Result<()> {
        if let Some(done) = self.write_diverted(id, &write) {
            return done;
        }
        match write.apply(self, &Ids::same(id)) {
            Ok(()) => {
                let mut state = self.spool.state.borrow_mut();
                if matches!(write, Write::Finish { .. }) {
                    state.journals.remove(&id);
                } else if let Some(journal) = state.journals.get_mut(&id) {
                    journal.writes.push(write);
                }
                Ok(())
            }
            Err(e) if server_lost(&e) && self.spool.state.borrow().journals.contains_key(&id) => {
                self.divert(id, write, e)
            }
            Err(e) => Err(e),
        }
    }

    /// The write into the spool, if experiment `id` was diverted there.
    fn write_diverted(&self, id: i64, write: &Write) -> Option<Result<()>> {
        let state = self.spool.state.borrow();
        let diverted = state.diverted.as_ref()?;
        let ids = diverted.experiments.get(&id)?;
        Some(write.apply(&diverted.store, ids))
    }

    /// Writes experiment `id` again into the spool, from its journal, and
    /// `write` after it; `lost` is the error that said the server is gone.
    pub(crate) fn divert(&self, id: i64, write: Write, lost: Error) -> Result<()> {
        let Some(path) = self.spool.path.clone() else {
            return Err(lost);
        };
        let mut state = self.spool.state.borrow_mut();
        let Some(journal) = state.journals.remove(&id) else {
            return Err(lost);
        };
        if state.diverted.is_none() {
            let store = match Store::open(&path) {
                Ok(store) => store,
                Err(e) => {
                    self.notice(format!(
                        "the runs measured since could not be kept in the spool {} either: {e}",
                        path.display()
                    ));
                    return Err(lost);
                }
            };
            state.diverted = Some(Diverted {
                store: Box::new(store),
                experiments: HashMap::new(),
            });
        }
        let diverted = state.diverted.as_mut().expect("opened above");
        let copied = (|| {
            let ids = diverted.store.begin_again(&journal.begun)?;
            for earlier in &journal.writes {
                earlier.apply(&diverted.store, &ids)?;
            }
            write.apply(&diverted.store, &ids)?;
            Ok::<_, Error>(ids)
        })();
        let ids = match copied {
            Ok(ids) => ids,
            Err(e) => {
                self.notice(format!(
                    "the runs of experiment #{id} could not be kept in the spool {} either: {e}",
                    path.display()
                ));
                return Err(lost);
            }
        };
        diverted.experiments.insert(id, ids);
        let cause = match &lost {
            Error::Database { source, .. } => source.to_string(),
            other => other.to_string(),
        };
        self.notice(format!(
            "the store {} was lost mid-experiment ({cause}); experiment #{id} goes on in the \
             spool {}, with the runs stored before, and the next perflab command that writes to \
             the store moves it there",
            self.path.display(),
            path.display()
        ));
        Ok(())
    }

    /// Begins `begun` again in this store, with its stable id; returns the
    /// ids it has here.
    fn begin_again(&self, begun: &Begun) -> Result<Ids> {
        let variants: Vec<VariantRecord<'_>> =
            begun.variants.iter().map(OwnedVariant::record).collect();
        let (experiment, variant_ids) = self.begin_experiment_as(
            &begun.uid,
            begun.kind,
            begun.name.as_deref(),
            begun.metric.as_deref(),
            &begun.provenance,
            &begun.config_json,
            &variants,
        )?;
        Ok(Ids {
            experiment,
            variants: begun.variant_ids.iter().copied().zip(variant_ids).collect(),
        })
    }

    fn notice(&self, notice: String) {
        self.notices
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(notice);
    }

    /// The measured runs of experiment `id` in the spool, if it was
    /// diverted there.
    pub(crate) fn count_diverted_runs(&self, id: i64) -> Option<Result<i64>> {
        let state = self.spool.state.borrow();
        let diverted = state.diverted.as_ref()?;
        let ids = diverted.experiments.get(&id)?;
        Some(diverted.store.count_runs(ids.experiment))
    }

    /// The notices of the spool store (a spool file deleted while written).
    pub(crate) fn take_spool_notices(&self) -> Vec<String> {
        let state = self.spool.state.borrow();
        state
            .diverted
            .as_ref()
            .map(|d| d.store.take_notices())
            .unwrap_or_default()
    }

    /// Where experiment `id` is written: the spool file once it was
    /// diverted there, else the store (its file, or its URL without the
    /// password).
    pub fn place_of(&self, id: i64) -> PathBuf {
        let state = self.spool.state.borrow();
        match state.diverted.as_ref() {
            Some(diverted) if diverted.experiments.contains_key(&id) => {
                diverted.store.path().to_path_buf()
            }
            _ => self.path.clone(),
        }
    }

    /// The spool file of this store when one is waiting to be moved into
    /// it (a store on a server only).
    pub fn waiting_spool(&self) -> Option<&Path> {
        self.spool.path.as_deref().filter(|p| p.is_file())
    }

    /// Moves the experiments of this store's spool file, if there is one,
    /// into this store (with the copy of `perflab push`), and removes the
    /// file once they are all here and none is still running.
    pub fn move_spool(&self) -> Option<SpoolMove> {
        let spool = self.waiting_spool()?.to_path_buf();
        let kept = |summary, why: String| {
            Some(SpoolMove {
                spool: spool.clone(),
                summary,
                kept: Some(why),
            })
        };
        let from = match Store::open(&spool) {
            Ok(from) => from,
            Err(e) => return kept(TransferSummary::default(), e.to_string()),
        };
        let summary = match from.copy_to(self, &Selection::default()) {
            Ok(summary) => summary,
            Err(e) => return kept(TransferSummary::default(), e.to_string()),
        };
        let running = match from.count(
            "SELECT COUNT(*) FROM experiments WHERE status = ?1",
            values![ResultStatus::Running.as_str()],
        ) {
            Ok(running) => running,
            Err(e) => return kept(summary, e.to_string()),
        };
        drop(from);
        if running > 0 {
            return kept(
                summary,
                format!(
                    "{running} of its experiments are still running, in another perflab \
                     process; the next command moves the rest"
                ),
            );
        }
        if let Err(e) = remove_store_file(&spool) {
            return kept(summary, e.to_string());
        }
        Some(SpoolMove {
            spool,
            summary,
            kept: None,
        })
    }
}

/// What [`Store::move_spool`] did.
#[derive(Debug, Clone)]
pub struct SpoolMove {
    /// The spool file.
    pub spool: PathBuf,
    /// What was copied (experiments already in the store get their
    /// missing runs and their result).
    pub summary: TransferSummary,
    /// Why the spool file was kept, if it was: it is moved again by the
    /// next command, and nothing is stored twice.
    pub kept: Option<String>,
}

/// Removes a SQLite store file and its log files.
fn remove_store_file(path: &Path) -> Result<()> {
    for suffix in ["-wal", "-shm"] {
        let mut log = path.as_os_str().to_owned();
        log.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(log));
    }
    std::fs::remove_file(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Whether `e` says the server is gone rather than that the write was
/// wrong: the connection closed or reset, the server shutting down or
/// refusing connections (SQLSTATE classes 08 and 57P), or no answer within
/// the answer timeout.
pub(crate) fn server_lost(e: &Error) -> bool {
    let Error::Database { source, .. } = e else {
        return false;
    };
    match source {
        StoreError::Unanswered { .. } => true,
        StoreError::Postgres(e) => {
            if e.is_closed() {
                return true;
            }
            if let Some(code) = e.code() {
                let code = code.code();
                return code.starts_with("08") || code.starts_with("57P");
            }
            // An error of the socket (reset, broken pipe).
            std::error::Error::source(e).is_some_and(|cause| cause.is::<std::io::Error>())
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::batch::tests::outcome;

    impl Spool {
        /// A spool whose file is `path`.
        fn at(path: PathBuf) -> Self {
            Self {
                path: Some(path),
                state: RefCell::default(),
            }
        }
    }

    /// The error of a server that stopped answering.
    fn lost() -> Error {
        Error::Database {
            path: "postgres://perf-db/perflab".into(),
            source: StoreError::Unanswered {
                server: "server perf-db:5432, database perflab, user ann".into(),
                waited: Duration::from_secs(2),
                check: "pg_isready -h perf-db -p 5432".into(),
            },
        }
    }

    /// The store file `path` with its spool at `spool`.
    fn spooled(path: &Path, spool: &Path) -> Store {
        let mut store = Store::open(path).unwrap();
        store.spool = Spool::at(spool.to_path_buf());
        store
    }

    fn begin(store: &Store) -> (i64, Vec<i64>) {
        let variant = |name| VariantRecord {
            name,
            command: "true",
            env: &[],
            cwd: None,
        };
        store
            .begin_experiment(
                ExperimentKind::Ab,
                Some("lost"),
                Some("wall"),
                &Provenance::default(),
                "{}",
                &[variant("A"), variant("B")],
            )
            .unwrap()
    }

    fn record(experiment_id: i64, variant_id: i64, sequence: usize) -> RunRecord {
        RunRecord {
            place: RunPlace {
                experiment_id,
                variant_id,
                sequence,
                iteration: sequence - 1,
                warmup: false,
            },
            finished_at: crate::provenance::now_rfc3339(),
            outcome: outcome(sequence as f64),
            uid: crate::sql::new_uid(),
        }
    }

    /// Every run stored in `store`, replaced ones too, whatever their experiment.
    fn all_runs(store: &Store) -> i64 {
        store.count("SELECT COUNT(*) FROM runs", &[]).unwrap()
    }

    #[test]
    fn an_experiment_diverted_mid_way_ends_in_the_spool_and_moves_back_once() {
        let dir = tempfile::tempdir().unwrap();
        let (shared_path, spool_path) =
            (dir.path().join("shared.db"), dir.path().join("spool/s.db"));
        let shared = spooled(&shared_path, &spool_path);
        let (id, variants) = begin(&shared);
        for sequence in 1..=3 {
            let variant = variants[sequence % 2];
            shared
                .record_run(id, variant, sequence, 0, false, &outcome(sequence as f64))
                .unwrap();
        }
        shared.mark_replaced(id, 2..=2).unwrap();
        shared.attach(id, "instructions", "{}").unwrap();
        // The run in flight when the server went: its transaction may have
        // been committed all the same.
        let in_flight = record(id, variants[0], 4);
        shared
            .insert_runs(std::slice::from_ref(&in_flight), &Ids::same(id))
            .unwrap();
        shared
            .divert(id, Write::Runs(vec![in_flight]), lost())
            .unwrap();
        shared
            .record_run(id, variants[1], 5, 1, false, &outcome(5.0))
            .unwrap();
        shared
            .finish_experiment(
                id,
                ResultStatus::Complete,
                Some(Verdict::Go),
                None,
                Some("{}".to_string()),
            )
            .unwrap();

        assert_eq!(all_runs(&shared), 4, "nothing more went to the lost store");
        assert_eq!(shared.place_of(id), spool_path);
        assert_eq!(
            shared.count_runs(id).unwrap(),
            4,
            "5 runs, 1 replaced, in the spool"
        );
        let notices = shared.take_notices();
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert!(
            notices[0].contains(&spool_path.display().to_string()),
            "{notices:?}"
        );
        assert!(notices[0].contains("no answer within 2s"), "{notices:?}");
        drop(shared);

        let spool = Store::open(&spool_path).unwrap();
        assert_eq!(all_runs(&spool), 5);
        assert_eq!(
            spool.list_experiments(9, None).unwrap()[0].status,
            ResultStatus::Complete
        );
        drop(spool);

        let shared = spooled(&shared_path, &spool_path);
        let moved = shared.move_spool().expect("a spool to move");
        assert_eq!(moved.kept, None);
        assert_eq!(moved.summary.experiments_present, 1);
        assert_eq!(
            (moved.summary.runs_copied, moved.summary.runs_present),
            (1, 4)
        );
        assert!(!spool_path.exists());
        assert_eq!(all_runs(&shared), 5);
        let row = &shared.list_experiments(9, None).unwrap()[0];
        assert_eq!((row.id, row.status.as_str(), row.runs), (id, "complete", 4));
        assert_eq!(row.verdict.as_deref(), Some("GO"));
        assert_eq!(
            shared.attachment(id, "instructions").unwrap().as_deref(),
            Some("{}")
        );
        assert_eq!(shared.replaced_runs_of(id).unwrap().len(), 1);
        assert!(shared.move_spool().is_none());
    }

    #[test]
    fn a_spool_whose_experiment_still_runs_is_moved_but_kept_until_it_ends() {
        let dir = tempfile::tempdir().unwrap();
        let (shared_path, spool_path) =
            (dir.path().join("shared.db"), dir.path().join("spool/s.db"));
        std::fs::create_dir_all(spool_path.parent().unwrap()).unwrap();
        let spool = Store::open(&spool_path).unwrap();
        let (id, variants) = begin(&spool);
        spool
            .record_run(id, variants[0], 1, 0, false, &outcome(1.0))
            .unwrap();

        let shared = spooled(&shared_path, &spool_path);
        assert_eq!(shared.waiting_spool(), Some(spool_path.as_path()));
        let moved = shared.move_spool().expect("a spool to move");
        assert!(moved.kept.is_some_and(|why| why.contains("still running")));
        assert_eq!(moved.summary.runs_copied, 1);
        assert!(spool_path.exists());

        spool
            .record_run(id, variants[1], 2, 0, false, &outcome(2.0))
            .unwrap();
        spool
            .finish_experiment(id, ResultStatus::Complete, None, None, None)
            .unwrap();
        let moved = shared.move_spool().expect("the spool again");
        assert_eq!(moved.kept, None);
        assert_eq!(
            (moved.summary.runs_copied, moved.summary.runs_present),
            (1, 1)
        );
        assert!(!spool_path.exists());
        assert_eq!(
            shared.list_experiments(9, None).unwrap()[0].status,
            ResultStatus::Complete
        );
    }

    #[test]
    fn only_a_closed_connection_a_shutdown_or_no_answer_means_the_server_is_lost() {
        assert!(server_lost(&lost()));
        let sqlite = Error::Database {
            path: "x.db".into(),
            source: StoreError::Sqlite(rusqlite::Error::InvalidQuery),
        };
        assert!(!server_lost(&sqlite));
        assert!(!server_lost(&Error::usage("--store", "wrong")));
    }

    #[test]
    fn a_store_file_keeps_no_journal_and_is_never_diverted() {
        let store = Store::in_memory().unwrap();
        let (id, variants) = begin(&store);
        store
            .record_run(id, variants[0], 1, 0, false, &outcome(1.0))
            .unwrap();
        assert!(store.spool.state.borrow().journals.is_empty());
        assert!(
            store
                .divert(id, Write::ResultJson("{}".into()), lost())
                .is_err()
        );
        assert_eq!(store.waiting_spool(), None);
    }
}
