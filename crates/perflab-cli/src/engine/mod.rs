//! The experiment engine: what every way of measuring shares. An A/B
//! (`crate::ab::driver`), a suite (`crate::ab::suite`), a sweep
//! (`crate::sweep::driver`) and each step of a bisection (an A/B of a
//! candidate commit against GOOD, `crate::commands::bisect`) are
//! configurations of it; they differ only in which runs make a block and
//! when to stop.
//!
//! Every experiment goes the same way: a [`Session`] collects the
//! provenance, draws the seed of its [`Schedule`], stores the typed
//! configuration ([`ExperimentConfig`]) and the variant records, and makes a
//! private folder for the runs' profiles ([`profile_folder`], which also
//! removes those that killed perflabs left); a [`RunMaker`] turns each
//! [`RunRequest`] into a run, stores it as it finishes (in batches, written
//! at the latest half a second after their first run) and checks it; the
//! outcome starts with an [`OutcomeHeader`]; on an error the experiment is
//! marked incomplete and the error says how many runs are kept. The run
//! maker also applies the contention rule ([`contention`]): a block in
//! which a run waited for a CPU too long is measured again, its runs kept
//! in the store, marked replaced.
//! [`RunLimits`](crate::experiment::RunLimits) are the limits every
//! engine stops at (part of the validated configuration), and the engines
//! report through the [`Progress`] and [`SweepProgress`] traits, which the
//! rendering layer's bars implement. Before each block every engine asks
//! the same [`QuietGate`] whether to start it (`--wait-quiet`).

pub mod config;
pub mod contention;
pub mod executor_slot;
pub mod profile_folder;
pub mod progress;
pub mod quiet;
pub mod runs;

use std::path::Path;
use std::sync::{Mutex, PoisonError};

pub use config::{
    AbConfig, DecisionConfig, ExperimentConfig, ModeConfig, SuiteConfig, SweepConfig,
};
pub use contention::Contention;
pub use executor_slot::ExecutorSlot;
pub use perflab_runner::Schedule;
pub use progress::{
    DecisionSoFar, NoProgress, PointProgress, Progress, SweepProgress, SweepStatus,
};
pub use quiet::{Gate, QuietGate};
pub use runs::{
    RunChecks, RunMaker, RunRequest, failed_run, make_trace_dir, missing_metric, tell_traces,
    trace_path,
};

use perflab_format::contention::ContentionDoc;
use perflab_format::machine::MachineDoc;
use perflab_format::vocabulary::{ExperimentKind, ResultStatus};

use crate::error::{Error, Result};
use crate::experiment::Variant;
use perflab_store::provenance::{CheckoutReading, Provenance};
use perflab_store::{RunBatch, Store, VariantRecord};
use profile_folder::ProfileFolder;

/// Why an A/B experiment, a suite or a bisection step stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// A verdict other than INCONCLUSIVE was reached.
    Decided,
    /// `--max-runs` was reached.
    MaxRuns,
    /// A planned A/B stopped undecided: its projection put every verdict
    /// beyond `--max-runs` (the reach rule).
    OutOfReach,
    /// `--max-time` was reached.
    MaxTime,
    /// The user pressed Ctrl-C.
    Interrupted,
}

/// What the outcome of every engine starts with. `Stop` is why it stopped:
/// a [`StopReason`] for decisions, a sweep's own `SweepStop`.
#[derive(Debug, Clone)]
pub struct OutcomeHeader<Stop = StopReason> {
    /// The experiment's id in the store.
    pub experiment_id: Option<i64>,
    /// Why it stopped.
    pub stop: Stop,
    /// The schedule's seed.
    pub seed: u64,
    /// Provenance of the experiment.
    pub provenance: Provenance,
    /// The machine's state during the runs, where it was watched.
    pub machine: Option<MachineDoc>,
    /// What the contention rule did (see [`Contention::doc`]).
    pub contention: Option<ContentionDoc>,
}

impl OutcomeHeader {
    /// The status stored with the outcome: incomplete when interrupted.
    pub fn status(&self) -> ResultStatus {
        if self.stop == StopReason::Interrupted {
            ResultStatus::Incomplete
        } else {
            ResultStatus::Complete
        }
    }
}

/// What an experiment is, for the store.
pub struct Plan<'a> {
    /// Its kind in the store.
    pub kind: ExperimentKind,
    /// A name for the history, if given.
    pub name: Option<&'a str>,
    /// The metric measured.
    pub metric: &'a str,
    /// The folder its provenance is collected in (its first variant's).
    pub cwd: Option<&'a Path>,
    /// One record per variant (a suite's cell, a sweep's command at a point).
    pub records: Vec<VariantRecord<'a>>,
    /// Variants in one block of the schedule.
    pub block: usize,
    /// The seed of the schedule, if given.
    pub seed: Option<u64>,
}

/// An experiment under way: its records in the store, its schedule and the
/// folder of its runs' profiles.
pub struct Session<'a> {
    /// Where runs are stored, if anywhere.
    pub store: Option<&'a Store>,
    /// The experiment's id in the store.
    pub experiment_id: Option<i64>,
    /// The variants' records, in the order of the plan's.
    pub variant_ids: Option<Vec<i64>>,
    /// The random order of the runs.
    pub schedule: Schedule,
    /// Provenance of the experiment.
    pub provenance: Provenance,
    profiles: ProfileFolder,
}

/// The checkout reading started as the command began, until the
/// experiment's provenance takes it.
///
/// A process-wide slot rather than an argument: the command line names the
/// folder at the start, and the provenance that needs it is collected
/// several layers down, by whichever engine the command uses.
static EARLY_CHECKOUT: Mutex<Option<CheckoutReading>> = Mutex::new(None);

/// Starts reading the checkout state of `dir` (the command line's working
/// directory of the runs) so that git runs while the store opens and the
/// executor prepares, not before the first run (see [`CheckoutReading`]).
pub fn start_reading_checkout(dir: &Path) {
    let reading = CheckoutReading::start(dir);
    *EARLY_CHECKOUT
        .lock()
        .unwrap_or_else(PoisonError::into_inner) = Some(reading);
}

/// The provenance of an experiment whose runs work in `dir`: from the
/// reading started early where it is of `dir`; else read now, after the
/// early one, if any, is ended (no git may run beside the runs).
pub fn provenance(dir: &Path) -> Provenance {
    let early = EARLY_CHECKOUT
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    match early {
        Some(reading) if reading.dir() == dir => Provenance::collect_from(reading),
        other => {
            drop(other);
            Provenance::collect(dir)
        }
    }
}

impl<'a> Session<'a> {
    /// Begins an experiment: provenance, seed, the configuration `config`
    /// gives for that seed, the records in `store`, the profile folder.
    pub fn begin(
        store: Option<&'a Store>,
        plan: Plan<'_>,
        config: impl FnOnce(u64) -> ExperimentConfig,
    ) -> Result<Self> {
        let provenance = provenance(plan.cwd.unwrap_or(Path::new(".")));
        let schedule = Schedule::new(plan.block, plan.seed);
        let config = config(schedule.seed());
        let ids = match store {
            Some(store) => Some(store.begin_experiment(
                plan.kind,
                plan.name,
                Some(plan.metric),
                &provenance,
                &config.to_json(),
                &plan.records,
            )?),
            None => None,
        };
        let profiles = ProfileFolder::create()?;
        let (experiment_id, variant_ids) = ids.unzip();
        Ok(Session {
            store,
            experiment_id,
            variant_ids,
            schedule,
            provenance,
            profiles,
        })
    }

    /// The run maker of this experiment, checking runs as `checks` say
    /// and applying their contention rule.
    pub fn run_maker(&self, checks: RunChecks<'a>) -> Result<RunMaker<'a>> {
        if let Some(dir) = &checks.trace_dir {
            runs::make_trace_dir(dir)?;
        }
        Ok(RunMaker {
            contention: Contention::new(checks.max_cpu_wait)?,
            checks,
            batch: self.store.map(RunBatch::new),
            experiment_id: self.experiment_id,
            sequence: 0,
            profile_dir: self.profiles.path().to_path_buf(),
        })
    }

    /// The store's record of variant `index` (of the plan's records).
    pub fn variant_id(&self, index: usize) -> Option<i64> {
        self.variant_ids.as_ref().map(|ids| ids[index])
    }

    /// The outcome's header, once the runs are over.
    pub fn header<Stop>(&self, stop: Stop, machine: Option<MachineDoc>) -> OutcomeHeader<Stop> {
        OutcomeHeader {
            experiment_id: self.experiment_id,
            stop,
            seed: self.schedule.seed(),
            provenance: self.provenance.clone(),
            machine,
            contention: None,
        }
    }

    /// After an error: the experiment marked incomplete, and the error
    /// saying how many runs it keeps.
    pub fn fail(&self, e: Error) -> Error {
        match keep_finished_runs(e, self.store, self.experiment_id) {
            Ok(e) | Err(e) => e,
        }
    }
}

/// The store's records of `variants`, each under the name `names` gives.
pub fn records<'v>(
    variants: &[&'v Variant],
    names: &'v [String],
    commands: &'v [String],
) -> Vec<VariantRecord<'v>> {
    variants
        .iter()
        .zip(names.iter().zip(commands))
        .map(|(v, (name, command))| VariantRecord {
            name,
            command,
            env: &v.env,
            cwd: v.cwd.as_deref(),
        })
        .collect()
}

/// After an error, marks the stored experiment incomplete and says in the
/// error how many finished runs it keeps (an error of the store itself
/// comes back instead).
pub fn keep_finished_runs(
    e: Error,
    store: Option<&Store>,
    experiment_id: Option<i64>,
) -> Result<Error> {
    let (Some(store), Some(id)) = (store, experiment_id) else {
        return Ok(e);
    };
    store.finish_experiment(id, ResultStatus::Incomplete, None, None, None)?;
    let kept = store.count_runs(id)?;
    Ok(annotate(
        e,
        &format!(
            "{kept} finished runs are kept in {} as experiment #{id}, marked incomplete",
            store.place_of(id).display()
        ),
    ))
}

/// The error with a note added, for a run's error (other errors are
/// returned as they are).
pub fn annotate(e: Error, note: &str) -> Error {
    match e {
        Error::Run { run, message } => Error::Run {
            run,
            message: format!("{message}\n({note})"),
        },
        other => other,
    }
}
