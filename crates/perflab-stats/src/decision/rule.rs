//! The decision rule: thresholds on the relative change and the table that
//! turns an interval into a verdict (README, "The decision").

use perflab_format::vocabulary::Verdict;
use serde::{Deserialize, Serialize};

use crate::change::Interval;
use crate::error::StatsError;

/// Decision thresholds on the relative change (fractions, positive = better).
///
/// Build with [`Thresholds::new`], which validates. The fields are public for
/// reading and for serde; a value deserialised or assembled by hand should be
/// checked with [`Thresholds::validate`] (the sequential test does so).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    /// Changes at or above this are an improvement worth taking (default +1 %).
    pub go: f64,
    /// Changes at or below this are a regression (default -0.5 %).
    pub nogo: f64,
}

/// Default GO threshold: +1 % (README, "The decision").
pub const DEFAULT_GO: f64 = 0.01;
/// Default NO-GO threshold: -0.5 % (README, "The decision").
pub const DEFAULT_NOGO: f64 = -0.005;

impl Default for Thresholds {
    /// go = [`DEFAULT_GO`], nogo = [`DEFAULT_NOGO`].
    fn default() -> Self {
        Thresholds {
            go: DEFAULT_GO,
            nogo: DEFAULT_NOGO,
        }
    }
}

impl Thresholds {
    /// Validated thresholds.
    ///
    /// # Errors
    /// [`StatsError::InvalidThresholds`] unless both are finite and
    /// -1 < nogo < go (the NEUTRAL band must be non-empty, and a change of
    /// -100 % or less cannot happen).
    pub fn new(go: f64, nogo: f64) -> Result<Self, StatsError> {
        let th = Thresholds { go, nogo };
        th.validate()?;
        Ok(th)
    }

    /// Checks the invariants documented on [`Thresholds::new`].
    ///
    /// # Errors
    /// [`StatsError::InvalidThresholds`] saying which invariant fails.
    pub fn validate(&self) -> Result<(), StatsError> {
        let reason = if !self.go.is_finite() || !self.nogo.is_finite() {
            Some("both must be finite fractions (0.01 means +1 %)")
        } else if self.nogo >= self.go {
            Some("nogo must be smaller than go (for example go=0.01, nogo=-0.005)")
        } else if self.nogo <= -1.0 {
            Some("nogo must be greater than -1 (a change of -100 % or less is impossible)")
        } else {
            None
        };
        match reason {
            Some(reason) => Err(StatsError::InvalidThresholds {
                go: self.go,
                nogo: self.nogo,
                reason,
            }),
            None => Ok(()),
        }
    }
}

/// The verdict for an interval (the decision table of README, "The decision").
///
/// Method: a confidence interval inside one region decides; it is the
/// interval-inclusion form of equivalence/superiority testing (two one-sided
/// tests; Schuirmann 1987, J. Pharmacokinetics and Biopharmaceutics 15(6)).
/// * `lo >= go` → GO
/// * `hi <= nogo` → NO-GO
/// * `nogo < lo` and `hi < go` → NEUTRAL
/// * otherwise (including any NaN) → INCONCLUSIVE
///
/// Assumes the interval comes from a method valid for how the data were
/// collected: [`crate::sequential::paired::paired_change`] for sequential, interleaved runs;
/// [`crate::fixed_sample::hodges_lehmann::hodges_lehmann_change`] for samples of fixed size.
pub fn classify(iv: &Interval, th: &Thresholds) -> Verdict {
    if iv.lo >= th.go {
        Verdict::Go
    } else if iv.hi <= th.nogo {
        Verdict::NoGo
    } else if iv.lo > th.nogo && iv.hi < th.go {
        Verdict::Neutral
    } else {
        Verdict::Inconclusive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(lo: f64, hi: f64) -> Interval {
        Interval {
            estimate: (lo + hi) / 2.0,
            lo,
            hi,
            confidence: 0.95,
        }
    }

    #[test]
    fn classify_follows_the_design_table() {
        let th = Thresholds::default();
        assert_eq!(classify(&iv(0.01, 0.05), &th), Verdict::Go);
        assert_eq!(classify(&iv(-0.05, -0.005), &th), Verdict::NoGo);
        assert_eq!(classify(&iv(-0.004, 0.009), &th), Verdict::Neutral);
        assert_eq!(classify(&iv(-0.005, 0.009), &th), Verdict::Inconclusive);
        assert_eq!(classify(&iv(0.0, 0.02), &th), Verdict::Inconclusive);
        assert_eq!(
            classify(&iv(f64::NAN, f64::NAN), &th),
            Verdict::Inconclusive
        );
    }

    #[test]
    fn thresholds_reject_inverted_or_impossible_values() {
        assert!(Thresholds::new(0.01, -0.005).is_ok());
        assert!(Thresholds::new(0.01, 0.01).is_err());
        assert!(Thresholds::new(0.01, -1.0).is_err());
        assert!(Thresholds::new(f64::NAN, -0.005).is_err());
    }
}
