//! Turning the tables of a finished session into a profile: the session's
//! and each thread's time; spans, counters and gauges are summed in
//! [`crate::imp::span_totals`] and [`crate::imp::metric_totals`].

use std::sync::atomic::Ordering::{Acquire, Relaxed};

use perflab_format::profile::{
    PROFILE_FORMAT, Profile, SessionEnd, SessionInfo, ThreadRecord, TimerInfo,
};

use crate::histogram::PERCENTILE_RELATIVE_ERROR;
use crate::imp::clock::{Timer, timer};
use crate::imp::lock_totals::lock_records;
use crate::imp::metric_totals::{counter_records, gauge_records};
use crate::imp::registry::SessionShared;
use crate::imp::span_totals::{site_totals, span_records, thousandths};
use crate::imp::thread_table::{ThreadTable, UNKNOWN};

/// Builds the profile of a session that ended at `end_ticks`.
pub(crate) fn build_profile(
    session: &SessionShared,
    end_ticks: u64,
    end_process_cpu_ns: Option<u64>,
    ended_by: SessionEnd,
) -> Profile {
    let timer = timer();
    let (threads, tables) = {
        // Held while reading the CPU clocks of threads still running: an
        // ending thread takes this lock first, so none can vanish meanwhile.
        let tables = session.lock_tables();
        let threads = tables
            .iter()
            .map(|table| thread_record(table, end_ticks, timer))
            .collect::<Vec<_>>();
        (threads, tables.clone())
    };
    let program_lossy = session.program.to_string_lossy().into_owned();
    let totals = site_totals(&tables);
    let locks = lock_records(&totals, timer);
    let mut profile = Profile {
        format: PROFILE_FORMAT.to_string(),
        program: program_lossy,
        pid: std::process::id(),
        session: SessionInfo {
            name: session.config.name.clone(),
            scope: session.config.scope,
            wall_ns: timer.ns(end_ticks.saturating_sub(session.start_ticks)),
            cpu_ns: session
                .start_process_cpu_ns
                .zip(end_process_cpu_ns)
                .map(|(start, end)| end.saturating_sub(start)),
            ended_by,
            started_unix_ms: session.started_unix_ms,
            unattributed_threshold: session.config.unattributed_threshold,
        },
        timer: TimerInfo {
            name: timer.name().to_string(),
            span_cost_ns: thousandths(crate::imp::calibrate::span_cost_ns()),
            percentile_relative_error: PERCENTILE_RELATIVE_ERROR,
            instrumentation_ns: 0,
        },
        spans: span_records(totals, timer),
        threads,
        counters: counter_records(&tables),
        gauges: gauge_records(&tables),
        locks,
        warnings: Vec::new(),
    };
    let calls: u64 = profile
        .spans
        .iter()
        .map(|span| span.calls + span.async_stats.as_ref().map_or(0, |a| a.polls))
        .sum();
    // A lock acquisition's probe reads the clock twice, as a span does.
    let acquisitions: u64 = profile.locks.iter().map(|lock| lock.acquisitions).sum();
    profile.timer.instrumentation_ns =
        ((calls + acquisitions) as f64 * profile.timer.span_cost_ns).round() as u64;
    profile.warnings = crate::warnings::find(&profile, session.program.to_str().is_none());
    profile
}

fn thread_record(table: &ThreadTable, session_end_ticks: u64, timer: &Timer) -> ThreadRecord {
    let ended = table.ended.load(Acquire);
    let end_ticks = if ended {
        table.end_ticks.load(Relaxed).min(session_end_ticks)
    } else {
        session_end_ticks
    };
    let end_cpu_ns = if ended {
        Some(table.end_cpu_ns.load(Relaxed))
    } else if crate::imp::binding::current_thread_id() == Some(table.thread.id) {
        crate::imp::cpu_time::this_thread_ns()
    } else {
        table.thread.cpu_clock.read_ns()
    };
    let end_runnable_wait_ns = if ended {
        Some(table.end_runnable_wait_ns.load(Relaxed)).filter(|&wait| wait != UNKNOWN)
    } else if crate::imp::binding::current_thread_id() == Some(table.thread.id) {
        crate::imp::cpu_time::runnable_wait_ns(None)
    } else {
        // Another thread's statistics, by its id; `None` if it is gone.
        table
            .thread
            .os_tid
            .and_then(|tid| crate::imp::cpu_time::runnable_wait_ns(Some(tid)))
    };
    let wall_ns = timer.ns(end_ticks.saturating_sub(table.start_ticks));
    let attributed_ns = timer.ns(table.attributed_ticks.load(Relaxed)).min(wall_ns);
    let cpu_ns = table
        .start_cpu_ns
        .zip(end_cpu_ns)
        .map(|(start, end)| end.saturating_sub(start));
    let preempted_ns = table
        .start_runnable_wait_ns
        .zip(end_runnable_wait_ns)
        .zip(cpu_ns)
        .map(|((start, end), _)| end.saturating_sub(start).min(wall_ns));
    // Wall time is on the CPU, waiting for it, or neither: blocked. The
    // three clocks are read a few microseconds apart, so the remainder is
    // clamped at zero rather than trusted to the nanosecond.
    let blocked_ns = preempted_ns
        .zip(cpu_ns)
        .map(|(preempted, cpu)| wall_ns.saturating_sub(cpu).saturating_sub(preempted));
    ThreadRecord {
        id: table.thread.id,
        name: table.thread.name.clone(),
        os_tid: table.thread.os_tid,
        wall_ns,
        cpu_ns,
        preempted_ns,
        blocked_ns,
        attributed_ns,
        unattributed_ns: wall_ns - attributed_ns,
        ended,
    }
}
