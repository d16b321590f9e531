"""The Python workload of scripts/bench-busy-machine.sh: pure-Python work.

    /usr/bin/python3 scripts/bench-busy-workload.py [WORK]

Runs a loop of integer arithmetic, about 30 ms of work on a 2020s x86 core
at WORK 1 (the default); WORK scales the number of turns, so 1.05 does 5%
more work. The interpreter's start is the same at every WORK, so the whole
run's wall time grows by a little less than the work. It prints nothing,
so that runs of any WORK print the same output.
"""

import sys

TURNS_AT_WORK_1 = 300_000
DEFAULT_WORK = 1.0


def work(turns):
    total = 0
    for i in range(turns):
        total = (total * 31 + i) % 1_000_003
    return total


if __name__ == "__main__":
    factor = float(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_WORK
    work(round(factor * TURNS_AT_WORK_1))
