"""Where a finished session goes: the profile to ``$PERFLAB_PROFILE``, the
table to stderr with ``PERFLAB_TABLE=1``. Nothing here may take the program
down: a failure is one line on stderr naming the path and the fix."""

import json
import os
import stat
import sys


def write_profile(path, profile):
    """A regular (or new) file is written beside the target and renamed over
    it, so a reader never sees half a profile; a pipe or device is written in place."""
    text = json.dumps(profile, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    _write_whole(path, text, "profile", "PERFLAB_PROFILE")


def write_trace(path, trace):
    """The timeline, compact (traces are large), written as the profile is."""
    text = json.dumps(trace, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n"
    _write_whole(path, text, "trace", "PERFLAB_TRACE")


def _write_whole(path, text, what, variable):
    try:
        in_place = os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode)
        if in_place:
            with open(path, "w", encoding="utf-8") as file:
                file.write(text)
            return
        directory, name = os.path.split(path)
        temporary = os.path.join(directory, ".%s.%d.tmp" % (name, os.getpid()))
        try:
            with open(temporary, "w", encoding="utf-8") as file:
                file.write(text)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, path)
        except BaseException:
            try:
                os.remove(temporary)
            except OSError:
                pass
            raise
    except (OSError, ValueError) as error:
        sys.stderr.write(
            "perflab: could not write the %s to %s: %s. The program's run and exit status are not "
            "affected; point %s at a writable file whose directory exists.\n" % (what, path, error, variable)
        )


def _duration(ns, width=0):
    """Three significant digits and a unit, right-aligned to ``width``."""
    unit = "ns"
    if ns >= 1e9:
        ns, unit = ns / 1e9, "s"
    elif ns >= 1e6:
        ns, unit = ns / 1e6, "ms"
    elif ns >= 1e3:
        ns, unit = ns / 1e3, "\u00b5s"
    places = 0 if ns == 0 else 2 if ns < 10 else 1 if ns < 100 else 0
    return ("%.*f %s" % (places, ns, unit)).rjust(width)


def _gauge_number(x):
    if abs(x) < 1e15 and float(x).is_integer():
        return "%.0f" % x
    if abs(x) >= 1000:
        return "%.1f" % x
    return ("%.4f" % x).rstrip("0").rstrip(".")


def render_table(profile):
    """The table perflab.h prints, from the finished profile."""
    session, timer = profile["session"], profile["timer"]
    lines = ["perflab: session `%s`, wall %s%s; timer %s, one span costs %s (measured at exit)" % (
        session["name"], _duration(session["wall_ns"]),
        ", process cpu %s" % _duration(session["cpu_ns"]) if session["cpu_ns"] is not None else "",
        timer["name"], _duration(timer["span_cost_ns"]))]
    spans = profile["spans"]
    width = max([4] + [min(len(span["name"]), 48) for span in spans])
    if spans:
        lines.append("%-*s  %-5s %9s %9s %9s %10s %9s %9s %9s %9s" % (
            width, "span", "kind", "calls", "self", "incl", "incl/wall*", "mean", "p50", "p95", "p99"))
    for span in spans:
        name = span["name"][:width]
        if span["calls"] == 0 and span.get("async", {}).get("polls", 0) == 0:
            lines.append("%-*s  never entered (%s:%d)" % (width, name, span["file"], span["line"]))
            continue
        kind = {"function": "fn", "span": "span", "async": "async"}[span["kind"]]
        lines.append("%-*s  %-5s %9d %s %s %9.1f%% %s %s %s %s" % (
            width, name, kind, span["calls"], _duration(span["self_ns"], 9), _duration(span["inclusive_ns"], 9),
            span["inclusive_ns"] * 100.0 / (session["wall_ns"] or 1), _duration(span["mean_ns"], 9),
            _duration(span["p50_ns"], 9), _duration(span["p95_ns"], 9), _duration(span["p99_ns"], 9)))
    if spans:
        lines.append("* incl/wall: inclusive time over the session's wall time. Times of several threads add up, so it can exceed 100%.")
        lines.append("  self excludes spans entered inside; p50/p95/p99 are within 1.6% (histogram), mean exact.")
    lines.append("%-16s  %9s %9s %9s %9s %9s %12s" % (
        "thread", "wall", "cpu", "preempted", "blocked", "in spans", "unattributed"))

    def optional(ns):
        return _duration(ns, 9) if ns is not None else "        -"

    for thread in profile["threads"]:
        label = "%s (#%d)" % (thread["name"], thread["id"]) if thread["name"] else "#%d" % thread["id"]
        lines.append("%-16s  %s %s %s %s %s %s %5.1f%%%s" % (
            label, _duration(thread["wall_ns"], 9), optional(thread["cpu_ns"]),
            optional(thread["preempted_ns"]), optional(thread["blocked_ns"]),
            _duration(thread["attributed_ns"], 9), _duration(thread["unattributed_ns"], 12),
            thread["unattributed_ns"] * 100.0 / (thread["wall_ns"] or 1), "  (ended)" if thread["ended"] else ""))
    if profile["threads"]:
        lines.append("* wall = cpu + preempted (ready to run, waiting for a CPU) + blocked (sleeping, I/O, locks, channels).")
        if any(thread["preempted_ns"] is None for thread in profile["threads"]):
            lines.append("  A `-` under preempted and blocked: the system keeps no scheduler statistics (/proc/thread-self/schedstat), so the waiting is not split.")
    counters, gauges = profile["counters"], profile["gauges"]
    if counters:
        width = max([7] + [len(counter["name"]) for counter in counters])
        lines.append("%-*s  %12s %14s" % (width, "counter", "events", "total"))
        lines.extend("%-*s  %12d %14d" % (width, c["name"], c["events"], c["total"]) for c in counters)
    if gauges:
        width = max([5] + [len(gauge["name"]) for gauge in gauges])
        lines.append("%-*s  %9s %11s %11s %11s %11s" % (width, "gauge", "samples", "last", "min", "mean", "max"))
        lines.extend("%-*s  %9d %11s %11s %11s %11s" % (
            width, g["name"], g["samples"], _gauge_number(g["last"]), _gauge_number(g["min"]),
            _gauge_number(g["mean"]), _gauge_number(g["max"])) for g in gauges)
    if profile["warnings"]:
        lines.append("warnings:")
        lines.extend("  ! [%s] %s" % (w["kind"], w["message"]) for w in profile["warnings"])
    return "\n".join(lines) + "\n"


def print_table(profile):
    # One write, so that the table is not interleaved with other output.
    try:
        sys.stderr.write(render_table(profile))
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
