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
    /// Whether the machine is quiet enough to publish figures from: the 1-minute load average per
    /// CPU and the CPU pressure (avg10) below their limits. Prints one line with both figures;
    /// exits 0 when quiet, 1 when busy (after waiting up to --wait for it to become quiet).
    Check(SystemCheckArgs),
}

/// `perflab system check`.
#[derive(Debug, Args)]
pub struct SystemCheckArgs {
    /// The largest 1-minute load average per online CPU of a quiet machine [default: 0.5].
    #[arg(long, value_name = "LOAD")]
    pub max_load: Option<f64>,
    /// The largest CPU pressure (avg10 of /proc/pressure/cpu) of a quiet machine [default: 5%].
    #[arg(long, value_name = "PERCENT")]
    pub max_pressure: Option<String>,
    /// Wait up to this long for the machine to become quiet, e.g. 5m [default: 0, no wait].
    #[arg(long, value_name = "DURATION")]
    pub wait: Option<String>,
}

/// `perflab system show`.
#[derive(Debug, Args)]
pub struct SystemShowArgs {
    /// Write the settings as JSON (a perflab-system/1 document).
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
}
