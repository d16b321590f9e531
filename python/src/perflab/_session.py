"""The process's one session: it starts when perflab is imported with
``PERFLAB_PROFILE`` or ``PERFLAB_TABLE=1`` set, and ends at interpreter exit
(return from the script, ``sys.exit``, an uncaught exception; not
``os._exit`` or a fatal signal), when the profile is written and the table
printed."""

import atexit
import os
import statistics
import time

from . import _output, _probes, _report, _trace

_clock = time.perf_counter_ns

SPANS_PER_BATCH = 200
BATCHES = 11


def settings(environ):
    """``(profile path or None, print the table, trace path or None)`` from
    the environment, as perflab.h reads it."""
    path = environ.get("PERFLAB_PROFILE") or None
    # PERFLAB_TABLE is TABLE_ENV in crates/perflab/src/lib.rs.
    return path, environ.get("PERFLAB_TABLE") == "1", environ.get("PERFLAB_TRACE") or None


def start(profile_path, print_table, trace_path):
    state = {
        "pid": os.getpid(),
        "profile_path": profile_path,
        "print_table": print_table,
        "trace_path": trace_path,
        "start_cpu_ns": time.process_time_ns(),
        "started_unix_ms": _probes.STARTED_UNIX_MS,
    }
    # The importing thread's table exists from the start, so its wall time
    # runs from the session's start, as for the thread that starts a Rust session.
    _probes.REGISTRY.table()
    atexit.register(_end, state)


def measure_span_cost():
    """Median over batches of the mean cost of an empty span, entered and
    left through the same code as the program's spans (table lookup, stack,
    two clock reads) on a site no report lists. Measured at exit, once the
    session's figures are taken, so that it costs the program nothing."""
    site = _probes.Site.__new__(_probes.Site)
    site.name, site.kind, site.file, site.line, site.index = "calibration", "span", "", 0, -1
    costs = []
    for _ in range(BATCHES):
        start = _clock()
        for _ in range(SPANS_PER_BATCH):
            with site:
                pass
        costs.append((_clock() - start) / SPANS_PER_BATCH)
    _probes.REGISTRY.table().slots.pop(-1, None)
    return statistics.median(costs)


def _end(state):
    # A forked child's exit is not the end of the session it inherited.
    if os.getpid() != state["pid"]:
        return
    end_ns = _clock()
    process_cpu = time.process_time_ns()
    registry = _probes.REGISTRY
    with registry.lock:
        tables = list(registry.tables)
    threads = _report.thread_records(tables, end_ns)
    session = {
        "program": _report.program_name(),
        "start_ns": _probes.SESSION_START_NS,
        "cpu_ns": max(process_cpu - state["start_cpu_ns"], 0),
        "started_unix_ms": state["started_unix_ms"],
    }
    # Taken before the calibration below, whose spans are not the program's.
    trace = _trace.build_trace(tables, threads, session) if state["trace_path"] else None
    span_cost = measure_span_cost()
    profile = _report.build_profile(session, tables, threads, end_ns, span_cost, _report.timer_name())
    if state["profile_path"]:
        _output.write_profile(state["profile_path"], profile)
    if state["print_table"]:
        _output.print_table(profile)
    if trace is not None:
        _output.write_trace(state["trace_path"], trace)
