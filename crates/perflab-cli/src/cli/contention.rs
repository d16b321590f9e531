//! `--max-cpu-wait`: the contention rule of `perflab ab`, `sweep` and
//! `bisect` (each a configuration of the engine that measures in blocks).

use clap::Args;

use crate::error::Result;
use crate::experiment::MaxCpuWait;

/// The contention rule's flag.
#[derive(Debug, Args, Clone, Default)]
pub struct ContentionArgs {
    /// A block in which a run waited for a CPU for more than this share of its wall time is
    /// measured again.
    #[arg(long, value_name = "SHARE|off", help = super::defaults::max_cpu_wait())]
    pub max_cpu_wait: Option<String>,
}

impl ContentionArgs {
    /// The rule as given, if given.
    pub fn setting(&self) -> Result<Option<MaxCpuWait>> {
        self.max_cpu_wait
            .as_deref()
            .map(|text| MaxCpuWait::parse(text, "--max-cpu-wait"))
            .transpose()
    }
}
