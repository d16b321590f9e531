//! The state of the machine during an experiment (the `machine` section of
//! a `perflab-result/1` document, optional: documents written before it
//! existed read as they are).
//!
//! Every field is optional: a field perflab could not read on this machine
//! (no cpufreq in a container, no /proc/stat) is absent, never guessed.

use serde::{Deserialize, Serialize};

/// What perflab saw of the machine around an experiment's runs.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MachineDoc {
    /// CPUs online (`/sys/devices/system/cpu/online`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus_online: Option<usize>,
    /// The CPUs perflab itself may run on, as a CPU list (`0-3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus_allowed: Option<String>,
    /// The CPUs the runs were pinned to (`--pin`), as a CPU list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned: Option<String>,
    /// The CPU frequency governors in use (`performance`, `powersave`,
    /// ...), each once, comma-separated when CPUs differ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub governor: Option<String>,
    /// Whether the CPU may boost above its base frequency (turbo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boost: Option<bool>,
    /// Whether simultaneous multithreading (hyper-threading) is active.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smt: Option<bool>,
    /// The one-minute load average just before the first run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_before: Option<f64>,
    /// Share of all CPU time during the experiment that the hypervisor gave
    /// to other guests (steal), a fraction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_share: Option<f64>,
    /// Share of all CPU time during the experiment spent serving
    /// interrupts (hard and soft), a fraction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupt_share: Option<f64>,
    /// What this state tells a reader to check (a busy machine, steal
    /// time, drift over the runs), each a sentence saying what to do; kept
    /// apart from the result's own warnings, which are about the variants.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The CPU shield the runs were made behind (`--shield`); absent when
    /// they shared every CPU with the rest of the machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shield: Option<ShieldDoc>,
    /// How long perflab waited for a quiet machine before blocks
    /// (`--wait-quiet`); absent when it was not asked to wait.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet_wait: Option<QuietWaitDoc>,
}

/// A CPU shield: CPUs kept for the runs while every other process, and
/// what it started, was confined to the other CPUs through a cpuset
/// cgroup, and interrupts were steered to those other CPUs.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ShieldDoc {
    /// The CPUs kept for the runs, as a CPU list (`1`, `2-3`).
    pub cpus: String,
    /// The CPUs everything else was confined to, as a CPU list.
    pub rest: String,
    /// The cpuset hierarchy used: `cgroup-v1` or `cgroup-v2`.
    pub cpuset: String,
    /// Processes moved into the cgroup of the other CPUs.
    pub processes_moved: usize,
    /// Cgroups (and so every process in them) whose cpuset was narrowed
    /// to the other CPUs.
    pub cgroups_narrowed: usize,
    /// Kernel threads left where they were: the kernel does not let them
    /// move (most are bound to a CPU, and do little).
    pub kernel_threads_left: usize,
    /// Other processes that could not be moved (they ended meanwhile, or
    /// the kernel refused), left where they were.
    #[serde(default)]
    pub processes_left: usize,
    /// Interrupts whose affinity was set to the other CPUs.
    pub irqs_steered: usize,
    /// Interrupts the kernel would not move (per-CPU or managed by their
    /// driver), left where they were.
    pub irqs_left: usize,
}

/// The waits for a quiet machine before blocks: perflab waited until the
/// machine's CPU pressure (`/proc/pressure/cpu`, the share of the last
/// 10 seconds in which some runnable task waited for a CPU) was below a
/// threshold.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct QuietWaitDoc {
    /// The threshold, a fraction (0.05 for 5%).
    pub threshold: f64,
    /// Blocks that had to wait before they started.
    pub blocks_waited: usize,
    /// Seconds waited in all.
    pub waited_s: f64,
    /// True when the time limit (`--max-time`) ran out while waiting: the
    /// experiment stopped there, with the runs measured before.
    #[serde(default)]
    pub gave_up: bool,
    /// The CPU pressure last read, a fraction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_pressure: Option<f64>,
}
