#!/usr/bin/env python3
"""Figures beside the suite's decision, read from its perflab-result/1 JSON.

    suite_tables.py matrix SUITE.json    the decision matrix: each cell's change
                                         in speed with its interval, verdict and
                                         runs, and each candidate's geometric
                                         mean, as a Markdown table
    suite_tables.py answer SUITE.json    the answer, in sentences generated from
                                         the cells' verdicts and the candidates'
                                         intervals (nothing claimed beyond them)
    suite_tables.py figures SUITE.json   per cell: median wall time, CPU time
                                         (user + system) and peak memory, as
                                         a Markdown table (descriptive medians;
                                         the decision is perflab's)
    suite_tables.py reasons SUITE.json   perflab's reason for each cell that is
                                         not a GO, as a Markdown list, and the
                                         machine's warnings, each once
    suite_tables.py pick SUITE.json      the allocator that loses most, the
                                         one that wins most and the scenario
                                         where they are furthest apart, as
                                         shell assignments for investigate.sh

The loser and winner are read from the suite's geometric-mean row: the
candidate with the lowest change is the loser if that change is negative,
else the baseline is; the winner is the candidate with the highest change
(or the baseline, if every candidate is slower).
"""
import json
import shlex
import statistics
import sys


def cells(suite):
    """{(scenario, variant): variant document} from the 'scenario / variant' names."""
    out = {}
    for v in suite["variants"]:
        scenario, variant = v["name"].split(" / ", 1)
        out[(scenario, variant)] = v
    return out


def variant_names(suite):
    return [suite["baseline"]] + [c["variant"] for c in suite["candidates"]]


def median(doc, f):
    return statistics.median(f(r) for r in doc["run_details"])


def wall(r):
    return r["wall_s"]


def cpu(r):
    return r["user_s"] + r["sys_s"]


def memory(r):
    return r["peak_memory_kib"] / 1024


def figures(suite):
    by_cell = cells(suite)
    names = variant_names(suite)
    print("| scenario | figure | " + " | ".join(names) + " |")
    print("| --- | --- | " + " | ".join("---:" for _ in names) + " |")
    for scenario in suite["scenarios"]:
        for label, f, fmt in (("wall (ms)", wall, "{:.1f}"), ("CPU (ms)", cpu, "{:.1f}"),
                              ("peak memory (MiB)", memory, "{:.1f}")):
            scale = 1000 if label != "peak memory (MiB)" else 1
            values = [fmt.format(median(by_cell[(scenario, n)], f) * scale) for n in names]
            print(f"| {scenario} | {label} | " + " | ".join(values) + " |")
    runs = {n: sum(by_cell[(s, n)]["runs"] for s in suite["scenarios"]) for n in names}
    print()
    print("Medians over each cell's runs (" +
          ", ".join(f"{n}: {runs[n]} runs in all" for n in names) + ").")


def pct(x):
    return f"{x * 100:+.1f}%"


def change(doc):
    """A change with its interval, `+12.3% [+8.1%, +16.0%]`, or a dash."""
    if doc.get("change") is None or doc.get("ci") is None:
        return "-"
    lo, hi = doc["ci"]
    return f"{pct(doc['change'])} [{pct(lo)}, {pct(hi)}]"


def matrix(suite):
    names = [c["variant"] for c in suite["candidates"]]
    by_cell = {(c["scenario"], c["variant"]): c for c in suite["cells"]}
    print("| scenario | " + " | ".join(names) + " |")
    print("| --- | " + " | ".join("---" for _ in names) + " |")
    for scenario in suite["scenarios"]:
        row = []
        for n in names:
            c = by_cell[(scenario, n)]
            row.append(f"{change(c)} **{c['verdict']}** ({c['runs']})")
        print(f"| {scenario} | " + " | ".join(row) + " |")
    print("| geometric mean | " + " | ".join(
        f"{change(c)}, all scenarios: **{c['verdict']}**" for c in suite["candidates"]) + " |")
    confidence = suite["candidates"][0].get("confidence")
    print()
    print(f"Suite verdict: **{suite.get('verdict')}**. Each cell: the change in speed of the "
          f"candidate against {suite['baseline']} (the baseline's time over the candidate's, "
          "minus one: positive is faster), its interval, its verdict and its runs; every interval "
          + (f"at {confidence * 100:.2f}% so that 95% holds for all cells at once."
             if confidence else "corrected so that 95% holds for all cells at once."))


def answer(suite):
    base = suite["baseline"]
    every = []
    for c in suite["candidates"]:
        cells = [x for x in suite["cells"] if x["variant"] == c["variant"]]
        by = {}
        for x in cells:
            by.setdefault(x["verdict"], []).append(x["scenario"])
        parts = [f"GO (faster, within the memory guard) in {len(by.get('GO', []))} of {len(cells)} scenarios"]
        vetoed = [x["scenario"] for x in cells if x["verdict"] == "NO-GO" and "guard" in x["reason"]]
        slower = [x["scenario"] for x in cells if x["verdict"] == "NO-GO" and "guard" not in x["reason"]]
        if vetoed:
            parts.append("NO-GO by the peak-memory guard in " + ", ".join(vetoed))
        if slower:
            parts.append("NO-GO (slower) in " + ", ".join(slower))
        for v, words in (("NEUTRAL", "NEUTRAL (within the band) in "),
                         ("INCONCLUSIVE", "undecided in ")):
            if by.get(v):
                parts.append(words + ", ".join(by[v]))
        lo, hi = c["ci"] if c.get("ci") else (None, None)
        mean = (f"; geometric mean of the {len(cells)}: {change(c)}"
                + (", faster on the whole interval" if lo is not None and lo > 0 else
                   ", slower on the whole interval" if hi is not None and hi < 0 else
                   ", an interval that includes no change" if lo is not None else ""))
        print(f"- **{c['variant']}** against {base}: " + "; ".join(parts) + mean + ".")
        if len(by.get("GO", [])) == len(cells):
            every.append(c["variant"])
    print()
    if every:
        print(f"Faster than {base} in every workload here, each cell decided within the memory "
              f"guard: **{', '.join(every)}**.")
    else:
        print(f"No candidate is a GO against {base} in every workload here.")


def reasons(suite):
    others = 0
    for cell in suite["cells"]:
        if cell["verdict"] == "GO":
            others += 1
            continue
        print(f"- {cell['scenario']} / {cell['variant']}: **{cell['verdict']}**, {cell['reason']}")
    if others:
        print(f"- the other {others} cells: **GO**, each within the peak-memory guard.")
    warnings = list(dict.fromkeys(list(suite.get("warnings") or [])
                                  + list((suite.get("machine") or {}).get("warnings") or [])))
    # The CPU-wait warning comes once per variant: grouped into one line.
    waits = [w for w in warnings if w.startswith('the median run of "') and "waited for a CPU" in w]
    if len(waits) > 1:
        shares = [w.split("waited for a CPU ", 1)[1].split(" of its wall time", 1)[0] for w in waits]
        warnings = [w for w in warnings if w not in waits] + [
            f"the median run of {len(waits)} variants waited for a CPU more than 2% of its wall "
            f"time (from {min(shares, key=lambda x: float(x.rstrip('%')))} to "
            f"{max(shares, key=lambda x: float(x.rstrip('%')))}): the machine was busy, and other "
            "processes' bursts slow runs unevenly; quiet the machine, or see --shield / --wait-quiet"]
    if warnings:
        print()
        print("perflab's warnings about the suite, each once:")
        print()
        for w in warnings:
            print(f"- {w}")


def pick(suite):
    by_cell = cells(suite)
    ranked = sorted(suite["candidates"], key=lambda c: c["change"])
    loser = ranked[0]["variant"] if ranked[0]["change"] < 0 else suite["baseline"]
    winner = ranked[-1]["variant"] if ranked[-1]["change"] > 0 else suite["baseline"]
    scenario = max(suite["scenarios"],
                   key=lambda s: median(by_cell[(s, loser)], wall) / median(by_cell[(s, winner)], wall))
    for role, name in (("loser", loser), ("winner", winner)):
        doc = by_cell[(scenario, name)]
        env = " ".join(f"{k}={v}" for k, v in sorted(doc["env"].items()))
        print(f"{role}={shlex.quote(name)}")
        print(f"{role}_env={shlex.quote(env)}")
    print(f"scenario={shlex.quote(scenario)}")
    print(f"command={shlex.quote(by_cell[(scenario, loser)]['command'])}")


def main():
    modes = {"answer": answer, "matrix": matrix, "figures": figures, "reasons": reasons, "pick": pick}
    if len(sys.argv) != 3 or sys.argv[1] not in modes:
        sys.exit("usage: suite_tables.py answer|matrix|figures|reasons|pick SUITE.json")
    with open(sys.argv[2]) as f:
        suite = json.load(f)
    if suite.get("kind") != "suite":
        sys.exit(f"suite_tables.py: {sys.argv[2]} is not the result of a suite")
    modes[sys.argv[1]](suite)


if __name__ == "__main__":
    main()
