"""What one perflab span costs in Python, against the two
``time.perf_counter_ns()`` calls any hand-made timing needs.

Runs loops of N iterations (default 200,000) with an empty body, with two
``perf_counter_ns()`` calls, with ``with perflab.span(...)``, with a call of a
plain function and of the same function under ``@perflab.measure``, with a
``perflab.count`` and a ``perflab.gauge``; 9 repetitions taking turns, in
one process that records (``PERFLAB_PROFILE`` set) and one that does not.
Each repetition runs its N iterations as 100 batches and keeps the fastest
batch: on a shared machine a batch that was preempted is slower, never
faster, so the fastest is the cost itself. Prints the median and range over
repetitions of nanoseconds per iteration, and the span cost the package
measured at exit.

    python3 python/bench/span_cost.py [N]
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPETITIONS = 9
BATCHES = 100


def cases(perflab, n):
    clock = time.perf_counter_ns
    site = perflab.span("bench")

    def plain():
        pass

    measured = perflab.measure(plain, name="bench_fn")

    def empty_loop():
        for _ in range(n):
            pass

    def two_clock_reads():
        for _ in range(n):
            clock()
            clock()

    def span():
        for _ in range(n):
            with site:
                pass

    def span_by_name():
        for _ in range(n):
            with perflab.span("bench"):
                pass

    def plain_call():
        for _ in range(n):
            plain()

    def measured_call():
        for _ in range(n):
            measured()

    def count():
        for _ in range(n):
            perflab.count("bench_count")

    def gauge():
        for _ in range(n):
            perflab.gauge("bench_gauge", 1.5)

    return [
        ("empty loop", empty_loop),
        ("two perf_counter_ns() calls", two_clock_reads),
        ("with span (site made once)", span),
        ('with perflab.span("bench")', span_by_name),
        ("plain function call", plain_call),
        ("@perflab.measure function call", measured_call),
        ("perflab.count", count),
        ("perflab.gauge", gauge),
    ]


def child(n):
    import perflab

    batch = max(n // BATCHES, 1)
    table = cases(perflab, batch)
    times = {name: [] for name, _ in table}
    for _ in range(REPETITIONS):
        for name, case in table:
            fastest = None
            for _ in range(BATCHES):
                start = time.perf_counter_ns()
                case()
                elapsed = time.perf_counter_ns() - start
                fastest = elapsed if fastest is None else min(fastest, elapsed)
            times[name].append(fastest / batch)
    json.dump(times, sys.stdout)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(here, "..", "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PERFLAB_TABLE", None)
    with tempfile.TemporaryDirectory() as scratch:
        profile_path = os.path.join(scratch, "profile.json")
        results = {}
        for mode, profile in (("recording", profile_path), ("not recording", None)):
            run_env = dict(env)
            run_env.pop("PERFLAB_PROFILE", None)
            if profile:
                run_env["PERFLAB_PROFILE"] = profile
            out = subprocess.run([sys.executable, __file__, "--child", str(n)], env=run_env,
                                 check=True, capture_output=True, text=True).stdout
            results[mode] = json.loads(out)
        with open(profile_path) as file:
            measured_cost = json.load(file)["timer"]["span_cost_ns"]
    print("python %s, %d iterations per case and repetition (fastest of %d batches), %d repetitions taking turns" % (
        sys.version.split()[0], n, BATCHES, REPETITIONS))
    print("| case | recording: median (range), ns | not recording: median (range), ns |")
    print("| --- | --- | --- |")
    for name in results["recording"]:
        cells = []
        for mode in ("recording", "not recording"):
            values = results[mode][name]
            cells.append("%.1f (%.1f to %.1f)" % (statistics.median(values), min(values), max(values)))
        print("| %s | %s | %s |" % (name, cells[0], cells[1]))
    print("span cost the package measured at exit: %.1f ns" % measured_cost)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(int(sys.argv[2]))
    else:
        main()
