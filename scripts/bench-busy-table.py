#!/usr/bin/env python3
"""The table of scripts/bench-busy-machine.sh, from the raw results it wrote.

    /usr/bin/python3 scripts/bench-busy-table.py OUT

Reads OUT/machine.tsv (the machine and the settings), OUT/manifest.tsv (one
line per experiment: id, round, workload, mode, kind, load, exit code,
milliseconds), OUT/skipped.tsv (cells that could not run, and why) and each
experiment's result document OUT/experiments/ID.json; writes one row per
experiment to OUT/results.csv and OUT/results.json and prints the Markdown
table, one row per workload and mode. bench-busy-machine.sh runs it at its
end; run it again on an OUT whose run was interrupted to see what was measured.
"""

import csv
import json
import statistics
import sys
from pathlib import Path

MODE_FLAGS = {"default": None, "shield": "--shield", "duet": "--duet", "wait-quiet": "--wait-quiet"}
# The right decision of each workload's A/B: the Python workload's B runs 5%
# longer; the quickstart's B (QUICKSTART_FAST=1) skips a redundant check.
RIGHT = {"python": "NO-GO", "quickstart": "GO"}
RESULT_CODES = (0, 3, 4)
FIELDS = [
    "id", "round", "workload", "mode", "kind", "load", "exit_code", "seconds", "verdict",
    "change", "ci_lo", "ci_hi", "width", "pairs", "false_alarm", "right_decision",
    "cpu_wait_share", "load_before", "document",
]


def read_tsv(path):
    if not path.exists():
        return []
    return [line.rstrip("\n").split("\t") for line in path.read_text().splitlines() if line]


def cpu_wait_share(doc):
    """The median share of wall time the runs of both variants waited for a CPU
    (perflab's `cpu-wait` metric, in seconds), or None where it is not measured."""
    shares = [
        run["metrics"]["cpu-wait"] / run["wall_s"]
        for variant in doc.get("variants", [])
        for run in variant.get("run_details", [])
        if "cpu-wait" in run.get("metrics", {}) and run.get("wall_s", 0) > 0
    ]
    return statistics.median(shares) if shares else None


def record(out, row):
    ident, round_, workload, mode, kind, load, code, millis = row
    rec = {
        "id": ident, "round": int(round_), "workload": workload, "mode": mode, "kind": kind,
        "load": load, "exit_code": int(code), "seconds": int(millis) / 1000, "verdict": None,
        "change": None, "ci_lo": None, "ci_hi": None, "width": None, "pairs": 0,
        "false_alarm": None, "right_decision": None, "cpu_wait_share": None,
        "load_before": None, "document": None,
    }
    path = out / "experiments" / f"{ident}.json"
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return rec
    rec["document"] = str(path)
    rec["verdict"] = doc.get("verdict")
    rec["change"] = doc.get("change")
    if doc.get("ci"):
        rec["ci_lo"], rec["ci_hi"] = doc["ci"]
        rec["width"] = rec["ci_hi"] - rec["ci_lo"]
    variants = doc.get("variants") or []
    rec["pairs"] = min((v.get("runs", 0) for v in variants), default=0)
    rec["cpu_wait_share"] = cpu_wait_share(doc)
    rec["load_before"] = (doc.get("machine") or {}).get("load_before")
    if rec["exit_code"] in RESULT_CODES and rec["verdict"]:
        if kind == "aa":
            rec["false_alarm"] = rec["verdict"] in ("GO", "NO-GO")
        else:
            rec["right_decision"] = rec["verdict"] == RIGHT[workload]
    return rec


def pct(x):
    return "–" if x is None else f"{100 * x:.1f}%"


def count(recs, key):
    decided = [r for r in recs if r[key] is not None]
    if not decided:
        return "–"
    return f"{sum(r[key] for r in decided)} of {len(decided)}"


def median_pairs(recs):
    """The median number of pairs of the cell's A/B experiments of a known change."""
    counts = [r["pairs"] for r in recs if r["kind"] == "ab" and r["pairs"]]
    return f"{statistics.median(counts):g}" if counts else "–"


def median_width(recs, pairs):
    widths = [r["width"] for r in recs if r["kind"] == "aa" and r["width"] is not None
              and r["pairs"] == pairs]
    return statistics.median(widths) if widths else None


def median_wait(recs):
    shares = [r["cpu_wait_share"] for r in recs if r["cpu_wait_share"] is not None]
    if not recs:
        return "–"
    return pct(statistics.median(shares)) if shares else "not measured"


def notes_of(cell, loads, skipped, workload, mode, pairs):
    notes = []
    for key in (mode, f"{workload}/{mode}"):
        if key in skipped:
            notes.append(skipped[key])
    for load in loads:
        if f"{workload}/{mode}/{load}" in skipped:
            notes.append(f"{load}: {skipped[f'{workload}/{mode}/{load}']}")
        recs = cell[load]
        failed = [r["id"] for r in recs if r["exit_code"] not in RESULT_CODES]
        if failed:
            notes.append(f"{load}: {len(failed)} experiment(s) failed ({', '.join(failed)}; "
                         "see their .stderr)")
        short = [r["id"] for r in recs if r["exit_code"] in RESULT_CODES and r["kind"] == "aa"
                 and r["pairs"] != pairs]
        if short:
            notes.append(f"{load}: {len(short)} A=A experiment(s) stopped before {pairs} pairs, "
                         "left out of the width")
    return "; ".join(notes)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench-busy-table.py OUT (the folder bench-busy-machine.sh wrote)")
    out = Path(sys.argv[1])
    machine = dict(row[:2] for row in read_tsv(out / "machine.tsv") if len(row) >= 2)
    if "pairs" not in machine:
        print(f"bench-busy-table: {out}/machine.tsv is missing or incomplete: "
              "give the folder bench-busy-machine.sh wrote", file=sys.stderr)
        sys.exit(2)
    skipped = dict(row[:2] for row in read_tsv(out / "skipped.tsv") if len(row) >= 2)
    recs = [record(out, row) for row in read_tsv(out / "manifest.tsv")]
    with open(out / "results.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(recs)
    (out / "results.json").write_text(json.dumps(recs, indent=2) + "\n")

    pairs = int(machine["pairs"])
    ab_runs = machine.get("ab_runs", str(pairs))
    ab_limits = (f"exactly {pairs} pairs" if ab_runs == str(pairs)
                 else "perflab ab's own run limits (10 to 60 pairs, stopping at the first verdict)")
    workloads = machine["workloads"].split(",")
    modes = machine["modes"].split(",")
    loads = machine["loads"].split(",")
    shield = machine.get("shield_cpu", "")
    minutes = int(machine.get("seconds", 0)) / 60
    print(
        f"`{machine['invocation']}` on a machine with {machine['cpus']} CPUs (perflab at commit "
        f"{machine['commit']}); at the start, load average {machine['loadavg']} and CPU pressure "
        f"`{machine['pressure']}`; the load: `{machine['load']}`. Each cell: "
        f"{machine['experiments']} A=A experiments of exactly {pairs} pairs and "
        f"{machine['experiments']} A/B experiments of {ab_limits}, quiet and loaded "
        f"alternately; {minutes:.1f} minutes in all."
    )
    print()
    print("| workload | mode | false alarms (A=A), quiet | loaded | median interval width (A=A), "
          "quiet | loaded | loaded / quiet | right decisions (A/B), quiet | loaded "
          "| median pairs (A/B), quiet | loaded | median CPU wait, quiet | loaded | notes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for workload in workloads:
        for mode in modes:
            cell = {load: [r for r in recs if (r["workload"], r["mode"], r["load"])
                           == (workload, mode, load)] for load in ("quiet", "loaded")}
            label = f"--shield {shield}" if mode == "shield" else (MODE_FLAGS[mode] or "default")
            widths = {load: median_width(cell[load], pairs) for load in cell}
            ratio = ("–" if widths["quiet"] is None or widths["loaded"] is None
                     or widths["quiet"] == 0 else f"{widths['loaded'] / widths['quiet']:.2f}×")
            cells = [
                count(cell["quiet"], "false_alarm"), count(cell["loaded"], "false_alarm"),
                pct(widths["quiet"]), pct(widths["loaded"]), ratio,
                count(cell["quiet"], "right_decision"), count(cell["loaded"], "right_decision"),
                median_pairs(cell["quiet"]), median_pairs(cell["loaded"]),
                median_wait(cell["quiet"]), median_wait(cell["loaded"]),
                notes_of(cell, loads, skipped, workload, mode, pairs),
            ]
            print(f"| {workload} | {label} | " + " | ".join(cells) + " |")
    print()
    print(
        "False alarms: A=A experiments (the same command on both sides) that ended GO or "
        "NO-GO, of those that reached a verdict. Interval width: the upper minus the lower end "
        f"of the change's 95% interval after {pairs} pairs, median over the A=A experiments. "
        "Right decisions: A/B experiments decided the right way, NO-GO for the Python "
        "workload's B, which runs 5% longer, and GO for the quickstart's B (the README's "
        "experiment, about 9% less work). CPU wait: the median share of a run's wall time its "
        "processes waited for a CPU, over every run of the cell (perflab's cpu-wait metric). "
        f"Every experiment's figures: {out}/results.csv."
    )


if __name__ == "__main__":
    main()
