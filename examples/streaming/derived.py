"""Figures derived from the documents perflab wrote in this run (no figure
here is typed in): yields per record, the engine's own cost per record, and
the difference of two engines' marginal costs per record.

    python3 derived.py out

The difference of two marginal costs, each with its own (possibly
asymmetric) 95% interval from independent sweeps of the same sizes, takes
its interval by the method of variance estimates recovery (MOVER: Zou and
Donner, "Construction of confidence limits about effect measures",
Statistics in Medicine 27, 2008): for d = a - b,
    lo = d - sqrt((a - a_lo)^2 + (b_hi - b)^2)
    hi = d + sqrt((a_hi - a)^2 + (b - b_lo)^2).
It assumes the two estimates independent (their runs are separate
processes, interleaved by the sweep) and each interval right on its own.
"""
import json
import math
import pathlib
import sys

out = pathlib.Path(sys.argv[1])


def counter(doc, name):
    for c in doc["counters"]:
        if c["name"] == name:
            return c["per_variant"][0]["total"]
    raise SystemExit(f"no counter {name} in the document")


def span_self(doc, name):
    for s in doc["spans"]:
        if s["name"] == name:
            return s["per_variant"][0]["self_s"]
    raise SystemExit(f"no span {name} in the document")


def ns(seconds):
    return f"{seconds * 1e9:.1f} ns"


for label, path in [("spin", "phases.json"), ("notify", "notify.json")]:
    doc = json.loads((out / path).read_text())
    records = counter(doc, "records_in")
    yields = counter(doc, "partition_yields")
    print(
        f"{label:<7} partition yields per record: {yields / records:.3f} "
        f"({yields:.0f} yields, {records:.0f} records; medians per run)"
    )
    print(
        f"{label:<7} process span (the engine's own work) per record: "
        f"{ns(span_self(doc, 'process') / records)}"
    )

sweep = json.loads((out / "sweep-engines.json").read_text())["sweep"]
linear = {s["command"]: s["linear"] for s in sweep["series"]}
for name, fit in linear.items():
    print(
        f"marginal cost per record, {name}: {ns(fit['marginal'])} "
        f"[{ns(fit['marginal_lo'])}, {ns(fit['marginal_hi'])}]"
    )


def difference(a, b):
    fa, fb = linear[a], linear[b]
    d = fa["marginal"] - fb["marginal"]
    lo = d - math.hypot(fa["marginal"] - fa["marginal_lo"], fb["marginal_hi"] - fb["marginal"])
    hi = d + math.hypot(fa["marginal_hi"] - fa["marginal"], fb["marginal"] - fb["marginal_lo"])
    if lo > 0:
        reading = "above zero"
    elif hi < 0:
        reading = "below zero"
    else:
        reading = "includes zero: not told apart at this noise"
    print(f"{a} minus {b}: {ns(d)} per record [{ns(lo)}, {ns(hi)}] (95%, MOVER), {reading}")


difference("sql, spin", "passthrough, spin")
difference("sql, notify", "passthrough, notify")
difference("passthrough, spin", "passthrough, notify")
difference("sql, spin", "sql, notify")
