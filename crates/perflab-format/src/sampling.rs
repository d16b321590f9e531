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
