"""The threads' timelines as a ``perflab-trace/1`` document: the Chrome
trace event format's JSON object, as crates/perflab-format/src/trace.rs
describes it and the Rust crate and ``perflab.h`` write it (a span's call
and a coroutine's step are complete slices on their thread's track, a
coroutine's life an async slice, counters the process's running totals and
gauges their values, in time order)."""

import os
import sys

from ._tables import TRACE_ASYNC, TRACE_COUNTER, TRACE_EVENTS, TRACE_GAUGE, TRACE_SPAN


def build_trace(tables, threads, session):
    """``threads`` are the profile's thread records (for their labels);
    ``session`` holds ``program``, ``start_ns`` and ``started_unix_ms``."""
    pid = os.getpid()
    start_ns = session["start_ns"]

    def at(ns):
        # Microseconds since the session's start, with nanosecond decimals.
        return round(max(ns - start_ns, 0) / 1e3, 3)

    labels = {}
    for thread in threads:
        labels[thread["id"]] = ("%s (#%d)" % (thread["name"], thread["id"]) if thread["name"]
                                else "#%d" % thread["id"])
    events = [{"name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": 0,
               "args": {"name": session["program"]}}]
    timed = []
    dropped = 0
    async_ids = 0
    for table in tables:
        if table.trace is None:
            continue
        tid = table.os_tid if table.os_tid is not None else table.id
        events.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": pid, "tid": tid,
                       "args": {"name": labels.get(table.id, "#%d" % table.id)}})
        dropped += table.trace_dropped
        for kind, name, start, end in list(table.trace):
            if kind == TRACE_ASYNC:
                async_ids += 1
                for ph, ts in (("b", start), ("e", end)):
                    events.append({"name": name, "cat": "async", "ph": ph, "ts": at(ts), "pid": pid,
                                   "tid": tid, "id": hex(async_ids)})
            elif kind in (TRACE_COUNTER, TRACE_GAUGE):
                timed.append((start, kind, name, end))
            else:
                events.append({"name": name, "cat": "span" if kind == TRACE_SPAN else "poll", "ph": "X",
                               "ts": at(start), "dur": round(max(end - start, 0) / 1e3, 3),
                               "pid": pid, "tid": tid})
    totals = {}
    for ns, kind, name, value in sorted(timed, key=lambda event: event[0]):
        if kind == TRACE_COUNTER:
            value = totals[name] = totals.get(name, 0) + value
        events.append({"name": name, "cat": "counter" if kind == TRACE_COUNTER else "gauge", "ph": "C",
                       "ts": at(ns), "pid": pid, "tid": 0, "args": {name: value}})
    if dropped:
        sys.stderr.write(
            "perflab: the trace is missing %d events that did not fit in the threads' buffers (%d events "
            "each); it holds the start of the run: set PERFLAB_TRACE_EVENTS higher to keep more\n"
            % (dropped, TRACE_EVENTS))
    return {
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {"format": "perflab-trace/1", "session": session["program"],
                      "started_unix_ms": session["started_unix_ms"], "events_per_thread": TRACE_EVENTS,
                      "dropped_events": dropped},
    }
