"""Writes every figure of README.md from one run of investigate.sh, and
every reading that rests on an interval from that interval: no figure or
reading here is typed in.

    /usr/bin/python3 figures.py OUT README.md

OUT is the folder investigate.sh fills: the sweep's JSON document
(sweep.json) and terminal output (sweep.txt), the command it ran
(command.txt, one argument a line), the machine's caches (caches.txt: level,
type, size and the CPUs sharing it, one cache a line, from
/sys/devices/system/cpu/cpu0/cache), the load average at the end
(load.txt), the seconds the sweep took (seconds.txt) and whether the sizes
were the published ones (published.txt).

Each `<!-- begin: NAME -->` ... `<!-- end: NAME -->` block of README.md is
replaced by the block NAME below; a block the README lacks, or one it has
and this script does not write, is an error (exit 2). The `provenance`
block is publish-gate.sh's.

Readings follow the intervals: two points' per-item costs are called
different only when their 95% intervals do not overlap (a conservative
reading: overlapping intervals do not show them equal either, so that case
is undecided); a cliff is perflab's (the jump beyond the curve's trend
exceeds --cliff once both points' intervals are allowed for).
"""
import json
import pathlib
import re
import shlex
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from figure_words import fill_blocks  # noqa: E402  (the shared module is one folder up)


def fail(message):
    print(f"figures.py: {message}", file=sys.stderr)
    sys.exit(2)


def kib_words(kib):
    """A working set or cache size in KiB as a reader says it: 32 KiB, 1 MiB."""
    kib = int(kib)
    if kib >= 1024 * 1024 and kib % (1024 * 1024) == 0:
        return f"{kib // (1024 * 1024)} GiB"
    if kib >= 1024 and kib % 1024 == 0:
        return f"{kib // 1024} MiB"
    return f"{kib} KiB"


def ns(value):
    return f"{value:.3g} ns" if value < 100 else f"{value:.0f} ns"


def interval(iv):
    return f"{ns(iv['estimate'])} [{ns(iv['lo'])}, {ns(iv['hi'])}]"


def fence(text):
    return "```text\n" + text.rstrip("\n") + "\n```"


class Run:
    def __init__(self, out):
        self.out = pathlib.Path(out)

    def text(self, name):
        path = self.out / name
        if not path.exists():
            fail(f"{path} is missing: run investigate.sh")
        return path.read_text()

    def doc(self):
        return json.loads(self.text("sweep.json"))

    def caches(self):
        """The data and unified caches: (name, size in KiB, CPUs sharing it)."""
        caches = []
        for line in self.text("caches.txt").splitlines():
            level, kind, size, shared = line.split()
            if kind == "Instruction":
                continue
            number = int(re.match(r"\d+", size).group())
            kib = number * 1024 if size.endswith("M") else number
            name = f"L{level}" + ("d" if kind == "Data" else "")
            caches.append((name, kib, shared))
        return caches

    def points(self):
        """(size in KiB, label, the per-item interval, precise) of each point, by size."""
        doc = self.doc()
        points = []
        for p in doc["sweep"]["points"]:
            result = p["results"][0]
            points.append((p["size"], p["label"], result["per_item"], result["precise"], result["runs"]))
        return sorted(points, key=lambda p: p[0])


def cpu_count(shared):
    count = 0
    for part in shared.split(","):
        lo, _, hi = part.partition("-")
        count += int(hi or lo) - int(lo) + 1
    return count


def block_budget(run):
    doc = run.doc()
    sweep = doc["sweep"]
    points = run.points()
    runs = sum(p[4] for p in points)
    text = (
        f"This run: {len(points)} working sets from {kib_words(points[0][0])} to {kib_words(points[-1][0])}, "
        f"{sweep['min_runs']} to {sweep['max_runs']} runs each ({runs} in all); the sweep took "
        f"{run.text('seconds.txt').strip()} s (the build and the wait for a quiet machine not counted)."
    )
    if run.text("published.txt").strip() != "1":
        text += (
            " **A small check** (`CACHE_SWEEP_QUICK=1` or other `CACHE_SWEEP_*` sizes than the published "
            "run's): the figures show that the script works, not the machine's caches."
        )
    return text


def block_machine(run):
    caches = run.caches()
    if not caches:
        return "The machine lists no caches in `/sys/devices/system/cpu/cpu0/cache`."
    parts = []
    for name, kib, shared in caches:
        n = cpu_count(shared)
        parts.append(f"{name} {kib_words(kib)} " + ("per CPU" if n == 1 else f"shared by {n} CPUs ({shared})"))
    return "Its caches, as the kernel lists them for CPU 0: " + ", ".join(parts) + "."


def block_sweep(run):
    command = run.text("command.txt").splitlines()
    load = run.text("load.txt").strip().replace(" ", ", ")
    head = f"# perflab {shlex.join(command)}   (load average {load} at the end)"
    return fence(head + "\n" + run.text("sweep.txt"))


def caches_between(caches, lo, hi):
    """The caches whose size lies in [lo, hi): a working set of lo fits, one of hi does not."""
    return [c for c in caches if lo <= c[1] < hi]


def block_reading(run):
    doc = run.doc()
    sweep = doc["sweep"]
    caches = run.caches()
    points = run.points()
    by_size = {p[0]: p for p in points}
    series = sweep["series"][0]
    cliffs = series.get("cliffs") or []
    threshold = f"{sweep['cliff']:.0%}"
    out = []

    if cliffs:
        for c in cliffs:
            before, at = by_size[c["size_before"]], by_size[c["size"]]
            inside = caches_between(caches, c["size_before"], c["size"])
            where = (
                "; between them the working set outgrows "
                + " and ".join(f"{name} ({kib_words(kib)})" for name, kib, _ in inside)
                if inside
                else "; no cache's size lies between them"
            )
            out.append(
                f"- A cliff from {before[1]} to {at[1]}: the per-item cost rose ×{c['ratio']:.2f} (both "
                f"points' intervals allow ×{c['ratio_lo']:.2f} to ×{c['ratio_hi']:.2f}), from "
                f"{interval(before[2])} to {interval(at[2])}, more than the curve's trend and the cliff "
                f"threshold ({threshold}, `--cliff`) account for{where}."
            )
    else:
        out.append(
            f"- No cliff: no jump of the per-item cost exceeded the threshold ({threshold} beyond the curve's "
            "trend, `--cliff`) once both points' intervals were allowed for."
        )

    cliff_pairs = {(c["size_before"], c["size"]) for c in cliffs}
    for name, kib, _ in caches:
        pair = next(((a, b) for a, b in zip(points, points[1:]) if a[0] <= kib < b[0]), None)
        if pair is None:
            side = "smallest" if kib < points[0][0] else "largest"
            out.append(f"- {name} ({kib_words(kib)}) lies beyond the {side} working set swept.")
            continue
        a, b = pair
        if (a[0], b[0]) in cliff_pairs:
            continue
        if b[2]["lo"] > a[2]["hi"]:
            reading = (
                f"the per-item cost rose from {interval(a[2])} to {interval(b[2])} (the intervals are apart), "
                f"but not as a cliff: the smallest rise both intervals allow is within the curve's trend "
                f"and the threshold ({threshold}, `--cliff`)"
            )
        elif b[2]["hi"] < a[2]["lo"]:
            reading = f"the per-item cost fell from {interval(a[2])} to {interval(b[2])} (the intervals are apart)"
        else:
            reading = (
                f"the intervals of {interval(a[2])} and {interval(b[2])} overlap: undecided whether the "
                "per-item cost rose there"
            )
        out.append(f"- Past {name} ({kib_words(kib)}), from {a[1]} to {b[1]}: {reading}.")

    imprecise = [p for p in points if not p[3]]
    target = f"±{sweep['precision']:.0%}"
    if imprecise:
        out.append(
            f"- Marked `*`: {', '.join(p[1] for p in imprecise)} did not reach {target} within "
            f"{sweep['max_runs']} runs; their intervals are wider."
        )
    else:
        out.append(f"- Every point reached {target} within {sweep['max_runs']} runs.")
    widest = max(points, key=lambda p: (p[2]["hi"] - p[2]["lo"]) / (2 * p[2]["estimate"]))
    half = (widest[2]["hi"] - widest[2]["lo"]) / (2 * widest[2]["estimate"])
    out.append(
        f"- The noisiest point is {widest[1]} (±{half:.1%}): read it as somewhere in "
        f"[{ns(widest[2]['lo'])}, {ns(widest[2]['hi'])}], not as {ns(widest[2]['estimate'])}."
    )
    return "\n".join(out)


BLOCKS = {
    "budget": block_budget,
    "machine": block_machine,
    "sweep": block_sweep,
    "reading": block_reading,
}


def main(argv):
    if len(argv) != 3:
        fail("usage: figures.py OUT README.md")
    run = Run(argv[1])
    readme = pathlib.Path(argv[2])
    fill_blocks(readme, BLOCKS, run, fail)


if __name__ == "__main__":
    main(sys.argv)
