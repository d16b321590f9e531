"""What one perflab span costs in Python, against the two
``time.perf_counter_ns()`` calls any hand-made timing needs.

Runs loops of N iterations (default 200,000) with an empty body, with two
``perf_counter_ns()`` calls, with ``with perflab.span(...)``, with a call of a
plain function and of the same function under ``@perflab.measure``, with a
``perflab.count`` and a ``perflab.gauge``; 9 repetitions taking turns, in
three processes side by side: one recording through the C accelerator, one
recording through the pure-Python probes (``PERFLAB_PURE_PYTHON=1``) and
one that does not record. The accelerator is built first, from the sources,
into a temporary copy of the package (it needs setuptools, a C compiler and
Python's headers; without them its column says why it is missing).
Each repetition runs its N iterations as 100 batches and keeps the fastest
batch: on a shared machine a batch that was preempted is slower, never
faster, so the fastest is the cost itself. Prints the median and range over
repetitions of nanoseconds per iteration, each recording path's span as a
multiple of its process's two clock reads, and the span cost each path
measured at exit.

    python3 python/bench/span_cost.py [N]
"""

import glob
import json
import os
import shutil
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


MODES = ("accelerated", "pure Python", "not recording")


def build_package(here, into):
    """A copy of the package in ``into`` with the accelerator built in it;
    None when it built, else why it did not."""
    shutil.copytree(os.path.join(here, "..", "src", "perflab"), os.path.join(into, "perflab"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    build = subprocess.run([sys.executable, "setup.py", "build_ext", "--build-lib", into,
                            "--build-temp", os.path.join(into, "build")],
                           cwd=os.path.join(here, ".."), capture_output=True, text=True)
    if build.returncode == 0 and glob.glob(os.path.join(into, "perflab", "_accelerator*")):
        return None
    lines = (build.stderr or build.stdout).strip().splitlines()
    return lines[-1] if lines else "setup.py build_ext failed"


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as scratch:
        package = os.path.join(scratch, "package")
        missing = build_package(here, package)
        env = {key: value for key, value in os.environ.items() if not key.startswith("PERFLAB_")}
        env["PYTHONPATH"] = package + os.pathsep + env.get("PYTHONPATH", "")
        results, measured_cost = {}, {}
        for mode in MODES:
            if mode == "accelerated" and missing:
                continue
            run_env = dict(env)
            profile_path = os.path.join(scratch, "profile.json")
            if mode != "not recording":
                run_env["PERFLAB_PROFILE"] = profile_path
            if mode == "pure Python":
                run_env["PERFLAB_PURE_PYTHON"] = "1"
            out = subprocess.run([sys.executable, __file__, "--child", str(n)], env=run_env,
                                 check=True, capture_output=True, text=True).stdout
            results[mode] = json.loads(out)
            if mode != "not recording":
                with open(profile_path) as file:
                    measured_cost[mode] = json.load(file)["timer"]["span_cost_ns"]
    print("python %s, %d iterations per case and repetition (fastest of %d batches), %d repetitions taking turns" % (
        sys.version.split()[0], n, BATCHES, REPETITIONS))
    if missing:
        print("the accelerator did not build (%s): its column is empty" % missing)
    print("| case | %s |" % " | ".join("%s: median (range), ns" % mode for mode in MODES))
    print("| --- |%s" % (" --- |" * len(MODES)))
    for name in results["pure Python"]:
        cells = []
        for mode in MODES:
            values = results.get(mode, {}).get(name)
            cells.append("%.1f (%.1f to %.1f)" % (statistics.median(values), min(values), max(values))
                         if values else "not built")
        print("| %s | %s |" % (name, " | ".join(cells)))
    for mode in ("accelerated", "pure Python"):
        if mode not in results:
            continue
        times = {name: statistics.median(values) for name, values in results[mode].items()}
        print("%s: a span costs %.1fx two perf_counter_ns() calls; the package measured %.1f ns at exit" % (
            mode, times["with span (site made once)"] / times["two perf_counter_ns() calls"],
            measured_cost[mode]))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(int(sys.argv[2]))
    else:
        main()
