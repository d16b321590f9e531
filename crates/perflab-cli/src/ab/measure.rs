//! One measured (or warm-up) run, as every driver makes it: run, store,
//! check its exit status and the metrics the decision needs.

use std::path::PathBuf;

use perflab_runner::{CpuSet, Executor, ExitState, RunOutcome, RunSpec, interrupted};

use crate::decide::missing_metric;
use crate::error::Result;
use crate::expectations::{Expectations, check};
use crate::experiment::{Experiment, Variant};
use perflab_store::Store;

use super::failed_run;

/// Makes the runs of one experiment and stores each as it finishes.
pub struct RunMaker<'a> {
    /// The experiment's settings (timeout, metrics, failures).
    pub exp: &'a Experiment,
    /// Where runs are stored, if anywhere.
    pub store: Option<&'a Store>,
    /// The experiment's id in the store.
    pub experiment_id: Option<i64>,
    /// Runs made so far (the store's sequence number of the last).
    pub sequence: usize,
    /// Where instrumented runs write their profiles.
    pub profile_dir: PathBuf,
}

/// Which run to make.
pub struct RunRequest<'r> {
    /// What to run.
    pub variant: &'r Variant,
    /// The name in messages: the variant's, or a suite's "scenario / variant".
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
    /// One run; `None` when Ctrl-C stopped it (such a run is not kept).
    pub fn perform(
        &mut self,
        executor: &mut dyn Executor,
        request: &RunRequest,
    ) -> Result<Option<RunOutcome>> {
        if interrupted() {
            return Ok(None);
        }
        let spec = self.spec(request.variant, 0, self.exp.pin.clone());
        let run = executor.execute(&spec);
        self.keep(request, &spec, run)
    }

    /// What to start for `variant`; `slot` tells apart the profiles of
    /// runs made at the same time (0 for the next run, 1 for the one after).
    pub fn spec(&self, variant: &Variant, slot: usize, cpus: Option<CpuSet>) -> RunSpec {
        RunSpec {
            command: variant.command.clone(),
            env: variant.env.clone(),
            cwd: variant.cwd.clone(),
            timeout: self.exp.timeout,
            extractor: self.exp.extractor.clone(),
            profile_path: Some(
                self.profile_dir
                    .join(format!("run-{}.json", self.sequence + 1 + slot)),
            ),
            cpus,
        }
    }

    /// Stores a run made from `spec` and checks it; `None` when Ctrl-C
    /// stopped it (such a run is not kept).
    pub fn keep(
        &mut self,
        request: &RunRequest,
        spec: &RunSpec,
        run: perflab_runner::Result<RunOutcome>,
    ) -> Result<Option<RunOutcome>> {
        let v = request.variant;
        if let Some(path) = &spec.profile_path {
            let _ = std::fs::remove_file(path);
        }
        let run = run?;
        if run.exit == ExitState::Interrupted {
            return Ok(None);
        }
        self.sequence += 1;
        if let (Some(store), Some(id), Some(variant_id)) =
            (self.store, self.experiment_id, request.variant_id)
        {
            store.record_run(
                id,
                variant_id,
                self.sequence,
                request.iteration,
                request.warmup,
                &run,
            )?;
        }
        let label = format!(
            "{}run {} of variant \"{}\"",
            if request.warmup { "warm-up " } else { "" },
            request.iteration + 1,
            request.name
        );
        if !run.exit.success() && !self.exp.ignore_failure {
            return Err(failed_run(label, &v.command.display(), &run));
        }
        if !request.warmup {
            let needed =
                std::iter::once(&self.exp.metric).chain(self.exp.guards.iter().map(|g| &g.metric));
            for metric in needed {
                if run.metric(&metric.name).is_none() {
                    return Err(missing_metric(
                        &metric.name,
                        request.name,
                        request.iteration,
                        &run,
                    ));
                }
            }
            // A run that did not do the declared work fails like a failing
            // command: its timings are not of the workload the user meant.
            if !self.exp.ignore_failure {
                let scenario = request.scenario.map_or("", |(name, _)| name);
                check(&self.exp.expect, &run, scenario, &label)?;
                if let Some((name, expect)) = request.scenario {
                    check(expect, &run, name, &label)?;
                }
            }
        }
        Ok(Some(run))
    }
}
