//! What helps or hurts benchmarking on a machine (`perflab-system/1`),
//! written by `perflab system show --json`: one entry per setting perflab
//! looks at (frequency governor, boost, SMT, address randomisation,
//! isolated CPUs, interrupts, perf sampling, load, CPU pressure), each
//! with what was found, why it matters and what perflab recommends.

use serde::{Deserialize, Serialize};

use crate::result::{FormatError, parse_tagged};

/// The format tag of this version.
pub const SYSTEM_FORMAT: &str = "perflab-system/1";

/// The settings of a machine that matter to measurements.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SystemDocument {
    /// Always [`SYSTEM_FORMAT`].
    pub format: String,
    /// One entry per setting, in a fixed order.
    pub settings: Vec<SettingDoc>,
}

impl SystemDocument {
    /// Parses a system document, refusing other formats with a message saying what was found.
    pub fn from_json_str(text: &str) -> Result<Self, FormatError> {
        parse_tagged(text, SYSTEM_FORMAT)
    }
}

/// One setting as perflab found it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SettingDoc {
    /// A short name that stays the same between versions: `governor`,
    /// `boost`, `smt`, `aslr`, `isolated-cpus`, `nohz-full`,
    /// `irq-affinity`, `perf-sample-rate`, `load`, `cpu-pressure`.
    pub key: String,
    /// Its name for people, e.g. `CPU frequency governor`.
    pub name: String,
    /// Whether it helps measurements, could be better, or is not there.
    pub state: SettingState,
    /// What perflab found, e.g. `performance on CPUs 0-3`; `not available
    /// here` when the machine does not have the setting.
    pub found: String,
    /// Why it matters to measurements.
    pub why: String,
    /// What perflab recommends doing, or keeping.
    pub recommendation: String,
    /// The files it was read from.
    pub source: String,
}

/// How a setting stands for measurements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum SettingState {
    /// As perflab recommends.
    #[serde(rename = "ok")]
    Ok,
    /// Could be better for measurements: see the recommendation.
    #[serde(rename = "check")]
    Check,
    /// This machine does not have the setting (a VM without cpufreq, a
    /// kernel without pressure stall information): nothing to do.
    #[serde(rename = "not-available")]
    NotAvailable,
}

impl SettingState {
    /// The word documents carry.
    pub fn as_str(self) -> &'static str {
        match self {
            SettingState::Ok => "ok",
            SettingState::Check => "check",
            SettingState::NotAvailable => "not-available",
        }
    }
}
