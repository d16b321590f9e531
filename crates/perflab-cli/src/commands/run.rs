//! `perflab run`: measure one command.

use perflab_format::result::{RESULT_FORMAT, ResultDocument};

use crate::cli::RunArgs;
use crate::document::{metric_info, provenance_map, variant_doc};
use crate::error::{EXIT_INTERRUPTED, EXIT_OK, Error, Result};
use crate::experiment::MetricChoice;
use crate::experiment::parse_env;
use crate::progress::progress_for;
use crate::provenance::Provenance;
use crate::report::{Render, TerminalReport, write_requested};
use crate::runner::{CommandLine, Executor, ExitState, MetricExtractor, RunSpec, interrupted};
use crate::store::{Store, VariantRecord};
use crate::units::parse_duration;

/// `perflab run`.
pub fn run(args: &RunArgs, store: &Store, executor: &mut dyn Executor) -> Result<i32> {
    let runs = args.runs.unwrap_or(10);
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
    let command = CommandLine::new(&args.command, !args.run.no_shell);
    let name = args.name.clone().unwrap_or_else(|| "command".into());
    let provenance =
        Provenance::collect(args.run.cwd.as_deref().unwrap_or(std::path::Path::new(".")));
    let display = command.display();
    let (id, variant_ids) = store.begin_experiment(
        "run",
        args.name.as_deref(),
        Some("wall"),
        &provenance,
        "{}",
        &[VariantRecord {
            name: &name,
            command: &display,
            env: &env,
            cwd: args.run.cwd.as_deref(),
        }],
    )?;
    let profile_dir = crate::ab::profile_dir()?;
    let mut spec = RunSpec {
        command,
        env: env.clone(),
        cwd: args.run.cwd.clone(),
        timeout,
        extractor,
        profile_path: None,
    };
    let mut progress = progress_for("run", runs, args.run.quiet);
    let mut outcomes = Vec::new();
    let mut sequence = 0;
    let warmup = args.run.warmup.unwrap_or(0);
    let result = (|| -> Result<()> {
        for i in 0..warmup + runs {
            if interrupted() {
                break;
            }
            spec.profile_path = Some(profile_dir.path().join(format!("run-{}.json", i + 1)));
            let outcome = executor.execute(&spec);
            if let Some(path) = &spec.profile_path {
                let _ = std::fs::remove_file(path);
            }
            let outcome = outcome?;
            if outcome.exit == ExitState::Interrupted {
                break;
            }
            sequence += 1;
            let is_warmup = i < warmup;
            store.record_run(
                id,
                variant_ids[0],
                sequence,
                i.saturating_sub(warmup),
                is_warmup,
                &outcome,
            )?;
            if !outcome.exit.success() && !args.run.ignore_failure {
                return Err(crate::ab::failed_run(
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
    if let Err(e) = result {
        store.finish_experiment(id, "incomplete", None, None, None)?;
        return Err(e);
    }
    if outcomes.is_empty() {
        store.finish_experiment(id, "incomplete", None, None, None)?;
        return Err(Error::Interrupted("no run finished".into()));
    }
    let wall = MetricChoice::resolve("wall", None, "")?;
    let mut doc = ResultDocument {
        format: RESULT_FORMAT.into(),
        kind: "run".into(),
        name: args.name.clone(),
        experiment_id: Some(id),
        status: if outcomes.len() < runs {
            "incomplete"
        } else {
            "complete"
        }
        .into(),
        metric: metric_info(&wall, None),
        decision: None,
        verdict: None,
        change: None,
        ci: None,
        guards: Vec::new(),
        variants: vec![variant_doc(
            &name,
            Some(display.clone()),
            &env,
            "wall",
            &outcomes,
        )?],
        seed: None,
        provenance: Some(provenance_map(&provenance)),
        spans: Vec::new(),
        profile_warnings: Vec::new(),
    };
    crate::document::attach_spans(&mut doc, std::slice::from_ref(&outcomes), &[&name], None);
    store.finish_experiment(
        id,
        &doc.status,
        None,
        None,
        Some(&serde_json::to_string(&doc).unwrap_or_default()),
    )?;
    print!("{}", TerminalReport.render(&doc));
    print!("{}", crate::report::other_metrics(&outcomes));
    write_requested(&doc, args.run.json.as_deref(), args.run.markdown.as_deref())?;
    Ok(if outcomes.len() < runs {
        EXIT_INTERRUPTED
    } else {
        EXIT_OK
    })
}
