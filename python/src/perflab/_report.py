"""Turning the thread tables into a ``perflab-profile/1`` document (a dict
that ``json`` writes): the same fields, units, order and merging rules as
the Rust crate's ``collect`` and ``span_totals``."""

import os
import sys
import time

from . import _histogram
from ._probes import COUNTER_SITES, GAUGE_SITES, SPAN_SITES
from ._warnings import find_warnings

PROFILE_FORMAT = "perflab-profile/1"
# The shared value is DEFAULT_UNATTRIBUTED_THRESHOLD in crates/perflab/src/lib.rs.
UNATTRIBUTED_THRESHOLD = 0.10


def program_name():
    """The script's file name (``app.py``), else the interpreter's."""
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] not in ("", "-c", "-m") else sys.executable
    return os.path.basename(argv0) or "python"


def thread_records(tables, end_ns):
    """Per thread: wall and CPU time, the part inside spans and the rest."""
    records = []
    for table in tables:
        ended = table.ended
        end = min(table.end_ns, end_ns) if ended else end_ns
        end_cpu = table.end_cpu_ns if ended else table.cpu_ns_now()
        end_wait = table.end_wait_ns if ended else table.wait_ns_now()
        wall = max(end - table.start_ns, 0)
        attributed = min(table.attributed_ns, wall)
        cpu = preempted = blocked = None
        if table.start_cpu_ns is not None and end_cpu is not None:
            cpu = max(end_cpu - table.start_cpu_ns, 0)
        if cpu is not None and table.start_wait_ns is not None and end_wait is not None:
            # Wall time is on the CPU, waiting for one (preempted), or neither (blocked).
            preempted = min(max(end_wait - table.start_wait_ns, 0), wall)
            blocked = max(wall - cpu - preempted, 0)
        records.append({
            "id": table.id, "name": table.name, "os_tid": table.os_tid,
            "wall_ns": wall, "cpu_ns": cpu, "preempted_ns": preempted, "blocked_ns": blocked,
            "attributed_ns": attributed,
            "unattributed_ns": wall - attributed, "ended": ended,
        })
    return records


def _thousandths(x):
    return int(x * 1000.0 + 0.5) / 1000.0


def span_records(tables):
    """Every span site, summed over threads; sites of one name and kind merged."""
    merged = {}
    for site in SPAN_SITES:
        key = (site.name, site.kind)
        totals = merged.get(key)
        if totals is None:
            totals = merged[key] = {"site": site, "also_at": [], "calls": 0, "call_ns": 0,
                                    "inclusive_ns": 0, "self_ns": 0, "min_ns": None, "max_ns": 0,
                                    "threads": 0, "unwound": 0, "polls": 0, "poll_ns": 0,
                                    "cancelled": 0, "histogram": {}}
        else:
            totals["also_at"].append("%s:%d" % (site.file, site.line))
        threads = 0
        for table in tables:
            slot = table.slots.get(site.index)
            if slot is None:
                continue
            threads += slot.calls > 0 or slot.polls > 0
            for field in ("calls", "call_ns", "inclusive_ns", "self_ns", "unwound", "polls", "poll_ns", "cancelled"):
                totals[field] += getattr(slot, field)
            if slot.calls:
                low = totals["min_ns"]
                totals["min_ns"] = slot.min_ns if low is None else min(low, slot.min_ns)
                totals["max_ns"] = max(totals["max_ns"], slot.max_ns)
            _histogram.merge(totals["histogram"], slot.histogram)
        totals["threads"] = max(totals["threads"], threads)
    records = [_span_record(totals) for totals in merged.values()]
    entered = lambda record: record["calls"] > 0 or record.get("async", {}).get("polls", 0) > 0
    records.sort(key=lambda record: (not entered(record), -record["self_ns"], record["name"]))
    return records


def _span_record(totals):
    site, calls = totals["site"], totals["calls"]
    low, high = (totals["min_ns"], totals["max_ns"]) if calls else (0, 0)
    percentile = lambda fraction: _histogram.percentile(totals["histogram"], fraction, low, high)
    record = {"name": site.name, "kind": site.kind, "file": site.file, "line": site.line}
    if totals["also_at"]:
        record["also_at"] = totals["also_at"]
    record.update({
        "calls": calls, "inclusive_ns": totals["inclusive_ns"], "self_ns": totals["self_ns"],
        "mean_ns": _thousandths(totals["call_ns"] / calls) if calls else 0.0,
        "min_ns": low, "p50_ns": percentile(0.50), "p95_ns": percentile(0.95),
        "p99_ns": percentile(0.99), "max_ns": high, "threads": totals["threads"],
        "unwound": totals["unwound"],
    })
    if site.kind == "async":
        record["async"] = {"polls": totals["polls"], "poll_ns": totals["poll_ns"], "cancelled": totals["cancelled"]}
    return record


def counter_records(tables):
    records = []
    for name, (file, line) in list(COUNTER_SITES.items()):
        cells = [table.counters[name] for table in tables if name in table.counters]
        records.append({"name": str(name), "file": file, "line": line,
                        "events": sum(cell[0] for cell in cells), "total": sum(cell[1] for cell in cells),
                        "threads": sum(1 for cell in cells if cell[0] > 0)})
    return records


def gauge_records(tables):
    records = []
    for name, (file, line) in list(GAUGE_SITES.items()):
        cells = [table.gauges[name] for table in tables if name in table.gauges and table.gauges[name][0]]
        samples = sum(cell[0] for cell in cells)
        latest = max(cells, key=lambda cell: cell[5]) if cells else None
        records.append({
            "name": str(name), "file": file, "line": line, "samples": samples,
            "last": latest[4] if latest else 0.0,
            "min": min(cell[2] for cell in cells) if cells else 0.0,
            "max": max(cell[3] for cell in cells) if cells else 0.0,
            "mean": sum(cell[1] for cell in cells) / samples if samples else 0.0,
        })
    return records


def build_profile(session, tables, threads, end_ns, span_cost_ns, timer_name):
    """The whole document; ``threads`` were measured when the session ended."""
    spans = span_records(tables)
    probes = sum(record["calls"] + record.get("async", {}).get("polls", 0) for record in spans)
    profile = {
        "format": PROFILE_FORMAT,
        "program": session["program"],
        "pid": os.getpid(),
        "session": {
            "name": session["program"], "scope": "process",
            "wall_ns": end_ns - session["start_ns"], "cpu_ns": session["cpu_ns"],
            "ended_by": "process_exit", "started_unix_ms": session["started_unix_ms"],
            "unattributed_threshold": UNATTRIBUTED_THRESHOLD,
        },
        "timer": {
            "name": timer_name, "span_cost_ns": _thousandths(span_cost_ns),
            "percentile_relative_error": _histogram.PERCENTILE_RELATIVE_ERROR,
            "instrumentation_ns": int(probes * _thousandths(span_cost_ns) + 0.5),
        },
        "spans": spans,
        "threads": threads,
        "counters": counter_records(tables),
        "gauges": gauge_records(tables),
        "warnings": [],
    }
    profile["warnings"] = find_warnings(profile, sum(table.unbalanced for table in tables))
    return profile


def timer_name():
    """``clock_monotonic`` where ``perf_counter`` reads CLOCK_MONOTONIC (Linux), as the profile names it."""
    implementation = time.get_clock_info("perf_counter").implementation
    return "clock_monotonic" if "CLOCK_MONOTONIC" in implementation else implementation
