//! `perflab run`: measure one command.

use crate::error::to_json;
use perflab_format::trace::TRACE_ENV;
use perflab_format::vocabulary::{ExperimentKind, ResultKind, ResultStatus};
use perflab_runner::{
    CommandLine, Executor, ExitState, INSTRUCTIONS, InstructionExecutor, MetricExtractor,
    RunOutcome, RunSpec, builtin_metric, interrupted,
};

use crate::cli::RunArgs;
use crate::error::{EXIT_INTERRUPTED, EXIT_OK, Error, Result};
use crate::experiment::MetricChoice;
use crate::experiment::parse_env;
use crate::profilers::instructions::{CountedVariant, instructions_document, render_instructions};
use crate::progress::progress_for;
use crate::result_document::{metric_info, provenance_map, result_document, variant_doc};
use perflab_report::units::parse_duration;
use perflab_report::{Render, TerminalReport, write_requested};
use perflab_store::{RunBatch, RunPlace, Store, VariantRecord};

/// Runs when counting instructions: two show whether the counts repeat.
const COUNTED_RUNS: usize = 2;

/// Rows of the table of functions with the most instructions.
const FUNCTIONS_SHOWN: usize = 10;

/// `perflab run`.
pub fn run(args: &RunArgs, store: &Store, executor: &mut dyn Executor) -> Result<i32> {
    let measure = args.measure.as_deref().unwrap_or("wall");
    if builtin_metric(measure).is_none() {
        return Err(Error::usage(
            "--measure",
            format!(
                "'{measure}' is not one of wall, cpu, user, sys, peak-memory, instructions; \
                 extracted metrics are shown in the table of every run already"
            ),
        ));
    }
    if measure != INSTRUCTIONS && !args.run.keep_env.is_empty() {
        return Err(Error::usage(
            "--keep-env",
            "only counted runs have a cleared environment; add --measure instructions, or drop --keep-env",
        ));
    }
    if measure != INSTRUCTIONS {
        return measure_runs(args, measure, 10, store, executor).map(|m| m.code);
    }
    let mut counter = InstructionExecutor::new(executor, &args.run.keep_env)?;
    let measured = measure_runs(args, measure, COUNTED_RUNS, store, &mut counter)?;
    let variant = CountedVariant {
        name: &measured.name,
        command: measured.command.clone(),
        counts: measured
            .outcomes
            .iter()
            .filter_map(|r| r.metric(INSTRUCTIONS))
            .map(|c| c as u64)
            .collect(),
        functions: counter.counts_of(&measured.command, &measured.env),
    };
    let doc = instructions_document(Some(measured.id), counter.environment(), &[variant]);
    print!("{}", render_instructions(&doc, FUNCTIONS_SHOWN));
    store.attach(
        measured.id,
        "instructions",
        &to_json("the result document", &doc)?,
    )?;
    Ok(measured.code)
}

/// What the runs of one command gave.
struct Measured {
    code: i32,
    id: i64,
    name: String,
    command: String,
    env: Vec<(String, String)>,
    outcomes: Vec<RunOutcome>,
}

/// Makes the runs, stores and reports them.
fn measure_runs(
    args: &RunArgs,
    measure: &str,
    default_runs: usize,
    store: &Store,
    executor: &mut dyn Executor,
) -> Result<Measured> {
    let runs = args.runs.unwrap_or(default_runs);
    if runs == 0 {
        return Err(Error::usage("--runs", "at least one run is needed"));
    }
    let extractor = std::sync::Arc::new(MetricExtractor::from_definitions(&args.run.metrics)?);
    let env = args
        .env
        .iter()
        .map(|e| parse_env(e, "--env"))
        .collect::<Result<Vec<_>>>()?;
    let timeout = args
        .run
        .timeout
        .as_deref()
        .map(parse_duration)
        .transpose()
        .map_err(|e| Error::usage("--timeout", e))?;
    let command = CommandLine::new(args.command_line(), !args.run.no_shell)?;
    let name = args.name.clone().unwrap_or_else(|| "command".into());
    let provenance =
        crate::engine::provenance(args.run.cwd.as_deref().unwrap_or(std::path::Path::new(".")));
    let display = command.display();
    let (id, variant_ids) = store.begin_experiment(
        ExperimentKind::Run,
        args.name.as_deref(),
        Some(measure),
        &provenance,
        "{}",
        &[VariantRecord {
            name: &name,
            command: &display,
            env: &env,
            cwd: args.run.cwd.as_deref(),
        }],
    )?;
    let profile_dir = crate::engine::profile_folder::ProfileFolder::create()?;
    if let Some(dir) = &args.run.trace {
        crate::engine::make_trace_dir(dir)?;
    }
    let mut spec = RunSpec {
        command,
        env: env.clone(),
        cwd: args.run.cwd.clone(),
        timeout,
        extractor,
        profile_path: None,
        cpus: None,
        keep_children: args.run.keep_children,
        output: args.run.output(),
    };
    let mut progress = progress_for("run", runs, args.run.quiet);
    let mut outcomes = Vec::new();
    let mut sequence = 0;
    let warmup = args.run.warmup.unwrap_or(0);
    let mut batch = RunBatch::new(store);
    let result = (|| -> Result<()> {
        for i in 0..warmup + runs {
            if interrupted() {
                break;
            }
            spec.profile_path = Some(profile_dir.path().join(format!("run-{}.json", i + 1)));
            if let Some(dir) = &args.run.trace {
                let path = crate::engine::trace_path(dir, &name, i + 1);
                spec.env = env.clone();
                spec.env
                    .push((TRACE_ENV.to_string(), path.display().to_string()));
            }
            let mut written = Ok(());
            let outcome = executor.execute_beside(&spec, &mut || {
                written = batch.write_if_full();
            })?;
            if outcome.exit == ExitState::Interrupted {
                written?;
                break;
            }
            sequence += 1;
            let is_warmup = i < warmup;
            let place = RunPlace {
                experiment_id: id,
                variant_id: variant_ids[0],
                sequence,
                iteration: i.saturating_sub(warmup),
                warmup: is_warmup,
            };
            batch.add(place, &outcome)?;
            written?;
            if !outcome.exit.success() && !args.run.ignore_failure {
                return Err(crate::engine::failed_run(
                    format!("run {}", i + 1),
                    &display,
                    &outcome,
                ));
            }
            if !is_warmup {
                outcomes.push(outcome);
                progress.update(outcomes.len(), runs, None);
            }
        }
        Ok(())
    })();
    progress.finish();
    // Every run measured is kept, whatever ended the loop.
    let written = batch.write().map_err(Error::from);
    let result = result.and(written);
    if let Err(e) = result {
        store.finish_experiment(id, ResultStatus::Incomplete, None, None, None)?;
        return Err(e);
    }
    if outcomes.is_empty() {
        store.finish_experiment(id, ResultStatus::Incomplete, None, None, None)?;
        return Err(Error::Interrupted("no run finished".into()));
    }
    let metric = MetricChoice::resolve(measure, None, "--measure")?;
    let status = if outcomes.len() < runs {
        ResultStatus::Incomplete
    } else {
        ResultStatus::Complete
    };
    let variant = variant_doc(&name, Some(display.clone()), &env, measure, &outcomes)?;
    let mut doc = result_document(
        ResultKind::Run,
        status,
        args.name.clone(),
        Some(id),
        metric_info(&metric, None),
        vec![variant],
    );
    doc.provenance = Some(provenance_map(&provenance));
    crate::result_document::attach_spans(&mut doc, std::slice::from_ref(&outcomes), &[&name], None);
    let variant_runs = [(name.as_str(), &outcomes[..])];
    doc.warnings
        .extend(crate::machine::containment::containment_warnings(
            variant_runs,
            args.run.keep_children,
        ));
    doc.warnings
        .extend(perflab_report::unreadable_metrics::unreadable_metric_warnings(variant_runs));
    store.finish_experiment(
        id,
        doc.status,
        None,
        None,
        Some(to_json("the result document", &doc)?),
    )?;
    print!("{}", TerminalReport.render(&doc));
    print!("{}", perflab_report::other_metrics(&outcomes));
    write_requested(&doc, args.run.json.as_deref(), args.run.markdown.as_deref())?;
    if let Some(dir) = &args.run.trace {
        crate::engine::tell_traces(dir);
    }
    Ok(Measured {
        code: if outcomes.len() < runs {
            EXIT_INTERRUPTED
        } else {
            EXIT_OK
        },
        id,
        name,
        command: display,
        env,
        outcomes,
    })
}
