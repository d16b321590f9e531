//! The history of a metric over commits in words, for every format: a
//! step's judgement with its interval, a level with its precision, the header.

use crate::units::format_value;
use perflab_format::change_words::{ChangeWords, thresholds_sentence};
use perflab_format::history::{
    ChangePointDoc, ConfirmationDoc, Judgement, MetricHistory, Step, VariantHistory,
};
use perflab_format::vocabulary::Better;

/// "-37.7% [-38.7%, -36.7%] GO" or "+3.0% (too few runs)": the later
/// step's value relative to the earlier one's (the one wording of a change,
/// see [`perflab_format::change_words`]).
pub fn describe_judgement(metric: &str, better: Better, j: &Judgement) -> String {
    let words = ChangeWords::from_improvement(metric, better, j.change, j.ci);
    match j.ci {
        Some(_) => format!(
            "{} {}{}",
            words.cell(),
            j.verdict,
            if j.regression { " ← regression" } else { "" }
        ),
        None => format!("{} (medians; too few runs to judge)", words.percent()),
    }
}

/// A step's median with its precision: "99.926 ms ±0.6%".
pub fn level(step: &Step, unit: &str) -> String {
    match &step.level {
        Some(l) => format!(
            "{} ±{:.1}%",
            format_value(step.median, unit),
            l.relative_half_width() * 100.0
        ),
        None => format_value(step.median, unit),
    }
}

/// The metric history in one line: metric, steps, intervals, thresholds.
pub fn header(e: &MetricHistory) -> String {
    let name = e
        .name
        .as_deref()
        .map(|n| format!(" of \"{n}\""))
        .unwrap_or_default();
    // A store outside a git checkout has no commits: its steps are experiments.
    let steps = e.series.iter().flat_map(|s| &s.steps);
    let with_commit = steps.clone().filter(|step| step.commit.is_some()).count();
    let over = match (with_commit, steps.count() - with_commit) {
        (_, 0) => "commits",
        (0, _) => "experiments (no git commit recorded)",
        _ => "commits and experiments without one",
    };
    let judged = match e.false_alarm {
        Some(rate) => format!(
            "change points by E-divisive means ({} shuffled), {} false alarms per series; each change between the segments around it",
            e.permute.as_deref().unwrap_or("commits"),
            format_rate(rate)
        ),
        None => "each step against the one before".into(),
    };
    format!(
        "{} ({} is better){name} over {} {over}; {judged}, {:.0}% intervals, each change the later level relative to the earlier, {}",
        e.metric,
        e.better,
        e.longest(),
        e.confidence * 100.0,
        thresholds_sentence(e.better, e.go, e.nogo)
    )
}

/// A probability as a percentage without a sign: "5%", "0.5%".
fn format_rate(rate: f64) -> String {
    let pct = format!("{:.2}", rate * 100.0);
    format!("{}%", pct.trim_end_matches('0').trim_end_matches('.'))
}

/// "a1b2c3d4 → e5f6a7b8 (3 commits → 2): -19.23% [-20.1%, -18.2%] NO-GO ← regression, p = 0.005".
pub fn describe_change_point(metric: &str, better: Better, c: &ChangePointDoc) -> String {
    format!(
        "{} → {} ({} → {} steps): {}, p = {:.3}",
        c.from,
        c.to,
        c.steps_before,
        c.steps_after,
        describe_judgement(metric, better, &c.judgement),
        c.p_value
    )
}

/// A change point's interleaved A/B in words, with the A/B's experiment,
/// pairs, confidence, change and interval: "confirmed by an interleaved A/B
/// (#14, 12 pairs at 97.5%): +199.8% [+196.1%, +203.6%] NO-GO" or "not
/// confirmed by an interleaved A/B (#14, 30 pairs at 97.5%): +0.12%
/// [-0.80%, +1.05%] NEUTRAL".
pub fn describe_confirmation(metric: &str, better: Better, c: &ConfirmationDoc) -> String {
    let said = if c.confirmed {
        "confirmed by an interleaved A/B"
    } else if c.found_regression() {
        // The history saw an improvement (or nothing beyond a threshold)
        // where the A/B, whose runs took turns, found the code slower.
        "not confirmed: an interleaved A/B found a regression instead"
    } else {
        "not confirmed by an interleaved A/B"
    };
    let Some(id) = c.experiment else {
        let why = c.note.as_deref().unwrap_or("it was not run");
        return format!("{said}: {why}");
    };
    let figures = match (c.change, c.ci) {
        (Some(change), Some(ci)) => format!(
            ": {} {}",
            ChangeWords::from_improvement(metric, better, change, Some(ci)).cell(),
            c.verdict.map_or("INCONCLUSIVE", |v| v.as_str())
        ),
        _ => ": too few pairs for a verdict".into(),
    };
    let note = c
        .note
        .as_deref()
        .map(|n| format!(" ({n})"))
        .unwrap_or_default();
    format!(
        "{said} (#{id}, {} pairs at {}%){figures}{note}",
        c.pairs,
        level_percent(c.confidence)
    )
}

/// A confidence level as a percentage without trailing zeros: "95%", "97.5%".
fn level_percent(confidence: f64) -> String {
    let pct = format!("{:.3}", confidence * 100.0);
    pct.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// What a variant's change points come to, in one line.
pub(crate) fn change_points_line(s: &VariantHistory) -> String {
    if let Some(note) = &s.note {
        return format!("no change points computed: {note}");
    }
    match s.change_points.len() {
        0 => "no change point found: one level throughout, as far as the noise and the number of commits tell".into(),
        1 => "1 change point".into(),
        n => format!("{n} change points"),
    }
}

/// "variant fast", or "variant fast on alpha" when the history's series
/// come from more than one host (each host's experiments are a series).
pub fn series_title(e: &MetricHistory, s: &VariantHistory) -> String {
    let first = e.series.first().map(|f| &f.host);
    let many_hosts = e.series.iter().any(|o| Some(&o.host) != first);
    match (&s.host, many_hosts) {
        (Some(host), true) => format!("variant {} on {host}", s.variant),
        (None, true) => format!("variant {} on an unknown host", s.variant),
        _ => format!("variant {}", s.variant),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perflab_format::vocabulary::Verdict;

    fn confirmation(confirmed: bool, experiment: Option<i64>) -> ConfirmationDoc {
        ConfirmationDoc {
            confirmed,
            experiment,
            verdict: Some(if confirmed {
                Verdict::NoGo
            } else {
                Verdict::Neutral
            }),
            change: Some(if confirmed { -2.0 / 3.0 } else { 0.001 }),
            ci: Some(if confirmed {
                [-0.68, -0.65]
            } else {
                [-0.004, 0.006]
            }),
            pairs: 12,
            confidence: 0.975,
            command: "./app".into(),
            note: None,
        }
    }

    #[test]
    fn a_confirmation_names_its_experiment_pairs_level_change_and_verdict() {
        let text = describe_confirmation("work", Better::Lower, &confirmation(true, Some(14)));
        assert!(
            text.starts_with("confirmed by an interleaved A/B (#14, 12 pairs at 97.5%): +200.0% [")
                && text.ends_with("] NO-GO"),
            "{text}"
        );
        let text = describe_confirmation("work", Better::Lower, &confirmation(false, Some(15)));
        assert!(
            text.starts_with(
                "not confirmed by an interleaved A/B (#15, 12 pairs at 97.5%): -0.10% ["
            ) && text.ends_with("] NEUTRAL"),
            "{text}"
        );
    }

    #[test]
    fn an_ab_that_finds_a_regression_the_history_did_not_see_says_so() {
        let mut c = confirmation(false, Some(16));
        c.verdict = Some(Verdict::NoGo);
        c.change = Some(-0.05);
        c.ci = Some([-0.08, -0.02]);
        let text = describe_confirmation("work", Better::Lower, &c);
        assert!(
            text.starts_with(
                "not confirmed: an interleaved A/B found a regression instead (#16, 12 pairs at 97.5%): +5."
            ) && text.ends_with("] NO-GO"),
            "{text}"
        );
    }

    #[test]
    fn a_confirmation_that_did_not_run_says_why() {
        let mut c = confirmation(false, None);
        c.note = Some("the step after it ran on a dirty tree".into());
        assert_eq!(
            describe_confirmation("work", Better::Lower, &c),
            "not confirmed by an interleaved A/B: the step after it ran on a dirty tree"
        );
    }
}
