#!/usr/bin/env python3
"""Commands timed taking turns: one build of perflab against another.

    scripts/bench-taking-turns.py [--pairs N] [--cwd DIR] -- 'CMD A' 'CMD B' [...]

Every round runs each command once (split into words as a shell splits
them, quotes included; no shell runs), as a child process the script waits for,
blocked and taking no CPU. The order reverses from one round to the next,
so that the machine's drift falls on every command alike. For each
command it prints the median of its wall times (the child's start to its
reaping, the same spawn for all), the ratio of that median to the first
command's, and the median of its differences from the first command round
by round, with a 95% percentile bootstrap interval of that median
(Efron and Tibshirani, An Introduction to the Bootstrap, 1993, ch. 13:
2,000 resamples of the rounds; it assumes the rounds independent and
alike but for the commands).

`perflab ab` takes turns too, and decides. But between its runs' starts
and ends it polls on a CPU of its own (where there are several), so a
perflab measured under it has one CPU less for what it does beside its
runs (the executor made ready beside the store's opening, the executor's
end beside the store's closing): this script's waits take none.
"""

import argparse
import os
import random
import shlex
import statistics
import subprocess
import sys
import time

RESAMPLES = 2000


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        usage="%(prog)s [--pairs N] [--cwd DIR] -- 'CMD A' 'CMD B' [...]",
    )
    parser.add_argument("--pairs", type=int, default=100, help="rounds (100)")
    parser.add_argument("--cwd", default=".", help="folder the commands run in")
    parser.add_argument("commands", nargs="+", help="two or more commands")
    args = parser.parse_args()
    if len(args.commands) < 2:
        parser.error("give two or more commands to compare, each quoted as one argument")
    if args.pairs < 2:
        parser.error(f"--pairs {args.pairs}: at least 2 rounds are needed for an interval")
    if not os.path.isdir(args.cwd):
        parser.error(f"--cwd {args.cwd}: no such folder")
    commands = [shlex.split(c) for c in args.commands]
    print(f"load average at the start: {open('/proc/loadavg').read().split()[0]}")
    times = [[] for _ in commands]
    for round_ in range(args.pairs):
        order = range(len(commands))
        for k in order if round_ % 2 == 0 else reversed(order):
            started = time.monotonic_ns()
            done = subprocess.run(
                commands[k],
                cwd=args.cwd,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            times[k].append((time.monotonic_ns() - started) / 1e6)
            if done.returncode not in (0, 3, 4):
                sys.exit(f"{args.commands[k]!r} exited with {done.returncode}: run it alone to see why")
    base = statistics.median(times[0])
    rng = random.Random(1)
    for k, command in enumerate(args.commands):
        median = statistics.median(times[k])
        line = f"{median:9.3f} ms  {median / base:.3f}x the first"
        if k > 0:
            diffs = [b - a for a, b in zip(times[0], times[k])]
            boot = sorted(
                statistics.median(rng.choices(diffs, k=len(diffs))) for _ in range(RESAMPLES)
            )
            low, high = boot[int(0.025 * RESAMPLES)], boot[int(0.975 * RESAMPLES) - 1]
            line += (
                f"  paired difference {statistics.median(diffs):+.3f} ms"
                f" [{low:+.3f}, {high:+.3f}]"
            )
        print(f"{line}  {command}")
    print(f"({args.pairs} rounds, the order reversed every other round)")
    print(f"load average at the end: {open('/proc/loadavg').read().split()[0]}")


if __name__ == "__main__":
    main()
