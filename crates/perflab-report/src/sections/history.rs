//! The history of a metric over commits in words, for every format: a
//! step's judgement with its interval, a level with its precision, the header.

use crate::units::format_value;
use perflab_format::change_words::{ChangeWords, thresholds_sentence};
use perflab_format::history::{ChangePointDoc, Judgement, MetricHistory, Step, VariantHistory};
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

/// What a variant's change points come to, in one line.
pub fn change_points_line(s: &VariantHistory) -> String {
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
