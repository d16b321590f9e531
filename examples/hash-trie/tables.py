#!/usr/bin/env python3
"""The README's tables and conclusions, computed from perflab's JSON documents.

investigate.sh runs each subcommand and writes its output into a marked block
of README.md, so that every figure there is perflab's and every conclusion
that rests on an interval is derived here from that interval, not typed:

  sweep SWEEP.json [CLIFF] [--steps=FILE]
                               per-item cost and ratio to the reference per
                               size, the growth exponent, and each step between
                               sizes judged as cliff / no cliff / undecided
                               (every step's figures in FILE)
  history OP STEP.json...      each step of the trie's history and the last
                               commit against the first (interleaved A/Bs),
                               and the net result in words
  pool POOL.json               the pool-size A/B with the pool's telemetry
  profile PROPER.json SMALL.json
                               the same program profiled with few and with
                               enough samples: shares with their intervals
  warnings FILE.json...        every warning of the documents, grouped once
  answer DIR                   the headline, from the documents in DIR
  fill README.md DIR           rewrites every block `<!-- begin: NAME -->` ...
                               `<!-- end: NAME -->` of README.md with DIR/NAME.md
                               as it is, or DIR/NAME.txt in a text fence; a
                               block without its file is an error, so that no
                               figure is left from an earlier run
"""
import json
import math
import re
import sys

# --- wording -------------------------------------------------------------


def load(path):
    with open(path) as f:
        return json.load(f)


def si_time(ns):
    """A duration in nanoseconds, in the unit that suits it."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def pct(fraction):
    p = fraction * 100
    return f"{p:+.1f}%" if abs(p) >= 1 else f"{p:+.2f}%"


def ratio_of_change(doc_or_judgement, change, ci):
    """A change as documents store it (positive: the candidate is better) as
    the candidate's value over the baseline's, with its interval."""
    better = doc_or_judgement
    to_ratio = (lambda c: 1 / (1 + c)) if better == "lower" else (lambda c: 1 + c)
    r = to_ratio(change)
    if ci is None:
        return r, None
    a, b = to_ratio(ci[0]), to_ratio(ci[1])
    return r, (min(a, b), max(a, b))


def ratio_cell(r, iv):
    cell = f"{r:.2f}× ({pct(r - 1)})"
    if iv:
        cell += f" [{pct(iv[0] - 1)}, {pct(iv[1] - 1)}]"
    return cell


def half_width(iv):
    """Relative half-width of a positive interval, as perflab prints `±x%`."""
    return (iv["hi"] - iv["lo"]) / 2 / iv["estimate"]


# --- sweeps ----------------------------------------------------------------


def step_judgements(points, cliff):
    """Each step between adjacent sizes of one curve of cost per item, judged
    the way perflab finds cliffs (perflab-stats `find_cliffs`): the trend is
    the median slope on log-log axes (zero with fewer than three steps); a
    step's jump beyond the trend is at least lo_after / hi_before and at most
    hi_after / lo_before divided by what the trend predicts. Two 95%
    intervals hold together at least 90% of the time, so the range is a
    conservative interval for the jump. A cliff when even its lower end
    exceeds 1 + cliff (perflab flags it), no cliff when even its upper end
    stays below, undecided when the range straddles the threshold."""
    points = sorted(points, key=lambda p: p[0])
    slopes = [
        (math.log(b[1]["estimate"]) - math.log(a[1]["estimate"])) / (math.log(b[0]) - math.log(a[0]))
        for a, b in zip(points, points[1:])
    ]
    ordered, k = sorted(slopes), len(slopes)
    trend = (ordered[(k - 1) // 2] + ordered[k // 2]) / 2 if k >= 3 else 0.0
    steps = []
    for (m, before), (n, after) in zip(points, points[1:]):
        expected = (n / m) ** trend
        lo = after["lo"] / before["hi"] / expected
        hi = after["hi"] / before["lo"] / expected
        est = after["estimate"] / before["estimate"] / expected
        if lo > 1 + cliff:
            word = "cliff"
        elif hi < 1 + cliff:
            word = "no cliff"
        else:
            word = "undecided"
        steps.append((m, n, est, lo, hi, word))
    return trend, steps


def size_label(n):
    n = int(n)
    if n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n % 1000 == 0:
        return f"{n // 1000}K"
    return str(n)


def series_steps(sw, cliff):
    """Every series of a sweep: its name, its power-law fit, its judged steps."""
    judged = []
    for s in sw["series"]:
        marginal = s.get("basis") == "marginal"
        pts = []
        for i, k in enumerate(s["points"]):
            point = sw["points"][k]
            res = next(r for r in point["results"] if r["command"] == s["command"])
            iv = (s.get("marginal_per_item") or [None] * len(s["points"]))[i] if marginal else res.get("per_item")
            if iv:
                pts.append((point["size"], iv))
        _, steps = step_judgements(pts, cliff)
        name = s["command"] + (f" ({s['fixed']})" if s.get("fixed") else "")
        judged.append((name, s.get("fit"), steps))
    return judged


def cliff_words(judged, cliff):
    """Per series: cliff (where), no cliff (with the largest jump the
    intervals allow), or none found and none ruled out (where)."""
    words = []
    for name, _, steps in judged:
        if not steps:
            continue
        worst = max(steps, key=lambda st: st[4])
        where = lambda word: ", ".join(f"{size_label(m)} → {size_label(n)}" for m, n, *_, w in steps if w == word)
        if any(st[5] == "cliff" for st in steps):
            words.append(f"{name}: **a cliff** at {where('cliff')}")
        elif any(st[5] == "undecided" for st in steps):
            words.append(f"{name}: no cliff found, **none ruled out** at {where('undecided')} "
                         f"(up to {pct(worst[4] - 1)} allowed)")
        else:
            words.append(f"{name}: **no cliff** (every step below {cliff * 100:.0f}%, "
                         f"at most {pct(worst[4] - 1)})")
    return words


def sweep(path, cliff=None, details_path=None):
    doc = load(path)
    sw = doc["sweep"]
    cliff = sw.get("cliff", 0.25) if cliff is None else cliff
    commands = [c["name"] for c in sw["commands"]]
    reference = next((c["name"] for c in sw["commands"] if c.get("reference")), None)
    others = [c for c in commands if c != reference]
    # Points grouped by their parameters other than the size.
    size_param = sw.get("size") or "n"
    groups = {}
    for point in sw["points"]:
        rest = " ".join(f"{k}={v}" for k, v in sorted(point["params"].items()) if k != size_param)
        groups.setdefault(rest, []).append(point)
    out = []
    for rest, points in groups.items():
        title = f" ({rest})" if rest else ""
        head = ["n", "runs"] + [f"{c}: per item" for c in commands]
        head += [f"{c} ÷ {reference}" for c in others] if reference else []
        out.append(f"Cost per item of the timed phase{title}, 95% intervals "
                   f"(±: half-width; ratios: per point, from the pairs of each block):\n")
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + " --- |" * len(head))
        for point in sorted(points, key=lambda p: p["size"]):
            by = {r["command"]: r for r in point["results"]}
            runs = sorted({by[c]["runs"] for c in commands if c in by})
            marked = "" if all(by[c]["precise"] for c in commands if c in by) else "*"
            row = [size_label(point["size"]), "/".join(map(str, runs)) + marked]
            for c in commands:
                pi = by[c].get("per_item")
                row.append(f"{si_time(pi['estimate'])} ±{half_width(pi) * 100:.1f}%" if pi else "")
            for c in others if reference else []:
                r = by[c].get("ratio")
                row.append(f"{r['estimate']:.2f}× [{r['lo']:.2f}, {r['hi']:.2f}]" if r else "")
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    if any(not r["precise"] for p in sw["points"] for r in p["results"]):
        out.append(f"\\* did not reach ±{sw['precision'] * 100:.0f}% within {sw['max_runs']} runs "
                   f"(or before the sweep's time limit): wider intervals, shown as they are.\n")
    # Growth and steps, per series.
    out.append(f"Growth (total cost ≈ a·n^b, 1 = linear) and every step between adjacent sizes: "
               f"the jump of cost per item beyond the curve's trend, with the range both points' "
               f"intervals allow; a cliff is a jump of more than {cliff * 100:.0f}% "
               f"(perflab's `--cliff`):\n")
    out.append("| series | growth exponent b | steps: no cliff / undecided / cliff | largest jump the intervals allow |")
    out.append("| --- | --- | --- | --- |")
    judged = series_steps(sw, cliff)
    details = []
    for name, fit, steps in judged:
        fit_cell = f"{fit['exponent']:.2f} [{fit['lo']:.2f}, {fit['hi']:.2f}]" if fit else ""
        counts = {w: sum(1 for st in steps if st[5] == w) for w in ("no cliff", "undecided", "cliff")}
        worst = max(steps, key=lambda st: st[4]) if steps else None
        worst_cell = (f"{pct(worst[4] - 1)} ({size_label(worst[0])} → {size_label(worst[1])})" if worst else "")
        out.append(f"| {name} | {fit_cell} | {counts['no cliff']} / {counts['undecided']} / {counts['cliff']} | {worst_cell} |")
        details += [(name,) + st for st in steps]
    print("\n".join(out))
    if details_path:
        rows = [f"\n### Every step of {doc.get('name') or path}, judged\n",
                "| series | step | jump beyond the trend | range the intervals allow | judged |",
                "| --- | --- | --- | --- | --- |"]
        for name, m, n, est, lo, hi, word in details:
            rows.append(f"| {name} | {size_label(m)} → {size_label(n)} | {pct(est - 1)} | "
                        f"[{pct(lo - 1)}, {pct(hi - 1)}] | {word} |")
        with open(details_path, "w") as f:
            f.write("\n".join(rows) + "\n")


# --- the history -----------------------------------------------------------


def verdict_of(doc):
    return doc.get("verdict") or (doc.get("decision") or {}).get("verdict") or "no verdict"


def ab_row(doc):
    better = doc["metric"]["better"]
    r, iv = ratio_of_change(better, doc["change"], doc.get("ci"))
    runs = "/".join(str(v["runs"]) for v in doc["variants"])
    a, b = doc["variants"][0]["name"], doc["variants"][1]["name"]
    return a, b, r, iv, verdict_of(doc), runs


def history(op, paths):
    """STEP.json files of `perflab ab --rev BEFORE --rev AFTER`, the last one
    being the last commit against the first; then perflab history's JSON."""
    ab_paths = [p for p in paths if "history-" not in p]
    history_paths = [p for p in paths if "history-" in p]
    out = [f"**{op}**: op_cpu_ns after ÷ before (above 1: slower), 95% intervals, interleaved A/Bs of the two commits:\n"]
    out.append("| from | to | after ÷ before | verdict | runs |")
    out.append("| --- | --- | --- | --- | --- |")
    rows = [ab_row(load(p)) for p in ab_paths]
    for a, b, r, iv, verdict, runs in rows:
        out.append(f"| {a} | {b} | {ratio_cell(r, iv)} | {verdict} | {runs} |")
    for path in history_paths:
        h = load(path)
        for series in h["series"]:
            total = series.get("total")
            if total:
                better = h["better"]
                r, iv = ratio_of_change(better, total["change"], total.get("ci"))
                first, last = series["steps"][0]["label"], series["steps"][-1]["label"]
                n_cp = len(series.get("change_points", []))
                out.append(f"| {first} (history) | {last} | {ratio_cell(r, iv)} | {total['verdict']} | "
                           f"{'/'.join(str(len(s['values'])) for s in series['steps'])}; "
                           f"{n_cp} change point{'s' if n_cp != 1 else ''} |")
    out.append("")
    out.append(net_line(op, rows[-1]))
    print("\n".join(out))


def net_line(op, row):
    """The net result in words, from the A/B of the last commit against the first."""
    a, b, r, iv, verdict, runs = row
    if iv is None:
        return f"Net result ({op}): {b} against {a} has no interval ({verdict})."
    if iv[0] > 1:
        word = f"is **slower** than {a}"
    elif iv[1] < 1:
        word = f"is **faster** than {a}"
    else:
        word = f"is **not shown to differ** from {a}"
    return (f"Net result ({op}): after every step, {b} {word}: it takes {r:.2f}× its CPU time "
            f"({pct(r - 1)}, 95% interval [{pct(iv[0] - 1)}, {pct(iv[1] - 1)}]), {verdict}.")


# --- the pool --------------------------------------------------------------


def gauge(doc, name, i):
    for g in doc.get("gauges", []):
        if g["name"] == name and g["per_variant"][i]:
            return g["per_variant"][i].get("mean")
    return None


def pool(path):
    doc = load(path)
    a, b, r, iv, verdict, runs = ab_row(doc)
    out = ["| variant | pool utilisation | fallback rate | peak memory (median) |", "| --- | --- | --- | --- |"]
    for i, v in enumerate(doc["variants"]):
        peaks = sorted(d["peak_memory_kib"] for d in v.get("run_details", []))
        peak = f"{peaks[len(peaks) // 2] / 1024:.1f} MiB" if peaks else ""
        u, f = gauge(doc, "pool_utilisation_pct", i), gauge(doc, "pool_fallback_rate_pct", i)
        out.append(f"| {v['name']} | {'' if u is None else f'{u:.0f}%'} | {'' if f is None else f'{f:.1f}%'} | {peak} |")
    out.append("")
    out.append(pool_line(doc))
    print("\n".join(out))


def pool_line(doc):
    a, b, r, iv, verdict, runs = ab_row(doc)
    return f"op_cpu_ns, {b} ÷ {a}: {ratio_cell(r, iv)}, **{verdict}** ({runs} runs)."


# --- the answer ------------------------------------------------------------


def answer(folder):
    """The headline: each structure against std's HashMap at the smallest and
    the largest size, the cliff judgements, the pool's verdict, the net
    result of the history; every figure with its interval."""
    import os

    at = lambda name: os.path.join(folder, name)
    out = []
    for name, what in (("sweep-insert.json", "inserts"), ("sweep-query.json", "lookups"), ("sweep-rpds.json", None)):
        sw = load(at(name))["sweep"]
        reference = next((c["name"] for c in sw["commands"] if c.get("reference")), None)
        groups = {}
        for point in sw["points"]:
            rest = " ".join(f"{v}" for k, v in sorted(point["params"].items()) if k != (sw.get("size") or "n"))
            groups.setdefault(rest or what, []).append(point)
        for label, points in groups.items():
            points = sorted(points, key=lambda p: p["size"])
            first, last = points[0], points[-1]
            for result in first["results"][:1]:
                c = result["command"]
                if c == reference or not result.get("ratio"):
                    continue
                r0 = result["ratio"]
                r1 = next(r for r in last["results"] if r["command"] == c)["ratio"]
                out.append(f"- {label}, {c} ÷ {reference}, time per operation: {r0['estimate']:.2f}× "
                           f"[{r0['lo']:.2f}, {r0['hi']:.2f}] at n={size_label(first['size'])}, "
                           f"{r1['estimate']:.2f}× [{r1['lo']:.2f}, {r1['hi']:.2f}] at n={size_label(last['size'])}.")
        cliff = sw.get("cliff", 0.25)
        out.append(f"- Cliffs ({what or 'rpds sweep'}): " + "; ".join(cliff_words(series_steps(sw, cliff), cliff)) + ".")
    out.append(f"- The pool: {pool_line(load(at('pool-ab.json')))}")
    for op in ("insert", "query"):
        out.append(f"- {net_line(op, ab_row(load(at(f'step-{op}-baseline-pool-sized.json'))))}")
    print("\n".join(out))


# --- profiles --------------------------------------------------------------


def profile(proper_path, small_path, top=5):
    docs = [("proper", load(proper_path)), ("small", load(small_path))]
    prof = {k: d["profiles"][0] for k, d in docs}
    freq = {k: d["sampler"]["frequency_hz"] for k, d in docs}
    names = [f["name"] for f in prof["proper"]["functions"][:top]]
    out = [f"Self share of the top functions, 95% Wilson intervals: the same run profiled at "
           f"{freq['proper']} Hz ({prof['proper']['samples']} samples) and at {freq['small']} Hz "
           f"({prof['small']['samples']} samples, the size of the seed's profile):\n"]
    out.append(f"| function | {prof['proper']['samples']} samples | {prof['small']['samples']} samples |")
    out.append("| --- | --- | --- |")

    def cell(p, name):
        f = next((f for f in p["functions"] if f["name"] == name), None)
        if not f:
            return "not among the top functions"
        lo, hi = f["self_ci"]
        return f"{f['self_share'] * 100:.1f}% [{lo * 100:.1f}%, {hi * 100:.1f}%]"

    for name in names:
        short = name if len(name) < 60 else name[:57] + "…"
        out.append(f"| `{short}` | {cell(prof['proper'], name)} | {cell(prof['small'], name)} |")
    out.append("")
    for k, d in docs:
        for w in d.get("warnings", []):
            out.append(f"- perflab on the {prof[k]['samples']}-sample profile: {w}")
    if not any(d.get("warnings") for _, d in docs):
        out.append("- perflab warned about neither profile.")
    print("\n".join(out))


# --- warnings --------------------------------------------------------------

NUMBER = re.compile(r"[0-9][0-9.,]*")
QUOTED = re.compile(r'"[^"]*"|`[^`]*`')


def warnings(paths):
    """Every warning once: warnings that differ only in their figures, or in
    the variant they quote, are one entry, listed with every experiment
    (and variants) that gave it."""
    groups = {}
    for path in paths:
        doc = load(path)
        name = doc.get("name") or path
        variants = {v["name"] for v in doc.get("variants", [])}
        for w in doc.get("warnings", []) + doc.get("profile_warnings", []):
            # perflab names the variants a warning is about before its first colon.
            head, sep, rest = w.partition(": ")
            named = [v.strip() for v in head.split(",")]
            subject, text = (head, rest) if sep and all(v in variants for v in named) else ("", w)
            key = NUMBER.sub("#", QUOTED.sub("…", text))
            g = groups.setdefault(key, {"text": text, "where": {}})
            g["where"].setdefault(name, set()).update([subject] if subject else [])
    if not groups:
        print("perflab warned about none of the experiments.")
        return
    out = ["| warning (as first given) | experiments (variants) |", "| --- | --- |"]
    for g in groups.values():
        where = [f"{n} ({', '.join(sorted(v))})" if v else n for n, v in g["where"].items()]
        shown = "; ".join(where[:3]) + (f"; and {len(where) - 3} more" if len(where) > 3 else "")
        out.append(f"| {g['text'].replace('|', '/')} | {shown} |")
    print("\n".join(out))


BLOCK = re.compile(r"(<!-- begin: ([\w-]+) -->\n).*?(<!-- end: \2 -->)", re.S)


def fill(readme, folder):
    import pathlib

    folder = pathlib.Path(folder)

    def content(match):
        name = match.group(2)
        if name == "provenance":  # written by publish-gate.sh afterwards
            return match.group(0)
        md, txt = folder / f"{name}.md", folder / f"{name}.txt"
        if md.exists():
            body = md.read_text().rstrip("\n") + "\n"
        elif txt.exists():
            body = "```text\n" + txt.read_text().rstrip("\n") + "\n```\n"
        else:
            sys.exit(f"tables.py: README.md has a block `{name}` but neither {md} nor {txt} exists")
        return match.group(1) + body + match.group(3)

    path = pathlib.Path(readme)
    path.write_text(BLOCK.sub(content, path.read_text()))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "sweep":
        details = next((a.split("=", 1)[1] for a in args if a.startswith("--steps=")), None)
        rest = [a for a in args if not a.startswith("--steps=")]
        sweep(rest[0], float(rest[1]) if len(rest) > 1 else None, details)
    elif cmd == "history":
        history(args[0], args[1:])
    elif cmd == "pool":
        pool(args[0])
    elif cmd == "profile":
        profile(args[0], args[1])
    elif cmd == "warnings":
        warnings(args)
    elif cmd == "answer":
        answer(args[0])
    elif cmd == "fill":
        fill(args[0], args[1])
    else:
        sys.exit(f"tables.py: unknown subcommand '{cmd}'\n{__doc__}")


if __name__ == "__main__":
    main()
