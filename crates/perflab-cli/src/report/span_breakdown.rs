//! Where the time goes: span breakdowns from the `perflab-profile/1`
//! documents that instrumented programs leave in `runs.profile_json`.
//!
//! Only the few fields a breakdown needs are read, and every one is
//! optional, so a profile written by a newer `perflab-profile/1` writer still
//! reads; runs without a profile (or with another format) are skipped, and
//! with none at all the report simply has no breakdown.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::store::StoredRun;

const PROFILE_FORMAT: &str = "perflab-profile/1";

#[derive(Deserialize)]
struct ProfileFields {
    format: String,
    #[serde(default)]
    spans: Vec<SpanFields>,
    #[serde(default)]
    threads: Vec<ThreadFields>,
    #[serde(default)]
    warnings: Vec<WarningFields>,
}

#[derive(Deserialize)]
struct SpanFields {
    name: String,
    #[serde(default)]
    calls: u64,
    #[serde(default)]
    self_ns: u64,
}

#[derive(Deserialize)]
struct ThreadFields {
    #[serde(default)]
    wall_ns: u64,
    #[serde(default)]
    unattributed_ns: u64,
}

#[derive(Deserialize)]
struct WarningFields {
    #[serde(default)]
    message: String,
}

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

/// Breakdowns per variant, from the measured runs that carry a profile.
pub fn span_breakdowns(runs: &[StoredRun]) -> Vec<VariantSpans> {
    let mut by_variant: BTreeMap<(i64, String), Vec<ProfileFields>> = BTreeMap::new();
    for run in runs.iter().filter(|r| !r.warmup) {
        let Some(text) = &run.outcome.profile_json else {
            continue;
        };
        match serde_json::from_str::<ProfileFields>(text) {
            Ok(p) if p.format == PROFILE_FORMAT => by_variant
                .entry((run.variant_id, run.variant.clone()))
                .or_default()
                .push(p),
            _ => {}
        }
    }
    by_variant
        .into_iter()
        .filter_map(|((_, variant), profiles)| breakdown(variant, &profiles))
        .collect()
}

fn breakdown(variant: String, profiles: &[ProfileFields]) -> Option<VariantSpans> {
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
    use crate::runner::FakeExecutor;

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

    const PROFILE: &str = r#"{"format": "perflab-profile/1", "something_new": 1,
        "spans": [{"name": "parse", "calls": 2, "self_ns": 600},
                  {"name": "compute", "calls": 1, "self_ns": 300}],
        "threads": [{"wall_ns": 1000, "attributed_ns": 900, "unattributed_ns": 100}],
        "warnings": [{"kind": "unattributed", "subject": "main", "message": "10% unattributed"}]}"#;

    #[test]
    fn shares_of_spans_and_the_unattributed_part_add_up_to_the_thread_time() {
        let b = span_breakdowns(&[run("A", Some(PROFILE)), run("A", Some(PROFILE))]);
        assert_eq!(b.len(), 1);
        let a = &b[0];
        assert_eq!((a.runs, a.thread_ns), (2, 1000.0));
        assert_eq!(a.spans[0].name, "parse");
        assert_eq!((a.spans[0].share, a.spans[0].calls), (0.6, 2.0));
        let total: f64 = a.spans.iter().map(|s| s.share).sum::<f64>() + a.unattributed_share;
        assert!((total - 1.0).abs() < 1e-12);
        assert_eq!(a.warnings, ["10% unattributed"]);
    }

    #[test]
    fn runs_without_a_profile_or_with_another_format_give_no_breakdown() {
        let other = PROFILE.replace("perflab-profile/1", "perflab-profile/9");
        assert!(span_breakdowns(&[run("A", None), run("A", Some(&other))]).is_empty());
        assert!(span_breakdowns(&[run("A", Some("not json"))]).is_empty());
    }
}
