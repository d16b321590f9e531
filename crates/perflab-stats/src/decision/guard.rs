//! Guards: secondary metrics that may take a GO away when they worsen
//! beyond a limit (README, "The decision": guards), with an optional
//! absolute floor under the relative limit (`peak-memory:10%+8MiB`).

use perflab_format::vocabulary::{Better, GuardStatus};
use serde::{Deserialize, Serialize};

use crate::change::Interval;

/// A metric watched next to the decision metric, and how much worse it may get.
///
/// Without a floor the metric may worsen by `max_worsening` of the
/// baseline's value. With a floor it may worsen by the larger of the two
/// allowances, `max_worsening` of the baseline's value or `floor` in the
/// metric's own unit: a baseline of 1.3 MiB guarded by 10% + 8 MiB may grow
/// by 8 MiB, one of 200 MiB by 20 MiB. The floor keeps a small baseline's
/// start-up footprint from reading as a regression of hundreds of percent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GuardLimit {
    /// Which direction of the guarded metric is better.
    pub better: Better,
    /// The largest worsening allowed, as a fraction of the baseline's value
    /// (0.05 = 5 %), at least 0: the candidate's value may be up to 5 %
    /// above the baseline's when lower is better, down to 5 % below it
    /// when higher is better (see [`GuardLimit::relative_allowance`]).
    pub max_worsening: f64,
    /// The absolute floor: a worsening of up to this much, in the metric's
    /// own unit, is allowed whatever the relative limit says (at least 0;
    /// `None` for a guard with a relative limit only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor: Option<f64>,
}

impl GuardLimit {
    /// A guard with a relative limit only.
    pub fn relative(better: Better, max_worsening: f64) -> Self {
        GuardLimit {
            better,
            max_worsening,
            floor: None,
        }
    }

    /// The limit in the decision's orientation (the change in rate,
    /// positive = better, as [`crate::change::Interval`]s of a guard are):
    /// the guard allows changes down to minus this. A growth by
    /// `max_worsening` of a metric where lower is better is a change of
    /// 1/(1 + w) - 1 = -w/(1 + w) in rate (10 % more memory: -9.09 %); a
    /// fall by `max_worsening` where higher is better is -w itself.
    pub fn relative_allowance(&self) -> f64 {
        let w = self.max_worsening;
        match self.better {
            Better::Lower => w / (1.0 + w),
            Better::Higher => w,
        }
    }

    /// The level each of a guard's intervals is computed at so that the
    /// guard's status holds at `confidence`: `confidence` itself for a
    /// relative guard; for a guard with a floor, whose status rests on two
    /// intervals, the Bonferroni split 1 - (1 - confidence)/2 (see
    /// [`combined_status`]).
    pub fn interval_confidence(&self, confidence: f64) -> f64 {
        match self.floor {
            Some(_) => 1.0 - (1.0 - confidence) / 2.0,
            None => confidence,
        }
    }
}

/// The status of a guard whose change (positive = better) has interval `iv`,
/// against the boundary `-limit` in the interval's own terms: a fraction for
/// the relative change (`limit` = [`GuardLimit::relative_allowance`]), the
/// metric's unit for the absolute difference (`limit` = [`GuardLimit::floor`],
/// the interval that of [`crate::sequential::procedure::GuardDecision::absolute`]).
/// For the relative change `limit` is [`GuardLimit::relative_allowance`].
///
/// Method: interval inclusion against the one boundary -`limit`, the
/// one-sided form of [`crate::decision::rule::classify`]: `lo >= -limit` → pass
/// (non-inferiority shown), `hi < -limit` → violated, otherwise (NaN
/// included) uncertain. Evaluated on the same confidence sequence as the
/// decision metric, the statuses stay valid under optional stopping.
pub fn guard_status(iv: &Interval, limit: f64) -> GuardStatus {
    if iv.lo >= -limit {
        GuardStatus::Pass
    } else if iv.hi < -limit {
        GuardStatus::Violated
    } else {
        GuardStatus::Uncertain
    }
}

/// The status of a guard with a floor, from the status of its relative
/// interval against `max_worsening` and of its absolute interval against
/// `floor` (each from [`guard_status`]).
///
/// The metric may worsen by up to the larger of the two allowances, so it
/// stays within its limit when it stays within either: the guard passes
/// when either interval shows that, and is violated only when both show a
/// worsening beyond their allowance; otherwise it is uncertain.
///
/// Error control: a false *violated* needs the interval of an allowance the
/// truth keeps to miss the truth (probability at most 1 - level); a false
/// *pass* needs either interval to miss it (at most twice that, the union
/// bound). Computing both intervals at
/// [`GuardLimit::interval_confidence`], the Bonferroni split, keeps each
/// error at most 1 - confidence, at every look (both are confidence
/// sequences). The parameters are the location of the paired log gains and
/// of the paired differences; when A's and B's run-to-run noise have the
/// same distribution they are the change in geometric mean (and median)
/// and the shift of the median.
pub fn combined_status(relative: GuardStatus, absolute: GuardStatus) -> GuardStatus {
    match (relative, absolute) {
        (GuardStatus::Pass, _) | (_, GuardStatus::Pass) => GuardStatus::Pass,
        (GuardStatus::Violated, GuardStatus::Violated) => GuardStatus::Violated,
        _ => GuardStatus::Uncertain,
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

    #[test]
    fn a_floor_passes_on_either_allowance_and_violates_only_beyond_both() {
        use GuardStatus::*;
        assert_eq!(combined_status(Violated, Pass), Pass);
        assert_eq!(combined_status(Pass, Violated), Pass);
        assert_eq!(combined_status(Violated, Violated), Violated);
        assert_eq!(combined_status(Violated, Uncertain), Uncertain);
        assert_eq!(combined_status(Uncertain, Violated), Uncertain);
        assert_eq!(combined_status(Uncertain, Uncertain), Uncertain);
    }

    #[test]
    fn a_floor_splits_the_level_over_its_two_intervals() {
        let plain = GuardLimit::relative(Better::Lower, 0.1);
        let floored = GuardLimit {
            floor: Some(8192.0),
            ..plain
        };
        assert_eq!(plain.interval_confidence(0.95), 0.95);
        assert!((floored.interval_confidence(0.95) - 0.975).abs() < 1e-12);
    }

    #[test]
    fn a_relative_limit_is_a_growth_of_the_metric_where_lower_is_better() {
        let lower = GuardLimit::relative(Better::Lower, 0.10);
        assert!((lower.relative_allowance() - 0.1 / 1.1).abs() < 1e-15);
        let higher = GuardLimit::relative(Better::Higher, 0.10);
        assert_eq!(higher.relative_allowance(), 0.10);
    }
}
