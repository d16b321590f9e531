#!/usr/bin/env python3
"""Figures beside the suite's decision, read from its perflab-result/1 JSON.

    suite_tables.py figures SUITE.json   per cell: median wall time, CPU time
                                         (user + system) and peak memory, as
                                         a Markdown table (descriptive medians;
                                         the decision is perflab's)
    suite_tables.py reasons SUITE.json   each cell's verdict and perflab's reason
                                         for it, as a Markdown list
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


def reasons(suite):
    for cell in suite["cells"]:
        print(f"- {cell['scenario']} / {cell['variant']}: **{cell['verdict']}**, {cell['reason']}")


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
    modes = {"figures": figures, "reasons": reasons, "pick": pick}
    if len(sys.argv) != 3 or sys.argv[1] not in modes:
        sys.exit("usage: suite_tables.py figures|reasons|pick SUITE.json")
    with open(sys.argv[2]) as f:
        suite = json.load(f)
    if suite.get("kind") != "suite":
        sys.exit(f"suite_tables.py: {sys.argv[2]} is not the result of a suite")
    modes[sys.argv[1]](suite)


if __name__ == "__main__":
    main()
