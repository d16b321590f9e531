#!/usr/bin/env python3
"""Duet runs against interleaved runs, on real programs, side by side.

    scripts/bench-duet.py [--rounds N] [--pairs N] [--aa N] [--aa-runs N] [--update-docs]

Every round runs, in a shuffled order, one A=A experiment (the same program
on both sides) per program and mode, each with exactly --pairs pairs
(--min-runs = --max-runs): interleaved (perflab's default) and --duet. It
reports the width of the decision's interval at that many pairs, and the
standard deviation of the pairs' log ratios, in both modes. Then it makes
--aa more A=A experiments in duet mode with the usual stopping rule and at
most --aa-runs runs per side, and counts their verdicts: GO or NO-GO there
is a false decision; as many in interleaved mode, alternating with them,
show what the same machine does to perflab's default.

The programs are examples/quickstart and a small Python program (hashing).
With --update-docs the table replaces the block between
`<!-- begin: duet-benchmark -->` and `<!-- end: duet-benchmark -->` in
docs/decision.md; otherwise it is printed.
"""

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PERFLAB = ROOT / "target/release/perflab"
PYTHON_PROGRAM = (
    "python3 -c \"import hashlib\nh = b'perflab'\n"
    "for _ in range(300000): h = hashlib.sha256(h).digest()\nprint(h.hex()[:16])\""
)
PROGRAMS = {
    "quickstart": str(ROOT / "target/release/quickstart"),
    "python hashing": PYTHON_PROGRAM,
}
BLOCK = ("<!-- begin: duet-benchmark -->", "<!-- end: duet-benchmark -->")


def ab(store, command, extra):
    """One `perflab ab` A=A experiment; its result document."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        done = subprocess.run(
            [str(PERFLAB), "--store", store, "ab", command, "--quiet", "--json", out.name]
            + extra,
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if done.returncode == 2:
            sys.exit(f"perflab ab {command!r} {extra} was refused:\n{done.stderr}")
        doc = json.load(open(out.name))
    return doc


def log_ratio_sd(doc):
    a, b = (v["samples"] for v in doc["variants"])
    return statistics.stdev(math.log(y / x) for x, y in zip(a, b))


def width(doc):
    lo, hi = doc["ci"]
    return hi - lo


def pct(x):
    return f"{100 * x:.1f}%"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--pairs", type=int, default=20)
    p.add_argument("--aa", type=int, default=30)
    p.add_argument("--aa-runs", type=int, default=20, help="at most (at least 10)")
    p.add_argument("--update-docs", action="store_true")
    args = p.parse_args()
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "perflab-cli", "-p", "quickstart"],
        cwd=ROOT,
        check=True,
        env={**os.environ, "CARGO_INCREMENTAL": "0"},
    )
    load_before = os.getloadavg()[0]
    rng = random.Random(1)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        store = f"{work}/s.db"
        fixed = ["--min-runs", str(args.pairs), "--max-runs", str(args.pairs)]
        for r in range(args.rounds):
            plan = [(name, mode) for name in PROGRAMS for mode in ("interleaved", "duet")]
            rng.shuffle(plan)
            got = {}
            for name, mode in plan:
                extra = fixed + (["--duet"] if mode == "duet" else [])
                got[(name, mode)] = ab(store, PROGRAMS[name], extra)
            for name in PROGRAMS:
                i, d = got[(name, "interleaved")], got[(name, "duet")]
                rows.append(
                    (r + 1, name, width(i), width(d), log_ratio_sd(i), log_ratio_sd(d),
                     d["duet"]["median_overlap"])
                )
                print(rows[-1], file=sys.stderr)
        verdicts = {"duet": [], "interleaved": []}
        names = list(PROGRAMS)
        limits = ["--min-runs", str(min(10, args.aa_runs)), "--max-runs", str(args.aa_runs)]
        for k in range(args.aa):
            name = names[k % len(names)]
            for mode in ("duet", "interleaved"):
                extra = limits + (["--duet"] if mode == "duet" else [])
                doc = ab(store, PROGRAMS[name], extra)
                verdicts[mode].append(doc["verdict"])
                print(name, mode, doc["verdict"], file=sys.stderr)
    load_after = os.getloadavg()[0]
    print(report(args, rows, verdicts, load_before, load_after, os.cpu_count()))


def report(args, rows, verdicts, load_before, load_after, cpus):
    out = [
        f"`scripts/bench-duet.py --rounds {args.rounds} --pairs {args.pairs} --aa {args.aa} "
        f"--aa-runs {args.aa_runs}` on a machine with {cpus} CPUs, load average "
        f"{load_before:.1f} before and {load_after:.1f} after (other jobs were running).",
        "",
        f"A=A experiments of exactly {args.pairs} pairs, both modes in each round in a "
        "shuffled order: width of the 95% interval of the change, and standard deviation "
        "of the pairs' log ratios.",
        "",
        "| round | program | interval width, interleaved | duet | duet / interleaved "
        "| sd of log ratios, interleaved | duet | median overlap |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r, name, wi, wd, si, sd, ov in rows:
        out.append(
            f"| {r} | {name} | {pct(wi)} | {pct(wd)} | {wd / wi:.2f} | {pct(si)} | {pct(sd)} "
            f"| {pct(ov)} |"
        )
    out.append("")
    for name in dict.fromkeys(row[1] for row in rows):
        ratios = [row[3] / row[2] for row in rows if row[1] == name]
        out.append(
            f"- {name}: duet's interval is {statistics.median(ratios):.2f}x as wide as "
            f"interleaved's (median over {len(ratios)} rounds; from {min(ratios):.2f}x "
            f"to {max(ratios):.2f}x)."
        )
    all_ratios = [row[3] / row[2] for row in rows]
    out.append(
        f"- all rounds: median {statistics.median(all_ratios):.2f}x; "
        f"{sum(r <= 0.5 for r in all_ratios)} of {len(all_ratios)} at most half as wide."
    )
    out.append("")
    for mode, vs in verdicts.items():
        false = sum(v in ("GO", "NO-GO") for v in vs)
        counts = {}
        for v in vs:
            counts[v] = counts.get(v, 0) + 1
        spelled = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
        out.append(
            f"- {len(vs)} A=A experiments in {mode} mode ({min(10, args.aa_runs)} to "
            f"{args.aa_runs} runs per side, the usual stopping rule, alternating with the other "
            f"mode and between the programs): {spelled}; false GO/NO-GO: {false}."
        )
    return "\n".join(out)


def update_docs(text):
    path = ROOT / "docs/decision.md"
    doc = path.read_text()
    start, end = doc.index(BLOCK[0]) + len(BLOCK[0]), doc.index(BLOCK[1])
    path.write_text(doc[:start] + "\n" + text + "\n" + doc[end:])


if __name__ == "__main__":
    if "--update-docs" in sys.argv:
        import io
        import contextlib

        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            main()
        update_docs(buffer.getvalue().strip())
        print(buffer.getvalue())
    else:
        main()
