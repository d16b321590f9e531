//! `--shield` and `--wait-quiet`, shared by `perflab ab`, `sweep` and
//! `bisect`: how the runs are kept apart from the rest of the machine.

use clap::Args;

use super::defaults;
use crate::error::Result;
use crate::experiment::pin::PinSetting;
use crate::experiment::shielding::{
    DEFAULT_QUIET_PRESSURE, QuietSetting, parse_shield, parse_wait_quiet,
};

/// How the runs are kept apart from the rest of the machine.
#[derive(Debug, Args, Clone, Default)]
pub struct MachineArgs {
    /// Give the runs these CPUs to themselves for the experiment (root; e.g. 1 or 2-3): every
    /// other process, and whatever it starts, is confined to the other CPUs through a cpuset
    /// cgroup, interrupts are steered away, and the runs are pinned there (to --pin's CPUs, if
    /// given, which must be among them); all undone at the end, on Ctrl-C, and after a crash by
    /// the next perflab command [default: no shield].
    #[arg(long, value_name = "CPUS")]
    pub shield: Option<String>,
    /// Wait for a quiet machine before each block; `Some(None)` without a
    /// threshold (the default one).
    #[arg(
        long,
        value_name = "PRESSURE",
        num_args = 0..=1,
        require_equals = true,
        help = defaults::wait_quiet()
    )]
    pub wait_quiet: Option<Option<String>>,
}

impl MachineArgs {
    /// The shield's CPUs, if given.
    pub fn shield(&self) -> Result<Option<PinSetting>> {
        self.shield
            .as_deref()
            .map(|s| parse_shield(s, "--shield"))
            .transpose()
    }

    /// The `--wait-quiet` threshold, if given.
    pub fn wait_quiet(&self) -> Result<Option<QuietSetting>> {
        let Some(given) = &self.wait_quiet else {
            return Ok(None);
        };
        match given {
            Some(text) => parse_wait_quiet(text, "--wait-quiet").map(Some),
            None => Ok(Some(QuietSetting {
                threshold: DEFAULT_QUIET_PRESSURE,
                given_as: "--wait-quiet".into(),
            })),
        }
    }
}
