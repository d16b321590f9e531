"""The Python workload of scripts/bench-busy-machine.sh: pure-Python work.

    /usr/bin/python3 scripts/bench-busy-workload.py [WORK]
    /usr/bin/python3 scripts/bench-busy-workload.py --longer-by CHANGE

Runs a loop of integer arithmetic, about 30 ms of work on a 2020s x86 core
at WORK 1 (the default); WORK scales the number of turns, so 1.05 does 5%
more work. The interpreter's start is the same at every WORK, so the whole
run's wall time grows by less than the work: 5% more work made runs about
3% longer on the project's VM. It prints nothing, so that runs of any WORK
print the same output.

With --longer-by CHANGE (0.05 for 5%), it prints instead the WORK at which
a whole run, start included, takes CHANGE longer than at WORK 1: it times
runs at WORK 0 (the start alone) and WORK 1 in turns, 15 of each, and
solves start + WORK * (whole - start) = (1 + CHANGE) * whole with their
medians. The benchmark scripts call it on the quiet machine before they
measure, so that their known change is a change of what perflab measures.
"""

import statistics
import subprocess
import sys
import time

TURNS_AT_WORK_1 = 300_000
DEFAULT_WORK = 1.0
CALIBRATION_RUNS = 15


def work(turns):
    total = 0
    for i in range(turns):
        total = (total * 31 + i) % 1_000_003
    return total


def wall_seconds(work_factor):
    started = time.perf_counter()
    subprocess.run([sys.executable, __file__, str(work_factor)], check=True)
    return time.perf_counter() - started


def work_for_longer_runs(change):
    start, whole = [], []
    for _ in range(CALIBRATION_RUNS):
        start.append(wall_seconds(0))
        whole.append(wall_seconds(1))
    start, whole = statistics.median(start), statistics.median(whole)
    if whole <= start:
        sys.exit("bench-busy-workload.py: a run at WORK 1 was no longer than the start alone")
    return 1 + change * whole / (whole - start)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--longer-by":
        print(f"{work_for_longer_runs(float(sys.argv[2])):.3f}")
    else:
        factor = float(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_WORK
        work(round(factor * TURNS_AT_WORK_1))
