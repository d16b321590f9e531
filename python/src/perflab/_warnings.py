"""The warnings a profile carries, with the kinds, thresholds and sentences
of the Rust crate (``crates/perflab/src/warnings.rs``), plus
``unbalanced_spans``, which perflab.h writes too."""

NEAR_SPAN_COST_FACTOR = 4.0
WAITING_SHARE = 0.5
INSTRUMENTATION_COST_SHARE = 0.05


def thread_label(thread):
    return "%s (#%d)" % (thread["name"], thread["id"]) if thread["name"] else "#%d" % thread["id"]


def _rust_float(x):
    """``{}`` of an f64 in Rust: 4 is ``4``, 0.5 is ``0.5``."""
    return str(int(x)) if float(x).is_integer() else repr(x)


def find_warnings(profile, unbalanced):
    warnings = []

    def warn(kind, subject, message):
        warnings.append({"kind": kind, "subject": subject, "message": message})

    cost = profile["timer"]["span_cost_ns"]
    for span in profile["spans"]:
        at = "%s:%d" % (span["file"], span["line"])
        name, calls = span["name"], span["calls"]
        if calls == 0 and span.get("async", {}).get("polls", 0) == 0:
            warn("never_entered", name, "span `%s` (%s) exists in the program but was never entered in this session; its phase took no time here or the code path did not run, check the workload" % (name, at))
            continue
        if calls > 0 and span["inclusive_ns"] == 0:
            warn("zero_time", name, "span `%s` (%s) was entered %d times but its total time is zero; the timer is too coarse for it, measure a larger unit of work" % (name, at, calls))
        if calls > 0 and cost > 0 and span["mean_ns"] < NEAR_SPAN_COST_FACTOR * cost:
            warn("near_span_cost", name, "span `%s` (%s) has a mean of %.1f ns, within %sx the %.1f ns one span costs: its figures are mostly probe cost; measure a larger unit of work" % (name, at, span["mean_ns"], _rust_float(NEAR_SPAN_COST_FACTOR), cost))
        if span["unwound"] > 0:
            warn("unwound", name, "an exception propagated out of span `%s` (%s) %d times; those calls are included up to the raise" % (name, at, span["unwound"]))
    session = profile["session"]
    threshold = session["unattributed_threshold"]
    for thread in profile["threads"]:
        # A thread that lived for under 1% of the session is not where the time went.
        if thread["wall_ns"] == 0 or thread["wall_ns"] * 100 < session["wall_ns"]:
            continue
        attributed, cpu = thread["attributed_ns"], thread["cpu_ns"]
        subject = thread_label(thread)
        if cpu is not None:
            # Span time beyond the thread's whole CPU time was certainly spent off the CPU.
            waited = max(attributed - cpu, 0)
            if attributed > 0 and waited >= WAITING_SHARE * attributed:
                warn("mostly_waiting", subject, "at least %.0f%% of the %.3f ms inside spans on thread %s was spent off the CPU (%s): spans measure wall time, so their per-call figures include that waiting; if the waiting is not what you measure, move it out of the spans" % (waited * 100.0 / attributed, attributed / 1e6, subject, _waiting_cause(thread)))
        share = thread["unattributed_ns"] / thread["wall_ns"]
        if share > threshold:
            warn("unattributed", subject, "%.1f%% of thread %s's %.3f ms is outside any top-level span (%.3f ms unattributed, threshold %.0f%%); wrap the remaining phases in spans before calling it overhead" % (share * 100.0, subject, thread["wall_ns"] / 1e6, thread["unattributed_ns"] / 1e6, threshold * 100.0))
    threads_wall = sum(thread["wall_ns"] for thread in profile["threads"])
    probe_ns = profile["timer"]["instrumentation_ns"]
    if threads_wall > 0 and probe_ns > INSTRUMENTATION_COST_SHARE * threads_wall:
        warn("instrumentation_cost", "session", "the probes themselves took an estimated %.3f ms (%.1f%% of the threads' wall time); remove spans from the hottest, shortest functions" % (probe_ns / 1e6, probe_ns * 100.0 / threads_wall))
    for counter in profile["counters"]:
        if counter["events"] == 0:
            warn("counter_never_incremented", counter["name"], "counter `%s` (%s:%d) was never incremented in this session; if the event should have happened, check the workload or the counting code" % (counter["name"], counter["file"], counter["line"]))
    for gauge in profile["gauges"]:
        if gauge["samples"] == 0:
            warn("gauge_never_set", gauge["name"], "gauge `%s` (%s:%d) was never set in this session" % (gauge["name"], gauge["file"], gauge["line"]))
    if unbalanced:
        warn("unbalanced_spans", "session", "a span was left %d times while it was not the innermost open one on its thread or task (a generator or callback left it); those exits were ignored and the spans around them may read too long: leave spans in the reverse order of entering them" % unbalanced)
    return warnings


def _waiting_cause(thread):
    """Which kind of waiting dominated the thread's time off the CPU, in words."""
    preempted, blocked = thread.get("preempted_ns"), thread.get("blocked_ns")
    if preempted is None or blocked is None:
        return "sleeping, blocked on I/O, a lock or a channel, or preempted; this system does not say which"
    off_cpu = float(max(preempted + blocked, 1))
    preempted_share, blocked_share = preempted * 100.0 / off_cpu, blocked * 100.0 / off_cpu
    if preempted >= blocked:
        return "mostly preempted: of the thread's %.3f ms off the CPU, %.0f%% it was ready to run and waited for a CPU other threads held, %.0f%% it was blocked" % (off_cpu / 1e6, preempted_share, blocked_share)
    return "mostly blocked: of the thread's %.3f ms off the CPU, %.0f%% it was blocked (sleeping, waiting for I/O, a lock or a channel), %.0f%% it was ready to run and waited for a CPU" % (off_cpu / 1e6, blocked_share, preempted_share)
