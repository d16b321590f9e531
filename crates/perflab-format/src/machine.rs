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
}
