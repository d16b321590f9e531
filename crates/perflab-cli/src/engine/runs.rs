//! One measured (or warm-up) run, as every engine makes it: the request
//! becomes a [`RunSpec`], the executor runs it, the outcome is stored as it
//! finishes, then checked (exit status, the metrics the engine needs, what
//! the runs must show).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use perflab_format::trace::TRACE_ENV;
use std::time::Duration;

use perflab_runner::{
    CpuSet, Executor, ExitState, MetricExtractor, RunOutcome, RunSpec, interrupted,
};

use super::contention::Contention;
use crate::error::{Error, Result};
use crate::expectations::{Expectations, check};
use crate::experiment::{Experiment, Variant};
use perflab_store::{RunBatch, RunPlace};

/// How every run of an experiment is started and what it must show.
#[derive(Debug, Clone)]
pub struct RunChecks<'a> {
    /// Per-run timeout.
    pub timeout: Option<Duration>,
    /// Metric patterns for the output.
    pub extractor: Arc<MetricExtractor>,
    /// Keep going when a run fails (and skip the expectations).
    pub ignore_failure: bool,
    /// Leave the processes a command left running instead of ending them.
    pub keep_children: bool,
    /// Where the runs' stdout and stderr go.
    pub output: perflab_runner::Output,
    /// The CPUs every run is pinned to.
    pub pin: Option<CpuSet>,
    /// The metrics every measured run must report (the decision's, the guards').
    pub metrics: Vec<&'a str>,
    /// What every measured run must show; empty when nothing is expected.
    pub expect: &'a Expectations,
    /// Whether messages call a run's name a variant (`run 3 of variant "B"`)
    /// or give it alone (a sweep's `run 3 of "prog n=10"`).
    pub says_variant: bool,
    /// The contention rule's threshold (`None`: off), see [`Contention`].
    pub max_cpu_wait: Option<f64>,
    /// Where instrumented runs write their traces (`--trace`), if anywhere.
    pub trace_dir: Option<PathBuf>,
}

impl<'a> RunChecks<'a> {
    /// The checks of an A/B experiment or a suite's cells.
    pub fn of_experiment(exp: &'a Experiment) -> Self {
        RunChecks {
            timeout: exp.limits.timeout,
            extractor: exp.extractor.clone(),
            ignore_failure: exp.ignore_failure,
            keep_children: exp.keep_children,
            output: exp.output.clone(),
            pin: exp.pin.clone(),
            metrics: exp.measured_metrics().map(|m| m.name.as_str()).collect(),
            expect: &exp.expect,
            says_variant: true,
            max_cpu_wait: exp.limits.max_cpu_wait,
            trace_dir: exp.trace_dir.clone(),
        }
    }
}

/// Makes the runs of one experiment and stores them as they finish, in
/// batches (perflab-store's [`RunBatch`]: a transaction per run would cost
/// more than a run of a fast command).
pub struct RunMaker<'a> {
    /// How runs are started and checked.
    pub checks: RunChecks<'a>,
    /// The finished runs on their way to the store, if there is one.
    pub batch: Option<RunBatch<'a>>,
    /// The experiment's id in the store.
    pub experiment_id: Option<i64>,
    /// Runs made so far (the store's sequence number of the last).
    pub sequence: usize,
    /// Where instrumented runs write their profiles.
    pub profile_dir: PathBuf,
    /// The contention rule and what it did so far.
    pub contention: Contention,
}

/// Which run to make.
pub struct RunRequest<'r> {
    /// What to run.
    pub variant: &'r Variant,
    /// The name in messages: the variant's, a suite's "scenario / variant",
    /// or a sweep's "command point".
    pub name: &'r str,
    /// The variant's record in the store.
    pub variant_id: Option<i64>,
    /// Index of the run among the variant's (from 0).
    pub iteration: usize,
    /// A warm-up run (stored, not measured).
    pub warmup: bool,
    /// In a suite: the scenario's name and what its runs must show.
    pub scenario: Option<(&'r str, &'r Expectations)>,
}

impl RunMaker<'_> {
    /// A block begins (or a new measurement of it): its runs are those
    /// made from now until [`RunMaker::keep_block`].
    pub fn begin_block(&mut self) {
        self.contention.begin(self.sequence);
    }

    /// Whether to keep the block begun with [`RunMaker::begin_block`], whose
    /// measured runs are `runs`, by the contention rule: false when it is
    /// to be measured again (its runs are then marked replaced in the
    /// store), true otherwise (also after the rule's bound of repeats).
    pub fn keep_block<'r>(
        &mut self,
        runs: impl IntoIterator<Item = &'r RunOutcome>,
    ) -> Result<bool> {
        let store = self.batch.as_mut().zip(self.experiment_id);
        self.contention.keep(runs, self.sequence, store)
    }

    /// Writes the runs still held in memory to the store. Every engine
    /// calls it once its runs are over, on success and on error alike,
    /// before the experiment is finished or its runs are counted.
    pub fn write_runs(&mut self) -> Result<()> {
        if let Some(batch) = &mut self.batch {
            batch.write()?;
        }
        Ok(())
    }

    /// One run; `None` when Ctrl-C stopped it (such a run is not kept).
    pub fn perform(
        &mut self,
        executor: &mut dyn Executor,
        request: &RunRequest,
    ) -> Result<Option<RunOutcome>> {
        if interrupted() {
            return Ok(None);
        }
        let spec = self.spec(request.variant, 0, self.checks.pin.clone());
        let mut written = Ok(());
        let run = executor.execute_beside(&spec, &mut || written = self.write_full_batch());
        let kept = self.keep(request, run)?;
        written?;
        Ok(kept)
    }

    /// Writes the runs held in memory once they make a full batch (see
    /// perflab-store's `RunBatch::write_if_full`): [`RunMaker::perform`]
    /// does it beside the run it makes; a caller that keeps runs made
    /// otherwise does it between them.
    pub fn write_full_batch(&mut self) -> Result<()> {
        if let Some(batch) = &mut self.batch {
            batch.write_if_full()?;
        }
        Ok(())
    }

    /// What to start for `variant`; `slot` tells apart the profiles of
    /// runs made at the same time (0 for the next run, 1 for the one after).
    pub fn spec(&self, variant: &Variant, slot: usize, cpus: Option<CpuSet>) -> RunSpec {
        let mut env = variant.env.clone();
        if let Some(dir) = &self.checks.trace_dir {
            let path = trace_path(dir, &variant.name, self.sequence + 1 + slot);
            env.push((TRACE_ENV.to_string(), path.display().to_string()));
        }
        RunSpec {
            command: variant.command.clone(),
            env,
            cwd: variant.cwd.clone(),
            timeout: self.checks.timeout,
            extractor: self.checks.extractor.clone(),
            profile_path: Some(
                self.profile_dir
                    .join(format!("run-{}.json", self.sequence + 1 + slot)),
            ),
            cpus,
            keep_children: self.checks.keep_children,
            output: self.checks.output.clone(),
        }
    }

    /// Stores a run made for `request` and checks it; `None` when Ctrl-C
    /// stopped it (such a run is not kept).
    pub fn keep(
        &mut self,
        request: &RunRequest,
        run: perflab_runner::Result<RunOutcome>,
    ) -> Result<Option<RunOutcome>> {
        let v = request.variant;
        let run = run?;
        if run.exit == ExitState::Interrupted {
            return Ok(None);
        }
        self.sequence += 1;
        if let (Some(batch), Some(experiment_id), Some(variant_id)) =
            (&mut self.batch, self.experiment_id, request.variant_id)
        {
            let place = RunPlace {
                experiment_id,
                variant_id,
                sequence: self.sequence,
                iteration: request.iteration,
                warmup: request.warmup,
            };
            batch.add(place, &run)?;
        }
        let label = format!(
            "{}run {} of {}\"{}\"",
            if request.warmup { "warm-up " } else { "" },
            request.iteration + 1,
            if self.checks.says_variant {
                "variant "
            } else {
                ""
            },
            request.name
        );
        if !run.exit.success() && !self.checks.ignore_failure {
            return Err(failed_run(label, &v.command.display(), &run));
        }
        if !request.warmup {
            for metric in &self.checks.metrics {
                if run.metric(metric).is_none() {
                    return Err(missing_metric(
                        metric,
                        request.name,
                        request.iteration,
                        &run,
                    ));
                }
            }
            // A run that did not do the declared work fails like a failing
            // command: its timings are not of the workload the user meant.
            if !self.checks.ignore_failure {
                let scenario = request.scenario.map_or("", |(name, _)| name);
                check(self.checks.expect, &run, scenario, &label)?;
                if let Some((name, expect)) = request.scenario {
                    check(expect, &run, name, &label)?;
                }
            }
        }
        Ok(Some(run))
    }
}

/// Makes the folder `--trace` names (and its parents), or says why it cannot.
pub fn make_trace_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| {
        Error::usage(
            "--trace",
            format!(
                "cannot make the folder {} for the runs' traces ({e}); name a folder perflab may create or write into",
                dir.display()
            ),
        )
    })
}

/// The trace file of run `run` of `variant` in `dir`: `VARIANT-run-N.json`,
/// the variant's name kept to letters, digits, `.`, `_` and `-` so that it
/// makes one file name.
pub fn trace_path(dir: &Path, variant: &str, run: usize) -> PathBuf {
    let name: String = variant
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("{name}-run-{run}.json"))
}

/// Says where the runs' traces are, or that no run wrote one (the program
/// is then not instrumented, or its session never ended).
pub fn tell_traces(dir: &Path) {
    let traces = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok())
                .filter(|entry| entry.path().extension().is_some_and(|e| e == "json"))
                .count()
        })
        .unwrap_or(0);
    if traces == 0 {
        eprintln!(
            "perflab: warning: --trace: no run wrote a trace into {}; only programs instrumented with perflab (the Rust crate, perflab.h, the Python package) record one, at the end of their session",
            dir.display()
        );
    } else {
        eprintln!(
            "perflab: {traces} traces in {} (open one in ui.perfetto.dev or chrome://tracing)",
            dir.display()
        );
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

/// The error for a metric a run did not print, or printed with a value
/// that cannot be read.
pub fn missing_metric(metric: &str, variant: &str, index: usize, run: &RunOutcome) -> Error {
    let run_name = format!("run {} of variant \"{variant}\"", index + 1);
    if let Some(problem) = run.unreadable_metrics.get(metric) {
        return Error::Run {
            run: run_name,
            message: format!("metric '{metric}' has no usable value: {problem}"),
        };
    }
    let tail = perflab_runner::quote_output(&run.output_tail);
    Error::Run {
        run: run_name,
        message: format!(
            "metric '{metric}' was not found in its output. It must print 'PERFLAB_METRIC {metric} <value>' \
             or match the --metric pattern for '{metric}'. The end of its output:\n{tail}"
        ),
    }
}
