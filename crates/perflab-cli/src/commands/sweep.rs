//! `perflab sweep`: run commands over a grid of parameters and report each
//! point with its interval, ratios to a reference, growth and cliffs.

use crate::error::{to_json, to_json_pretty};
use perflab_runner::Executor;

use super::{lower_shield, raise_shield};
use crate::cli::SweepArgs;
use crate::error::{EXIT_INTERRUPTED, EXIT_OK, Error, Result};
use crate::progress::sweep_progress_for;
use crate::sweep::{SweepStop, run_sweep, save_checkpoint, sweep_document};
use perflab_report::markdown::sweep::sweep_markdown;
use perflab_report::terminal::sweep::sweep_terminal;
use perflab_report::units::plural;
use perflab_store::Store;

/// `perflab sweep`. `executor_for(perf_events)` gives the executor once
/// the sweep is read.
pub fn sweep<E: Executor>(
    args: &SweepArgs,
    store: &Store,
    executor_for: impl FnOnce(bool) -> Result<E>,
) -> Result<i32> {
    let sweep = args.sweep()?;
    let mut progress = sweep_progress_for(sweep.points.len(), args.run.quiet);
    let shield = raise_shield(sweep.shield.as_ref())?;
    // Its runs read no perf events.
    let mut executor = executor_for(false)?;
    let mut state = run_sweep(
        &sweep,
        &mut executor,
        Some(store),
        progress.as_mut(),
        &mut |state| save_checkpoint(&sweep, Some(store), state),
    )?;
    lower_shield(shield, &mut state.header.machine);
    let failure = state.failure.take();
    let doc = sweep_document(&sweep, &state)?;
    let json = to_json("the sweep document", &doc)?;
    if let Some(id) = state.header.experiment_id {
        store.finish_experiment(id, doc.result.status, None, None, Some(json))?;
    }
    print!("{}", sweep_terminal(&doc));
    if let Some(path) = &args.run.json {
        let mut text = to_json_pretty("the sweep document", &doc)?;
        text.push('\n');
        perflab_report::write_text(path, &text)?;
    }
    if let Some(path) = &args.run.markdown {
        perflab_report::write_text(path, &sweep_markdown(&doc, 3))?;
    }
    let kept = || {
        format!(
            "{} of {} are kept in {} as experiment #{}, marked incomplete; `perflab report {}` shows them",
            plural(state.runs(), "finished run"),
            plural(
                state
                    .points
                    .iter()
                    .filter(|p| !p.runs[0].is_empty())
                    .count(),
                "point"
            ),
            state
                .header
                .experiment_id
                .map_or_else(|| store.path().to_path_buf(), |id| store.place_of(id))
                .display(),
            state.header.experiment_id.unwrap_or_default(),
            state.header.experiment_id.unwrap_or_default(),
        )
    };
    if let Some(dir) = &args.run.trace {
        crate::engine::tell_traces(dir);
    }
    match state.header.stop {
        SweepStop::Failed => Err(match failure {
            Some(Error::Run { run, message }) => Error::Run {
                run,
                message: format!("{message}\n({})", kept()),
            },
            Some(other) => other,
            None => Error::Interrupted(kept()),
        }),
        SweepStop::Interrupted => {
            eprintln!("perflab: interrupted; {}", kept());
            Ok(EXIT_INTERRUPTED)
        }
        _ => Ok(EXIT_OK),
    }
}
