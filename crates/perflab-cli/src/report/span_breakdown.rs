//! Where the time goes: span breakdowns from the `perflab-profile/1`
//! documents that instrumented programs leave in `runs.profile_json`.
//!
//! Profiles are read with the same strict reader as the span tables of
//! `perflab ab` and `perflab run` ([`Profile::from_json_str`]): a newer
//! `perflab-profile/1` writer may add fields, but a document of another
//! format, or one cut short, is not a profile. Runs without a profile are
//! skipped; a run whose profile cannot be read is a problem the report
//! states once (with the runs it concerns), never silently left out.

use std::collections::BTreeMap;

use perflab_format::profile::Profile;
use serde::{Deserialize, Serialize};

use crate::spans::parse_profiles;
use crate::store::StoredRun;

/// One span's part of the time.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SpanShare {
    /// The span's name.
    pub name: String,
    /// Self (exclusive) time per run, mean over the profiled runs.
    pub self_ns: f64,
    /// Share of the threads' time (self time summed / thread wall time summed).
    pub share: f64,
    /// Calls per run, mean.
    pub calls: f64,
}

/// The breakdown of one variant.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct VariantSpans {
    /// The variant.
    pub variant: String,
    /// Runs with a profile.
    pub runs: usize,
    /// Thread time per run (wall time of every thread, summed), mean.
    pub thread_ns: f64,
    /// Spans by self time, largest first.
    pub spans: Vec<SpanShare>,
    /// Time no span covers per run, mean.
    pub unattributed_ns: f64,
    /// Its share of the threads' time.
    pub unattributed_share: f64,
    /// Distinct warnings of the profiles.
    pub warnings: Vec<String>,
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

/// The breakdowns of an experiment and the profiles that could not be read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpanBreakdowns {
    /// One breakdown per variant with at least one readable profile.
    pub variants: Vec<VariantSpans>,
    /// Unreadable profiles, once per variant and distinct problem.
    pub problems: Vec<ProfileProblem>,
}

/// Breakdowns per variant, from the measured runs that carry a profile.
pub fn span_breakdowns(runs: &[StoredRun]) -> SpanBreakdowns {
    let mut by_variant: BTreeMap<(i64, &str), Vec<Option<&str>>> = BTreeMap::new();
    for run in runs.iter().filter(|r| !r.warmup) {
        by_variant
            .entry((run.variant_id, &run.variant))
            .or_default()
            .push(run.outcome.profile_json.as_deref());
    }
    let mut result = SpanBreakdowns::default();
    for ((_, variant), texts) in by_variant {
        let (profiles, problems) = parse_profiles(texts.into_iter());
        result
            .problems
            .extend(problems.into_iter().map(|message| ProfileProblem {
                variant: variant.to_string(),
                message,
            }));
        let profiles: Vec<Profile> = profiles.into_iter().flatten().collect();
        if let Some(b) = breakdown(variant.to_string(), &profiles) {
            result.variants.push(b);
        }
    }
    result
}

fn breakdown(variant: String, profiles: &[Profile]) -> Option<VariantSpans> {
    let runs = profiles.len() as f64;
    let thread_total: f64 = profiles
        .iter()
        .flat_map(|p| &p.threads)
        .map(|t| t.wall_ns as f64)
        .sum();
    if thread_total <= 0.0 {
        return None;
    }
    let mut totals: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for span in profiles.iter().flat_map(|p| &p.spans) {
        let entry = totals.entry(&span.name).or_default();
        entry.0 += span.self_ns as f64;
        entry.1 += span.calls as f64;
    }
    let mut spans: Vec<SpanShare> = totals
        .into_iter()
        .map(|(name, (self_ns, calls))| SpanShare {
            name: name.to_string(),
            self_ns: self_ns / runs,
            share: self_ns / thread_total,
            calls: calls / runs,
        })
        .collect();
    spans.sort_by(|a, b| b.self_ns.total_cmp(&a.self_ns).then(a.name.cmp(&b.name)));
    let unattributed: f64 = profiles
        .iter()
        .flat_map(|p| &p.threads)
        .map(|t| t.unattributed_ns as f64)
        .sum();
    let mut warnings: Vec<String> = profiles
        .iter()
        .flat_map(|p| &p.warnings)
        .map(|w| w.message.clone())
        .filter(|m| !m.is_empty())
        .collect();
    warnings.sort();
    warnings.dedup();
    Some(VariantSpans {
        variant,
        runs: profiles.len(),
        thread_ns: thread_total / runs,
        spans,
        unattributed_ns: unattributed / runs,
        unattributed_share: unattributed / thread_total,
        warnings,
    })
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
    fn shares_of_spans_and_the_unattributed_part_add_up_to_the_thread_time() {
        let p = profile();
        let b = span_breakdowns(&[run("A", Some(&p)), run("A", Some(&p))]);
        assert!(b.problems.is_empty(), "{:?}", b.problems);
        assert_eq!(b.variants.len(), 1);
        let a = &b.variants[0];
        assert_eq!((a.runs, a.thread_ns), (2, 1000.0));
        assert_eq!(a.spans[0].name, "parse");
        assert_eq!((a.spans[0].share, a.spans[0].calls), (0.6, 2.0));
        let total: f64 = a.spans.iter().map(|s| s.share).sum::<f64>() + a.unattributed_share;
        assert!((total - 1.0).abs() < 1e-12);
        assert_eq!(a.warnings, ["10% unattributed"]);
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
