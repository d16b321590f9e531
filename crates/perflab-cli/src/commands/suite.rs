//! `perflab ab -f suite.toml`: a suite of scenarios × variants, every
//! candidate against the baseline in every scenario.

use crate::error::{to_json, to_json_pretty};
use perflab_runner::Executor;

use crate::ab::run_suite;
use crate::cli::AbArgs;
use crate::engine::StopReason;
use crate::error::{EXIT_INTERRUPTED, Error, Result};
use crate::experiment::Settings;
use crate::progress::progress_for;
use crate::suite_document::suite_document;
use perflab_report::markdown::suite::suite_markdown;
use perflab_report::terminal::suite::suite_terminal;
use perflab_report::write_text;
use perflab_store::Store;

use super::{exit_code_for, lower_shield, raise_shield};

/// Runs the suite `from_file` describes, with the flags on top.
pub(super) fn suite<E: Executor>(
    args: &AbArgs,
    store: &Store,
    from_file: Settings,
    executor_for: impl FnOnce(bool) -> Result<E>,
) -> Result<i32> {
    if !args.commands.is_empty() {
        return Err(Error::usage(
            "CMD",
            "a suite file gives each cell's command through its [[variant]] and [[scenario]] tables; \
             drop the commands from the command line",
        ));
    }
    let suite = from_file.overlay(args.settings()?).into_suite()?;
    // Before the executor starts its fork server: the shield leaves the
    // processes perflab started where they were.
    let shield = raise_shield(suite.exp.shield.as_ref())?;
    let mut executor = executor_for(suite.exp.perf_events)?;
    let mut progress = progress_for("suite", suite.exp.limits.max_runs, args.run.quiet);
    let mut run = run_suite(&suite, &mut executor, Some(store), progress.as_mut())?;
    lower_shield(shield, &mut run.header.machine);
    let doc = suite_document(&suite, &run)?;
    let verdict = run.verdicts();
    let overall = perflab_stats::combine_verdicts(&verdict);
    if let Some(id) = run.header.experiment_id {
        let status = run.header.status();
        let json = to_json("the suite document", &doc)?;
        store.finish_experiment(id, status, doc.result.verdict, None, Some(json))?;
    }
    print!("{}", suite_terminal(&doc));
    if let Some(path) = &args.run.json {
        let mut text = to_json_pretty("the suite document", &doc)?;
        text.push('\n');
        write_text(path, &text)?;
    }
    if let Some(path) = &args.run.markdown {
        write_text(path, &suite_markdown(&doc))?;
    }
    if run.header.stop == StopReason::Interrupted {
        eprintln!(
            "perflab: interrupted; {} finished runs are kept in {}, marked incomplete",
            run.run_count(),
            store.path().display()
        );
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(exit_code_for(Some(overall)))
}
