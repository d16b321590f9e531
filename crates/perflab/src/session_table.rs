//! The terminal table a session prints at its end.

use std::fmt::Write;

use perflab_format::profile::{Profile, SessionScope, SpanKind, SpanRecord, WarningKind};

use crate::duration_text::duration;
use crate::warnings::thread_label;

/// Longest span name shown in full; longer ones keep their end (the function name).
const NAME_WIDTH_LIMIT: usize = 48;

/// The profile as a table for a terminal: spans, threads, counters, gauges, warnings.
pub fn render_table(profile: &Profile) -> String {
    let mut out = String::new();
    let session = &profile.session;
    let _ = writeln!(
        out,
        "perflab: session `{}` ({} scope), wall {}{}; timer {}, one span costs {} (measured at start-up)",
        session.name,
        match session.scope {
            SessionScope::Process => "process",
            SessionScope::Thread => "thread",
        },
        duration(session.wall_ns as f64),
        session
            .cpu_ns
            .map(|cpu| format!(", process cpu {}", duration(cpu as f64)))
            .unwrap_or_default(),
        profile.timer.name,
        duration(profile.timer.span_cost_ns),
    );
    spans_section(&mut out, profile);
    threads_section(&mut out, profile);
    crate::session_lock_table::locks_section(&mut out, profile);
    counters_section(&mut out, profile);
    if !profile.warnings.is_empty() {
        let _ = writeln!(out, "warnings:");
        for warning in &profile.warnings {
            let kind = warning_kind_name(warning.kind);
            let _ = writeln!(out, "  ! [{kind}] {}", warning.message);
        }
    }
    out
}

fn spans_section(out: &mut String, profile: &Profile) {
    let was_entered = |span: &&SpanRecord| {
        span.calls > 0
            || span
                .async_stats
                .as_ref()
                .is_some_and(|stats| stats.polls > 0)
    };
    let entered: Vec<_> = profile.spans.iter().filter(was_entered).collect();
    let never: Vec<_> = profile
        .spans
        .iter()
        .filter(|span| !was_entered(span))
        .collect();
    if entered.is_empty() && never.is_empty() {
        let _ = writeln!(out, "no spans in this program");
        return;
    }
    let width = entered
        .iter()
        .chain(never.iter())
        .map(|span| span.name.chars().count().min(NAME_WIDTH_LIMIT))
        .max()
        .unwrap_or(4)
        .max(4);
    let wall = profile.session.wall_ns.max(1) as f64;
    let _ = writeln!(
        out,
        "{:<width$}  {:<5} {:>9} {:>9} {:>9} {:>10} {:>9} {:>9} {:>9} {:>9}",
        "span", "kind", "calls", "self", "incl", "incl/wall*", "mean", "p50", "p95", "p99"
    );
    for span in &entered {
        let kind = match span.kind {
            SpanKind::Function => "fn",
            SpanKind::Span => "span",
            SpanKind::Async => "async",
        };
        let _ = writeln!(
            out,
            "{:<width$}  {:<5} {:>9} {:>9} {:>9} {:>9.1}% {:>9} {:>9} {:>9} {:>9}",
            shorten(&span.name),
            kind,
            span.calls,
            duration(span.self_ns as f64),
            duration(span.inclusive_ns as f64),
            span.inclusive_ns as f64 * 100.0 / wall,
            duration(span.mean_ns),
            duration(span.p50_ns as f64),
            duration(span.p95_ns as f64),
            duration(span.p99_ns as f64),
        );
        if let Some(stats) = &span.async_stats {
            let idle = stats
                .idle_ns
                .map(|idle| format!(", idle {}", duration(idle as f64)))
                .unwrap_or_default();
            let wakeups = stats
                .wakeups
                .map(|wakeups| format!(", {wakeups} wake-ups"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{:<width$}    {} polls, busy {} (inside polls){idle}{wakeups}, {} cancelled",
                "",
                stats.polls,
                duration(stats.poll_ns as f64),
                stats.cancelled
            );
        }
        if let Some(alloc) = &span.alloc {
            let _ = writeln!(
                out,
                "{:<width$}    allocations: self {} ({} B), incl {} ({} B)",
                "",
                alloc.self_allocs,
                alloc.self_bytes,
                alloc.inclusive_allocs,
                alloc.inclusive_bytes
            );
        }
    }
    for span in &never {
        let _ = writeln!(
            out,
            "{:<width$}  never entered ({}:{})",
            shorten(&span.name),
            span.file,
            span.line
        );
    }
    let _ = writeln!(
        out,
        "* incl/wall: inclusive time over the session's wall time. Times of several threads add up, so it can exceed 100%.\n  self excludes spans entered inside; p50/p95/p99 are within {:.1}% (histogram), mean exact.",
        profile.timer.percentile_relative_error * 100.0
    );
    let probe_ns = profile.timer.instrumentation_ns;
    if probe_ns > 0 {
        let _ = writeln!(
            out,
            "  probes took about {} in all (calls x {} per span).",
            duration(probe_ns as f64),
            duration(profile.timer.span_cost_ns)
        );
    }
}

fn threads_section(out: &mut String, profile: &Profile) {
    if profile.threads.is_empty() {
        return;
    }
    let labels: Vec<String> = profile
        .threads
        .iter()
        .map(|thread| thread_label(thread.id, thread.name.as_deref()))
        .collect();
    let width = labels
        .iter()
        .map(|label| label.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let _ = writeln!(
        out,
        "{:<width$}  {:>9} {:>9} {:>9} {:>9} {:>9} {:>12} {:>6}",
        "thread", "wall", "cpu", "preempted", "blocked", "in spans", "unattributed", ""
    );
    let optional = |ns: Option<u64>| {
        ns.map(|ns| duration(ns as f64))
            .unwrap_or_else(|| "-".to_string())
    };
    for (thread, label) in profile.threads.iter().zip(labels) {
        let share = thread.unattributed_ns as f64 * 100.0 / thread.wall_ns.max(1) as f64;
        let _ = writeln!(
            out,
            "{:<width$}  {:>9} {:>9} {:>9} {:>9} {:>9} {:>12} {:>5.1}%{}",
            label,
            duration(thread.wall_ns as f64),
            optional(thread.cpu_ns),
            optional(thread.preempted_ns),
            optional(thread.blocked_ns),
            duration(thread.attributed_ns as f64),
            duration(thread.unattributed_ns as f64),
            share,
            if thread.ended { "  (ended)" } else { "" },
        );
    }
    let _ = writeln!(
        out,
        "* wall = cpu + preempted (ready to run, waiting for a CPU) + blocked (sleeping, I/O, locks, channels)."
    );
    if profile
        .threads
        .iter()
        .any(|thread| thread.preempted_ns.is_none())
    {
        let _ = writeln!(
            out,
            "  A `-` under preempted and blocked: the system keeps no scheduler statistics (/proc/thread-self/schedstat), so the waiting is not split."
        );
    }
}

fn counters_section(out: &mut String, profile: &Profile) {
    if !profile.counters.is_empty() {
        let width = profile
            .counters
            .iter()
            .map(|c| c.name.chars().count())
            .max()
            .unwrap_or(7)
            .max(7);
        let _ = writeln!(
            out,
            "{:<width$}  {:>12} {:>14}",
            "counter", "events", "total"
        );
        for counter in &profile.counters {
            let _ = writeln!(
                out,
                "{:<width$}  {:>12} {:>14}",
                counter.name, counter.events, counter.total
            );
        }
    }
    if !profile.gauges.is_empty() {
        let width = profile
            .gauges
            .iter()
            .map(|g| g.name.chars().count())
            .max()
            .unwrap_or(5)
            .max(5);
        let _ = writeln!(
            out,
            "{:<width$}  {:>9} {:>11} {:>11} {:>11} {:>11}",
            "gauge", "samples", "last", "min", "mean", "max"
        );
        for gauge in &profile.gauges {
            let _ = writeln!(
                out,
                "{:<width$}  {:>9} {:>11} {:>11} {:>11} {:>11}",
                gauge.name,
                gauge.samples,
                number(gauge.last),
                number(gauge.min),
                number(gauge.mean),
                number(gauge.max)
            );
        }
    }
}

/// The kind as the profile file spells it.
fn warning_kind_name(kind: WarningKind) -> &'static str {
    match kind {
        WarningKind::NeverEntered => "never_entered",
        WarningKind::ZeroTime => "zero_time",
        WarningKind::NearSpanCost => "near_span_cost",
        WarningKind::Unattributed => "unattributed",
        WarningKind::MostlyWaiting => "mostly_waiting",
        WarningKind::InstrumentationCost => "instrumentation_cost",
        WarningKind::CounterNeverIncremented => "counter_never_incremented",
        WarningKind::GaugeNeverSet => "gauge_never_set",
        WarningKind::Unwound => "unwound",
        WarningKind::InvalidUtf8 => "invalid_utf8",
        WarningKind::Other => "other",
    }
}

fn shorten(name: &str) -> String {
    let count = name.chars().count();
    if count <= NAME_WIDTH_LIMIT {
        return name.to_string();
    }
    let tail: String = name.chars().skip(count - (NAME_WIDTH_LIMIT - 1)).collect();
    format!("…{tail}")
}

/// A gauge value: whole numbers as they are, others with four significant digits.
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else if value.abs() >= 1000.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.4}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_keep_their_end() {
        let name = format!("{}::function", "module".repeat(20));
        let short = shorten(&name);
        assert!(short.ends_with("::function"));
        assert_eq!(short.chars().count(), NAME_WIDTH_LIMIT);
    }
}
