//! A positive quantity with its confidence interval, as sweeps and histories
//! store the geometric mean of runs, a cost per item or a ratio.

use serde::{Deserialize, Serialize};

/// An estimate of a positive quantity with a multiplicative interval around
/// it, and what the interval rests on.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PositiveIntervalDoc {
    /// Point estimate (> 0).
    pub estimate: f64,
    /// Lower end (> 0).
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Confidence level, for example 0.95.
    pub confidence: f64,
    /// Number of values (or pairs) it rests on.
    pub n: usize,
}

impl PositiveIntervalDoc {
    /// Half the width of the interval relative to the estimate:
    /// (hi - lo) / (2 · estimate). 0.02 reads as "±2 %".
    pub fn relative_half_width(&self) -> f64 {
        (self.hi - self.lo) / (2.0 * self.estimate)
    }
}
