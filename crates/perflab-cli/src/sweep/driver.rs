//! Running a sweep: points visited in rounds, each round in a fresh random
//! order, one block (every command once, in random order) per visit, until
//! each point's intervals reach the precision or its run limit, or the time
//! limit has passed once every point has its minimum of runs.
//!
//! Visiting points in shuffled rounds rather than one after the other spreads
//! drift of the machine (warming up, other tenants) over all points: a trend
//! along the sizes cannot come from the hour at which each size was measured.
//!
//! A sweep is a configuration of [`crate::engine`]: every command at every
//! point is a variant, a point's block holds its commands, and the engine's
//! schedule orders both the points of a round and the commands of a block.

use std::time::Instant;

use perflab_format::vocabulary::{ExperimentKind, SweepStop};
use perflab_runner::{CommandLine, Executor, RunOutcome};

use super::analysis::{PointAnalysis, analyse_point, confidence_sequence, precision_rule};
use super::config::Sweep;
use super::config::variant_name;
use super::params::Point;
use super::state::{PointState, SweepState};
use crate::engine::{
    ExperimentConfig, Gate, ModeConfig, Plan, PointProgress, QuietGate, RunChecks, RunMaker,
    RunRequest, Schedule, Session, SweepConfig, SweepProgress, SweepStatus, records,
};
use crate::error::Result;
use crate::expectations::Expectations;
use crate::experiment::Variant;
use perflab_store::Store;

/// Runs the sweep. A failed run does not lose the points measured: the
/// state comes back with [`SweepStop::Failed`] and the error in `failure`.
/// `checkpoint` is called with the state each time a point is done (the
/// command saves the document so far there; the engine builds no document).
pub fn run_sweep(
    sweep: &Sweep,
    executor: &mut dyn Executor,
    store: Option<&Store>,
    progress: &mut dyn SweepProgress,
    checkpoint: &mut dyn FnMut(&SweepState) -> Result<()>,
) -> Result<SweepState> {
    let cells = cells(sweep)?;
    let texts: Vec<String> = sweep
        .points
        .iter()
        .flat_map(|point| sweep.commands.iter().map(|c| c.template.expand(point)))
        .collect();
    let names: Vec<String> = cells.iter().map(|c| c.name.clone()).collect();
    let plan = Plan {
        kind: ExperimentKind::Sweep,
        name: sweep.name.as_deref(),
        metric: &sweep.metric.name,
        cwd: sweep.cwd.as_deref(),
        records: records(&cells.iter().collect::<Vec<_>>(), &names, &texts),
        block: sweep.commands.len(),
        seed: sweep.seed,
    };
    let mut session = Session::begin(store, plan, |seed| sweep_config(sweep, seed))?;
    let mut state = SweepState {
        points: vec![
            PointState {
                runs: vec![Vec::new(); sweep.commands.len()],
                ..Default::default()
            };
            sweep.points.len()
        ],
        header: session.header(SweepStop::Running, None),
        failure: None,
    };
    let started = Instant::now();
    let rule = precision_rule(sweep);
    let cs = confidence_sequence(sweep)?;
    let nothing_expected = Expectations::default();
    let mut visit = Visit {
        sweep,
        cells: &cells,
        maker: session.run_maker(RunChecks {
            timeout: sweep.limits.timeout,
            extractor: sweep.extractor.clone(),
            ignore_failure: sweep.ignore_failure,
            keep_children: sweep.keep_children,
            output: sweep.output.clone(),
            pin: sweep.shield.as_ref().map(|s| s.cpus.clone()),
            metrics: vec![sweep.metric.name.as_str()],
            expect: &nothing_expected,
            says_variant: false,
            max_cpu_wait: sweep.limits.max_cpu_wait,
            trace_dir: sweep.trace_dir.clone(),
        })?,
        variant_ids: session.variant_ids.clone(),
    };
    let mut quiet = QuietGate::new(sweep.wait_quiet);
    let stop = 'rounds: loop {
        let mut order: Vec<usize> = (0..sweep.points.len())
            .filter(|&p| !state.points[p].done)
            .collect();
        if order.is_empty() {
            break SweepStop::Finished;
        }
        session.schedule.shuffle(&mut order);
        for p in order {
            if perflab_runner::interrupted() {
                break 'rounds SweepStop::Interrupted;
            }
            // The time limit ends the sweep only once every point has its
            // minimum of runs, so that every point has a value and interval.
            if sweep.limits.out_of_time(started.elapsed())
                && state.points.iter().all(|point| {
                    point.done
                        || point
                            .runs
                            .iter()
                            .all(|runs| runs.len() >= sweep.limits.min_runs)
                })
            {
                break 'rounds SweepStop::MaxTime;
            }
            match quiet.before_block(&sweep.limits, started, &mut |l| progress.note(l)) {
                Gate::Open => {}
                Gate::OutOfTime => break 'rounds SweepStop::MaxTime,
                Gate::Interrupted => break 'rounds SweepStop::Interrupted,
            }
            match visit.point(executor, &mut session.schedule, p, &mut state.points[p]) {
                Ok(true) => {}
                Ok(false) => break 'rounds SweepStop::Interrupted,
                Err(e) => {
                    state.failure = Some(e);
                    break 'rounds SweepStop::Failed;
                }
            }
            let point = &mut state.points[p];
            let label = sweep.points[p].label();
            let analysis: PointAnalysis = match analyse_point(sweep, &label, &point.runs, &cs) {
                Ok(a) => a,
                Err(e) => {
                    state.failure = Some(e);
                    break 'rounds SweepStop::Failed;
                }
            };
            point.widest = analysis.widest();
            let n = point.runs.iter().map(Vec::len).min().unwrap_or(0);
            if rule.stop(n, point.widest).is_some() {
                point.done = true;
                state.header.contention = visit.maker.contention.doc();
                visit.maker.write_runs()?;
                checkpoint(&state)?;
            }
            progress.update(&status(sweep, &state, p, started.elapsed().as_secs_f64()));
        }
    };
    progress.finish();
    // The runs still held in memory go to the store before anything
    // finishes the experiment or counts its runs, whatever the stop.
    visit.maker.write_runs()?;
    state.header.stop = stop;
    if let Some(waits) = quiet.doc() {
        state.header.machine.get_or_insert_default().quiet_wait = Some(waits);
    }
    state.header.contention = visit.maker.contention.doc();
    Ok(state)
}

/// The configuration a sweep stores.
pub fn sweep_config(sweep: &Sweep, seed: u64) -> ExperimentConfig {
    ExperimentConfig {
        measure: sweep.metric.name.clone(),
        confidence: sweep.confidence,
        min_runs: sweep.limits.min_runs,
        max_runs: sweep.limits.max_runs,
        warmup: sweep.limits.warmup,
        seed,
        mode: ModeConfig::Sweep(SweepConfig {
            size: sweep.size.clone(),
            per_item: sweep.per_item,
            precision: sweep.precision,
            cliff: sweep.cliff,
            parameters: sweep
                .parameters
                .iter()
                .map(|p| {
                    let values = p.values.iter().map(|v| v.text.clone()).collect();
                    (p.name.clone(), values)
                })
                .collect(),
            commands: sweep
                .commands
                .iter()
                .map(|c| c.template.source().to_string())
                .collect(),
        }),
    }
}

/// Every command at every point as a variant, point by point: its name in
/// messages and the store, the command and environment expanded for the point.
/// A command that cannot be split into arguments (`-N` with an unclosed
/// quote) is refused here, before any run.
fn cells(sweep: &Sweep) -> Result<Vec<Variant>> {
    let mut cells = Vec::with_capacity(sweep.points.len() * sweep.commands.len());
    for point in &sweep.points {
        for command in &sweep.commands {
            cells.push(Variant {
                name: variant_name(&command.name, &point.label()),
                command: CommandLine::new(&command.template.expand(point), sweep.shell)?,
                env: expand_env(sweep, point),
                cwd: sweep.cwd.clone(),
            });
        }
    }
    Ok(cells)
}

fn expand_env(sweep: &Sweep, point: &Point) -> Vec<(String, String)> {
    sweep
        .env
        .iter()
        .map(|(k, t)| (k.clone(), t.expand(point)))
        .collect()
}

struct Visit<'a> {
    sweep: &'a Sweep,
    /// Every command at every point ([`cells`]).
    cells: &'a [Variant],
    maker: RunMaker<'a>,
    variant_ids: Option<Vec<i64>>,
}

impl Visit<'_> {
    /// Warm-up on the first visit, then one block. False when Ctrl-C stopped it.
    fn point(
        &mut self,
        executor: &mut dyn Executor,
        schedule: &mut Schedule,
        p: usize,
        state: &mut PointState,
    ) -> Result<bool> {
        let commands = self.sweep.commands.len();
        if !state.warmed {
            for c in 0..commands {
                for i in 0..self.sweep.limits.warmup {
                    if self.run(executor, p, c, i, true)?.is_none() {
                        return Ok(false);
                    }
                }
            }
            state.warmed = true;
        }
        let iteration = state.runs[0].len();
        // Measured again, in a new order, while the contention rule says so.
        let outcomes = loop {
            self.maker.begin_block();
            let mut outcomes = Vec::with_capacity(commands);
            for c in schedule.next_block() {
                let Some(run) = self.run(executor, p, c, iteration, false)? else {
                    return Ok(false);
                };
                outcomes.push((c, run));
            }
            if self.maker.keep_block(outcomes.iter().map(|(_, run)| run))? {
                break outcomes;
            }
        };
        // A block is kept whole or not at all, so runs stay paired across commands.
        for (c, run) in outcomes {
            state.seconds += run.wall_s;
            state.runs[c].push(run);
        }
        Ok(true)
    }

    /// Run `iteration` of command `c` at point `p`; `None` when Ctrl-C stopped it.
    fn run(
        &mut self,
        executor: &mut dyn Executor,
        p: usize,
        c: usize,
        iteration: usize,
        warmup: bool,
    ) -> Result<Option<RunOutcome>> {
        let cell = p * self.sweep.commands.len() + c;
        let variant = &self.cells[cell];
        self.maker.perform(
            executor,
            &RunRequest {
                variant,
                name: &variant.name,
                variant_id: self.variant_ids.as_ref().map(|ids| ids[cell]),
                iteration,
                warmup,
                scenario: None,
            },
        )
    }
}

fn status(sweep: &Sweep, state: &SweepState, current: usize, elapsed: f64) -> SweepStatus {
    SweepStatus {
        points: state
            .points
            .iter()
            .map(|p| PointProgress {
                blocks: p.runs.iter().map(Vec::len).min().unwrap_or(0),
                seconds: p.seconds,
                widest: p.widest,
                done: p.done,
            })
            .collect(),
        runs: state.runs(),
        elapsed,
        precision: sweep.precision,
        min_runs: sweep.limits.min_runs,
        max_runs: sweep.limits.max_runs,
        current: sweep.points[current].label(),
    }
}
