//! The perflab command as a library: everything `main.rs` calls, where the
//! tests can reach it.
//!
//! One module per concept, in layers (a module uses only its own layer and
//! those below; ARCHITECTURE.md in the repository says more, and where a new
//! command, metric or report section goes):
//!
//! - commands: [`commands`] (the glue of each subcommand) and [`run`];
//! - flags: [`cli`] (clap definitions and their conversion into settings);
//! - rendering: [`progress`] (terminal bars implementing the engine's
//!   progress traits; the renderers are perflab-report's);
//! - documents: [`result_document`] (the `perflab-result/1` document; a
//!   suite's in [`suite_document`]; two results of many benchmarks compared
//!   by name in [`benchmark_family`]),
//!   [`metric_history`] (a metric over commits, `perflab-history/1`; the
//!   change points of a store in [`metric_history_changes`]; the A/Bs that
//!   confirm change points in [`metric_history_confirmation`]),
//!   [`webhook`] (the regressions of `history --changes --notify` posted
//!   once each), [`metric_direction`] and [`gather`] (what a `perflab report` page
//!   shows, read from the store);
//! - engines: [`engine`] (what every experiment shares: the session that
//!   begins it in the store, the run maker, the schedule, the stored
//!   configuration, the outcome header, the progress traits), and its
//!   configurations [`ab`] (the A/B and suite drivers), [`sweep`] and
//!   [`bisect`] (the first slower commit, each step an A/B);
//!   [`revisions`] (commits as variants, built in worktrees), [`decide`]
//!   (verdicts from perflab-stats' sequential procedure) and [`profilers`]
//!   (the perf and callgrind adapters);
//! - state: [`experiment`] (validated configuration, with its run
//!   limits), [`expectations`] (what a workload's runs must show),
//!   [`samples`] (existing samples and benchmark harnesses' results, for
//!   `compare` and `import`), [`machine`] (the machine's state around an
//!   experiment) and [`system`] (the machine's settings: `perflab system`,
//!   and the CPU shield of `--shield`);
//! - ground: [`error`].
//!
//! Runs are started by the `perflab-runner` crate and stored, with their
//! provenance, by the `perflab-store` crate; the document types are
//! perflab-format's, rendered by the `perflab-report` crate.
#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod ab;
pub mod benchmark_family;
pub mod bisect;
pub mod cli;
pub mod commands;
pub mod decide;
pub mod engine;
pub mod error;
pub mod expectations;
pub mod experiment;
pub mod gather;
pub mod machine;
pub mod metric_direction;
pub mod metric_history;
pub mod metric_history_changes;
pub mod metric_history_confirmation;
pub mod profilers;
pub mod progress;
pub mod result_document;
pub mod revisions;
pub mod samples;
pub mod suite_document;
pub mod sweep;
pub mod system;
pub mod webhook;

pub use error::{Error, Result};

use cli::{Cli, Command, StoreAction, StoreArgs};
use perflab_store::Store;

/// Runs a parsed command line; returns the process exit code.
pub fn run(mut cli: Cli) -> Result<i32> {
    // A shield whose perflab was killed still confines the machine: undone
    // first, whatever the command (one stat when there is none).
    system::shield::undo_stale_shield();
    cli::take_commands_after_dashes(&mut cli.command)?;
    for (flag, path) in commands::output_files(&cli.command) {
        perflab_report::check_output(flag, path)?;
    }
    perflab_runner::install_interrupt_handler();
    if let Command::System(args) = &cli.command {
        // The machine's settings need no store.
        return commands::system(args);
    }
    if let Some(dir) = cli.command.checkout_dir() {
        engine::start_reading_checkout(dir);
    }
    // Made ready while the store opens (see `engine::executor_slot`).
    let mut executor = if cli.command.makes_runs_at_once() {
        engine::ExecutorSlot::preparing_early()
    } else {
        engine::ExecutorSlot::default()
    };
    let location = perflab_store::Location::from_flag(cli.store.as_deref())?;
    if let Command::Store(StoreArgs {
        action: StoreAction::Check,
    }) = &cli.command
    {
        // A damaged store may not open as a store: checked on its own.
        return commands::store_check(&location);
    }
    if let Command::Serve(args) = &cli.command {
        // Opened read-only, and kept by the server.
        return commands::serve(args, &location);
    }
    let store = if cli.command.only_reads_the_store() {
        Store::open_for_reading(&location, "--store")?
    } else {
        Store::open_at(&location, "--store")?
    };
    commands::move_spool(&store, cli.command.only_reads_the_store());
    let slot = &mut executor;
    let executor_for = move |perf_events| {
        // Moved out of the closure, the borrow makes it FnOnce, so that the
        // executor it lends can outlive the call.
        let slot = slot;
        slot.ready(perf_events)
    };
    let code = match &cli.command {
        Command::Ab(args) => commands::ab(args, &store, executor_for),
        Command::Compare(args) => commands::compare(args, &store),
        Command::Run(args) => executor_for(args.run.perf_events)
            .and_then(|executor| commands::run(args, &store, executor)),
        Command::History(args) => commands::history(args, &store, executor_for),
        Command::Import(args) => commands::import(args, &store),
        Command::Profile(args) => commands::profile(args, &store, &mut commands::real_executor()),
        Command::Sweep(args) => commands::sweep(args, &store, executor_for),
        Command::Report(args) => commands::report(args, &store),
        Command::Bisect(args) => commands::bisect(args, &store, executor_for),
        Command::Clean(args) => commands::clean(args),
        Command::Push(args) => commands::push(args, &store),
        Command::Pull(args) => commands::pull(args, &store),
        Command::System(args) => commands::system(args),
        Command::Serve(args) => commands::serve(args, &location),
        Command::Store(args) => match &args.action {
            StoreAction::Check => commands::store_check(&location),
            StoreAction::Backup(backup) => commands::store_backup(backup, &store),
        },
    };
    // Said whatever the command's outcome: where its runs went.
    for notice in store.take_notices() {
        eprintln!("perflab: warning: {notice}");
    }
    executor.end_beside(|| drop(store));
    code
}
