//! Span figures in a report, for every format: per variant, each span's
//! self time, share of wall time and calls; for a comparison, each span's
//! change with its interval.
//!
//! The figures come from [`crate::spans::span_docs`], the one computation
//! of span figures across runs: a result carries them (what `perflab run`
//! and `perflab ab` printed on the terminal), and experiments without them
//! in their result (sweeps) get them from their stored runs by the same
//! function. Profiles are read with the same strict reader
//! ([`crate::spans::parse_profiles`]): runs without a profile are skipped;
//! a run whose profile cannot be read is a problem the report states once
//! (with the runs it concerns), never silently left out.

use std::collections::BTreeMap;

use perflab_format::profile::Profile;
use perflab_format::result::SpanDoc;

use crate::spans::{UNATTRIBUTED, parse_profiles, profile_warnings, session_wall_s, span_docs};
use perflab_format::change_words::ChangeWords;
use perflab_format::vocabulary::Better;
use perflab_store::StoredRun;

/// What a report shows in place of the figures of a span that no run
/// entered (a span of `0.000 µs`, `0.0%`, `0` calls reads as a measurement).
pub(crate) const NEVER_ENTERED: &str = "never entered";

/// One span's part of a variant's time.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanShare {
    /// The span's name.
    pub name: String,
    /// Self (exclusive) time per run, seconds (median over the profiled runs).
    pub self_s: f64,
    /// Self time over the session's wall time (median over runs); above 1
    /// when threads overlap.
    pub share_of_wall: f64,
    /// Calls per run (median).
    pub calls: f64,
    /// True when no run entered the span: it exists in the program but
    /// never ran, shown as such rather than as zero time.
    pub never_entered: bool,
    /// The runs that entered the span and the runs profiled, when it ran in
    /// too few runs for its medians to be above zero (see
    /// `SpanStatsDoc::entered_in_few_runs`).
    pub entered_in_few_runs: Option<(usize, usize)>,
}

/// What a report shows in place of a span's figures when they would read
/// as a measurement of zero: "never entered", or "entered in k of n runs"
/// for a span whose medians are zero because most runs did not enter it.
pub(crate) fn zero_figures_text(
    never_entered: bool,
    entered_in_few_runs: Option<(usize, usize)>,
) -> Option<String> {
    if never_entered {
        return Some(NEVER_ENTERED.to_string());
    }
    entered_in_few_runs.map(|(entered, runs)| format!("entered in {entered} of {runs} runs"))
}

/// The spans of one variant.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantSpans {
    /// The variant.
    pub variant: String,
    /// Runs with a profile.
    pub runs: usize,
    /// Wall time of the profiled session per run (median), when the
    /// profiles themselves were read.
    pub wall_s: Option<f64>,
    /// Spans by self time, largest first.
    pub spans: Vec<SpanShare>,
    /// The time no span covers: self time and share of wall time (medians).
    pub unattributed: SpanShare,
}

/// A profile that could not be read, with the runs it concerns.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileProblem {
    /// The variant whose runs wrote it.
    pub variant: String,
    /// "run 3: the profile could not be read: ..." (the runs numbered
    /// among the variant's measured runs, as in the result's span warnings).
    pub message: String,
}

impl std::fmt::Display for ProfileProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "variant \"{}\", {}", self.variant, self.message)
    }
}

/// The spans of an experiment's stored runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpanBreakdowns {
    /// One entry per variant with at least one readable profile.
    pub variants: Vec<VariantSpans>,
    /// Unreadable profiles, once per variant and distinct problem.
    pub problems: Vec<ProfileProblem>,
    /// The profiles' warnings, grouped as the terminal groups them.
    pub warnings: Vec<String>,
}

/// The spans of each variant of `docs` (`names` in the order of its
/// `per_variant`), from the figures of one computation.
pub fn variant_spans(docs: &[SpanDoc], names: &[&str]) -> Vec<VariantSpans> {
    let mut variants = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let stats = |d: &SpanDoc| d.per_variant.get(i).cloned().flatten();
        let share = |d: &SpanDoc| {
            stats(d).map(|s| SpanShare {
                name: d.name.clone(),
                self_s: s.self_s,
                share_of_wall: s.self_share_of_wall,
                calls: s.calls,
                never_entered: d.name != UNATTRIBUTED && s.never_entered(),
                entered_in_few_runs: s.entered_in_few_runs(),
            })
        };
        let mut spans: Vec<SpanShare> = docs
            .iter()
            .filter(|d| d.name != UNATTRIBUTED)
            .filter_map(share)
            .collect();
        if spans.is_empty() {
            continue;
        }
        spans.sort_by(|a, b| b.self_s.total_cmp(&a.self_s).then(a.name.cmp(&b.name)));
        let unattributed = docs
            .iter()
            .find(|d| d.name == UNATTRIBUTED)
            .and_then(share)
            .unwrap_or(SpanShare {
                name: UNATTRIBUTED.into(),
                self_s: 0.0,
                share_of_wall: 0.0,
                calls: 0.0,
                never_entered: false,
                entered_in_few_runs: None,
            });
        let runs = docs.iter().filter_map(stats).map(|s| s.runs).max();
        variants.push(VariantSpans {
            variant: name.to_string(),
            runs: runs.unwrap_or(0),
            wall_s: None,
            spans,
            unattributed,
        });
    }
    variants
}

/// Spans per variant, from the measured runs that carry a profile.
pub fn span_breakdowns(runs: &[StoredRun]) -> SpanBreakdowns {
    let mut by_variant: BTreeMap<(i64, &str), Vec<Option<&str>>> = BTreeMap::new();
    for run in runs.iter().filter(|r| !r.warmup) {
        by_variant
            .entry((run.variant_id, &run.variant))
            .or_default()
            .push(run.outcome.profile_json.as_deref());
    }
    let mut result = SpanBreakdowns::default();
    let mut parsed: Vec<(&str, Vec<Option<Profile>>)> = Vec::new();
    for ((_, variant), texts) in by_variant {
        let (profiles, problems) = parse_profiles(texts.into_iter());
        result
            .problems
            .extend(problems.into_iter().map(|message| ProfileProblem {
                variant: variant.to_string(),
                message,
            }));
        let docs = span_docs(std::slice::from_ref(&profiles), None);
        for mut spans in variant_spans(&docs, &[variant]) {
            spans.wall_s = session_wall_s(profiles.iter().flatten());
            result.variants.push(spans);
        }
        parsed.push((variant, profiles));
    }
    let labelled: Vec<(&str, &[Option<Profile>])> =
        parsed.iter().map(|(n, p)| (*n, p.as_slice())).collect();
    result.warnings = profile_warnings(&labelled);
    result
}

/// "-14.9% [-15.4%, -14.4%]": a span's self time in the second variant
/// relative to the first, with its interval (the one wording of a change,
/// see [`perflab_format::change_words`]), or `None` where there is none to show.
pub(crate) fn change_text(span: &SpanDoc) -> Option<String> {
    match (span.change, span.ci) {
        (Some(change), Some(ci)) => {
            Some(ChangeWords::from_improvement("self time", Better::Lower, change, Some(ci)).cell())
        }
        _ => None,
    }
}

/// Most runs any span's figures rest on.
pub(crate) fn profiled_runs(spans: &[SpanDoc]) -> usize {
    spans
        .iter()
        .flat_map(|s| s.per_variant.iter().flatten())
        .map(|s| s.runs)
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use perflab_runner::FakeExecutor;

    fn run(variant: &str, profile: Option<&str>) -> StoredRun {
        let mut outcome = FakeExecutor::outcome(1.0);
        outcome.profile_json = profile.map(str::to_string);
        StoredRun {
            variant_id: 1,
            variant: variant.into(),
            warmup: false,
            outcome,
        }
    }

    /// A complete profile: `parse` (2 calls, 600 ns) and `compute` (1 call,
    /// 300 ns) in 1000 ns of one thread, plus a field a newer writer added.
    fn profile() -> String {
        let span = |name: &str, calls: u64, self_ns: u64| {
            serde_json::json!({
                "name": name, "kind": "span", "file": "src/main.rs", "line": 1, "calls": calls,
                "inclusive_ns": self_ns, "self_ns": self_ns, "mean_ns": self_ns as f64 / calls as f64,
                "min_ns": 1, "p50_ns": 1, "p95_ns": 1, "p99_ns": 1, "max_ns": 1, "threads": 1, "unwound": 0
            })
        };
        serde_json::json!({
            "format": "perflab-profile/1", "program": "p", "pid": 1, "something_new": 1,
            "session": {"name": "p", "scope": "process", "wall_ns": 1000, "cpu_ns": 1000,
                        "ended_by": "finished", "started_unix_ms": 0, "unattributed_threshold": 0.05},
            "timer": {"name": "tsc", "span_cost_ns": 20.0, "percentile_relative_error": 0.015625,
                      "instrumentation_ns": 60},
            "spans": [span("parse", 2, 600), span("compute", 1, 300)],
            "threads": [{"id": 1, "wall_ns": 1000, "attributed_ns": 900, "unattributed_ns": 100,
                         "ended": false}],
            "counters": [], "gauges": [],
            "warnings": [{"kind": "unattributed", "subject": "main", "message": "10% unattributed"}]
        })
        .to_string()
    }

    #[test]
    fn shares_of_spans_and_the_unattributed_part_add_up_to_the_wall_time_of_one_thread() {
        let p = profile();
        let b = span_breakdowns(&[run("A", Some(&p)), run("A", Some(&p))]);
        assert!(b.problems.is_empty(), "{:?}", b.problems);
        assert_eq!(b.variants.len(), 1);
        let a = &b.variants[0];
        assert_eq!((a.runs, a.wall_s), (2, Some(1e-6)));
        assert_eq!(a.spans[0].name, "parse");
        assert_eq!((a.spans[0].share_of_wall, a.spans[0].calls), (0.6, 2.0));
        let total: f64 =
            a.spans.iter().map(|s| s.share_of_wall).sum::<f64>() + a.unattributed.share_of_wall;
        assert!((total - 1.0).abs() < 1e-12);
        assert_eq!(
            b.warnings,
            ["A: 10% unattributed (2 of 2 profiles; figures from the first)"]
        );
    }

    #[test]
    fn a_warning_every_profile_gives_is_one_line_naming_the_variants_and_the_count() {
        let p = profile();
        let mut runs = vec![run("A", Some(&p)), run("A", Some(&p))];
        for _ in 0..3 {
            let mut b = run("B", Some(&p));
            b.variant_id = 2;
            runs.push(b);
        }
        let b = span_breakdowns(&runs);
        assert_eq!(b.variants.len(), 2);
        assert_eq!(
            b.warnings,
            ["A, B: 10% unattributed (5 of 5 profiles; figures from the first)"]
        );
    }

    #[test]
    fn runs_without_a_profile_give_no_breakdown_and_no_problem() {
        let b = span_breakdowns(&[run("A", None), run("A", None)]);
        assert_eq!(b, SpanBreakdowns::default());
    }

    #[test]
    fn unreadable_profiles_are_problems_stated_once_with_the_runs_they_concern() {
        let p = profile();
        let other = p.replace("perflab-profile/1", "perflab-profile/9");
        let b = span_breakdowns(&[
            run("A", Some(&p)),
            run("A", Some(&other)),
            run("A", Some(&other)),
            run("A", Some("{\"format\": \"perflab-profile/1\"")),
        ]);
        assert_eq!(b.variants[0].runs, 1, "the readable profile still counts");
        let problems: Vec<String> = b.problems.iter().map(ToString::to_string).collect();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("variant \"A\", 2 runs (first: run 2):")
                    && p.contains("perflab-profile/9")),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("variant \"A\", run 4:")),
            "{problems:?}"
        );
    }
}
