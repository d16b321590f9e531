//! Why a decision came out as it did, in one sentence.

use perflab_stats::{Decision, Interval, Thresholds, Verdict};

use super::{GuardOutcome, GuardStatus};
use crate::experiment::Experiment;
use perflab_report::units::format_percent;

/// Why `interval` gives `verdict` against `th`; `more` names what an
/// INCONCLUSIVE verdict needs more of ("runs", "samples").
pub fn verdict_sentence(verdict: Verdict, iv: &Interval, th: &Thresholds, more: &str) -> String {
    let band = format!("[{}, {}]", format_percent(iv.lo), format_percent(iv.hi));
    match verdict {
        Verdict::Go => format!(
            "the whole interval {band} lies at or above the GO threshold {}",
            format_percent(th.go)
        ),
        Verdict::NoGo => format!(
            "the whole interval {band} lies at or below the NO-GO threshold {}",
            format_percent(th.nogo)
        ),
        Verdict::Neutral => format!(
            "the whole interval {band} lies inside ({}, {}): equivalent within the band",
            format_percent(th.nogo),
            format_percent(th.go)
        ),
        Verdict::Inconclusive => {
            format!("the interval {band} straddles a threshold; more {more} are needed")
        }
    }
}

/// The sentence for `d`: below the minimum, the decision metric's own
/// verdict, then what the guards did to a GO, then whether it is exact.
pub fn reason(exp: &Experiment, d: &Decision, guards: &[GuardOutcome], exact: bool) -> String {
    let th = &exp.thresholds;
    let iv = &d.interval;
    let band = format!("[{}, {}]", format_percent(iv.lo), format_percent(iv.hi));
    let mut reason = if d.runs < exp.limits.min_runs {
        format!(
            "only {} of the {} pairs needed before any verdict (--min-runs): the interval {band} is not yet trusted to decide",
            d.runs, exp.limits.min_runs
        )
    } else {
        verdict_sentence(d.primary, iv, th, "runs")
    };
    if d.primary == Verdict::Go && d.runs >= exp.limits.min_runs {
        if let Some(g) = guards.iter().find(|g| g.status == GuardStatus::Violated) {
            reason = format!(
                "{} improved, but guard {} worsened by {} [{}, {}], beyond the {} allowed",
                exp.metric.name,
                g.guard.metric.name,
                format_percent(-g.interval.estimate),
                format_percent(-g.interval.hi),
                format_percent(-g.interval.lo),
                format_percent(g.guard.max_worsening)
            );
        } else if let Some(g) = guards.iter().find(|g| g.status == GuardStatus::Uncertain) {
            reason = format!(
                "{} improved ({band}), but guard {} cannot yet be shown to stay within {} of worsening",
                exp.metric.name,
                g.guard.metric.name,
                format_percent(g.guard.max_worsening)
            );
        }
    }
    let pairs = d.runs;
    if exact && pairs == 1 {
        format!(
            "{reason} (exact if the program is deterministic: one run per variant, as --min-runs 1 asks, so repeatability was not checked)"
        )
    } else if exact {
        format!("{reason} (exact: identical values in all {pairs} runs of each variant)")
    } else {
        reason
    }
}
