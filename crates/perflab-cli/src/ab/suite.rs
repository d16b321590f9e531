//! The suite driver: in every round the scenarios are visited in a shuffled
//! order, and each scenario with an undecided cell runs one block (its
//! baseline once and each undecided candidate once, in random order); the
//! block's baseline run pairs with each candidate's run. A cell that decided
//! takes no more runs, and the baseline runs only while a candidate of its
//! scenario does. The decisions are perflab-stats' [`SuiteTest`], driven as
//! its simulation drives it. A suite is a configuration of
//! [`crate::engine`]: its session's schedule draws both the scenarios'
//! order and each block's, and its run maker makes and stores every run.

use std::time::Instant;

use perflab_runner::{Executor, RunOutcome};
use perflab_stats::{Decision, SuiteTest, Verdict};

use crate::decide::{Evaluation, PairValues, evaluation_of, pair_values};
use crate::engine::{
    ExperimentConfig, Gate, ModeConfig, OutcomeHeader, Plan, Progress, QuietGate, RunChecks,
    RunMaker, RunRequest, Schedule, Session, StopReason, SuiteConfig, records,
};
use crate::error::Result;
use crate::experiment::{Guard, Suite};
use crate::machine::MachineWatch;
use perflab_store::Store;

use super::driver::decision_config;
use super::duet::Duet;
use perflab_format::duet::DuetDoc;
use perflab_format::vocabulary::ExperimentKind;

/// What a suite produced.
#[derive(Debug)]
pub struct SuiteRun {
    /// `runs[scenario][variant]`: the measured runs of every cell, in order.
    pub runs: Vec<Vec<Vec<RunOutcome>>>,
    /// Per decision cell ([`Suite::cell`]): its evaluation, if it has at
    /// least 2 pairs.
    pub evaluations: Vec<Option<Evaluation>>,
    /// The confidence level of each cell (the experiment's, split).
    pub cell_confidence: f64,
    /// Id, stop reason, seed, provenance and machine.
    pub header: OutcomeHeader,
    /// In duet mode: the CPUs and how each pair's runs overlapped.
    pub duet: Option<DuetDoc>,
}

impl SuiteRun {
    /// Every cell's verdict, INCONCLUSIVE where there is no evaluation.
    pub fn verdicts(&self) -> Vec<Verdict> {
        self.evaluations
            .iter()
            .map(|e| e.as_ref().map_or(Verdict::Inconclusive, |e| e.verdict))
            .collect()
    }

    /// Measured runs of every cell together.
    pub fn run_count(&self) -> usize {
        self.runs.iter().flatten().map(Vec::len).sum()
    }
}

/// Runs the suite. Runs are stored as they finish, each under its cell's
/// variant record ("scenario / variant"); on an error the experiment is
/// marked incomplete and the error says how many runs were kept.
pub fn run_suite(
    suite: &Suite,
    executor: &mut dyn Executor,
    store: Option<&Store>,
    progress: &mut dyn Progress,
) -> Result<SuiteRun> {
    let exp = &suite.exp;
    let guards = exp.guards.iter().map(Guard::limit).collect();
    let test = SuiteTest::with_guards(exp.sequential_config(), suite.cells(), guards)?;
    let (names, commands) = texts(suite);
    let mut session = Session::begin(store, plan(suite, &names, &commands), |seed| {
        suite_config(suite, test.cell_confidence(), seed)
    })?;
    let duet = exp.duet.map(|cpus| Duet::new(cpus, executor)).transpose()?;
    let mut state = SuiteState {
        suite,
        maker: session.run_maker(RunChecks::of_experiment(exp))?,
        variant_ids: session.variant_ids.clone(),
        runs: vec![vec![Vec::new(); exp.variants.len()]; suite.scenarios.len()],
        paired: vec![[Vec::new(), Vec::new()]; suite.cells()],
        test,
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
    match outcome {
        Ok(stop) => Ok(SuiteRun {
            evaluations: state.evaluations()?,
            cell_confidence: state.test.cell_confidence(),
            runs: state.runs,
            header: OutcomeHeader {
                contention: state.maker.contention.doc(),
                ..session.header(stop, machine)
            },
            duet: state.duet.as_ref().and_then(Duet::doc),
        }),
        Err(e) => Err(session.fail(e)),
    }
}

/// The configuration a suite stores.
pub fn suite_config(suite: &Suite, cell_confidence: f64, seed: u64) -> ExperimentConfig {
    let exp = &suite.exp;
    ExperimentConfig {
        measure: exp.metric.name.clone(),
        confidence: exp.confidence,
        min_runs: exp.limits.min_runs,
        max_runs: exp.limits.max_runs,
        warmup: exp.limits.warmup,
        seed,
        mode: ModeConfig::Suite(SuiteConfig {
            decision: decision_config(exp),
            cell_confidence,
            scenarios: suite.scenarios.iter().map(|s| s.name.clone()).collect(),
            duet: exp.duet,
        }),
    }
}

/// The names ("scenario / variant") and command texts of every cell,
/// scenario by scenario.
fn texts(suite: &Suite) -> (Vec<String>, Vec<String>) {
    let mut names = Vec::new();
    let mut commands = Vec::new();
    for (s, scenario) in suite.scenarios.iter().enumerate() {
        for (v, cell) in scenario.cells.iter().enumerate() {
            names.push(suite.cell_name(s, v));
            commands.push(cell.command.display());
        }
    }
    (names, commands)
}

/// A suite in the store: a variant record per cell, named "scenario /
/// variant", scenario by scenario. Cells are variant records so that the
/// store's schema, and every reader of it (history, compare, report), stays
/// as it is.
fn plan<'s>(suite: &'s Suite, names: &'s [String], commands: &'s [String]) -> Plan<'s> {
    let cells: Vec<_> = suite.scenarios.iter().flat_map(|s| &s.cells).collect();
    Plan {
        kind: ExperimentKind::Suite,
        name: suite.exp.name.as_deref(),
        metric: &suite.exp.metric.name,
        cwd: suite.exp.variants[0].cwd.as_deref(),
        records: records(&cells, names, commands),
        block: suite.exp.variants.len(),
        seed: suite.exp.seed,
    }
}

struct SuiteState<'a> {
    suite: &'a Suite,
    maker: RunMaker<'a>,
    variant_ids: Option<Vec<i64>>,
    runs: Vec<Vec<Vec<RunOutcome>>>,
    /// Per cell, (baseline, candidate) runs paired by position.
    paired: Vec<[Vec<RunOutcome>; 2]>,
    test: SuiteTest,
    /// In duet mode, what starts a candidate's runs beside the baseline's.
    duet: Option<Duet>,
    /// The wait for a quiet machine before each block.
    quiet: QuietGate,
}

impl SuiteState<'_> {
    fn drive(
        &mut self,
        executor: &mut dyn Executor,
        schedule: &mut Schedule,
        progress: &mut dyn Progress,
    ) -> Result<StopReason> {
        let exp = &self.suite.exp;
        let started = Instant::now();
        for s in 0..self.suite.scenarios.len() {
            // In duet mode the baseline warms up beside each candidate.
            if self.duet.is_some() {
                for v in 1..exp.variants.len() {
                    for i in 0..exp.limits.warmup {
                        if self.duet_pair(executor, s, v, [i, i], true)?.is_none() {
                            return Ok(StopReason::Interrupted);
                        }
                    }
                }
                continue;
            }
            for v in 0..exp.variants.len() {
                for i in 0..exp.limits.warmup {
                    if self.perform(executor, s, v, i, true)?.is_none() {
                        return Ok(StopReason::Interrupted);
                    }
                }
            }
        }
        let mut rounds = 0;
        while !self.test.is_finished() {
            let mut order: Vec<usize> = (0..self.suite.scenarios.len()).collect();
            schedule.shuffle(&mut order);
            for s in order {
                if self.open_candidates(s).is_empty() {
                    continue;
                }
                match self
                    .quiet
                    .before_block(&exp.limits, started, &mut |l| progress.note(l))
                {
                    Gate::Open => {}
                    Gate::OutOfTime => return Ok(StopReason::MaxTime),
                    Gate::Interrupted => return Ok(StopReason::Interrupted),
                }
                if !self.block(executor, schedule, s)? {
                    return Ok(StopReason::Interrupted);
                }
            }
            rounds += 1;
            progress.update(rounds, exp.limits.max_runs, None);
            let every_cell_has_an_interval =
                (0..self.suite.cells()).all(|c| self.paired[c][0].len() >= 2);
            if exp.limits.out_of_time(started.elapsed()) && every_cell_has_an_interval {
                return Ok(StopReason::MaxTime);
            }
        }
        let decided = (0..self.suite.cells()).all(|c| {
            self.test
                .decision(c)
                .ok()
                .flatten()
                .is_some_and(|d| d.verdict != Verdict::Inconclusive)
        });
        Ok(if decided {
            StopReason::Decided
        } else {
            StopReason::MaxRuns
        })
    }

    /// The candidates of scenario `s` whose cells are still undecided.
    fn open_candidates(&self, s: usize) -> Vec<usize> {
        (1..self.suite.exp.variants.len())
            .filter(|&v| {
                !self
                    .test
                    .is_cell_finished(self.suite.cell(s, v))
                    .unwrap_or(true)
            })
            .collect()
    }

    /// One block of scenario `s`: the baseline and every undecided
    /// candidate once, in random order, then each candidate's pair. False
    /// when Ctrl-C stopped it.
    fn block(
        &mut self,
        executor: &mut dyn Executor,
        schedule: &mut Schedule,
        s: usize,
    ) -> Result<bool> {
        let open = self.open_candidates(s);
        if open.is_empty() {
            return Ok(true);
        }
        if self.duet.is_some() {
            return self.duet_block(executor, schedule, s, open);
        }
        let mut block: Vec<usize> = std::iter::once(0).chain(open.iter().copied()).collect();
        // Measured again, in a new order, while the contention rule says so.
        let measured = loop {
            self.maker.begin_block();
            schedule.shuffle(&mut block);
            let mut measured: Vec<(usize, RunOutcome)> = Vec::with_capacity(block.len());
            for &v in &block {
                let iteration = self.runs[s][v].len();
                let Some(run) = self.perform(executor, s, v, iteration, false)? else {
                    for (v, run) in measured {
                        self.runs[s][v].push(run);
                    }
                    return Ok(false);
                };
                measured.push((v, run));
            }
            if self.maker.keep_block(measured.iter().map(|(_, run)| run))? {
                break measured;
            }
        };
        for (v, run) in measured {
            self.runs[s][v].push(run);
        }
        let baseline = self.runs[s][0].last().cloned().expect("the block ran it");
        for v in open {
            let cell = self.suite.cell(s, v);
            let candidate = self.runs[s][v].last().cloned().expect("the block ran it");
            let index = self.paired[cell][0].len();
            self.paired[cell][0].push(baseline.clone());
            self.paired[cell][1].push(candidate);
            let (b, c, guards) = self.pair_values(s, v, index)?;
            self.test.push_with_guards(cell, b, c, &guards)?;
        }
        Ok(true)
    }

    /// A block in duet mode: for each undecided candidate, in random
    /// order, one run of it started together with one of the baseline,
    /// which pair. False when Ctrl-C stopped it.
    fn duet_block(
        &mut self,
        executor: &mut dyn Executor,
        schedule: &mut Schedule,
        s: usize,
        mut open: Vec<usize>,
    ) -> Result<bool> {
        schedule.shuffle(&mut open);
        for v in open {
            let iterations = [self.runs[s][0].len(), self.runs[s][v].len()];
            // The pair is the block: measured again while the contention rule says so.
            let [baseline, candidate] = loop {
                self.maker.begin_block();
                let Some(pair) = self.duet_pair(executor, s, v, iterations, false)? else {
                    return Ok(false);
                };
                if self.maker.keep_block(&pair)? {
                    break pair;
                }
                if let Some(duet) = &mut self.duet {
                    duet.forget_last_pair();
                }
            };
            self.runs[s][0].push(baseline.clone());
            self.runs[s][v].push(candidate.clone());
            let cell = self.suite.cell(s, v);
            let index = self.paired[cell][0].len();
            self.paired[cell][0].push(baseline);
            self.paired[cell][1].push(candidate);
            let (b, c, guards) = self.pair_values(s, v, index)?;
            self.test.push_with_guards(cell, b, c, &guards)?;
        }
        Ok(true)
    }

    /// The baseline and candidate `v` of scenario `s` started together.
    fn duet_pair(
        &mut self,
        executor: &mut dyn Executor,
        s: usize,
        v: usize,
        iterations: [usize; 2],
        warmup: bool,
    ) -> Result<Option<[RunOutcome; 2]>> {
        let names = [self.suite.cell_name(s, 0), self.suite.cell_name(s, v)];
        let scenario = &self.suite.scenarios[s];
        let per_scenario = self.suite.exp.variants.len();
        let requests = [0, 1].map(|side| {
            let variant = [0, v][side];
            RunRequest {
                variant: &scenario.cells[variant],
                name: &names[side],
                variant_id: self
                    .variant_ids
                    .as_ref()
                    .map(|ids| ids[s * per_scenario + variant]),
                iteration: iterations[side],
                warmup,
                scenario: Some((&scenario.name, &scenario.expect)),
            }
        });
        let duet = self.duet.as_mut().expect("called in duet mode");
        duet.block(executor, &mut self.maker, [&requests[0], &requests[1]])
    }

    /// The decision metric's and guards' values of pair `index` of a cell.
    fn pair_values(&self, s: usize, v: usize, index: usize) -> Result<PairValues> {
        let cell = &self.paired[self.suite.cell(s, v)];
        let names = [self.suite.cell_name(s, 0), self.suite.cell_name(s, v)];
        let runs = [cell[0].as_slice(), cell[1].as_slice()];
        pair_values(&self.suite.exp, runs, [&names[0], &names[1]], index)
    }

    fn perform(
        &mut self,
        executor: &mut dyn Executor,
        s: usize,
        v: usize,
        iteration: usize,
        warmup: bool,
    ) -> Result<Option<RunOutcome>> {
        let name = self.suite.cell_name(s, v);
        let record = s * self.suite.exp.variants.len() + v;
        self.maker.perform(
            executor,
            &RunRequest {
                variant: &self.suite.scenarios[s].cells[v],
                name: &name,
                variant_id: self.variant_ids.as_ref().map(|ids| ids[record]),
                iteration,
                warmup,
                scenario: Some((
                    &self.suite.scenarios[s].name,
                    &self.suite.scenarios[s].expect,
                )),
            },
        )
    }

    /// Every cell's decision (the one it stopped with, else as if it
    /// stopped now), as an evaluation; `None` below 2 pairs.
    fn evaluations(&self) -> Result<Vec<Option<Evaluation>>> {
        (0..self.suite.cells())
            .map(|c| {
                let decision: Decision = match self.test.decision(c)? {
                    Some(d) => d.clone(),
                    None if self.paired[c][0].len() < 2 => return Ok(None),
                    None => self.test.evaluate(c)?,
                };
                let runs = [self.paired[c][0].as_slice(), self.paired[c][1].as_slice()];
                Ok(Some(evaluation_of(
                    &self.suite.exp,
                    &decision,
                    runs,
                    self.test.cell_confidence(),
                )))
            })
            .collect()
    }
}
