"""The hand-made investigations' ways of summarising call times, run beside
perflab's on the same calls.

    /usr/bin/python3 seed_procedures.py TRACE PROFILE

TRACE and PROFILE are the timeline (`perflab-trace/1`) and the span profile
(`perflab-profile/1`) that one run of an instrumented program wrote
(`PERFLAB_TRACE`, `PERFLAB_PROFILE`). The trace holds every call of every
span with its duration (to the nanosecond), so each figure below is
computed from the very calls the profile sums up:

- exact: the durations sorted, percentile q by nearest rank (the
  ceil(q * n)-th smallest), and their sum;
- "as the seed": each duration truncated to whole microseconds before it is
  summed (`elapsed().as_micros() as u64`, as the yield instrumentation of
  the job-processor investigation did), and the "percentile" read at index
  int(q * n) of the list in the order the calls ended, never sorted;
- perflab: the profile's p50 and p99 (a log-linear histogram, within 1/64
  of the exact value) and its self time.

Prints one table row per span; exits 2 with a message naming the file at
fault when a document is not what it should be.
"""
import json
import math
import sys

SPANS = ["process", "route", "write"]
# Async spans whose every poll the trace records: "partition receive" is
# polled once per yield_now() while a partition spins.
POLLED = ["partition receive"]


def fail(message):
    print(f"seed_procedures.py: {message}", file=sys.stderr)
    sys.exit(2)


def load(path, kind):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"cannot read {kind} {path}: {e}")
    return doc


def exact_percentile(values, q):
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def seed_percentile(values, q):
    # The mistake: the list as it was appended to, never sorted.
    return values[min(len(values) - 1, int(q * len(values)))]


def us(ns):
    """Nanoseconds shown in a unit that suits them: `66 ns`, `1.700 µs`, `3.250 ms`."""
    if ns < 1000:
        return f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1000:.3f} µs"
    return f"{ns / 1e6:.3f} ms"


def main(argv):
    if len(argv) != 3:
        fail("usage: seed_procedures.py TRACE PROFILE")
    trace = load(argv[1], "trace")
    profile = load(argv[2], "profile")
    if trace.get("otherData", {}).get("format") != "perflab-trace/1":
        fail(f"{argv[1]} is not a perflab-trace/1 document")
    if profile.get("format") != "perflab-profile/1":
        fail(f"{argv[2]} is not a perflab-profile/1 document")
    dropped = trace["otherData"].get("dropped_events", 0)
    spans = {s["name"]: s for s in profile.get("spans", [])}
    # Durations in nanoseconds, in the order the calls ended.
    calls = {}
    for e in trace["traceEvents"]:
        if e.get("ph") != "X" or e.get("dur") is None:
            continue
        # A span's calls are slices of its name (`span`, or `poll` for the
        # spans of `tracing`, which perflab records as polls); a future's
        # slices are its polls.
        name = e["name"]
        if name in SPANS or name in POLLED:
            end = e["ts"] + e["dur"]
            calls.setdefault(name, []).append((end, round(e["dur"] * 1000)))
    print(
        f"{'span':<26} {'calls':>6}  {'exact sum':<12}  {'seed: whole µs':<14}  {'lost':>4}  "
        f"{'exact p50 / p99':<24}  {'seed: unsorted p50 / p99':<26}  perflab p50 / p99"
    )
    worst = None
    for name in SPANS + POLLED:
        ended = sorted(calls.get(name, []))
        durations = [d for _, d in ended]
        label = name + (" (polls)" if name in POLLED else "")
        if not durations:
            print(f"{label:<26} never entered")
            continue
        exact = sum(durations)
        truncated = sum(d // 1000 * 1000 for d in durations)
        lost = 100 * (exact - truncated) / exact if exact else 0.0
        p50, p99 = exact_percentile(durations, 0.50), exact_percentile(durations, 0.99)
        s50, s99 = seed_percentile(durations, 0.50), seed_percentile(durations, 0.99)
        record = spans.get(name)
        if record is None:
            fail(f"{argv[2]} has no span `{name}` although the trace has its calls")
        if name in POLLED:
            theirs = "(polls: not in the profile)"
        else:
            theirs = f"{us(record['p50_ns'])} / {us(record['p99_ns'])}"
            for mine, exact_q in ((record["p50_ns"], p50), (record["p99_ns"], p99)):
                if exact_q:
                    off = abs(mine - exact_q) / exact_q
                    worst = off if worst is None else max(worst, off)
        print(
            f"{label:<26} {len(durations):>6}  {us(exact):<12}  {us(truncated):<14}  "
            f"{lost:>3.0f}%  {us(p50) + ' / ' + us(p99):<24}  {us(s50) + ' / ' + us(s99):<26}  {theirs}"
        )
        counted = record["async"]["polls"] if name in POLLED and record.get("async") else record["calls"]
        if counted != len(durations):
            print(
                f"  note: the profile counts {counted} {'polls' if name in POLLED else 'calls'} of "
                f"`{name}`, the trace {len(durations)} ({dropped} events dropped from the trace)"
            )
    if worst is not None:
        print(
            f"perflab's p50 and p99 are within {100 * worst:.2f}% of the exact ones "
            "(its histogram's bound: 1/64 = 1.56%); the unsorted list's are whatever call ended there."
        )
    if dropped:
        print(f"note: {dropped} events did not fit in the trace; its figures miss those calls")


if __name__ == "__main__":
    main(sys.argv)
