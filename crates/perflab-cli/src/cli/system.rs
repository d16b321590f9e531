//! `perflab system` flags.

use std::path::PathBuf;

use clap::{Args, Subcommand};

/// `perflab system`.
#[derive(Debug, Args)]
pub struct SystemArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: SystemAction,
}

/// The actions of `perflab system`.
#[derive(Debug, Subcommand)]
pub enum SystemAction {
    /// Each setting that helps or hurts measurements here (frequency governor, boost, SMT, ASLR,
    /// isolated CPUs, nohz_full, interrupt affinity, perf sampling rate, load, CPU pressure):
    /// what was found, why it matters, what to do.
    Show(SystemShowArgs),
    /// Set what can safely be set for measurements (root): governor performance, boost off,
    /// ASLR fully on, perf sampling rate limit 1000/s, interrupts off isolated CPUs; the values
    /// replaced are saved first (in /run/perflab/tune.json).
    Tune,
    /// Put back what `perflab system tune` replaced (root).
    Reset,
}

/// `perflab system show`.
#[derive(Debug, Args)]
pub struct SystemShowArgs {
    /// Write the settings as JSON (a perflab-system/1 document).
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
}
