//! Span figures across runs, from the profiles that instrumented programs
//! write (`perflab-profile/1`): medians per variant and, for A/B, which
//! spans moved, with the same confidence sequence as the main decision.
//!
//! This is the one computation of span figures across runs: the terminal of
//! `perflab run` and `perflab ab`, the result document and `perflab report`
//! all show what [`span_docs`] computes.
//!
//! - Each figure is the **median over runs** of the per-run figure, like the
//!   headline median of the metric: one run slowed by the machine (a
//!   preemption, a page-cache miss) moves a mean but not a median, and the
//!   span figures should be read beside the metric they explain.
//! - A span's share is its self time over the **wall time of the profiled
//!   session**, per run. Wall time is what the user waits for and what the
//!   `wall` metric measures, so shares explain the headline. Dividing by the
//!   threads' summed time instead would make every share depend on how many
//!   threads sat idle (a parked worker pool dilutes all shares). The price
//!   is that shares of overlapping threads add up to more than 100%: they
//!   are labelled "% of wall" everywhere, never "of the total".

use std::collections::{BTreeMap, BTreeSet};

use perflab_format::profile::Profile;
use perflab_format::result::{AsyncSpanStatsDoc, SpanDoc, SpanStatsDoc};
use perflab_stats::{Better, ConfidenceSequence, median, paired_change};

/// The pseudo-span for time outside any top-level span.
pub(crate) const UNATTRIBUTED: &str = "(unattributed)";

/// Parses the profiles of runs; runs without one (or with an unreadable
/// one) give `None`. Read errors come back once per distinct message, with
/// the runs that gave it.
pub fn parse_profiles<'a>(
    texts: impl Iterator<Item = Option<&'a str>>,
) -> (Vec<Option<Profile>>, Vec<String>) {
    let mut problems: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let profiles = texts
        .enumerate()
        .map(|(i, text)| {
            text.and_then(|t| match Profile::from_json_str(t) {
                Ok(p) => Some(p),
                Err(e) => {
                    problems.entry(e.to_string()).or_default().push(i + 1);
                    None
                }
            })
        })
        .collect();
    let problems = problems
        .into_iter()
        .map(|(message, runs)| {
            let which = if runs.len() == 1 {
                format!("run {}", runs[0])
            } else {
                format!("{} runs (first: run {})", runs.len(), runs[0])
            };
            format!("{which}: the profile could not be read: {message}")
        })
        .collect();
    (profiles, problems)
}

/// The profiled session's wall time per run, seconds (median over `profiles`).
pub(crate) fn session_wall_s<'a>(profiles: impl Iterator<Item = &'a Profile>) -> Option<f64> {
    let walls: Vec<f64> = profiles.map(|p| p.session.wall_ns as f64 / 1e9).collect();
    median(&walls).ok()
}

/// Per-run self, inclusive, calls, share and percentiles of one span (seconds).
fn figures(profile: &Profile, name: &str) -> Option<[f64; 6]> {
    let wall = profile.session.wall_ns.max(1) as f64;
    if name == UNATTRIBUTED {
        // Saturating: a damaged profile's figures must not overflow the sum.
        let ns = (profile.threads.iter().map(|t| t.unattributed_ns)).fold(0, u64::saturating_add);
        return Some([
            ns as f64 / 1e9,
            ns as f64 / 1e9,
            0.0,
            ns as f64 / wall,
            0.0,
            0.0,
        ]);
    }
    let s = profile.span(name)?;
    Some([
        s.self_ns as f64 / 1e9,
        s.inclusive_ns as f64 / 1e9,
        s.calls as f64,
        s.self_ns as f64 / wall,
        s.p50_ns as f64 / 1e9,
        s.p99_ns as f64 / 1e9,
    ])
}

/// Medians over runs of an async span's polls, wake-ups, busy and idle
/// time; `None` for a span that is not async in any run. Wake-ups and idle
/// time are medians of the runs whose profiles have them (newer writers).
fn async_stats(profiles: &[&Profile], name: &str) -> Option<AsyncSpanStatsDoc> {
    let stats: Vec<_> = profiles
        .iter()
        .filter_map(|p| p.span(name)?.async_stats.as_ref())
        .collect();
    if stats.is_empty() {
        return None;
    }
    let of = |figure: &dyn Fn(&perflab_format::profile::AsyncStats) -> Option<f64>| {
        median(&stats.iter().filter_map(|s| figure(s)).collect::<Vec<_>>()).ok()
    };
    Some(AsyncSpanStatsDoc {
        polls: of(&|s| Some(s.polls as f64)).unwrap_or(0.0),
        wakeups: of(&|s| s.wakeups.map(|w| w as f64)),
        busy_s: of(&|s| Some(s.poll_ns as f64 / 1e9)).unwrap_or(0.0),
        idle_s: of(&|s| s.idle_ns.map(|ns| ns as f64 / 1e9)),
    })
}

fn stats(profiles: &[&Profile], name: &str) -> Option<SpanStatsDoc> {
    let rows: Vec<[f64; 6]> = profiles.iter().filter_map(|p| figures(p, name)).collect();
    if rows.is_empty() {
        return None;
    }
    let column = |k: usize| median(&rows.iter().map(|r| r[k]).collect::<Vec<_>>()).unwrap_or(0.0);
    Some(SpanStatsDoc {
        async_stats: async_stats(profiles, name),
        // The unattributed time is no span: it is never entered, nor left out.
        runs_entered: (name != UNATTRIBUTED).then(|| rows.iter().filter(|r| r[2] > 0.0).count()),
        runs: rows.len(),
        self_s: column(0),
        inclusive_s: column(1),
        calls: column(2),
        self_share_of_wall: column(3),
        p50_s: column(4),
        p99_s: column(5),
    })
}

/// Summarises spans per variant; with two variants whose runs are paired by
/// position, adds the change of each span's self time with its interval.
pub fn span_docs(
    variants: &[Vec<Option<Profile>>],
    cs: Option<&ConfidenceSequence>,
) -> Vec<SpanDoc> {
    let mut names = BTreeSet::new();
    for profile in variants.iter().flatten().flatten() {
        names.extend(
            profile
                .spans
                .iter()
                .filter(|s| s.calls > 0)
                .map(|s| s.name.clone()),
        );
    }
    if names.is_empty() {
        return Vec::new();
    }
    let mut docs: Vec<SpanDoc> = names
        .into_iter()
        .chain([UNATTRIBUTED.to_string()])
        .map(|name| {
            let per_variant = variants
                .iter()
                .map(|runs| stats(&runs.iter().flatten().collect::<Vec<_>>(), &name))
                .collect();
            let (change, ci) = match (variants, cs) {
                ([a, b], Some(cs)) => paired_self_change(a, b, &name, cs),
                _ => (None, None),
            };
            SpanDoc {
                moved: ci.map(|[lo, hi]: [f64; 2]| lo > 0.0 || hi < 0.0),
                name,
                per_variant,
                change,
                ci,
            }
        })
        .collect();
    // Largest first, by the baseline's self time; unattributed stays last.
    let key = |d: &SpanDoc| {
        d.per_variant
            .iter()
            .flatten()
            .next()
            .map_or(0.0, |s| s.self_s)
    };
    let unattributed = docs.pop();
    docs.sort_by(|x, y| key(y).total_cmp(&key(x)));
    docs.extend(unattributed);
    docs
}

fn paired_self_change(
    a: &[Option<Profile>],
    b: &[Option<Profile>],
    name: &str,
    cs: &ConfidenceSequence,
) -> (Option<f64>, Option<[f64; 2]>) {
    let pairs: Vec<(f64, f64)> = a
        .iter()
        .zip(b)
        .filter_map(|(x, y)| {
            Some((
                figures(x.as_ref()?, name)?[0],
                figures(y.as_ref()?, name)?[0],
            ))
        })
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .collect();
    if pairs.len() < 2 {
        return (None, None);
    }
    let (xs, ys): (Vec<f64>, Vec<f64>) = pairs.into_iter().unzip();
    match paired_change(&xs, &ys, Better::Lower, cs) {
        Ok(iv) => (Some(iv.estimate), Some([iv.lo, iv.hi])),
        Err(_) => (None, None),
    }
}

/// Warnings of all profiles, one per kind and subject (their figures differ
/// from run to run), naming the variants and how many runs gave it.
pub fn profile_warnings(variants: &[(&str, &[Option<Profile>])]) -> Vec<String> {
    let mut seen: BTreeMap<(String, String), (String, BTreeSet<String>, usize)> = BTreeMap::new();
    let total: usize = variants
        .iter()
        .map(|(_, runs)| runs.iter().flatten().count())
        .sum();
    for (name, runs) in variants {
        for profile in runs.iter().flatten() {
            for w in &profile.warnings {
                let entry = seen
                    .entry((format!("{:?}", w.kind), w.subject.clone()))
                    .or_insert_with(|| (w.message.clone(), BTreeSet::new(), 0));
                entry.1.insert(name.to_string());
                entry.2 += 1;
            }
        }
    }
    seen.into_values()
        .map(|(message, names, n)| {
            let names: Vec<String> = names.into_iter().collect();
            format!(
                "{}: {message} ({n} of {total} profiles; figures from the first)",
                names.join(", ")
            )
        })
        .collect()
}
