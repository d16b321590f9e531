//! `perflab ab`: run an experiment and report its verdict.

use crate::error::to_json;
use perflab_runner::{Executor, INSTRUCTIONS, InstructionExecutor};

use crate::ab::{AbRun, run_ab};
use crate::cli::AbArgs;
use crate::engine::StopReason;
use crate::error::{EXIT_INTERRUPTED, Result};
use crate::experiment::{Experiment, Settings, read_experiment_file};
use crate::profilers::instructions::{CountedVariant, instructions_document, render_instructions};
use crate::progress::progress_for;
use crate::result_document::ab_document;
use crate::revisions::prepare_revision_variants;
use perflab_format::result::ResultDocument;
use perflab_report::sections::peak_memory;
use perflab_report::{Render, TerminalReport, side_by_side, write_requested};
use perflab_store::Store;

use super::{exit_code_for, lower_shield, raise_shield};

/// Rows of the table of functions whose instruction counts changed.
const CHANGED_FUNCTIONS_SHOWN: usize = 10;

/// `perflab ab`. `executor_for(perf_events)` gives the executor once the
/// experiment (flags and file) says whether runs read perf events.
pub fn ab<E: Executor>(
    args: &AbArgs,
    store: &Store,
    executor_for: impl FnOnce(bool) -> Result<E>,
) -> Result<i32> {
    let from_file = match &args.file {
        Some(path) => read_experiment_file(path)?,
        None => Settings::default(),
    };
    if from_file.is_suite() {
        return super::suite::suite(args, store, from_file, executor_for);
    }
    if args.commands.len() == 1
        && args.env_a.is_empty()
        && args.env_b.is_empty()
        && args.revs.is_empty()
    {
        eprintln!(
            "perflab: note: one command and no --env-a/--env-b: both variants run the same thing (an A/A test of the noise)"
        );
    }
    let mut settings = from_file.overlay(args.settings()?);
    let revisions = prepare_revision_variants(&mut settings, args.allow_dirty)?;
    let exp = settings.into_experiment()?;
    let counting = exp.counts_instructions();
    // Before the executor starts its fork server: the shield leaves the
    // processes perflab started where they were.
    let shield = raise_shield(exp.shield.as_ref())?;
    let mut executor = executor_for(exp.perf_events)?;
    let mut progress = progress_for("ab", exp.limits.max_runs, args.run.quiet);
    if !counting {
        let mut ab = run_ab(&exp, &mut executor, Some(store), progress.as_mut())?;
        lower_shield(shield, &mut ab.header.machine);
        ab.header.provenance.revisions = revisions;
        return finish(args, store, &exp, ab, None);
    }
    let mut counter = InstructionExecutor::new(&mut executor, &exp.keep_env)?;
    let mut ab = run_ab(&exp, &mut counter, Some(store), progress.as_mut())?;
    lower_shield(shield, &mut ab.header.machine);
    ab.header.provenance.revisions = revisions;
    let variants: Vec<CountedVariant> = exp
        .variants
        .iter()
        .zip(&ab.runs)
        .map(|(v, runs)| {
            let command = v.command.display();
            CountedVariant {
                name: &v.name,
                functions: counter.counts_of(&command, &v.env),
                command,
                counts: runs
                    .iter()
                    .filter_map(|r| r.metric(INSTRUCTIONS))
                    .map(|c| c as u64)
                    .collect(),
            }
        })
        .collect();
    let doc = instructions_document(ab.header.experiment_id, counter.environment(), &variants);
    let extra = render_instructions(&doc, CHANGED_FUNCTIONS_SHOWN);
    if let Some(id) = ab.header.experiment_id {
        store.attach(id, "instructions", &to_json("the result document", &doc)?)?;
    }
    finish(args, store, &exp, ab, Some(extra))
}

fn finish(
    args: &AbArgs,
    store: &Store,
    exp: &Experiment,
    ab: AbRun,
    extra: Option<String>,
) -> Result<i32> {
    let doc = record_outcome(store, exp, &ab)?;
    // Stopped by the time limit before two pairs (waiting for a quiet
    // machine): nothing was decided.
    let verdict =
        ab.evaluation
            .as_ref()
            .map(|e| e.verdict)
            .or((ab.header.stop == StopReason::MaxTime)
                .then_some(perflab_stats::Verdict::Inconclusive));
    print!("{}", TerminalReport.render(&doc));
    let names = [exp.variants[0].name.as_str(), exp.variants[1].name.as_str()];
    print!(
        "{}",
        side_by_side(
            names,
            [&ab.runs[0], &ab.runs[1]],
            &exp.metric.name,
            peak_memory::document_line(&doc).is_some(),
        )
    );
    if let Some(extra) = extra {
        print!("{extra}");
    }
    write_requested(&doc, args.run.json.as_deref(), args.run.markdown.as_deref())?;
    if let Some(dir) = &exp.trace_dir {
        crate::engine::tell_traces(dir);
    }
    if ab.header.stop == StopReason::Interrupted {
        let kept = ab.runs[0].len() + ab.runs[1].len();
        let place = ab
            .header
            .experiment_id
            .map_or_else(|| store.path().to_path_buf(), |id| store.place_of(id));
        eprintln!(
            "perflab: interrupted; {kept} finished runs are kept in {}, marked incomplete",
            place.display()
        );
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(exit_code_for(verdict))
}

/// The experiment's document, also stored as its outcome (complete, or
/// incomplete when interrupted).
pub(super) fn record_outcome(
    store: &Store,
    exp: &Experiment,
    ab: &AbRun,
) -> Result<ResultDocument> {
    let doc = ab_document(exp, ab)?;
    if let Some(id) = ab.header.experiment_id {
        let status = ab.header.status();
        let change = doc.decision.as_ref().map(|d| (d.change, d.ci[0], d.ci[1]));
        let json = to_json("the result document", &doc)?;
        store.finish_experiment(id, status, doc.verdict, change, Some(json))?;
    }
    Ok(doc)
}
