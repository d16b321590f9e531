//! `perflab ab`: run an experiment and report its verdict.

use crate::ab::{StopReason, run_ab};
use crate::cli::AbArgs;
use crate::document::ab_document;
use crate::error::{EXIT_INTERRUPTED, Result};
use crate::experiment::{Settings, read_experiment_file};
use crate::progress::progress_for;
use crate::report::{Render, TerminalReport, write_requested};
use crate::runner::Executor;
use crate::store::Store;

use super::exit_code_for;

/// `perflab ab`.
pub fn ab(args: &AbArgs, store: &Store, executor: &mut dyn Executor) -> Result<i32> {
    let from_file = match &args.file {
        Some(path) => read_experiment_file(path)?,
        None => Settings::default(),
    };
    if args.commands.len() == 1 && args.env_a.is_empty() && args.env_b.is_empty() {
        eprintln!(
            "perflab: note: one command and no --env-a/--env-b: both variants run the same thing (an A/A test of the noise)"
        );
    }
    let exp = from_file
        .overlay(Settings::from_ab_args(args)?)
        .into_experiment()?;
    let mut progress = progress_for("ab", exp.max_runs, args.run.quiet);
    let ab = run_ab(&exp, executor, Some(store), progress.as_mut())?;
    let doc = ab_document(&exp, &ab)?;
    let verdict = ab.evaluation.as_ref().map(|e| e.verdict);
    if let Some(id) = ab.experiment_id {
        let status = if ab.stop == StopReason::Interrupted {
            "incomplete"
        } else {
            "complete"
        };
        let change = doc.decision.as_ref().map(|d| (d.change, d.ci[0], d.ci[1]));
        let json = serde_json::to_string(&doc).unwrap_or_default();
        store.finish_experiment(id, status, doc.verdict.as_deref(), change, Some(&json))?;
    }
    print!("{}", TerminalReport.render(&doc));
    write_requested(&doc, args.run.json.as_deref(), args.run.markdown.as_deref())?;
    if ab.stop == StopReason::Interrupted {
        let kept = ab.runs[0].len() + ab.runs[1].len();
        eprintln!(
            "perflab: interrupted; {kept} finished runs are kept in {}, marked incomplete",
            store.path().display()
        );
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(exit_code_for(verdict))
}
