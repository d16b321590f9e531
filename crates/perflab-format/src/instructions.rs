//! Instruction counts under valgrind (`perflab-instructions/1`), for
//! `perflab run` and `perflab ab` with `--measure instructions`: the counts
//! of every run, whether they were identical (then a comparison is exact),
//! and the functions whose counts changed most. Kept in the store next to
//! the experiment's result document.

use serde::{Deserialize, Serialize};

/// The format tag of this version.
pub const INSTRUCTIONS_FORMAT: &str = "perflab-instructions/1";

/// Instruction counts of the variants of one experiment.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InstructionsDocument {
    /// Always [`INSTRUCTIONS_FORMAT`].
    pub format: String,
    /// The id in the store, if stored.
    pub experiment_id: Option<i64>,
    /// The valgrind tool that counted, e.g. `callgrind`.
    pub tool: String,
    /// The variables the counted runs saw; every other one was cleared.
    pub environment: Vec<String>,
    /// True when address-space randomisation was turned off (`setarch -R`).
    pub aslr_off: bool,
    /// True when every run of each variant gave the same count.
    pub exact: bool,
    /// Each variant, in order (baseline first).
    pub variants: Vec<InstructionVariant>,
    /// For two variants: functions by the size of their change, largest first.
    #[serde(default)]
    pub changes: Vec<FunctionCountChange>,
}

impl InstructionsDocument {
    /// Parses instruction counts, refusing other formats with a message saying what was found.
    pub fn from_json_str(text: &str) -> Result<Self, crate::result::FormatError> {
        crate::result::parse_tagged(text, INSTRUCTIONS_FORMAT)
    }
}

/// One variant's counts.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InstructionVariant {
    /// Name.
    pub name: String,
    /// Command.
    pub command: String,
    /// Total instructions of every counted run, in run order.
    pub counts: Vec<u64>,
    /// True when all counts are equal.
    pub identical: bool,
    /// The functions with the most instructions in the first counted run.
    pub functions: Vec<FunctionCount>,
}

/// Instructions executed in one function (its own code, not its callees).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FunctionCount {
    /// The function, as valgrind names it.
    pub name: String,
    /// The object file it is in.
    pub object: String,
    /// Instructions executed in it.
    pub instructions: u64,
}

/// How one function's count changed from the baseline to the candidate.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FunctionCountChange {
    /// The function.
    pub name: String,
    /// Its object file.
    pub object: String,
    /// Instructions in the baseline and in the candidate (first runs).
    pub instructions: [u64; 2],
    /// Candidate minus baseline.
    pub change: i64,
    /// `change / baseline`, absent when the baseline count is zero.
    pub relative: Option<f64>,
}
