#!/usr/bin/env python3
"""The ten-run rule of the original investigation, applied to runs perflab
already measured.

The original investigation decided each change on 10 runs of A and 10 of B:
the mean throughput of B over the mean throughput of A, minus one, was GO at
+1.0% or more, NO-GO at -0.5% or less, NEUTRAL in between; no interval. This
script takes the first 10 runs of each variant from a perflab-result/1 JSON
file, in the order perflab ran them, and applies that rule, so that it can
be shown beside perflab's own verdict on the same runs (nothing is rerun).

    ten_run_rule.py ab RESULT.json   the rule on the first 10 + 10 runs
    ten_run_rule.py aa RESULT.json   an A-against-A result cut into
                                     consecutive repetitions of 10 + 10 runs:
                                     how often the rule claims a change that
                                     cannot exist
    ten_run_rule.py published A.txt B.txt
                                     the same rate at the noise of published
                                     samples (one number per line), for
                                     normally distributed noise
    ten_run_rule.py samples A.txt B.txt COMPARE.json
                                     the rule on published throughputs
                                     (higher is better), beside perflab
                                     compare's result on the same files
    ten_run_rule.py sequential A.json B.json COMPARE.json AB.json
                                     the rule on 10 runs of A then 10 of B
                                     (two perflab run results), beside perflab
                                     compare on those runs and perflab's
                                     interleaved A/B of the same commands;
                                     A and B are the same program, so every
                                     GO or NO-GO is a false claim

Every run does the same fixed work, so its throughput is 1 / wall time.
Output is Markdown, for the README.
"""
import json
import math
import statistics
import sys

RUNS = 10
GO, NOGO = 0.01, -0.005


def ten_run_verdict(a_walls, b_walls):
    """The rule's mean gain of B over A and its verdict."""
    gain = statistics.mean(1 / w for w in b_walls) / statistics.mean(1 / w for w in a_walls) - 1
    if gain >= GO:
        return gain, "GO"
    if gain <= NOGO:
        return gain, "NO-GO"
    return gain, "NEUTRAL"


def wilson(successes, n, z=1.959964):
    """Wilson score interval for a proportion (Wilson 1927; Newcombe 1998)."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def walls(result):
    """Wall times of the two variants, in the order perflab ran them."""
    a, b = result["variants"][:2]
    return (a["name"], [r["wall_s"] for r in a["run_details"]],
            b["name"], [r["wall_s"] for r in b["run_details"]])


def pct(x):
    return f"{x * 100:+.2f}%"


def perflab_line(result):
    d = result["decision"]
    lo, hi = d["ci"]
    return (f"{pct(d['change'])} [{pct(lo)}, {pct(hi)}] at {d['confidence'] * 100:g}%, "
            f"**{d['verdict']}**, {d['runs']} runs per variant")


def ab(result):
    a_name, a, b_name, b = walls(result)
    gain, verdict = ten_run_verdict(a[:RUNS], b[:RUNS])
    print(f"| rule | runs used | change of {b_name} against {a_name} | verdict |")
    print("| --- | --- | --- | --- |")
    print(f"| the ten-run rule (mean gain of the first {RUNS} + {RUNS}, +1% / -0.5%) "
          f"| {RUNS} + {RUNS} | {pct(gain)}, no interval | **{verdict}** |")
    d = result["decision"]
    lo, hi = d["ci"]
    print(f"| perflab's (confidence sequence, {d['confidence'] * 100:g}%) | {d['runs']} + {d['runs']} "
          f"| {pct(d['change'])} [{pct(lo)}, {pct(hi)}] | **{d['verdict']}** |")


def aa(result):
    a_name, a, b_name, b = walls(result)
    reps = min(len(a), len(b)) // RUNS
    if reps == 0:
        sys.exit(f"ten_run_rule.py: fewer than {RUNS} runs per variant in the result")
    counts = {"GO": 0, "NO-GO": 0, "NEUTRAL": 0}
    gains = []
    for k in range(reps):
        gain, verdict = ten_run_verdict(a[k * RUNS:(k + 1) * RUNS], b[k * RUNS:(k + 1) * RUNS])
        counts[verdict] += 1
        gains.append(gain)
    false_claims = counts["GO"] + counts["NO-GO"]
    lo, hi = wilson(false_claims, reps)
    cv = statistics.stdev(a) / statistics.mean(a)
    print(f"{reps} repetitions of the ten-run procedure ({RUNS} runs of `{a_name}`, {RUNS} of "
          f"`{b_name}`, the same command), cut from {len(a)} + {len(b)} runs perflab made in "
          f"interleaved order. The runs' noise: coefficient of variation {cv * 100:.1f}% of "
          f"the mean wall time.")
    print()
    print("| the ten-run rule said | repetitions |")
    print("| --- | --- |")
    for verdict in ("GO", "NO-GO", "NEUTRAL"):
        print(f"| {verdict} | {counts[verdict]} |")
    print()
    print(f"False claims (GO or NO-GO on a change that does not exist): **{false_claims} of {reps}"
          f" = {false_claims / reps * 100:.0f}%** (95% Wilson interval {lo * 100:.0f}% to "
          f"{hi * 100:.0f}%). The rule's gains ranged from {pct(min(gains))} to "
          f"{pct(max(gains))}.")
    print()
    print(f"perflab on all {len(a)} + {len(b)} runs: {perflab_line(result)}.")


def read_samples(path):
    """One number per line, K/M/G suffixes, # comments (perflab compare's format)."""
    scale = {"K": 1e3, "M": 1e6, "G": 1e9}
    values = []
    with open(path) as f:
        for line in f:
            text = line.split("#", 1)[0].strip()
            if text:
                factor = scale.get(text[-1], 1)
                values.append(float(text[:-1] if factor != 1 else text) * factor)
    return values


def normal_cdf(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def published(a_path, b_path):
    """The rule's false-claim rate at the published samples' noise.

    For an unchanged program whose runs vary with coefficient of variation
    c, the gain of a mean of n runs over another is about normal with
    standard deviation c * sqrt(2 / n) (delta method, independent runs); the
    rule says GO when it reaches +1% and NO-GO when it reaches -0.5%.
    """
    print("| published samples | runs | coefficient of variation | P(GO) | P(NO-GO) "
          "| false claims on an unchanged program |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for path in (a_path, b_path):
        xs = read_samples(path)
        cv = statistics.stdev(xs) / statistics.mean(xs)
        sd = cv * math.sqrt(2 / RUNS)
        p_go, p_nogo = 1 - normal_cdf(GO / sd), normal_cdf(NOGO / sd)
        print(f"| `{path}` | {len(xs)} | {cv * 100:.2f}% | {p_go * 100:.1f}% | {p_nogo * 100:.1f}% "
              f"| {(p_go + p_nogo) * 100:.0f}% |")


def load(path):
    with open(path) as f:
        return json.load(f)


def interval(doc):
    """perflab's change and interval of a result, as `+1.23% [+0.50%, +2.00%]`."""
    lo, hi = doc["ci"]
    return f"{pct(doc['change'])} [{pct(lo)}, {pct(hi)}]"


def all_warnings(doc):
    """The result's warnings and its machine's, as perflab wrote them."""
    return list(doc.get("warnings") or []) + list((doc.get("machine") or {}).get("warnings") or [])


def drift_warnings(doc):
    return [w for w in all_warnings(doc) if "drift" in w or "run order" in w]


def cpu_wait_warnings(doc):
    """compare's warnings that its two sides waited for a CPU differently."""
    return [w for w in all_warnings(doc) if "waited for a CPU a median" in w]


def share(fraction):
    """A share of wall time as perflab prints it: 0.3%, 7.3%, 38%."""
    return f"{fraction * 100:.1f}%" if fraction < 0.1 else f"{fraction * 100:.0f}%"


def quote(warnings, none):
    if not warnings:
        print(none)
    for w in warnings:
        print(f"- perflab: \"{w}\"")


def samples(a_path, b_path, compare_path):
    """The seed's rule on its own published throughputs, and perflab compare's."""
    a, b = read_samples(a_path), read_samples(b_path)
    mean_gain = statistics.mean(b) / statistics.mean(a) - 1
    median_gain = statistics.median(b) / statistics.median(a) - 1
    verdict = "GO" if mean_gain >= GO else "NO-GO" if mean_gain <= NOGO else "NEUTRAL"
    doc = load(compare_path)
    d = doc["decision"]
    print("| analysis of the same 10 + 10 published throughputs | change of B against A | verdict |")
    print("| --- | --- | --- |")
    print(f"| the seed's ten-run rule (mean gain against +1% / -0.5%) | {pct(mean_gain)} mean, "
          f"{pct(median_gain)} median, no interval | **{verdict}** |")
    print(f"| `perflab compare` (Hodges-Lehmann, {d['confidence'] * 100:g}% interval) "
          f"| {interval(doc)} | **{doc['verdict']}** |")
    print()
    quote(drift_warnings(doc), "perflab's test for drift over run order (Spearman's rho, within each "
          "series) finds none in either series.")
    print()
    print("Both analyses see a difference between these two lists of numbers"
          if verdict in ("GO", "NO-GO") and doc["verdict"] in ("GO", "NO-GO") else
          "The two analyses disagree on these numbers", end="")
    print("; neither can tell from them whether it is the change or the machine, because all "
          "of A ran before all of B.")


def sequential(a_path, b_path, compare_path, ab_path):
    """The rule on A then B while the machine changed, beside perflab's analyses."""
    a = [r["wall_s"] for r in load(a_path)["variants"][0]["run_details"]]
    b = [r["wall_s"] for r in load(b_path)["variants"][0]["run_details"]]
    gain, verdict = ten_run_verdict(a, b)
    compare, ab_doc = load(compare_path), load(ab_path)
    ab_runs = ab_doc["decision"]["runs"]

    def claim(v):
        return {"GO": "a false claim", "NO-GO": "a false claim",
                "NEUTRAL": "right: no change beyond the band"}.get(v, "no claim: more runs needed")

    def compare_claim(v):
        if not cpu_wait_warnings(compare):
            return claim(v)
        return (f"{claim(v)}, with a warning that the machine made it" if v in ("GO", "NO-GO")
                else f"{claim(v)}, and a warning that the sides waited for a CPU differently")

    print("| analysis | runs | change of B against A | verdict | on the same program |")
    print("| --- | --- | --- | --- | --- |")
    print(f"| the ten-run rule, A then B | {len(a)} + {len(b)} | {pct(gain)}, no interval "
          f"| **{verdict}** | {claim(verdict)} |")
    print(f"| `perflab compare` on those A-then-B runs | {len(a)} + {len(b)} | {interval(compare)} "
          f"| **{compare['verdict']}** | {compare_claim(compare['verdict'])} |")
    print(f"| `perflab ab`, A and B interleaved | {ab_runs} + {ab_runs} | {interval(ab_doc)} "
          f"| **{ab_doc['verdict']}** | {claim(ab_doc['verdict'])} |")
    print()
    print("What `perflab compare` said about the A-then-B runs' order:")
    print()
    quote(drift_warnings(compare), "- no drift within either series: the machine changed between "
          "them, where a test within each series cannot see it.")
    waits = [v.get("cpu_wait") for v in compare["variants"]]
    if cpu_wait_warnings(compare):
        quote(cpu_wait_warnings(compare), "")
    elif all(waits):
        print(f"- no warning about the CPU wait: A's runs waited for a CPU a median "
              f"{share(waits[0]['median_share'])} of their wall time, B's "
              f"{share(waits[1]['median_share'])}, within the contention rule's threshold of "
              "each other.")
    else:
        print("- the A-then-B results record no CPU wait, so how busy the machine was on each "
              "side is not known.")
    print()
    print("What `perflab ab` said about the interleaved runs:")
    print()
    quote(all_warnings(ab_doc), "- no warning.")
    c = ab_doc.get("contention")
    if c and c.get("blocks_measured_again"):
        print(f"- perflab's contention rule measured {c['blocks_measured_again']} blocks again "
              f"({c['runs_replaced']} runs replaced, kept in the store, left out of every figure) "
              f"because a run waited for a CPU more than {c['max_cpu_wait'] * 100:g}% of its wall "
              "time" + (f"; {c['blocks_kept_contended']} blocks were kept after "
                        f"{c['max_repeats']} repeats, the machine staying busy."
                        if c.get("blocks_kept_contended") else "."))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "published":
        return published(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 5 and sys.argv[1] == "samples":
        return samples(*sys.argv[2:])
    if len(sys.argv) == 6 and sys.argv[1] == "sequential":
        return sequential(*sys.argv[2:])
    if len(sys.argv) != 3 or sys.argv[1] not in ("ab", "aa"):
        sys.exit("usage: ten_run_rule.py ab|aa RESULT.json | published A.txt B.txt | "
                 "samples A.txt B.txt COMPARE.json | sequential A.json B.json COMPARE.json AB.json")
    with open(sys.argv[2]) as f:
        result = json.load(f)
    if result.get("kind") == "suite" or len(result.get("variants", [])) != 2:
        sys.exit(f"ten_run_rule.py: {sys.argv[2]} is not the result of an A/B of two variants")
    if sys.argv[1] == "ab":
        ab(result)
    else:
        aa(result)


if __name__ == "__main__":
    main()
