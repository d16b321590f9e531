//! The result of `perflab profile` (`perflab-sampling/1`): a sampling
//! profile of one command, or of two with the shares that moved between
//! them. Kept in the store as the `result_json` of experiments of kind
//! `profile` and written by `--json`.
//!
//! Shares are fractions of all samples of a profile; every share carries the
//! number of samples it rests on and an interval.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The format tag of this version.
pub const SAMPLING_FORMAT: &str = "perflab-sampling/1";

/// A sampling profile, or a differential one.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SamplingDocument {
    /// Always [`SAMPLING_FORMAT`].
    pub format: String,
    /// The experiment's name, if given.
    pub name: Option<String>,
    /// The id in the store, if stored.
    pub experiment_id: Option<i64>,
    /// How the samples were taken.
    pub sampler: SamplerInfo,
    /// Confidence level of every interval in the document.
    pub confidence: f64,
    /// One profile, or two (baseline first) for a differential profile.
    pub profiles: Vec<SampledProfile>,
    /// For two profiles: the functions, with how their shares moved
    /// (candidate minus baseline), largest move first.
    #[serde(default)]
    pub changes: Vec<ShareChange>,
    /// For two profiles recorded with `--off-cpu`: the functions whose time
    /// off the CPU moved, largest move first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub off_cpu_changes: Vec<OffCpuChange>,
    /// Things the reader must know: too few samples, missing symbols, ...
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Where the measurement came from.
    pub provenance: Option<BTreeMap<String, serde_json::Value>>,
}

impl SamplingDocument {
    /// Parses a sampling profile, refusing other formats with a message saying what was found.
    pub fn from_json_str(text: &str) -> Result<Self, crate::result::FormatError> {
        crate::result::parse_tagged(text, SAMPLING_FORMAT)
    }
}

/// How the samples were taken.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SamplerInfo {
    /// The profiler, e.g. `perf record`.
    pub tool: String,
    /// The event sampled, e.g. `cpu-clock`.
    pub event: String,
    /// Samples per second of CPU time asked for.
    pub frequency_hz: u32,
    /// Stack unwinding: `fp` (frame pointers) or `dwarf`.
    pub call_graph: String,
}

/// The profile of one command.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SampledProfile {
    /// Its name in tables (`A`, `B`, or the command's program).
    pub name: String,
    /// The command as the user wrote it.
    pub command: String,
    /// Exit code of the command, if it exited.
    pub exit_code: Option<i32>,
    /// Wall time of the profiled run, seconds (slowed by the profiler).
    pub wall_s: f64,
    /// Samples taken.
    pub samples: u64,
    /// Samples whose innermost frame perf could not name (`[unknown]`).
    pub unknown_samples: u64,
    /// The flame graph written, if any.
    pub flamegraph: Option<String>,
    /// The functions with the largest shares (by self and by inclusive
    /// share), largest self share first.
    pub functions: Vec<FunctionShare>,
    /// Where the threads were off the CPU, when recorded with `--off-cpu`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off_cpu: Option<OffCpuProfile>,
}

/// Where one profiled command's threads waited (`perflab profile --off-cpu`):
/// every interval from a thread's switch off a CPU to its next switch back
/// on, attributed to the stack it left from and split by why it left.
///
/// Durations are measured from the scheduler's switch timestamps, not
/// sampled, so they carry no sampling interval; they are those of the one
/// profiled run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OffCpuProfile {
    /// CPU time of the command's threads, the sum of the periods of the
    /// on-CPU samples, ns.
    pub on_cpu_ns: u64,
    /// Time off the CPU while still runnable (preempted: waiting for a CPU
    /// other threads held), ns.
    pub preempted_ns: u64,
    /// Time off the CPU while not runnable (blocked: sleeping, waiting for
    /// I/O, a lock or a channel), ns. Includes the wait for a CPU after
    /// the wake-up, which the scheduler does not report apart.
    pub blocked_ns: u64,
    /// Off-CPU intervals measured.
    pub intervals: u64,
    /// Switches off a CPU with no switch back on before the recording
    /// ended (a thread's last one, as it exits); not in the times above.
    pub unmatched_switches: u64,
    /// Events perf lost because its buffers overflowed; the times above
    /// miss the intervals they held.
    pub lost_events: u64,
    /// Per thread, in the order the threads first ran.
    pub threads: Vec<OffCpuThread>,
    /// The program's functions (not the kernel's: those are in `stacks`) by
    /// the time off the CPU with them on the stack, largest first.
    pub functions: Vec<OffCpuFunction>,
    /// Stacks by time off the CPU, largest first.
    pub stacks: Vec<OffCpuStack>,
}

/// One thread's time on and off the CPU.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OffCpuThread {
    /// The operating system's thread id.
    pub tid: u64,
    /// The thread's name (its `comm`).
    pub name: String,
    /// CPU time from the on-CPU samples, ns.
    pub on_cpu_ns: u64,
    /// Time preempted, ns.
    pub preempted_ns: u64,
    /// Time blocked, ns.
    pub blocked_ns: u64,
    /// Off-CPU intervals.
    pub intervals: u64,
}

/// The time off the CPU with one function on the stack.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OffCpuFunction {
    /// The function (`_[k]` marks kernel functions).
    pub name: String,
    /// Time blocked with the function on the stack, ns (once per interval however often it recurses).
    pub blocked_ns: u64,
    /// Time preempted with the function on the stack, ns.
    pub preempted_ns: u64,
    /// Off-CPU intervals with the function on the stack.
    pub intervals: u64,
}

/// Why a thread was off the CPU.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum OffCpuCause {
    /// It left the CPU still runnable: another thread took it.
    Preempted,
    /// It left the CPU to wait: sleep, I/O, a lock, a channel.
    Blocked,
}

/// One distinct stack a thread left the CPU from, and the time it stayed off.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OffCpuStack {
    /// Frames, outermost first; the first is the thread's name.
    pub frames: Vec<String>,
    /// Why the thread left the CPU.
    pub cause: OffCpuCause,
    /// Time off the CPU, ns.
    pub ns: u64,
    /// Off-CPU intervals.
    pub intervals: u64,
}

/// How one function's time off the CPU moved from the baseline to the candidate.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OffCpuChange {
    /// The function.
    pub name: String,
    /// Time blocked with it on the stack, baseline and candidate, ns.
    pub blocked_ns: [u64; 2],
    /// Time preempted with it on the stack, baseline and candidate, ns.
    pub preempted_ns: [u64; 2],
}

/// One function's share of the samples.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FunctionShare {
    /// The function (`_[k]` marks kernel functions).
    pub name: String,
    /// Samples whose innermost frame is this function.
    pub self_samples: u64,
    /// `self_samples / samples`.
    pub self_share: f64,
    /// Wilson interval `[lo, hi]` for the self share.
    pub self_ci: [f64; 2],
    /// Samples with this function anywhere on the stack (counted once per sample).
    pub inclusive_samples: u64,
    /// `inclusive_samples / samples`.
    pub inclusive_share: f64,
    /// Wilson interval `[lo, hi]` for the inclusive share.
    pub inclusive_ci: [f64; 2],
}

/// How one function's shares moved from the baseline to the candidate.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ShareChange {
    /// The function.
    pub name: String,
    /// Self share in the baseline and in the candidate.
    pub self_shares: [f64; 2],
    /// Candidate minus baseline self share.
    pub self_change: f64,
    /// Newcombe interval `[lo, hi]` for the self change.
    pub self_ci: [f64; 2],
    /// Inclusive share in the baseline and in the candidate.
    pub inclusive_shares: [f64; 2],
    /// Candidate minus baseline inclusive share.
    pub inclusive_change: f64,
    /// Newcombe interval `[lo, hi]` for the inclusive change.
    pub inclusive_ci: [f64; 2],
    /// True when either interval excludes zero.
    pub moved: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_format_is_refused_by_name() {
        let err = SamplingDocument::from_json_str(r#"{"format": "perflab-result/1"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("perflab-sampling/1") && err.contains("perflab-result/1"),
            "{err}"
        );
    }
}
