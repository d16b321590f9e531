//! The two versions of the engine that the investigation compares.
//!
//! - `v1`, the first version: each line is split into owned `String`
//!   fields, the maps hash with the standard library's SipHash, and the
//!   multi-threaded path sends one record per channel message.
//! - `v2`, the candidate, removes per-record costs: fields are borrowed
//!   slices of the line (no allocation), the maps hash with foldhash (a few
//!   multiplications per key; the keys are ids from the engine's own input,
//!   and a denial of service by chosen ids is not this engine's threat), and
//!   the multi-threaded path sends batches of records.
//!
//! Both apply the same rules through the same `Engine`, and print the same
//! balances for the same input.

use std::str::FromStr;

use crate::record::{self, Record, RecordError};

/// Which version of the engine runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// The first version.
    V1,
    /// The version without per-record costs.
    V2,
}

/// The standard library's hasher: `v1`'s maps.
pub type V1Hasher = std::hash::RandomState;
/// foldhash: `v2`'s maps.
pub type V2Hasher = foldhash::fast::RandomState;

/// Records per channel message in the multi-threaded path of `v2`.
pub const V2_BATCH: usize = 1024;

impl Version {
    /// Parses one line the way this version does.
    pub fn parse(self, line: &str) -> Result<Record, RecordError> {
        match self {
            Version::V1 => record::parse_owned(line),
            Version::V2 => record::parse_borrowed(line),
        }
    }

    /// Records per channel message in the multi-threaded path.
    pub fn batch(self) -> usize {
        match self {
            Version::V1 => 1,
            Version::V2 => V2_BATCH,
        }
    }
}

impl FromStr for Version {
    type Err = String;

    fn from_str(text: &str) -> Result<Version, String> {
        match text {
            "v1" => Ok(Version::V1),
            "v2" => Ok(Version::V2),
            _ => Err(format!("`{text}` is not an engine version: use v1 or v2")),
        }
    }
}
