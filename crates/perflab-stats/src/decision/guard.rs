//! Guards: secondary metrics that may take a GO away when they worsen
//! beyond a limit (README, "The decision": guards).

use perflab_format::vocabulary::{Better, GuardStatus};
use serde::{Deserialize, Serialize};

use crate::change::Interval;

/// A metric watched next to the decision metric, and how much worse it may get.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GuardLimit {
    /// Which direction of the guarded metric is better.
    pub better: Better,
    /// The largest worsening allowed, as a fraction (0.05 = 5 %), at least 0.
    pub max_worsening: f64,
}

/// The status of a guard whose change (positive = better) has interval `iv`.
///
/// Method: interval inclusion against the one boundary -`max_worsening`, the
/// one-sided form of [`crate::decision::rule::classify`]: `lo >= -max_worsening` → pass
/// (non-inferiority shown), `hi < -max_worsening` → violated, otherwise (NaN
/// included) uncertain. Evaluated on the same confidence sequence as the
/// decision metric, the statuses stay valid under optional stopping.
pub fn guard_status(iv: &Interval, max_worsening: f64) -> GuardStatus {
    if iv.lo >= -max_worsening {
        GuardStatus::Pass
    } else if iv.hi < -max_worsening {
        GuardStatus::Violated
    } else {
        GuardStatus::Uncertain
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
    fn a_guard_passes_violates_or_waits_by_where_the_interval_lies() {
        assert_eq!(guard_status(&iv(-0.05, 0.02), 0.05), GuardStatus::Pass);
        assert_eq!(guard_status(&iv(-0.3, -0.06), 0.05), GuardStatus::Violated);
        assert_eq!(guard_status(&iv(-0.08, 0.0), 0.05), GuardStatus::Uncertain);
        assert_eq!(
            guard_status(&iv(f64::NAN, f64::NAN), 0.05),
            GuardStatus::Uncertain
        );
    }
}
