//! The glue of each subcommand: settings in, engine, outputs, exit code.

mod ab;
mod compare;
mod history;
mod profile;
mod report;
mod run;
mod sweep;

pub use ab::ab;
pub use compare::compare;
pub use history::{history, metric_direction};
pub use profile::profile;
pub use report::report;
pub use run::run;
pub use sweep::sweep;

use perflab_stats::Verdict;

use crate::error::{EXIT_INCONCLUSIVE, EXIT_NO_GO, EXIT_OK};
use crate::runner::ProcessExecutor;

/// The exit code for a verdict.
pub fn exit_code_for(verdict: Option<Verdict>) -> i32 {
    match verdict {
        Some(Verdict::NoGo) => EXIT_NO_GO,
        Some(Verdict::Inconclusive) => EXIT_INCONCLUSIVE,
        _ => EXIT_OK,
    }
}

/// Runs perflab's own executor: real processes.
pub fn real_executor() -> ProcessExecutor {
    ProcessExecutor::default()
}
