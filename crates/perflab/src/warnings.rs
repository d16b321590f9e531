//! The warnings a profile carries: conditions under which its figures
//! mislead if read without them.

use perflab_format::profile::{Profile, ThreadRecord, Warning, WarningKind};

/// A span whose mean is within this many times the cost of one span is
/// mostly measuring the probe.
pub const NEAR_SPAN_COST_FACTOR: f64 = 4.0;

/// A thread whose time inside spans was at least this share off the CPU is
/// warned about: per-call figures of its spans are then mostly waiting.
pub(crate) const WAITING_SHARE: f64 = 0.5;

/// Estimated probe cost above this share of all threads' wall time is warned about.
pub const INSTRUMENTATION_COST_SHARE: f64 = 0.05;

/// Every warning for `profile` (whose warning list is ignored).
#[cfg_attr(not(feature = "enabled"), allow(dead_code))]
pub(crate) fn find(profile: &Profile, program_not_utf8: bool) -> Vec<Warning> {
    let mut warnings = Vec::new();
    let mut warn = |kind, subject: &str, message: String| {
        warnings.push(Warning {
            kind,
            subject: subject.to_string(),
            message,
        })
    };
    let span_cost = profile.timer.span_cost_ns;
    for span in &profile.spans {
        let at = format!("{}:{}", span.file, span.line);
        let polled = span
            .async_stats
            .as_ref()
            .is_some_and(|stats| stats.polls > 0);
        if span.calls == 0 && !polled {
            warn(
                WarningKind::NeverEntered,
                &span.name,
                format!(
                    "span `{}` ({at}) exists in the program but was never entered in this session; its phase took no time here or the code path did not run, check the workload",
                    span.name
                ),
            );
            continue;
        }
        if span.calls > 0 && span.inclusive_ns == 0 {
            warn(
                WarningKind::ZeroTime,
                &span.name,
                format!(
                    "span `{}` ({at}) was entered {} times but its total time is zero; the timer is too coarse for it, measure a larger unit of work",
                    span.name, span.calls
                ),
            );
        }
        if span.calls > 0 && span_cost > 0.0 && span.mean_ns < NEAR_SPAN_COST_FACTOR * span_cost {
            warn(
                WarningKind::NearSpanCost,
                &span.name,
                format!(
                    "span `{}` ({at}) has a mean of {:.1} ns, within {NEAR_SPAN_COST_FACTOR}x the {span_cost:.1} ns one span costs: its figures are mostly probe cost; measure a larger unit of work",
                    span.name, span.mean_ns
                ),
            );
        }
        if span.unwound > 0 {
            warn(
                WarningKind::Unwound,
                &span.name,
                format!(
                    "a panic unwound through span `{}` ({at}) {} times; those calls are included up to the panic",
                    span.name, span.unwound
                ),
            );
        }
    }
    let threshold = profile.session.unattributed_threshold;
    for thread in &profile.threads {
        // A thread that lived for under 1% of the session is not where the
        // time went; its share would only be noise.
        if thread.wall_ns == 0 || thread.wall_ns * 100 < profile.session.wall_ns {
            continue;
        }
        // CPU time inside spans is at most the thread's whole CPU time, so
        // span time beyond it was certainly spent off the CPU: a lower bound
        // that needs no clock read beyond the two every thread already has.
        if let Some(cpu_ns) = thread.cpu_ns {
            let waited = thread.attributed_ns.saturating_sub(cpu_ns);
            if thread.attributed_ns > 0
                && waited as f64 >= WAITING_SHARE * thread.attributed_ns as f64
            {
                let subject = thread_label(thread.id, thread.name.as_deref());
                warn(
                    WarningKind::MostlyWaiting,
                    &subject,
                    format!(
                        "at least {:.0}% of the {:.3} ms inside spans on thread {subject} was spent off the CPU ({}): spans measure wall time, so their per-call figures include that waiting; if the waiting is not what you measure, move it out of the spans",
                        waited as f64 * 100.0 / thread.attributed_ns as f64,
                        thread.attributed_ns as f64 / 1e6,
                        waiting_cause(thread),
                    ),
                );
            }
        }
        let share = thread.unattributed_ns as f64 / thread.wall_ns as f64;
        if share > threshold {
            let subject = thread_label(thread.id, thread.name.as_deref());
            warn(
                WarningKind::Unattributed,
                &subject,
                format!(
                    "{:.1}% of thread {subject}'s {:.3} ms is outside any top-level span ({:.3} ms unattributed, threshold {:.0}%); wrap the remaining phases in spans before calling it overhead",
                    share * 100.0,
                    thread.wall_ns as f64 / 1e6,
                    thread.unattributed_ns as f64 / 1e6,
                    threshold * 100.0
                ),
            );
        }
    }
    let threads_wall: u64 = profile.threads.iter().map(|thread| thread.wall_ns).sum();
    let probe_ns = profile.timer.instrumentation_ns;
    if threads_wall > 0 && probe_ns as f64 > INSTRUMENTATION_COST_SHARE * threads_wall as f64 {
        warn(
            WarningKind::InstrumentationCost,
            "session",
            format!(
                "the probes themselves took an estimated {:.3} ms ({:.1}% of the threads' wall time); remove spans from the hottest, shortest functions",
                probe_ns as f64 / 1e6,
                probe_ns as f64 * 100.0 / threads_wall as f64
            ),
        );
    }
    for counter in profile
        .counters
        .iter()
        .filter(|counter| counter.events == 0)
    {
        warn(
            WarningKind::CounterNeverIncremented,
            &counter.name,
            format!(
                "counter `{}` ({}:{}) was never incremented in this session; if the event should have happened, check the workload or the counting code",
                counter.name, counter.file, counter.line
            ),
        );
    }
    for gauge in profile.gauges.iter().filter(|gauge| gauge.samples == 0) {
        warn(
            WarningKind::GaugeNeverSet,
            &gauge.name,
            format!(
                "gauge `{}` ({}:{}) was never set in this session",
                gauge.name, gauge.file, gauge.line
            ),
        );
    }
    if program_not_utf8 {
        warn(
            WarningKind::InvalidUtf8,
            &profile.program,
            "the program's file name is not valid UTF-8; it is shown with replacement characters"
                .to_string(),
        );
    }
    warnings
}

/// `main (#1)`, or `#3` for an unnamed thread.
pub(crate) fn thread_label(id: u64, name: Option<&str>) -> String {
    match name {
        Some(name) => format!("{name} (#{id})"),
        None => format!("#{id}"),
    }
}

/// Which kind of waiting dominated a thread's time off the CPU, in words, from
/// its preempted/blocked split when the profile has one.
fn waiting_cause(thread: &ThreadRecord) -> String {
    let (Some(preempted), Some(blocked)) = (thread.preempted_ns, thread.blocked_ns) else {
        return "sleeping, blocked on I/O, a lock or a channel, or preempted; this system does not say which".to_string();
    };
    let off_cpu = (preempted + blocked).max(1) as f64;
    let preempted_share = preempted as f64 * 100.0 / off_cpu;
    let blocked_share = blocked as f64 * 100.0 / off_cpu;
    if preempted >= blocked {
        format!(
            "mostly preempted: of the thread's {:.3} ms off the CPU, {preempted_share:.0}% it was ready to run and waited for a CPU other threads held, {blocked_share:.0}% it was blocked",
            off_cpu / 1e6
        )
    } else {
        format!(
            "mostly blocked: of the thread's {:.3} ms off the CPU, {blocked_share:.0}% it was blocked (sleeping, waiting for I/O, a lock or a channel), {preempted_share:.0}% it was ready to run and waited for a CPU",
            off_cpu / 1e6
        )
    }
}
