//! The glue of each subcommand: settings in, engine, outputs, exit code.

mod ab;
mod bisect;
mod clean;
mod compare;
mod confirm;
mod history;
mod import;
mod profile;
mod report;
mod run;
mod serve;
mod spool;
mod store;
mod suite;
mod sweep;
mod system;
mod transfer;

pub use ab::ab;
pub use bisect::bisect;
pub use clean::clean;
pub use compare::compare;
pub use history::history;
pub use import::import;
pub use profile::profile;
pub use report::report;
pub use run::run;
pub use serve::{CommandSource, serve};
pub use spool::move_spool;
pub use store::{store_backup, store_check};
pub use sweep::sweep;
pub use system::system;
pub use transfer::{pull, push};

use std::path::{Path, PathBuf};

use perflab_runner::ProcessExecutor;
use perflab_stats::Verdict;

use crate::cli::{Command, RunOptions, SystemAction};
use crate::error::{EXIT_INCONCLUSIVE, EXIT_NO_GO, EXIT_OK, Result};
use crate::experiment::pin::PinSetting;
use crate::system::shield::Shield;
use perflab_format::machine::MachineDoc;

/// The exit code for a verdict.
pub fn exit_code_for(verdict: Option<Verdict>) -> i32 {
    match verdict {
        Some(Verdict::NoGo) => EXIT_NO_GO,
        Some(Verdict::Inconclusive) => EXIT_INCONCLUSIVE,
        _ => EXIT_OK,
    }
}

/// The files a command line asks to write, with their flags.
pub fn output_files(command: &Command) -> Vec<(&'static str, &Path)> {
    fn run(run: &RunOptions) -> Vec<(&'static str, &Option<PathBuf>)> {
        vec![("--json", &run.json), ("--markdown", &run.markdown)]
    }
    let outputs = match command {
        Command::Ab(args) => run(&args.run),
        Command::Run(args) => run(&args.run),
        Command::Sweep(args) => run(&args.run),
        Command::Compare(args) => vec![("--json", &args.json), ("--markdown", &args.markdown)],
        Command::History(args) => vec![("--json", &args.json), ("--markdown", &args.markdown)],
        Command::Profile(args) => vec![
            ("--json", &args.json),
            ("--svg", &args.svg),
            ("--folded", &args.folded),
        ],
        Command::Report(args) => vec![("--html", &args.html), ("--markdown", &args.markdown)],
        Command::Bisect(args) => run(&args.run),
        Command::System(args) => match &args.action {
            SystemAction::Show(show) => vec![("--json", &show.json)],
            SystemAction::Tune | SystemAction::Reset | SystemAction::Check(_) => Vec::new(),
        },
        Command::Clean(_)
        | Command::Import(_)
        | Command::Push(_)
        | Command::Pull(_)
        | Command::Store(_)
        | Command::Serve(_) => Vec::new(),
    };
    outputs
        .into_iter()
        .filter_map(|(flag, path)| path.as_deref().map(|path| (flag, path)))
        .collect()
}

/// Raises the shield of `--shield` (or the file's `shield`), if given; it is
/// undone when dropped, so an error or Ctrl-C undoes it too.
pub fn raise_shield(shield: Option<&PinSetting>) -> Result<Option<Shield>> {
    shield.map(Shield::raise).transpose()
}

/// Undoes a shield once the runs are over and records it in the outcome's
/// machine section (the result's `machine.shield`, and a line of the
/// report).
pub fn lower_shield(shield: Option<Shield>, machine: &mut Option<MachineDoc>) {
    if let Some(mut shield) = shield {
        shield.lower();
        machine.get_or_insert_default().shield = Some(shield.doc());
    }
}

/// Runs perflab's own executor: real processes.
pub fn real_executor() -> ProcessExecutor {
    ProcessExecutor::default()
}
