//! Why a decision came out as it did, in one sentence.

use perflab_format::change_words::{improvement_to_ratio, percent_interval, threshold_percent};
use perflab_stats::{Better, Decision, Interval, Thresholds, Verdict};

use super::{GuardOutcome, GuardStatus};
use crate::experiment::Experiment;
use perflab_report::sections::guard::GuardWords;

/// The candidate relative to the baseline as a signed percentage, from a
/// change in the decision's orientation (see [`perflab_format::change_words`]).
fn relative(better: Better, change: f64) -> String {
    threshold_percent(format_better(better), change)
}

/// An interval of the decision as the candidate relative to the baseline:
/// `[+18.0%, +24.0%]`, lower bound first.
fn relative_band(better: Better, iv: &Interval) -> String {
    let (a, b) = (
        improvement_to_ratio(format_better(better), iv.lo) - 1.0,
        improvement_to_ratio(format_better(better), iv.hi) - 1.0,
    );
    percent_interval(a.min(b), a.max(b))
}

fn format_better(better: Better) -> perflab_format::vocabulary::Better {
    match better {
        Better::Higher => perflab_format::vocabulary::Better::Higher,
        Better::Lower => perflab_format::vocabulary::Better::Lower,
    }
}

/// Why `interval` gives `verdict` against `th`, with the interval and the
/// thresholds worded as the candidate relative to the baseline (as every
/// report words a change); `more` names what an INCONCLUSIVE verdict needs
/// more of ("runs", "samples").
pub fn verdict_sentence(
    verdict: Verdict,
    iv: &Interval,
    th: &Thresholds,
    better: Better,
    more: &str,
) -> String {
    let band = relative_band(better, iv);
    let (go, nogo) = (relative(better, th.go), relative(better, th.nogo));
    // Lower is better: a GO lies below its threshold, a NO-GO above.
    let (go_side, nogo_side) = match better {
        Better::Lower => ("below", "above"),
        Better::Higher => ("above", "below"),
    };
    match verdict {
        Verdict::Go => {
            format!("the whole interval {band} lies at or {go_side} the GO threshold {go}")
        }
        Verdict::NoGo => {
            format!("the whole interval {band} lies at or {nogo_side} the NO-GO threshold {nogo}")
        }
        Verdict::Neutral => {
            let (first, second) = match better {
                Better::Lower => (&go, &nogo),
                Better::Higher => (&nogo, &go),
            };
            format!(
                "the whole interval {band} lies inside ({first}, {second}): equivalent within the band"
            )
        }
        Verdict::Inconclusive => {
            format!("the interval {band} straddles a threshold; more {more} are needed")
        }
    }
}

/// The sentence for `d`: below the minimum, the decision metric's own
/// verdict, then what the guards did to a GO, then whether it is exact.
///
/// `test_confidence` is the level the test decided at (a suite's cell
/// decides at a split level): below the fewest pairs validated at it
/// ([`perflab_stats::fewest_deciding_pairs`]) no verdict is given, as
/// below `--min-runs`, unless the values were exact.
pub(super) fn reason(
    exp: &Experiment,
    d: &Decision,
    guards: &[GuardOutcome],
    exact: bool,
    test_confidence: f64,
) -> String {
    let th = &exp.thresholds;
    let iv = &d.interval;
    let band = relative_band(exp.metric.better, iv);
    let min_runs = exp.limits.min_runs;
    let floor = if exact {
        min_runs
    } else {
        min_runs.max(perflab_stats::fewest_deciding_pairs(test_confidence))
    };
    let mut reason = if d.runs < min_runs {
        format!(
            "only {} of the {min_runs} pairs needed before any verdict (--min-runs): the interval {band} is not yet trusted to decide",
            d.runs
        )
    } else if d.runs < floor {
        let level = format!("{:.4}", 100.0 * test_confidence);
        format!(
            "only {} pairs, and a verdict at {}% confidence needs at least {floor} \
             (the fewest from which the decision is validated; --min-runs {min_runs} is below it): \
             the interval {band} is not yet trusted to decide",
            d.runs,
            level.trim_end_matches('0').trim_end_matches('.')
        )
    } else {
        verdict_sentence(d.primary, iv, th, exp.metric.better, "runs")
    };
    if d.primary == Verdict::Go && d.runs >= floor {
        if let Some(g) = guards.iter().find(|g| g.status == GuardStatus::Violated) {
            let words = GuardWords::new(&g.document());
            reason = format!(
                "{} improved, but guard {} went beyond its limit: {} {}, and it {}",
                exp.metric.name,
                g.guard.metric.name,
                words.label,
                words.change(),
                words.limit_clause()
            );
        } else if let Some(g) = guards.iter().find(|g| g.status == GuardStatus::Uncertain) {
            let words = GuardWords::new(&g.document());
            reason = format!(
                "{} improved ({band}), but guard {} cannot yet be shown to stay within its limit: {} {}, and it {}",
                exp.metric.name,
                g.guard.metric.name,
                words.label,
                words.change(),
                words.limit_clause()
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
