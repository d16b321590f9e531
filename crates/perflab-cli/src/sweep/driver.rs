//! Running a sweep: points visited in rounds, each round in a fresh random
//! order, one block (every command once, in random order) per visit, until
//! each point's intervals reach the precision or its run limit, or the time
//! limit has passed once every point has its minimum of runs.
//!
//! Visiting points in shuffled rounds rather than one after the other spreads
//! drift of the machine (warming up, other tenants) over all points: a trend
//! along the sizes cannot come from the hour at which each size was measured.

use crate::error::to_json;
use std::time::Instant;

use perflab_format::vocabulary::SweepStop;
use perflab_runner::{CommandLine, Executor, ExitState, RunOutcome, RunSpec, interrupted};

use super::analysis::{PointAnalysis, analyse_point, confidence_sequence, precision_rule};
use super::config::Sweep;
use super::document::{sweep_document, variant_name};
use super::state::{PointState, SweepState};
use crate::ab::failed_run;
use crate::decide::missing_metric;
use crate::error::Result;
use crate::progress::{PointProgress, SweepProgress, SweepStatus};
use crate::provenance::Provenance;
use crate::store::{Store, VariantRecord};

/// Runs the sweep. A failed run does not lose the points measured: the
/// state comes back with [`SweepStop::Failed`] and the error in `failure`.
pub fn run_sweep(
    sweep: &Sweep,
    executor: &mut dyn Executor,
    store: Option<&Store>,
    progress: &mut dyn SweepProgress,
) -> Result<SweepState> {
    let provenance = Provenance::collect(sweep.cwd.as_deref().unwrap_or(std::path::Path::new(".")));
    let seed = sweep.seed.unwrap_or_else(|| fastrand::u64(..));
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut ids = None;
    if let Some(store) = store {
        ids = Some(begin(sweep, store, &provenance, seed)?);
    }
    let mut state = SweepState {
        points: vec![
            PointState {
                runs: vec![Vec::new(); sweep.commands.len()],
                ..Default::default()
            };
            sweep.points.len()
        ],
        stop: SweepStop::Running,
        failure: None,
        experiment_id: ids.as_ref().map(|(id, _)| *id),
        seed,
        provenance,
    };
    let started = Instant::now();
    let rule = precision_rule(sweep);
    let cs = confidence_sequence(sweep)?;
    // Instrumented programs write their span profiles here, one file per run.
    let profiles = crate::ab::profile_dir()?;
    let mut sequence = 0;
    let stop = 'rounds: loop {
        let mut order: Vec<usize> = (0..sweep.points.len())
            .filter(|&p| !state.points[p].done)
            .collect();
        if order.is_empty() {
            break SweepStop::Finished;
        }
        rng.shuffle(&mut order);
        for p in order {
            if interrupted() {
                break 'rounds SweepStop::Interrupted;
            }
            // The time limit ends the sweep only once every point has its
            // minimum of runs, so that every point has a value and interval.
            if sweep.max_time.is_some_and(|t| started.elapsed() >= t)
                && state.points.iter().all(|point| {
                    point.done || point.runs.iter().all(|runs| runs.len() >= sweep.min_runs)
                })
            {
                break 'rounds SweepStop::MaxTime;
            }
            let mut visit = Visit {
                sweep,
                store,
                ids: ids.as_ref(),
                sequence: &mut sequence,
                profile_dir: profiles.path(),
            };
            match visit.point(executor, &mut rng, p, &mut state.points[p]) {
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
                checkpoint(sweep, store, &state)?;
            }
            progress.update(&status(sweep, &state, p, started.elapsed().as_secs_f64()));
        }
    };
    progress.finish();
    state.stop = stop;
    Ok(state)
}

/// Saves the document so far, so that even a killed sweep leaves its finished points readable.
fn checkpoint(sweep: &Sweep, store: Option<&Store>, state: &SweepState) -> Result<()> {
    if let (Some(store), Some(id)) = (store, state.experiment_id) {
        let doc = sweep_document(sweep, state)?;
        store.save_result_json(id, &to_json("the sweep document", &doc)?)?;
    }
    Ok(())
}

fn begin(
    sweep: &Sweep,
    store: &Store,
    provenance: &Provenance,
    seed: u64,
) -> Result<(i64, Vec<Vec<i64>>)> {
    let mut names = Vec::new();
    let mut commands = Vec::new();
    let mut envs = Vec::new();
    for point in &sweep.points {
        for command in &sweep.commands {
            names.push(variant_name(&command.name, &point.label()));
            commands.push(command.template.expand(point));
            envs.push(expand_env(sweep, point));
        }
    }
    let records: Vec<VariantRecord<'_>> = (0..names.len())
        .map(|i| VariantRecord {
            name: &names[i],
            command: &commands[i],
            env: &envs[i],
            cwd: sweep.cwd.as_deref(),
        })
        .collect();
    let config = serde_json::json!({
        "measure": sweep.metric.name, "size": sweep.size, "per_item": sweep.per_item,
        "precision": sweep.precision, "confidence": sweep.confidence, "cliff": sweep.cliff,
        "min_runs": sweep.min_runs, "max_runs": sweep.max_runs, "warmup": sweep.warmup, "seed": seed,
        "parameters": sweep.parameters.iter().map(|p| (p.name.clone(), p.values.iter().map(|v| v.text.clone()).collect::<Vec<_>>())).collect::<Vec<_>>(),
        "commands": sweep.commands.iter().map(|c| c.template.source()).collect::<Vec<_>>(),
    });
    let (id, flat) = store.begin_experiment(
        "sweep",
        sweep.name.as_deref(),
        Some(&sweep.metric.name),
        provenance,
        &config.to_string(),
        &records,
    )?;
    let per_point = flat
        .chunks(sweep.commands.len())
        .map(<[i64]>::to_vec)
        .collect();
    Ok((id, per_point))
}

fn expand_env(sweep: &Sweep, point: &super::params::Point) -> Vec<(String, String)> {
    sweep
        .env
        .iter()
        .map(|(k, t)| (k.clone(), t.expand(point)))
        .collect()
}

struct Visit<'a> {
    sweep: &'a Sweep,
    store: Option<&'a Store>,
    ids: Option<&'a (i64, Vec<Vec<i64>>)>,
    sequence: &'a mut usize,
    /// Where runs write their profiles (`PERFLAB_PROFILE`), as in `perflab ab`.
    profile_dir: &'a std::path::Path,
}

impl Visit<'_> {
    /// Warm-up on the first visit, then one block. False when Ctrl-C stopped it.
    fn point(
        &mut self,
        executor: &mut dyn Executor,
        rng: &mut fastrand::Rng,
        p: usize,
        state: &mut PointState,
    ) -> Result<bool> {
        let commands = self.sweep.commands.len();
        if !state.warmed {
            for c in 0..commands {
                for i in 0..self.sweep.warmup {
                    if self.run(executor, p, c, i, true)?.is_none() {
                        return Ok(false);
                    }
                }
            }
            state.warmed = true;
        }
        let mut block: Vec<usize> = (0..commands).collect();
        rng.shuffle(&mut block);
        let iteration = state.runs[0].len();
        let mut outcomes = Vec::with_capacity(commands);
        for c in block {
            let Some(run) = self.run(executor, p, c, iteration, false)? else {
                return Ok(false);
            };
            outcomes.push((c, run));
        }
        // A block is kept whole or not at all, so runs stay paired across commands.
        for (c, run) in outcomes {
            state.seconds += run.wall_s;
            state.runs[c].push(run);
        }
        Ok(true)
    }

    fn run(
        &mut self,
        executor: &mut dyn Executor,
        p: usize,
        c: usize,
        iteration: usize,
        warmup: bool,
    ) -> Result<Option<RunOutcome>> {
        if interrupted() {
            return Ok(None);
        }
        let point = &self.sweep.points[p];
        let command = &self.sweep.commands[c];
        let text = command.template.expand(point);
        let spec = RunSpec {
            command: CommandLine::new(&text, self.sweep.shell),
            env: expand_env(self.sweep, point),
            cwd: self.sweep.cwd.clone(),
            timeout: self.sweep.timeout,
            extractor: self.sweep.extractor.clone(),
            profile_path: Some(
                self.profile_dir
                    .join(format!("run-{}.json", *self.sequence + 1)),
            ),
            cpus: None,
        };
        let run = executor.execute(&spec);
        if let Some(path) = &spec.profile_path {
            let _ = std::fs::remove_file(path);
        }
        let run = run?;
        if run.exit == ExitState::Interrupted {
            return Ok(None);
        }
        *self.sequence += 1;
        if let (Some(store), Some((id, variant_ids))) = (self.store, self.ids) {
            store.record_run(
                *id,
                variant_ids[p][c],
                *self.sequence,
                iteration,
                warmup,
                &run,
            )?;
        }
        let variant = variant_name(&command.name, &point.label());
        let label = format!(
            "{}run {} of \"{variant}\"",
            if warmup { "warm-up " } else { "" },
            iteration + 1
        );
        if !run.exit.success() && !self.sweep.ignore_failure {
            return Err(failed_run(label, &text, &run));
        }
        if !warmup && run.metric(&self.sweep.metric.name).is_none() {
            return Err(missing_metric(
                &self.sweep.metric.name,
                &variant,
                iteration,
                &run,
            ));
        }
        Ok(Some(run))
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
        min_runs: sweep.min_runs,
        max_runs: sweep.max_runs,
        current: sweep.points[current].label(),
    }
}
