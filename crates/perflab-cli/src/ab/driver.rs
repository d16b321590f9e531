//! The A/B driver: runs A and B in randomised blocks, stores every run as
//! it finishes, and stops where the sequential procedure says. The blocks
//! come from the engine's schedule and the runs from its run maker
//! ([`crate::engine`]); a bisection step is one such A/B.

use perflab_format::vocabulary::ExperimentKind;
use std::time::Instant;

use perflab_runner::{Executor, RunOutcome};
use perflab_stats::Verdict;

use crate::decide::{Decider, Evaluation};
use crate::engine::{
    AbConfig, DecisionConfig, ExperimentConfig, Gate, ModeConfig, OutcomeHeader, Plan, Progress,
    QuietGate, RunChecks, RunMaker, RunRequest, Schedule, Session, StopReason, records,
};
use crate::error::Result;
use crate::experiment::Experiment;
use crate::machine::MachineWatch;
use perflab_store::Store;
use perflab_store::provenance::Provenance;

use super::duet::Duet;
use perflab_format::duet::DuetDoc;

/// What an A/B experiment produced.
#[derive(Debug)]
pub struct AbRun {
    /// Measured runs of A and B, in the order of their blocks.
    pub runs: [Vec<RunOutcome>; 2],
    /// The final evaluation, if at least two pairs were measured.
    pub evaluation: Option<Evaluation>,
    /// Id, stop reason, seed, provenance and machine.
    pub header: OutcomeHeader,
    /// In duet mode: the CPUs and how each pair's runs overlapped.
    pub duet: Option<DuetDoc>,
}

/// The plan of an A/B experiment for the store: a record per variant.
fn plan<'e>(exp: &'e Experiment, names: &'e [String], commands: &'e [String]) -> Plan<'e> {
    let variants: Vec<_> = exp.variants.iter().collect();
    Plan {
        kind: ExperimentKind::Ab,
        name: exp.name.as_deref(),
        metric: &exp.metric.name,
        cwd: exp.variants[0].cwd.as_deref(),
        records: records(&variants, names, commands),
        block: 2,
        seed: exp.seed,
    }
}

/// The names and command texts of the variants, for their records.
fn texts(exp: &Experiment) -> (Vec<String>, Vec<String>) {
    exp.variants
        .iter()
        .map(|v| (v.name.clone(), v.command.display()))
        .unzip()
}

/// The configuration an A/B experiment stores.
pub fn ab_config(exp: &Experiment, seed: u64) -> ExperimentConfig {
    ExperimentConfig {
        measure: exp.metric.name.clone(),
        confidence: exp.confidence,
        min_runs: exp.limits.min_runs,
        max_runs: exp.limits.max_runs,
        warmup: exp.limits.warmup,
        seed,
        mode: ModeConfig::Ab(AbConfig {
            decision: decision_config(exp),
            pin: exp.pin.as_ref().map(ToString::to_string),
            duet: exp.duet,
        }),
    }
}

/// The sequential decision an A/B or a suite stores.
pub fn decision_config(exp: &Experiment) -> DecisionConfig {
    DecisionConfig {
        go: exp.thresholds.go,
        nogo: exp.thresholds.nogo,
        optimise_at: exp.sequential_config().optimise_at,
    }
}

/// Opens an A/B experiment in the store, with a record per variant;
/// returns its id and the variants' ids.
pub fn begin_ab(
    store: &Store,
    exp: &Experiment,
    provenance: &Provenance,
    config_json: &str,
) -> Result<(i64, Vec<i64>)> {
    let (names, commands) = texts(exp);
    let plan = plan(exp, &names, &commands);
    Ok(store.begin_experiment(
        plan.kind,
        plan.name,
        Some(plan.metric),
        provenance,
        config_json,
        &plan.records,
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
    let (names, commands) = texts(exp);
    let mut session = Session::begin(store, plan(exp, &names, &commands), |seed| {
        ab_config(exp, seed)
    })?;
    let duet = exp.duet.map(|cpus| Duet::new(cpus, executor)).transpose()?;
    let mut state = AbState {
        exp,
        maker: session.run_maker(RunChecks::of_experiment(exp))?,
        variant_ids: session.variant_ids.clone(),
        runs: [Vec::new(), Vec::new()],
        duet,
        quiet: QuietGate::new(exp.wait_quiet),
    };
    let watch = executor.runs_on_this_machine().then(MachineWatch::start);
    let outcome = state
        .drive(executor, &mut session.schedule, progress)
        .and_then(|stop| state.maker.write_runs().map(|()| stop));
    // The runs held in memory are written on an error too, before the
    // experiment is marked incomplete and its runs counted.
    let _ = state.maker.write_runs();
    let machine = watch.map(|w| w.finish(exp.pin.as_ref(), state.quiet.doc()));
    progress.finish();
    let duet = state.duet.as_ref().and_then(Duet::doc);
    match outcome {
        Ok((stop, evaluation)) => Ok(AbRun {
            runs: state.runs,
            evaluation,
            header: OutcomeHeader {
                contention: state.maker.contention.doc(),
                ..session.header(stop, machine)
            },
            duet,
        }),
        Err(e) => Err(session.fail(e)),
    }
}

struct AbState<'a> {
    exp: &'a Experiment,
    maker: RunMaker<'a>,
    variant_ids: Option<Vec<i64>>,
    runs: [Vec<RunOutcome>; 2],
    /// In duet mode, what starts B's runs beside A's.
    duet: Option<Duet>,
    /// The wait for a quiet machine before each block.
    quiet: QuietGate,
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
        for iteration in 0..self.exp.limits.max_runs {
            match self
                .quiet
                .before_block(&self.exp.limits, started, &mut |l| progress.note(l))
            {
                Gate::Open => {}
                Gate::OutOfTime => return Ok((StopReason::MaxTime, decider.now(self.pairs())?)),
                Gate::Interrupted => {
                    return Ok((StopReason::Interrupted, decider.now(self.pairs())?));
                }
            }
            if !self.block(executor, schedule, iteration)? {
                return Ok((StopReason::Interrupted, decider.now(self.pairs())?));
            }
            let pairs = iteration + 1;
            if let Some(stopped) = decider.push(self.pairs())? {
                progress.update(
                    pairs,
                    self.exp.limits.max_runs,
                    Some(stopped.so_far(self.exp.metric.better)),
                );
                let stop = if stopped.verdict != Verdict::Inconclusive {
                    StopReason::Decided
                } else if pairs < self.exp.limits.max_runs {
                    StopReason::OutOfReach
                } else {
                    StopReason::MaxRuns
                };
                return Ok((stop, Some(stopped)));
            }
            // The evaluation so far sorts every pair: made only for a
            // display that will show it, and at a stop, not after every pair.
            let so_far = match progress.shows_decision() {
                true => decider
                    .now(self.pairs())?
                    .map(|e| e.so_far(self.exp.metric.better)),
                false => None,
            };
            progress.update(pairs, self.exp.limits.max_runs, so_far);
            if self.exp.limits.out_of_time(started.elapsed()) && pairs >= 2 {
                return Ok((StopReason::MaxTime, decider.now(self.pairs())?));
            }
        }
        Ok((StopReason::MaxRuns, decider.now(self.pairs())?))
    }

    /// The runs of both variants, as pairs go (a block may be half done).
    fn pairs(&self) -> [&[RunOutcome]; 2] {
        [&self.runs[0], &self.runs[1]]
    }

    /// The warm-up runs: all of A's, then all of B's; in duet mode, pairs
    /// as measured. False when Ctrl-C stopped them.
    fn warm_up(&mut self, executor: &mut dyn Executor) -> Result<bool> {
        if self.duet.is_some() {
            for i in 0..self.exp.limits.warmup {
                if self.duet_block(executor, i, true)?.is_none() {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        for variant in 0..2 {
            for i in 0..self.exp.limits.warmup {
                if self.perform(executor, variant, i, true)?.is_none() {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// One measured block: A and B in the schedule's order (drawn anew for
    /// each measurement), or together in duet mode; measured again while
    /// the contention rule says so. False when Ctrl-C stopped it (the runs
    /// of a half-done block are kept, as pairs go).
    fn block(
        &mut self,
        executor: &mut dyn Executor,
        schedule: &mut Schedule,
        iteration: usize,
    ) -> Result<bool> {
        loop {
            self.maker.begin_block();
            let mut measured: Vec<(usize, RunOutcome)> = Vec::with_capacity(2);
            let complete = if self.duet.is_some() {
                let pair = self.duet_block(executor, iteration, false)?;
                measured.extend(pair.into_iter().flat_map(|[a, b]| [(0, a), (1, b)]));
                !measured.is_empty()
            } else {
                let mut complete = true;
                for variant in schedule.next_block() {
                    match self.perform(executor, variant, iteration, false)? {
                        Some(run) => measured.push((variant, run)),
                        None => {
                            complete = false;
                            break;
                        }
                    }
                }
                complete
            };
            if complete && !self.maker.keep_block(measured.iter().map(|(_, run)| run))? {
                if let Some(duet) = &mut self.duet {
                    duet.forget_last_pair();
                }
                continue;
            }
            for (variant, run) in measured {
                self.runs[variant].push(run);
            }
            return Ok(complete);
        }
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
