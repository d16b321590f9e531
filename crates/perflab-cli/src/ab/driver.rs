//! The A/B driver: runs A and B in randomised blocks, stores every run as
//! it finishes, and stops where the sequential procedure says.

use perflab_format::vocabulary::{ExperimentKind, ResultStatus};
use std::time::Instant;

use perflab_runner::{Executor, ExitState, RunOutcome, Schedule};
use perflab_stats::Verdict;

use crate::decide::{Decider, Evaluation};
use crate::error::{Error, Result};
use crate::experiment::Experiment;
use crate::machine::MachineWatch;
use crate::progress::Progress;
use perflab_format::machine::MachineDoc;
use perflab_store::provenance::Provenance;
use perflab_store::{Store, VariantRecord};

use super::duet::Duet;
use super::measure::{RunMaker, RunRequest};
use perflab_format::duet::DuetDoc;

/// Why the experiment stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// A verdict other than INCONCLUSIVE was reached.
    Decided,
    /// `--max-runs` was reached.
    MaxRuns,
    /// `--max-time` was reached.
    MaxTime,
    /// The user pressed Ctrl-C.
    Interrupted,
}

/// What an A/B experiment produced.
#[derive(Debug)]
pub struct AbRun {
    /// Measured runs of A and B, in the order of their blocks.
    pub runs: [Vec<RunOutcome>; 2],
    /// The final evaluation, if at least two pairs were measured.
    pub evaluation: Option<Evaluation>,
    /// Why it stopped.
    pub stop: StopReason,
    /// The experiment's id in the store.
    pub experiment_id: Option<i64>,
    /// The schedule's seed.
    pub seed: u64,
    /// Provenance of the experiment.
    pub provenance: Provenance,
    /// The machine's state during the runs, where it was watched.
    pub machine: Option<MachineDoc>,
    /// In duet mode: the CPUs and how each pair's runs overlapped.
    pub duet: Option<DuetDoc>,
}

/// Opens an A/B experiment in the store, with a record per variant;
/// returns its id and the variants' ids.
pub fn begin_ab(
    store: &Store,
    exp: &Experiment,
    provenance: &Provenance,
    config_json: &str,
) -> Result<(i64, Vec<i64>)> {
    let commands: Vec<String> = exp.variants.iter().map(|v| v.command.display()).collect();
    let records: Vec<_> = exp
        .variants
        .iter()
        .zip(&commands)
        .map(|(v, command)| VariantRecord {
            name: &v.name,
            command,
            env: &v.env,
            cwd: v.cwd.as_deref(),
        })
        .collect();
    Ok(store.begin_experiment(
        ExperimentKind::Ab,
        exp.name.as_deref(),
        Some(&exp.metric.name),
        provenance,
        config_json,
        &records,
    )?)
}

/// Runs the experiment. Runs are stored as they finish; on an error the
/// experiment is marked incomplete and the error says how many runs were kept.
pub fn run_ab(
    exp: &Experiment,
    executor: &mut dyn Executor,
    store: Option<&Store>,
    progress: &mut dyn Progress,
) -> Result<AbRun> {
    let provenance = Provenance::collect(
        exp.variants[0]
            .cwd
            .as_deref()
            .unwrap_or(std::path::Path::new(".")),
    );
    let mut schedule = Schedule::new(2, exp.seed);
    let config = serde_json::json!({
        "measure": exp.metric.name, "go": exp.thresholds.go, "nogo": exp.thresholds.nogo,
        "confidence": exp.confidence, "min_runs": exp.min_runs, "max_runs": exp.max_runs,
        "optimise_at": exp.sequential_config().optimise_at,
        "warmup": exp.warmup, "seed": schedule.seed(),
        "pin": exp.pin.as_ref().map(ToString::to_string),
        "duet": exp.duet,
    });
    let ids = match store {
        Some(s) => Some(begin_ab(s, exp, &provenance, &config.to_string())?),
        None => None,
    };
    let profiles = profile_dir()?;
    let duet = exp.duet.map(|cpus| Duet::new(cpus, executor)).transpose()?;
    let mut state = AbState {
        exp,
        maker: RunMaker {
            exp,
            store,
            experiment_id: ids.as_ref().map(|(id, _)| *id),
            sequence: 0,
            profile_dir: profiles.path().to_path_buf(),
        },
        variant_ids: ids.as_ref().map(|(_, v)| v.clone()),
        runs: [Vec::new(), Vec::new()],
        duet,
    };
    let watch = executor.runs_on_this_machine().then(MachineWatch::start);
    let outcome = state.drive(executor, &mut schedule, progress);
    let machine = watch.map(|w| w.finish(exp.pin.as_ref()));
    progress.finish();
    let experiment_id = ids.map(|(id, _)| id);
    let duet = state.duet.as_ref().and_then(Duet::doc);
    match outcome {
        Ok((stop, evaluation)) => Ok(AbRun {
            runs: state.runs,
            evaluation,
            stop,
            experiment_id,
            seed: schedule.seed(),
            provenance,
            machine,
            duet,
        }),
        Err(e) => Err(keep_finished_runs(e, store, experiment_id)?),
    }
}

/// A private folder for the profiles that instrumented runs write.
pub fn profile_dir() -> Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix("perflab-profiles-")
        .tempdir()
        .map_err(|source| Error::Io {
            path: std::env::temp_dir(),
            source,
        })
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
            store.path().display()
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

struct AbState<'a> {
    exp: &'a Experiment,
    maker: RunMaker<'a>,
    variant_ids: Option<Vec<i64>>,
    runs: [Vec<RunOutcome>; 2],
    /// In duet mode, what starts B's runs beside A's.
    duet: Option<Duet>,
}

/// The request for a run of `variant` of a plain A/B (no scenario). A free
/// function, not a method: the request borrows the experiment, not the
/// state, so the state's run maker stays free to borrow mutably.
fn request<'e>(
    exp: &'e Experiment,
    variant_ids: &Option<Vec<i64>>,
    variant: usize,
    iteration: usize,
    warmup: bool,
) -> RunRequest<'e> {
    let v = &exp.variants[variant];
    RunRequest {
        variant: v,
        name: &v.name,
        variant_id: variant_ids.as_ref().map(|ids| ids[variant]),
        iteration,
        warmup,
        scenario: None,
    }
}

impl AbState<'_> {
    fn drive(
        &mut self,
        executor: &mut dyn Executor,
        schedule: &mut Schedule,
        progress: &mut dyn Progress,
    ) -> Result<(StopReason, Option<Evaluation>)> {
        let started = Instant::now();
        if !self.warm_up(executor)? {
            return Ok((StopReason::Interrupted, None));
        }
        // The stats crate's procedure decides; this loop only makes the runs
        // and stops where it says (or where the user or the clock does).
        let mut decider = Decider::new(self.exp)?;
        let mut evaluation = None;
        for iteration in 0..self.exp.max_runs {
            if !self.block(executor, schedule, iteration)? {
                return Ok((StopReason::Interrupted, decider.now(self.pairs())?));
            }
            let pairs = iteration + 1;
            if let Some(stopped) = decider.push(self.pairs())? {
                progress.update(pairs, self.exp.max_runs, Some(&stopped));
                let stop = if stopped.verdict == Verdict::Inconclusive {
                    StopReason::MaxRuns
                } else {
                    StopReason::Decided
                };
                return Ok((stop, Some(stopped)));
            }
            evaluation = decider.now(self.pairs())?;
            progress.update(pairs, self.exp.max_runs, evaluation.as_ref());
            if self.exp.max_time.is_some_and(|t| started.elapsed() >= t) && pairs >= 2 {
                return Ok((StopReason::MaxTime, evaluation));
            }
        }
        Ok((StopReason::MaxRuns, evaluation))
    }

    /// The runs of both variants, as pairs go (a block may be half done).
    fn pairs(&self) -> [&[RunOutcome]; 2] {
        [&self.runs[0], &self.runs[1]]
    }

    /// The warm-up runs: all of A's, then all of B's; in duet mode, pairs
    /// as measured. False when Ctrl-C stopped them.
    fn warm_up(&mut self, executor: &mut dyn Executor) -> Result<bool> {
        if self.duet.is_some() {
            for i in 0..self.exp.warmup {
                if self.duet_block(executor, i, true)?.is_none() {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        for variant in 0..2 {
            for i in 0..self.exp.warmup {
                if self.perform(executor, variant, i, true)?.is_none() {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// One measured block: A and B in the schedule's order, or together in
    /// duet mode. False when Ctrl-C stopped it.
    fn block(
        &mut self,
        executor: &mut dyn Executor,
        schedule: &mut Schedule,
        iteration: usize,
    ) -> Result<bool> {
        if self.duet.is_some() {
            let Some(pair) = self.duet_block(executor, iteration, false)? else {
                return Ok(false);
            };
            for (runs, run) in self.runs.iter_mut().zip(pair) {
                runs.push(run);
            }
            return Ok(true);
        }
        for variant in schedule.next_block() {
            let Some(run) = self.perform(executor, variant, iteration, false)? else {
                return Ok(false);
            };
            self.runs[variant].push(run);
        }
        Ok(true)
    }

    /// A duet block: A and B together; `None` when Ctrl-C stopped it.
    fn duet_block(
        &mut self,
        executor: &mut dyn Executor,
        iteration: usize,
        warmup: bool,
    ) -> Result<Option<[RunOutcome; 2]>> {
        let requests =
            [0, 1].map(|variant| request(self.exp, &self.variant_ids, variant, iteration, warmup));
        let duet = self.duet.as_mut().expect("called in duet mode");
        duet.block(executor, &mut self.maker, [&requests[0], &requests[1]])
    }

    /// One run of variant `variant`; `None` when Ctrl-C stopped it.
    fn perform(
        &mut self,
        executor: &mut dyn Executor,
        variant: usize,
        iteration: usize,
        warmup: bool,
    ) -> Result<Option<RunOutcome>> {
        let request = request(self.exp, &self.variant_ids, variant, iteration, warmup);
        self.maker.perform(executor, &request)
    }
}

/// The error for a run that failed, with a hint for the usual causes.
pub fn failed_run(label: String, command: &str, run: &RunOutcome) -> Error {
    let hint = match run.exit {
        ExitState::Code(127) => format!(
            "\nThe shell could not find the program of '{command}': check its spelling and PATH, or give a path like ./prog."
        ),
        ExitState::Code(126) => format!(
            "\nThe shell found '{command}' but could not execute it: check its permissions (chmod +x)."
        ),
        ExitState::TimedOut => {
            "\nRaise --timeout if the run legitimately takes this long.".to_string()
        }
        _ => "\nFix the command, or pass --ignore-failure to measure failing runs too.".to_string(),
    };
    let tail = perflab_runner::quote_output(&run.output_tail);
    Error::Run {
        run: label,
        message: format!(
            "'{command}' {}.{hint}\nThe end of its output:\n{tail}",
            run.exit.describe()
        ),
    }
}
