"""Rewrites the marked blocks of README.md from the documents investigate.sh wrote.

    python3 readme_blocks.py EXAMPLE_DIR

Every figure of the README comes from here, read from perflab's JSON
documents in out/ (perflab-result/1 and perflab-sampling/1), and every
sentence that draws a conclusion from an interval is written here from the
verdict and the interval, by the rules in `claim_outcome` and the block
functions: a claim holds only when the interval supports it, does not hold
only when the interval rules it out, and is undecided otherwise.

A block is `<!-- begin: NAME -->` ... `<!-- end: NAME -->`; a README
without one of the blocks written here is an error.
"""

import json
import math
import pathlib
import re
import sys

HERE = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
OUT = HERE / "out"
# The repository's folder, left out of command lines so that they read the
# same wherever the repository was cloned.
ROOT_PREFIX = str(HERE.resolve().parents[1]) + "/"


def load(name):
    return json.loads((OUT / name).read_text())


def text(name):
    return (OUT / name).read_text().rstrip("\n")


def fenced(body):
    return "```text\n" + body.rstrip("\n") + "\n```"


# ---- numbers in words -------------------------------------------------------


def seconds(s):
    """A time as perflab prints it: ns, µs, ms or s, four significant figures."""
    if s is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if abs(s) >= scale or unit == "ns":
            return f"{s / scale:.4g} {unit}"
    return f"{s:g} s"


def fraction(setting):
    """`"5%"` or `"-5%"` as a fraction."""
    return float(str(setting).rstrip("%")) / 100


def pct(x, digits=1):
    return f"{x * 100:+.{digits}f}%"


def share(x):
    return f"{x * 100:.1f}%"


def time_change(change, ci):
    """perflab's stored change is positive when B is faster (A/B - 1); the
    time ratio B/A is 1 / (1 + change). Returns the ratio and its interval."""
    ratio = 1.0 / (1.0 + change)
    lo, hi = 1.0 / (1.0 + ci[1]), 1.0 / (1.0 + ci[0])
    return ratio, lo, hi


def ratio_words(ratio, lo, hi):
    """`1.13× [1.05×, 1.21×] (+13.0%)`: B's time over A's."""
    return f"{ratio:.3f}× [{lo:.3f}×, {hi:.3f}×] ({pct(ratio - 1)})"


def change_words(change, ci):
    return ratio_words(*time_change(change, ci))


# ---- the claims of the original investigation ------------------------------

# (claim in the original's words, the original's figure, the comparison that
# retests it: (document, scenario, candidate), and the rule):
#   "figure": holds when the interval of the time ratio contains the
#       original's figure and excludes 1 (no change); does not hold when it
#       excludes the figure; undecided when it contains both.
#   "equivalent": holds when the interval lies inside the band of the
#       suite's thresholds (NEUTRAL), does not hold when it lies wholly
#       beyond one of them (GO or NO-GO), undecided otherwise.
#   "not-slower": holds when the interval's slow end is inside the band
#       (the candidate is not slower by the NO-GO threshold), does not hold
#       when the whole interval is beyond it, undecided otherwise.
CLAIMS = [
    {
        "id": "sparse",
        "claim": "“Sparse account IDs degrade performance by ~13%”",
        "original": "178.76 ms against 158.02 ms: +13%",
        "figure": 178.76 / 158.02,
        "candidate": "sparse-ids",
        "rule": "figure",
        "note": "same number of accounts as the baseline",
    },
    {
        "id": "sparse-quarter",
        "claim": "the same, on the original's workload",
        "original": "+13%",
        "figure": 178.76 / 158.02,
        "candidate": "sparse-ids-quarter-accounts",
        "rule": "figure",
        "note": "ids spread out and a quarter of the accounts: two changes at once",
    },
    {
        "id": "hot",
        "claim": "“Zipf ≈ Uniform”: 80/20 access “doesn't degrade performance significantly”",
        "original": "151.63 ms against 153.19 ms: within 1%",
        "candidate": "hot-accounts",
        "rule": "equivalent",
    },
    {
        "id": "disputes",
        "claim": "“Workflows ≈ Simple”: dispute cycles “are cheap”",
        "original": "126 ms extrapolated from 500K transactions against 158 ms",
        "candidate": "dispute-heavy",
        "rule": "not-slower",
    },
    {
        "id": "store",
        "claim": "“Transaction store adds ~8% overhead”",
        "original": "~171 ms normalized against 158 ms: +8%",
        "figure": 171.0 / 158.0,
        "candidate": "store-heavy",
        "rule": "figure",
    },
    {
        "id": "threads-wall",
        "claim": "“Wall-clock time similar” on threads and on one thread",
        "original": "158.02 ms on 8 threads against 157.55 ms on one",
        "candidate": "multi-threaded",
        "rule": "equivalent",
    },
]


def claim_outcome(rule, change, ci, go, nogo, figure=None):
    """holds / does not hold / undecided, and why, from the interval alone."""
    ratio, lo, hi = time_change(change, ci)
    if rule == "figure":
        contains_figure = lo <= figure <= hi
        contains_none = lo <= 1.0 <= hi
        if contains_figure and not contains_none:
            return "holds", f"the interval contains {pct(figure - 1, 0)} and excludes no change"
        if not contains_figure:
            side = "smaller" if hi < figure else "larger"
            return "does not hold", f"the interval excludes {pct(figure - 1, 0)}: the change is {side}"
        return "undecided", f"the interval contains both {pct(figure - 1, 0)} and no change"
    band = f"±{go * 100:.0f}%" if abs(go + nogo) < 1e-12 else f"[{pct(nogo, 0)}, {pct(go, 0)}]"
    if rule == "equivalent":
        if nogo < ci[0] and ci[1] < go:
            return "holds", f"the whole interval is inside {band} (NEUTRAL)"
        if ci[1] <= nogo or ci[0] >= go:
            return "does not hold", f"the whole interval is beyond {band}"
        return "undecided", f"the interval crosses the edge of {band}"
    if rule == "not-slower":
        if ci[0] > nogo:
            return "holds", f"even the interval's slow end is less than {pct(-nogo / (1 + nogo), 0)} slower"
        if ci[1] <= nogo:
            return "does not hold", f"the whole interval is at least {pct(-nogo / (1 + nogo), 0)} slower"
        return "undecided", f"the interval crosses {pct(-nogo / (1 + nogo), 0)} slower"
    raise ValueError(rule)


def cells_by(doc):
    return {(c["scenario"], c["variant"]): c for c in doc["cells"]}


# ---- blocks -----------------------------------------------------------------

blocks = {}
settings = text("settings.txt").split()
transactions, threads, cpus = int(settings[0]), int(settings[1]), int(settings[2])

blocks["settings"] = (
    f"Every workload here has {transactions:,} transactions and {transactions // 100:,} "
    f"accounts; the multi-threaded path runs a reader and {threads} worker "
    f"thread{'s' if threads != 1 else ''} on this {cpus}-CPU machine. "
    f"The whole script took {int(text('seconds.txt')) // 60} min {int(text('seconds.txt')) % 60} s."
)

blocks["refusals"] = (
    "The original generator's dispute-heavy workload:\n\n"
    + fenced(text("broken.txt"))
    + "\n\nThe original “sparse ids” (ids spread out and a quarter of the accounts):\n\n"
    + fenced(text("two-changes.txt"))
)

# 1. v1 against v2
suite = load("suite.json")
rows = ["| scenario | v2's time over v1's [interval] | verdict | pairs |", "| --- | --- | --- | --- |"]
for c in suite["cells"]:
    words = change_words(c["change"], c["ci"]) if c.get("ci") else "(no interval yet)"
    rows.append(f"| {c['scenario']} | {words} | {c['verdict']} | {c['runs']} |")
cand = suite["candidates"][0]
if cand.get("ci"):
    rows.append(
        f"| geometric mean | {change_words(cand['change'], cand['ci'])} | {cand['verdict']} (all cells) | |"
    )
confidence = suite.get("cell_confidence")
verdicts = [c["verdict"] for c in suite["cells"]]
counts = {v: verdicts.count(v) for v in sorted(set(verdicts))}
suite_sentence = (
    f"Suite verdict: **{suite['verdict']}** "
    f"({', '.join(f'{n} {v}' for v, n in counts.items())} of {len(verdicts)} cells"
    + (f"; each cell's interval at {confidence * 100:.2f}%, so that 95% holds for all at once" if confidence else "")
    + ")."
)
blocks["suite"] = "\n".join(rows) + "\n\n" + suite_sentence

# 2. the claims
scen = load("scenarios.json")
# The thresholds are the suite file's (a suite's document keeps only its cells).
scen_file = (HERE / "scenarios.toml").read_text()
go, nogo = (fraction(re.search(rf'^{key} = "([^"]+)"', scen_file, re.M).group(1)) for key in ("go", "nogo"))
cells = cells_by(scen)
rows = [
    "| the original's claim | its figures | retested: time over the baseline's [interval] | v1 | v2 |",
    "| --- | --- | --- | --- | --- |",
]
outcomes = {}
for claim in CLAIMS:
    words, verdicts_here = [], []
    for engine in ("v1", "v2"):
        c = cells.get((engine, claim["candidate"]))
        if c is None or not c.get("ci"):
            verdicts_here.append("no interval")
            continue
        outcome, why = claim_outcome(claim["rule"], c["change"], c["ci"], go, nogo, claim.get("figure"))
        outcomes.setdefault(claim["id"], []).append(outcome)
        words.append(f"{engine}: {change_words(c['change'], c['ci'])}, {c['verdict']}")
        verdicts_here.append(f"**{outcome}**: {why}")
    what = f"`{claim['candidate']}`" + (f" ({claim['note']})" if claim.get("note") else "")
    rows.append(
        f"| {claim['claim']} | {claim['original']} | {what}: {'; '.join(words)} | {verdicts_here[0]} | {verdicts_here[1]} |"
    )

cpu = load("cpu-threads.json")
cpu_ratio = None
cpu_words = "no interval"
if cpu.get("ci"):
    # cpu is lower-is-better: the worker threads' CPU time over one thread's.
    cpu_ratio = time_change(cpu["change"], cpu["ci"])
    r, lo, hi = cpu_ratio
    cpu_words = (
        "more CPU time: the whole interval is above 1×"
        if lo > 1
        else "less CPU time: the whole interval is below 1×"
        if hi < 1
        else "not told apart from one thread: the interval contains 1×"
    )
    if hi < 2.6:
        outcome, why = "does not hold", "the interval lies below 2.6×"
    elif lo > 2.9:
        outcome, why = "does not hold", "the interval lies above 2.9×"
    elif lo > 1.0:
        outcome, why = "holds", "the interval meets 2.6-2.9× and excludes 1×"
    else:
        outcome, why = "undecided", "the interval meets 2.6-2.9× and contains 1×"
    outcomes["threads-cpu"] = [outcome]
    rows.append(
        f"| “Per-transaction cost increases 2.6-2.9x in multi-threaded” | CPU per operation, 366 ns against 126 ns | "
        f"CPU time of `multi-threaded` over one thread's: {ratio_words(r, lo, hi)}, {cpu['verdict']} | **{outcome}**: {why} | (v1 only) |"
    )
held = sum(o.count("holds") for o in outcomes.values())
failed = sum(o.count("does not hold") for o in outcomes.values())
undecided = sum(o.count("undecided") for o in outcomes.values())
claims_sentence = (
    f"Of {held + failed + undecided} retests, {held} hold, {failed} do not hold and {undecided} are undecided "
    f"(each cell's interval at {scen.get('cell_confidence', 0) * 100:.2f}% so that 95% holds for all "
    f"{len(scen['cells'])} cells of the suite at once; a cell is NEUTRAL when its whole interval lies inside "
    f"the thresholds {pct(nogo, 0)} and {pct(go, 0)} of the file, GO or NO-GO when it lies wholly beyond one)."
)
blocks["claims"] = "\n".join(rows) + "\n\n" + claims_sentence


def stats(span, index):
    per = span.get("per_variant") or []
    return per[index] if index < len(per) else None


def span_rows(doc, names):
    """calls, self, mean (self / calls), p50, p99 per variant, and the change of self time."""
    variants = [v["name"] for v in doc["variants"]]
    header = "| span | " + " | ".join(
        f"{v} calls | {v} self | {v} mean | {v} p50 | {v} p99" for v in variants
    ) + " | self time, B over A [interval] |"
    rows = [header, "|" + " --- |" * (1 + 5 * len(variants) + 1)]
    never = []
    for span in doc.get("spans") or []:
        name = span["name"]
        figures = [stats(span, i) for i in range(len(variants))]
        if name.startswith("("):
            continue
        entered = [f for f in figures if f and f.get("calls", 0) > 0 and f.get("runs_entered", f.get("runs", 1)) > 0]
        if not entered:
            never.append(name)
            continue
        if names is not None and name not in names:
            continue
        cols = []
        for f in figures:
            if not f or f.get("runs_entered", 1 if f.get("calls", 0) else 0) == 0:
                cols += ["never entered", "", "", "", ""]
                continue
            if f.get("calls", 0) == 0:
                # Entered in too few runs for the median to be above zero.
                cols += [f"entered in {f['runs_entered']} of {f['runs']} runs", "", "", "", ""]
                continue
            mean = f["self_s"] / f["calls"] if f["calls"] else None
            cols += [f"{f['calls']:,.0f}", seconds(f["self_s"]), seconds(mean), seconds(f.get("p50_s")), seconds(f.get("p99_s"))]
        moved = ""
        if span.get("ci"):
            moved = change_words(span["change"], span["ci"]) + (" moved" if span.get("moved") else "")
        rows.append(f"| `{name}` | " + " | ".join(cols) + f" | {moved} |")
    return rows, never


# 3. spans, one thread and worker threads
SHOWN = {
    "spans-one-thread": {"read", "parse", "apply", "deposit", "withdrawal", "output"},
    "spans-threads": {"parse", "apply", "dispatch.send_wait", "shard", "shard.recv_wait", "apply.join_wait", "deposit"},
}
for key, name in (("spans-one-thread", "ab-one-thread.json"), ("spans-threads", "ab-threads.json")):
    doc = load(name)
    rows, never = span_rows(doc, SHOWN[key])
    extra = ""
    if never:
        extra = "\n\nNever entered in these runs (spans of the program that had no call, listed here rather than shown as zero rows): " + ", ".join(f"`{n}`" for n in never) + "."
    extra += "\n\nThe other spans (disputes, resolves, chargebacks) are in REPORT.md."
    blocks[key] = (
        f"{doc['name']}: v2's wall time over v1's {change_words(doc['change'], doc['ci'])}, **{doc['verdict']}** "
        f"({doc['decision']['runs']} runs each).\n\n" + "\n".join(rows) + extra
    )


def cpu_share_of_wall(doc):
    """Median over runs of (user + sys) / wall, per variant."""
    out = {}
    for v in doc["variants"]:
        shares = sorted(
            (r["user_s"] + r["sys_s"]) / r["wall_s"]
            for r in v.get("run_details") or []
            if r.get("wall_s") and r.get("user_s") is not None and r.get("sys_s") is not None
        )
        if shares:
            out[v["name"]] = shares[len(shares) // 2]
    return out


# 4. the CPU profile of one thread
profile = load("profile.json")
p = profile["profiles"][0]
functions = p["functions"]


def find(pattern, key="inclusive"):
    best = None
    for f in functions:
        if re.search(pattern, f["name"]) and (best is None or f[f"{key}_samples"] > best[f"{key}_samples"]):
            best = f
    return best


parts = [
    ("reading the file", r"read_to_string"),
    ("parsing (`parse_all`)", r"process::parse_all"),
    ("applying (`apply_all`)", r"process::apply_all|engine::Engine<H>::apply$"),
    ("of which growing a map (`reserve_rehash`)", r"reserve_rehash"),
    ("writing the balances", r"process::write_balances"),
]
rows = ["| part | functions matched | inclusive share of CPU samples [95% Wilson] |", "| --- | --- | --- |"]
found = {}
for label, pattern in parts:
    f = find(pattern)
    found[label] = f
    if f is None:
        rows.append(f"| {label} | `{pattern}` | not sampled |")
    else:
        rows.append(
            f"| {label} | `{f['name'][:60]}` | {share(f['inclusive_share'])} [{share(f['inclusive_ci'][0])}, {share(f['inclusive_ci'][1])}] |"
        )
parse, apply = found["parsing (`parse_all`)"], found["applying (`apply_all`)"]
if parse and apply:
    if parse["inclusive_ci"][0] > apply["inclusive_ci"][1]:
        verdict = "parsing takes more of the CPU time than applying: their intervals do not overlap"
    elif parse["inclusive_ci"][1] < apply["inclusive_ci"][0]:
        verdict = "applying takes more of the CPU time than parsing: their intervals do not overlap"
    else:
        verdict = "parsing and applying are not told apart: their intervals overlap"
else:
    verdict = "parsing and applying could not both be found in the samples"
one = load("ab-one-thread.json")
cpu_wall = cpu_share_of_wall(one)
wall_words = ", ".join(f"{v} {share(s)}" for v, s in cpu_wall.items())
blocks["cpu-profile"] = (
    f"{p['samples']:,} samples of `{p['command'].replace(ROOT_PREFIX, '')[:80]}`.\n\n"
    + "\n".join(rows)
    + f"\n\nOn one thread {verdict} (CPU-clock samples). Wall-clock span times measure CPU work only where "
    f"the thread does not wait: its CPU time is {wall_words} of its wall time (median run of the A/B below), so "
    + (
        "the span times below are CPU work to within a tenth."
        if cpu_wall and min(cpu_wall.values()) >= 0.9
        else "the span times below include waiting and are not read as CPU cost; the shares above are."
    )
)

# 5. the maps sized up front
pre = load("presize.json")
dep = next((s for s in pre.get("spans") or [] if s["name"] == "deposit"), None)
rows, _ = span_rows(pre, {"deposit", "apply"})
if dep and dep.get("ci") and stats(dep, 0) and stats(dep, 1):
    grown, presized = stats(dep, 0), stats(dep, 1)
    mean_g, mean_p = grown["self_s"] / grown["calls"], presized["self_s"] / presized["calls"]
    above = mean_g > grown["p99_s"]
    moved_less = dep.get("moved") and dep["change"] > 0
    lines = [
        f"With the maps grown, deposit's mean ({seconds(mean_g)}) is "
        + ("above" if above else "not above")
        + f" its p99 ({seconds(grown['p99_s'])}); sized up front, its mean is {seconds(mean_p)} against a p99 of {seconds(presized['p99_s'])}."
    ]
    if moved_less:
        lines.append(
            f"Sizing the maps up front changed deposit's self time to {change_words(dep['change'], dep['ci'])} of the grown maps': "
            "the growth of the maps (rehashing into a table twice as large) is measured to cost the difference"
            + ("; and it is what put the mean above the p99." if above and mean_p <= presized["p99_s"] else ".")
        )
    elif dep.get("moved"):
        lines.append(f"Sizing the maps up front made deposit slower: {change_words(dep['change'], dep['ci'])}; growth is not the cost.")
    else:
        lines.append(
            f"Sizing the maps up front did not move deposit's self time measurably ({change_words(dep['change'], dep['ci'])}): "
            "no cost of the growth is shown, and rehashing is not a cause these runs support."
        )
    conclusion = " ".join(lines)
else:
    conclusion = "The deposit span has no interval in this run: nothing is concluded about the growth of the maps."
blocks["presize"] = (
    f"{pre['name']}: wall time sized up front over grown {change_words(pre['change'], pre['ci'])}, **{pre['verdict']}**.\n\n"
    + "\n".join(rows)
    + "\n\n"
    + conclusion
)

# 6. the worker threads: CPU time and the off-CPU profile
off = load("offcpu.json")
rows = [
    "| engine | thread | on the CPU | blocked | preempted |",
    "| --- | --- | --- | --- | --- |",
]
sentences = []
for version, prof in zip(("v1", "v2"), off["profiles"]):
    oc = prof.get("off_cpu") or {}
    for t in oc.get("threads", []):
        rows.append(
            f"| {version} | {t['name']} ({t['tid']}) | {seconds(t['on_cpu_ns'] / 1e9)} | {seconds(t['blocked_ns'] / 1e9)} | {seconds(t['preempted_ns'] / 1e9)} |"
        )
    total = oc.get("on_cpu_ns", 0) + oc.get("blocked_ns", 0) + oc.get("preempted_ns", 0)
    if total:
        recv = max(
            (f for f in oc.get("functions", []) if "recv" in f["name"]),
            key=lambda f: f["blocked_ns"],
            default=None,
        )
        send = max(
            (f for f in oc.get("functions", []) if "send" in f["name"]),
            key=lambda f: f["blocked_ns"],
            default=None,
        )
        s = (
            f"{version}: of the threads' {seconds(total / 1e9)}, {share(oc['on_cpu_ns'] / total)} on the CPU, "
            f"{share(oc['blocked_ns'] / total)} blocked and {share(oc['preempted_ns'] / total)} preempted"
        )
        if recv:
            s += f"; blocked in a channel receive: {seconds(recv['blocked_ns'] / 1e9)}"
        if send:
            s += f", in a send: {seconds(send['blocked_ns'] / 1e9)}"
        sentences.append(s + ".")
    chan = [f for f in prof["functions"] if re.search(r"mpmc|sync_channel|Receiver|SyncSender", f["name"])]
    if chan:
        top = max(chan, key=lambda f: f["inclusive_samples"])
        sentences.append(
            f"{version}: the channel's busiest function, `{top['name'][:60]}`, holds {share(top['inclusive_share'])} "
            f"[{share(top['inclusive_ci'][0])}, {share(top['inclusive_ci'][1])}] of the on-CPU samples."
        )
cpu_sentence = ""
if cpu_ratio:
    r, lo, hi = cpu_ratio
    cpu_sentence = (
        f"The worker threads' CPU time over one thread's (v1, the same stream): {ratio_words(r, lo, hi)}, "
        f"{cpu_words}. "
    )
blocks["threads"] = (
    cpu_sentence
    + "Off-CPU profile (one run each, measured from the scheduler's switches, no sampling interval):\n\n"
    + "\n".join(rows)
    + "\n\n"
    + "\n".join(f"- {s}" for s in sentences)
)

# 7. the sweep, and the original's projections beside measured figures
sweep = load("sweep.json")
sw = sweep["sweep"]
commands = [c["name"] if isinstance(c, dict) else c for c in sw["commands"]]
rows = ["| n | " + " | ".join(f"{c}: wall [95%] | {c}: transactions/s [95%]" for c in commands) + " |",
        "|" + " --- |" * (1 + 2 * len(commands))]
measured_sizes = []
largest = {}
for point in sw["points"]:
    n = point["size"]
    cols = []
    for r in point["results"]:
        v = r.get("value")
        if not v or r["runs"] < 1:
            cols += ["no interval", ""]
            continue
        star = "" if r["precise"] else "*"
        cols += [
            f"{seconds(v['estimate'])} [{seconds(v['lo'])}, {seconds(v['hi'])}] ({r['runs']}{star} runs)",
            f"{n / v['estimate'] / 1e6:.2f}M [{n / v['hi'] / 1e6:.2f}M, {n / v['lo'] / 1e6:.2f}M]",
        ]
        largest[r["command"]] = (n, v)
    measured_sizes.append(n)
    rows.append(f"| {n:,.0f} | " + " | ".join(cols) + " |")
requested = [float(x) for x in settings[3].split(",")]
if sorted(measured_sizes) != sorted(requested):
    raise SystemExit(f"the sweep's table has sizes {measured_sizes}, not the sizes swept {requested}")
fits = []
for series in sw.get("series", []):
    words = []
    lin = series.get("linear")
    if lin:
        words.append(
            f"one more transaction costs {seconds(lin['marginal'])} [{seconds(lin['marginal_lo'])}, {seconds(lin['marginal_hi'])}], "
            f"the fixed part is {seconds(lin['fixed'])} [{seconds(lin['fixed_lo'])}, {seconds(lin['fixed_hi'])}]"
        )
    fit = series.get("fit")
    if fit:
        what = "the cost above the fixed part" if series.get("basis") == "marginal" else "the cost"
        words.append(f"{what} grows as n^{fit['exponent']:.2f} [{fit['lo']:.2f}, {fit['hi']:.2f}]")
    if words:
        fits.append(f"{series['command']}: " + "; ".join(words))
blocks["sweep"] = (
    "\n".join(rows)
    + "\n\n"
    + ("Fitted over the sizes swept, " + "; ".join(fits) + "." if fits else "")
    + " `*`: the point stopped at its run limit before its interval reached ±2%."
)

proj = ["| the original's figure | what it was | measured here, at the size it speaks of |", "| --- | --- | --- |"]
measured_rates = []
for command, label in (("one-thread", "one thread"), ("worker-threads", "worker threads")):
    if command in largest:
        n, v = largest[command]
        measured_rates.append(
            f"{label}: {n / v['estimate'] / 1e6:.2f}M [{n / v['hi'] / 1e6:.2f}M, {n / v['lo'] / 1e6:.2f}M] transactions/s"
        )
if measured_rates:
    proj.append(
        "| “46M tx/sec” at 10K streams, “8x improvement” | a benchmark's figure carried into the recommendations; "
        "its profile was never run (“would require larger profile run”) | "
        f"v1 at {n:,.0f} transactions, the sweep's largest point: " + "; ".join(measured_rates) + " |"
    )
variants = {v["name"]: v for v in scen["variants"]}


def median_of(name):
    v = variants.get(name)
    return v["summary"]["median"] if v else None


for label, original, candidate in (
    ("“Normalized: ~171ms” (store-intensive)", "68.49 ms for a lighter mix, scaled by the original to the baseline's 900K deposits and withdrawals", "store-heavy"),
    ("“126.04ms extrapolated to 1M tx” (workflow-heavy)", "63.02 ms at 500K transactions, doubled", "dispute-heavy"),
):
    c = cells.get(("v1", candidate))
    base = median_of("v1 / baseline") or median_of("baseline / v1")
    mine = median_of(f"v1 / {candidate}") or median_of(f"{candidate} / v1")
    measured = f"`{candidate}` at {transactions:,} transactions, the baseline's size: median {seconds(mine)} against {seconds(base)}"
    if c and c.get("ci"):
        measured += f"; time over the baseline's {change_words(c['change'], c['ci'])}"
    proj.append(f"| {label} | {original} | {measured} |")
blocks["projections"] = "\n".join(proj)

# Warnings of every experiment's profiles, each kind once.
KINDS = [
    ("counters never incremented", r"counter `([^`]+)`.*never incremented"),
    ("gauges never set", r"gauge `([^`]+)`.*never set"),
    ("spans never entered", r"span `([^`]+)`.*never entered"),
    ("spans whose mean is within 4× the cost of a span (mostly probe cost)", r"span `([^`]+)`.*has a mean of"),
    ("threads whose span time was mostly off the CPU (waiting)", r"on thread (.+?) was spent off the CPU"),
    ("threads with more than 10% outside any top-level span", r"of thread (.+?)'s .* outside any top-level span"),
    ("the probes' own cost estimated above 5% of the threads' wall time", r"(the probes themselves) took"),
    ("variants that print different balances (here: different workloads, on purpose)", r"and every run of (.+?) too, but the two differ"),
    ("variants whose median run waited for a CPU (a busy machine)", r'the median run of "(.+?)" waited for a CPU'),
]
groups = {}
other = {}
for name in ("suite.json", "scenarios.json", "ab-one-thread.json", "ab-threads.json", "cpu-threads.json", "presize.json", "sweep.json"):
    doc = load(name)
    for w in (doc.get("profile_warnings") or []) + (doc.get("warnings") or []):
        for kind, pattern in KINDS:
            m = re.search(pattern, w)
            if m:
                groups.setdefault(kind, {}).setdefault(m.group(1), set()).add(doc["name"])
                break
        else:
            key = re.sub(r"\d[\d.,]*", "#", re.sub(r"\(\d+ of \d+ profiles.*?\)", "", w.split(": ", 1)[-1]))
            other.setdefault(key, (w, set()))[1].add(doc["name"])
rows = ["| warning | about | experiments |", "| --- | --- | --- |"]
for kind, subjects in groups.items():
    exps = sorted(set().union(*subjects.values()))
    rows.append(f"| {kind} | {', '.join(f'`{s}`' for s in sorted(subjects))} | {len(exps)}: {', '.join(exps)} |")
for key, (example, exps) in other.items():
    rows.append(f"| {example[:200]} | | {len(exps)}: {', '.join(sorted(exps))} |")
blocks["warnings"] = "\n".join(rows)


# The answer, from the figures above.
answer = [
    f"- **v2 against v1**: {suite_sentence}",
    f"- **The original's claims**: {claims_sentence}",
    f"- **Where one thread's CPU time goes**: {verdict} (sampled, section 4).",
]
if cpu_ratio:
    r, lo, hi = cpu_ratio
    answer.append(
        f"- **Threads**: the multi-threaded path of v1 spends {ratio_words(r, lo, hi)} the CPU time of one thread "
        f"for the same stream ({cpu_words}); where its threads' wall time goes is in section 5."
    )
blocks["answer"] = "\n".join(answer)

readme = HERE / "README.md"
body = readme.read_text()
for name, content in blocks.items():
    pattern = re.compile(rf"(<!-- begin: {re.escape(name)} -->\n).*?(<!-- end: {re.escape(name)} -->)", re.S)
    if not pattern.search(body):
        raise SystemExit(f"README.md has no block `{name}`")
    body = pattern.sub(lambda m: m.group(1) + content.rstrip("\n") + "\n" + m.group(2), body)
readme.write_text(body)
