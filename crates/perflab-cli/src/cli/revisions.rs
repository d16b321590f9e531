//! `--rev`, `--build` and `--allow-dirty` of `perflab ab`, and the flags of
//! `perflab bisect` and `perflab clean`.

use std::path::PathBuf;

use clap::Args;

use super::{DecisionArgs, MachineArgs, RunOptions};
use crate::error::{Error, Result};
use crate::experiment::settings::VariantSettings;

/// Gives the variants the revisions of `--rev` (none, or one per variant).
pub(super) fn name_revisions(variants: &mut Vec<VariantSettings>, revs: &[String]) -> Result<()> {
    if revs.is_empty() {
        return Ok(());
    }
    if revs.len() != 2 {
        return Err(Error::usage(
            "--rev",
            format!(
                "{} revision(s) given; give --rev twice, the baseline first: --rev main --rev HEAD",
                revs.len()
            ),
        ));
    }
    if variants.is_empty() {
        // The commands come from the experiment file.
        variants.resize_with(2, VariantSettings::default);
    }
    for (variant, rev) in variants.iter_mut().zip(revs) {
        variant.rev = Some(rev.clone());
    }
    Ok(())
}

impl BisectArgs {
    /// The command measured, however it was given (see
    /// [`super::take_commands_after_dashes`]).
    pub fn command_line(&self) -> &str {
        self.command.as_deref().unwrap_or_default()
    }
}

/// `perflab bisect`.
#[derive(Debug, Args)]
pub struct BisectArgs {
    /// A revision at which the command was fast (the baseline of every step).
    #[arg(long, value_name = "REV")]
    pub good: String,
    /// A later revision at which it is slow; GOOD must be an ancestor of it.
    #[arg(long, value_name = "REV")]
    pub bad: String,
    /// The command that builds a revision, run in its worktree (e.g. 'cargo build --release').
    #[arg(long, value_name = "CMD")]
    pub build: Option<String>,
    /// Run the working tree as it is (uncommitted changes included) for the commit checked out.
    #[arg(long)]
    pub allow_dirty: bool,
    /// The command measured at each revision, run in its worktree: one string, or after
    /// `--` as several arguments (`-- ./target/release/app --input big.txt`), quoted for the shell.
    #[arg(value_name = "CMD", required_unless_present = "after_dashes")]
    pub command: Option<String>,
    /// The command as several arguments after `--`.
    #[arg(last = true, value_name = "CMD ARGS")]
    pub after_dashes: Vec<String>,
    /// The metric: wall, cpu, peak-memory, instructions, or a metric name [default: wall].
    #[arg(long, value_name = "METRIC")]
    pub measure: Option<String>,
    /// Whether higher or lower values of the metric are better [default: lower for the built-in
    /// metrics; an extracted metric needs it].
    #[arg(long, value_name = "higher|lower")]
    pub better: Option<String>,
    /// Thresholds and the confidence of the whole search.
    #[command(flatten)]
    pub decision: DecisionArgs,
    /// Runs per variant before the first decision of a step.
    #[arg(long, value_name = "N", help = super::defaults::bisect_min_runs())]
    pub min_runs: Option<usize>,
    /// Runs per variant at most in a step (an INCONCLUSIVE step is repeated with more).
    #[arg(long, value_name = "N", help = super::defaults::bisect_max_runs())]
    pub max_runs: Option<usize>,
    /// Seed for the order of the variants within each block [default: random].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// The contention rule of every step.
    #[command(flatten)]
    pub contention: super::ContentionArgs,
    /// The shared run options (--json writes the search, not a step).
    #[command(flatten)]
    pub run: RunOptions,
    /// --shield and --wait-quiet (a shield stays up for the whole search).
    #[command(flatten)]
    pub machine: MachineArgs,
}

/// `perflab clean`.
#[derive(Debug, Args)]
pub struct CleanArgs {
    /// A folder in the repository whose worktrees are removed [default: the current folder].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}
