"""Writes every figure of README.md from the documents of one run of
investigate.sh, and every conclusion that rests on an interval from that
interval and its verdict: no figure or reading here is typed in.

    /usr/bin/python3 figures.py OUT README.md

OUT holds the run's perflab-result/1 documents (`--json`), the store
(`perflab.db`, whose runs keep each run's perflab-profile/1 document) and
the text files the script saved. Each `<!-- begin: NAME -->` ...
`<!-- end: NAME -->` block of the README is replaced by the block NAME
below; a block the README lacks, or one it has and this script does not
write, is an error (exit 2).

Readings follow the intervals: a change is called a change only when its
95% interval excludes zero, and a change whose interval spans zero is
called undecided, never "unchanged" or "stays where it was". Two sweep
points are called different only when their intervals do not overlap (a
conservative reading: overlapping intervals do not show equality either).

The difference of two marginal costs, each with its own (possibly
asymmetric) interval from the same sweep, takes its interval by the method
of variance estimates recovery (MOVER: Zou and Donner, "Construction of
confidence limits about effect measures", Statistics in Medicine 27, 2008):
for d = a - b,
    lo = d - sqrt((a - a_lo)^2 + (b_hi - b)^2)
    hi = d + sqrt((a_hi - a)^2 + (b - b_lo)^2).
It assumes the two estimates independent (their runs are separate
processes, interleaved by the sweep) and each interval right on its own.
"""
import json
import math
import pathlib
import re
import sqlite3
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from figure_words import change_cell, fill_blocks, ratio_of_improvement, signed_percent  # noqa: E402  (the shared module is one folder up)


def fail(message):
    print(f"figures.py: {message}", file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------- wording


def duration(seconds):
    """A time with three significant decimals in a unit that suits it."""
    if seconds is None:
        return "-"
    s = abs(seconds)
    if s >= 1:
        return f"{seconds:.3f} s"
    if s >= 1e-3:
        return f"{seconds * 1e3:.3f} ms"
    if s >= 1e-6:
        return f"{seconds * 1e6:.3f} µs"
    return f"{seconds * 1e9:.1f} ns"








def reading_of(change, ci, less="less", more="more"):
    """What an interval of a change (decision orientation) allows one to say."""
    lo, hi = ci
    if lo > 0:
        return less
    if hi < 0:
        return more
    return "undecided (the interval spans zero)"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


# ---------------------------------------------------------------- reading


class Run:
    def __init__(self, out):
        self.out = out
        self.db = sqlite3.connect(f"file:{out / 'perflab.db'}?mode=ro", uri=True)

    def doc(self, name):
        path = self.out / f"{name}.json"
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError) as e:
            fail(f"cannot read {path}: {e}")

    def text(self, name):
        path = self.out / f"{name}.txt"
        try:
            return path.read_text()
        except OSError as e:
            fail(f"cannot read {path}: {e}")

    def profiles(self, experiment, variant=None):
        """The span profiles of an experiment's measured runs (no warm-up,
        no replaced run), of one variant or of all."""
        query = (
            "SELECT r.profile_json FROM runs r JOIN experiments e ON e.id = r.experiment_id "
            "JOIN variants v ON v.id = r.variant_id WHERE e.name = ? AND r.warmup = 0 "
            "AND r.replaced = 0 AND r.profile_json IS NOT NULL"
        )
        args = [experiment]
        if variant is not None:
            query += " AND v.name = ?"
            args.append(variant)
        rows = self.db.execute(query, args).fetchall()
        if not rows:
            fail(f"the store holds no profile of experiment `{experiment}` {variant or ''}")
        return [json.loads(r[0]) for r in rows]


def span(doc, name, variant=0):
    for s in doc.get("spans", []):
        if s["name"] == name:
            return s, s["per_variant"][variant]
    return None, None


def counter_total(doc, name, variant=0):
    for c in doc.get("counters", []):
        if c["name"] == name and c["per_variant"][variant] is not None:
            return c["per_variant"][variant]["total"]
    return 0


def entered(stats):
    return stats is not None and stats.get("runs_entered", stats.get("runs", 1)) > 0


# ---------------------------------------------------------------- blocks


def block_spans(run):
    """The span table of the spin and notify runs, compact; spans that
    never ran say so instead of showing zeros."""
    spin, notify = run.doc("spin"), run.doc("notify")
    names = [s["name"] for s in spin["spans"]]
    names += [s["name"] for s in notify["spans"] if s["name"] not in names]
    rows = []
    for name in names:
        row = [f"`{name}`"]
        for doc in (spin, notify):
            _, st = span(doc, name)
            if name == "(unattributed)" and st is not None:
                row += ["-", duration(st["self_s"]), "-", "-"]
            elif not entered(st):
                row += ["never entered", "", "", ""]
            else:
                calls = f"{st['calls']:.0f}"
                if st.get("runs_entered") is not None and st["runs_entered"] < st["runs"]:
                    calls += f" (entered in {st['runs_entered']} of {st['runs']} runs)"
                if st["calls"] == 0:
                    row += [calls, "-", "-", "-"]
                else:
                    row += [calls, duration(st["self_s"]), duration(st.get("p50_s")), duration(st.get("p99_s"))]
        rows.append(row)
    runs = spin["variants"][0]["runs"]
    head = (
        f"Medians per run over {runs} runs of each (`perflab run`, {records(spin)} records); "
        "p50 and p99 are perflab's histogram percentiles of one call, within 1/64.\n\n"
    )
    return head + table(
        ["span", "spin: calls", "self", "p50", "p99", "notify: calls", "self", "p50", "p99"], rows
    )


def records(doc):
    return f"{counter_total(doc, 'records_in'):,.0f}"


def thread_clocks(profiles):
    """Per thread (by name and perflab's number), the medians over runs of
    wall, CPU, preempted, blocked and unattributed time, seconds."""
    by_thread = {}
    for p in profiles:
        for t in p.get("threads", []):
            key = f"{t.get('name') or 'thread'} (#{t['id']})"
            by_thread.setdefault(key, []).append(t)
    clocks = {}
    for key, rows in sorted(by_thread.items(), key=lambda kv: kv[1][0]["id"]):
        def med(field):
            values = [r[field] for r in rows if r.get(field) is not None]
            return statistics.median(values) / 1e9 if values else None

        clocks[key] = {f: med(f + "_ns") for f in ("wall", "cpu", "preempted", "blocked", "unattributed")}
        clocks[key]["runs"] = len(rows)
    return clocks


def block_threads(run):
    """Each thread's wall time split by the scheduler's clocks, and what
    that allows one to say of its unattributed time: at most its CPU time
    of it can have been spent on the CPU, so at least the rest was spent
    off it."""
    rows = []
    for variant in ("spin", "notify"):
        clocks = thread_clocks(run.profiles(f"spans: {variant}"))
        for thread, c in clocks.items():
            if c["wall"] is None:
                continue
            u, cpu = c["unattributed"], c["cpu"]
            off = duration(max(0.0, u - cpu)) if u is not None and cpu is not None else "-"
            rows.append(
                [variant, thread, duration(c["wall"]), duration(cpu), duration(c["preempted"]),
                 duration(c["blocked"]), duration(u), off]
            )
    if not rows:
        return "The profiles hold no thread clocks on this system."
    return (
        "Medians per run of each thread's clocks, from the scheduler's statistics "
        "(wall = on the CPU + preempted + blocked; medians of different runs, so the last column "
        "is approximate):\n\n"
        + table(["variant", "thread", "wall", "on the CPU", "preempted", "blocked", "unattributed",
                 "unattributed off the CPU, at least"], rows)
    )


def block_futures(run):
    """Polls, wake-ups, yields per record; busy and idle time."""
    rows = []
    for variant in ("spin", "notify"):
        doc = run.doc(variant)
        n = counter_total(doc, "records_in")
        yields = counter_total(doc, "partition_yields")
        for name in ("partition", "partition receive", "coordinator"):
            _, st = span(doc, name)
            if not entered(st) or st.get("async") is None:
                rows.append([variant, f"`{name}`", "never entered", "", "", ""])
                continue
            a = st["async"]
            rows.append(
                [variant, f"`{name}`", duration(a["busy_s"]), duration(a.get("idle_s")),
                 f"{a['polls'] / n:.3f}" if n else "-",
                 f"{yields / n:.3f}" if n and name == "partition" else ""]
            )
    return table(["variant", "future", "busy", "idle", "polls per record", "yields per record"], rows)


def ab_row(doc):
    d = doc["decision"]
    v = doc["variants"]
    return [
        doc["metric"]["name"],
        duration(v[0]["summary"]["median"]),
        duration(v[1]["summary"]["median"]),
        change_cell(d["change"], d["ci"]),
        f"**{d['verdict']}**",
        f"{d['runs']}",
    ]


def block_ab(run):
    cpu, wall = run.doc("ab-cpu"), run.doc("ab-wall")
    out = [
        table(
            ["metric", "spin (median)", "notify (median)", "notify vs spin [95% interval]", "verdict", "runs each"],
            [ab_row(cpu), ab_row(wall)],
        ),
        "",
        "Self time of each span in the CPU-time A/B (medians per run), notify against spin; "
        "a reading is given only where the interval excludes zero:\n",
    ]
    rows = []
    for s in cpu.get("spans", []):
        a, b = s["per_variant"]
        if s.get("change") is None or s.get("ci") is None:
            if not entered(a) or not entered(b):
                reading = "never entered in " + " and ".join(
                    n for n, st in (("spin", a), ("notify", b)) if not entered(st)
                )
            else:
                reading = "no interval"
            rows.append([f"`{s['name']}`", cell_self(a), cell_self(b), "-", reading])
            continue
        rows.append(
            [f"`{s['name']}`", cell_self(a), cell_self(b), change_cell(s["change"], s["ci"]),
             reading_of(s["change"], s["ci"], "less with notify", "more with notify")]
        )
    out.append(table(["span", "spin", "notify", "notify vs spin", "reading"], rows))
    return "\n".join(out)


def cell_self(stats):
    if not entered(stats):
        return "never entered"
    if stats.get("runs_entered") is not None and stats["runs_entered"] < stats["runs"]:
        return f"{duration(stats['self_s'])} (entered in {stats['runs_entered']} of {stats['runs']} runs)"
    return duration(stats["self_s"])


def verdict_sentence(doc, what):
    d = doc["decision"]
    r = ratio_of_improvement(d["change"])
    reading = reading_of(d["change"], d["ci"], f"less {what}", f"more {what}")
    if reading.startswith("undecided"):
        said = f"these runs do not tell the two apart on {what}: {reading}"
    else:
        said = f"notify takes {reading}"
    return (
        f"notify takes {r:.2f}× the {what} of spin, {change_cell(d['change'], d['ci'])} (95% interval), "
        f"{d['verdict']}: {said}"
    )


def linear_fits(doc):
    return {s["command"]: s.get("linear") for s in doc["sweep"]["series"]}


def mover(fa, fb):
    d = fa["marginal"] - fb["marginal"]
    lo = d - math.hypot(fa["marginal"] - fa["marginal_lo"], fb["marginal_hi"] - fb["marginal"])
    hi = d + math.hypot(fa["marginal_hi"] - fa["marginal"], fb["marginal"] - fb["marginal_lo"])
    return d, lo, hi


def difference_reading(lo, hi, a, b):
    if lo > 0:
        return f"{a} costs more per record than {b}"
    if hi < 0:
        return f"{a} costs less per record than {b}"
    return "not told apart (the interval includes zero)"


def block_per_record(run):
    doc = run.doc("sweep-engines")
    fits = linear_fits(doc)
    rows = []
    for name, fit in fits.items():
        if fit is None:
            rows.append([name, "no fit", ""])
            continue
        rows.append(
            [name, f"{duration(fit['fixed'])} [{duration(fit['fixed_lo'])}, {duration(fit['fixed_hi'])}]",
             f"{duration(fit['marginal'])} [{duration(fit['marginal_lo'])}, {duration(fit['marginal_hi'])}]"]
        )
    sizes = doc["sweep"]["parameters"]
    out = [
        f"cost = fixed + marginal × n over n = {', '.join(str(v) for p in sizes for v in p['values'])} "
        "(geometric means per point, weighted least squares, 95% intervals):\n",
        table(["command", "fixed part", "marginal cost per record"], rows),
        "",
        "Differences of marginal costs (95%, MOVER, see figures.py):\n",
    ]
    drows = []
    for a, b in [("sql, spin", "passthrough, spin"), ("sql, notify", "passthrough, notify"),
                 ("sql, spin", "sql, notify"), ("passthrough, spin", "passthrough, notify")]:
        if fits.get(a) is None or fits.get(b) is None:
            continue
        d, lo, hi = mover(fits[a], fits[b])
        drows.append([f"{a} − {b}", f"{duration(d)} [{duration(lo)}, {duration(hi)}]", difference_reading(lo, hi, a, b)])
    out.append(table(["difference", "per record", "reading"], drows))
    return "\n".join(out)


def point_cells(doc):
    """{(label, command): (value, lo, hi, ratio, ratio_lo, ratio_hi)} of a sweep."""
    cells = {}
    for p in doc["sweep"]["points"]:
        for r in p["results"]:
            v = r["value"]
            ratio = r.get("ratio")
            cells[(p["label"], r["command"])] = (v, ratio)
    return cells


def interval_of(x):
    """(estimate, lo, hi) of an interval object of the sweep document."""
    if x is None:
        return None
    if isinstance(x, dict) and {"estimate", "lo", "hi"} <= x.keys():
        return x["estimate"], x["lo"], x["hi"]
    fail(f"an interval of a sweep document has an unknown shape: {x!r}")


def block_sweep(run, name, parameter):
    doc = run.doc(name)
    sweep = doc["sweep"]
    commands = [c["name"] for c in sweep["commands"]]
    labels = [p["label"] for p in sweep["points"]]
    cells = point_cells(doc)
    rows = []
    for label in labels:
        row = [label]
        for c in commands:
            v, _ = cells[(label, c)]
            est, lo, hi = interval_of(v)
            row.append(f"{duration(est)} [{duration(lo)}, {duration(hi)}]")
        # spin over notify, with the sweep's ratio to its reference (the last command).
        _, ratio = cells[(label, commands[0])]
        r = interval_of(ratio)
        if r is None:
            row.append("-")
        else:
            est, lo, hi = r
            reading = "spin slower" if lo > 1 else "spin faster" if hi < 1 else "not told apart"
            row.append(f"{est:.2f}× [{lo:.2f}×, {hi:.2f}×]: {reading}")
        row.append(runs_of(doc, label))
        rows.append(row)
    out = [table([parameter] + [f"{c} (geometric mean [95%])" for c in commands]
                 + [f"{commands[0]} / {commands[-1]}", "runs"], rows), ""]
    # Along the parameter, within each command: first point against every other.
    for c in commands:
        first = labels[0]
        e0, lo0, hi0 = interval_of(cells[(first, c)][0])
        said = []
        for label in labels[1:]:
            e, lo, hi = interval_of(cells[(label, c)][0])
            if lo > hi0:
                said.append(f"slower at {label} than at {first}")
            elif hi < lo0:
                said.append(f"faster at {label} than at {first}")
            else:
                said.append(f"{label} and {first} not told apart (intervals overlap)")
        out.append(f"- {c}: " + "; ".join(said) + ".")
    return "\n".join(out)


def runs_of(doc, label):
    for p in doc["sweep"]["points"]:
        if p["label"] == label:
            return "/".join(str(r["runs"]) for r in p["results"])
    return "-"


def block_suite(run):
    doc = run.doc("suite")
    conf = doc.get("cell_confidence", 0.95)
    rows = []
    for c in doc["cells"]:
        if c.get("change") is None:
            rows.append([c["scenario"], c["variant"], "-", c["verdict"], c["runs"]])
            continue
        rows.append([c["scenario"], c["variant"], change_cell(c["change"], c["ci"]), f"**{c['verdict']}**", c["runs"]])
    head = (
        f"Each candidate against spin in each scenario, wall time, intervals at {conf * 100:.2f}% "
        f"so that 95% holds for all cells at once; suite verdict **{doc['verdict']}**.\n\n"
    )
    return head + table(["scenario", "candidate", "candidate vs spin", "verdict", "pairs"], rows)


def block_dropped(run):
    text = run.text("dropped")
    lines = [l for l in text.splitlines() if l.startswith("perflab: error") or l.startswith("The workload")]
    if not lines:
        fail("out/dropped.txt holds no refusal")
    return "```text\n" + "\n".join(lines) + "\n```"


def warnings_of(doc, kinds):
    return [w for w in doc.get("profile_warnings", []) if any(k in w for k in kinds)]


def block_misplaced(run):
    own = run.text("own-misplaced")
    doc = run.doc("misplaced")
    keep = [l for l in own.splitlines() if re.match(r"(read|process|write|framework|elapsed)", l)]
    warned = warnings_of(doc, ["one span costs", "thread main (#1)'s"])
    out = [
        "The program's own figures, as the seed printed them:\n",
        "```text\n" + "\n".join(keep) + "\n```\n",
        "perflab's warnings on the spans of the same code:\n",
        "```text\n" + "\n".join(w.split(": ", 1)[1] if ": " in w else w for w in warned) + "\n```",
    ]
    return "\n".join(out)


def block_settle(run):
    own = run.text("own-settle")
    base = run.text("own")
    elapsed = lambda t: next(l for l in t.splitlines() if l.startswith("elapsed"))
    doc = run.doc("settle")
    _, st = span(doc, "startup")
    warned = warnings_of(doc, ["inside spans on thread main (#1) was spent off the CPU"])
    sweep = run.doc("sweep-settle")
    fit = linear_fits(sweep).get("sql + sleep")
    warn_sweep = [w for w in sweep.get("warnings", []) if "fixed part" in w]
    out = [
        "```text\n"
        f"without the sleep:   {elapsed(base)}\n"
        f"with --settle-ms 100: {elapsed(own)}\n"
        "```\n",
        f"perflab: the `startup` span holds {duration(st['self_s'])} per run (median), and",
        "",
        "```text\n" + "\n".join(w.split(": ", 1)[1] if ": " in w else w for w in warned[:1]) + "\n```\n",
    ]
    if fit is not None:
        fixed = f"{duration(fit['fixed'])} [{duration(fit['fixed_lo'])}, {duration(fit['fixed_hi'])}]"
        marginal = (
            f"{duration(fit['marginal'])} [{duration(fit['marginal_lo'])}, {duration(fit['marginal_hi'])}]"
        )
        if fit["fixed_lo"] > 0:
            said = f"The sweep over record counts finds a fixed part of {fixed}, apart from {marginal} per record"
        else:
            said = (
                f"The sweep over record counts cannot tell its fixed part, {fixed}, from zero at this "
                f"noise ({marginal} per record)"
            )
        out.append(said + (":\n\n```text\n" + "\n".join(warn_sweep) + "\n```" if warn_sweep else "."))
    return "\n".join(out)


def block_seed_procedures(run):
    return "```text\n" + run.text("seed-procedures").rstrip("\n") + "\n```"


def block_answer(run):
    cpu, wall = run.doc("ab-cpu"), run.doc("ab-wall")
    out = [f"- {verdict_sentence(cpu, 'CPU time')}.", f"- {verdict_sentence(wall, 'wall time')}."]
    fits = linear_fits(run.doc("sweep-engines"))
    for a, b in [("sql, spin", "sql, notify"), ("sql, spin", "passthrough, spin")]:
        if fits.get(a) and fits.get(b):
            d, lo, hi = mover(fits[a], fits[b])
            out.append(
                f"- One more record: {a} − {b} = {duration(d)} [{duration(lo)}, {duration(hi)}]: "
                f"{difference_reading(lo, hi, a, b)}."
            )
    s, st = span(cpu, "process")
    if s is not None and s.get("ci") is not None:
        out.append(
            f"- The engine's own work (`process` self time), notify against spin: "
            f"{change_cell(s['change'], s['ci'])}: {reading_of(s['change'], s['ci'], 'less with notify', 'more with notify')}."
        )
    spin = run.doc("spin")
    n = counter_total(spin, "records_in")
    y = counter_total(spin, "partition_yields")
    if n:
        out.append(f"- A spinning partition yields {y / n:.3f} times per record (median run); a notified one never does.")
    return "\n".join(out)


# The off-CPU profile's kernel frames of the scheduler itself, on every
# stack; the frame that names the wait is the innermost kernel frame besides
# these (as perflab's own reports show a stack).
SCHEDULER_FRAMES = {
    "__schedule_[k]", "schedule_[k]", "preempt_schedule_[k]", "preempt_schedule_irq_[k]",
    "preempt_schedule_common_[k]", "__cond_resched_[k]", "_cond_resched_[k]",
}


def short(name, width=60):
    """A function's name cut to `width` characters (`…` where cut)."""
    return name if len(name) <= width else name[: width - 1] + "…"


# The C library's and std's system-call plumbing under every wait: left out
# of a stack's line so that the frames shown say who waited.
PLUMBING = re.compile(r"^<?std::sys::|^syscall$|^__GI_|^__libc_|^__futex")


def where_it_waited(frames, keep=3):
    """A stack in a line, as perflab's reports show it: the innermost `keep`
    frames of the program besides the system-call plumbing (outermost
    first, `…` where some were cut), then the innermost kernel frame
    besides the scheduler's, which names the wait. `frames` is outermost
    first, the thread's name first."""
    frames = frames[1:]
    program = [f for f in frames if not f.endswith("_[k]") and not PLUMBING.search(f)]
    kernel = next((f for f in reversed(frames) if f.endswith("_[k]") and f not in SCHEDULER_FRAMES), None)
    shown = ["…"] * (len(program) > keep) + [short(f) for f in program[-keep:]]
    if kernel:
        shown.append(kernel)
    return " → ".join(f"`{f}`" if f != "…" else f for f in shown)


def off_cpu_of(doc):
    """(strategy, its off-CPU profile) of the profile document, baseline
    first; the strategy is the command's `--wait`."""
    out = []
    for prof in doc["profiles"]:
        oc = prof.get("off_cpu")
        if oc is None:
            fail(f"profile `{prof['name']}` of out/offcpu.json holds no off-CPU profile (recorded without --off-cpu?)")
        wait = re.search(r"--wait (\S+)", prof["command"])
        out.append((wait.group(1) if wait else prof["name"], prof, oc))
    return out


def split_words(preempted, blocked):
    """Which cause most of a time off the CPU was, only where one of them
    was more than half of it; the times are measured, not sampled, so the
    reading is exact for the run profiled (and says nothing of another)."""
    off = preempted + blocked
    if off == 0:
        return "never off the CPU"
    if preempted * 2 > off:
        return f"mostly preempted ({preempted / off:.0%} of {duration(off / 1e9)} off the CPU waiting for a CPU)"
    if blocked * 2 > off:
        return f"mostly blocked ({blocked / off:.0%} of {duration(off / 1e9)} off the CPU asleep or waiting)"
    return f"preempted and blocked about equally ({preempted / off:.0%} preempted of {duration(off / 1e9)})"


def block_offcpu(run):
    """Where the threads' time off the CPU went in one profiled run of each
    strategy (`perflab profile --off-cpu`, spin the baseline): per thread,
    on the CPU, preempted and blocked; the longest stacks the threads left
    the CPU from; which cause most of it was; perflab's warnings. One run
    each and no sampling: the times carry no interval, so every sentence
    says what this run measured, never that the strategies differ in
    general (the A/B of section 3 carries that interval)."""
    doc = run.doc("offcpu")
    profiles = off_cpu_of(doc)
    records_of = re.search(r"--records (\S+)", profiles[0][1]["command"])
    rows, stacks, sentences = [], [], []
    for strategy, _, oc in profiles:
        mostly = {"preempted": 0, "blocked": 0}
        for i, th in enumerate(oc["threads"]):
            who = f"`{th['name']}` {th['tid']}" + (" (first to run)" if i == 0 else "")
            rows.append([strategy, who, duration(th["on_cpu_ns"] / 1e9), duration(th["preempted_ns"] / 1e9),
                         duration(th["blocked_ns"] / 1e9), th["intervals"]])
            for cause, other in (("preempted", "blocked"), ("blocked", "preempted")):
                if th[f"{cause}_ns"] > th[f"{other}_ns"]:
                    mostly[cause] += 1
        for s in oc["stacks"][:2]:
            stacks.append([strategy, s["cause"], duration(s["ns"] / 1e9), s["intervals"], where_it_waited(s["frames"])])
        n = len(oc["threads"])
        sentences.append(
            f"- {strategy}: its threads were {split_words(oc['preempted_ns'], oc['blocked_ns'])}; "
            f"{mostly['preempted']} of {n} threads more preempted than blocked, {mostly['blocked']} more blocked."
        )
    if len(profiles) == 2:
        (a, _, oa), (b, _, ob) = profiles
        moved = [
            f"{cause} {duration(oa[cause + '_ns'] / 1e9)} → {duration(ob[cause + '_ns'] / 1e9)}"
            + (f" ({signed_percent(ob[cause + '_ns'] / oa[cause + '_ns'] - 1)})" if oa[cause + "_ns"] else "")
            for cause in ("preempted", "blocked")
        ]
        sentences.append(f"- All threads, {a} → {b}: " + ", ".join(moved) + " (one run each: not a verdict).")
    head = (
        f"One profiled run of each strategy (`perflab profile --off-cpu --call-graph dwarf`, "
        f"`--records {records_of.group(1) if records_of else '?'}`; "
        + ", ".join(f"{prof['name']}: {strategy}" + " (the baseline)" * (i == 0)
                    for i, (strategy, prof, _) in enumerate(profiles))
        + "), measured from the scheduler's switches, not sampled: no interval. Below, the longest stacks "
        "off the CPU: the program's innermost frames, then the kernel's that names the wait.\n"
    )
    out = [head, table(["strategy", "thread", "on the CPU", "preempted", "blocked", "intervals"], rows), "",
           table(["strategy", "cause", "time", "intervals", "where it left the CPU"], stacks), "",
           "\n".join(sentences)]
    warned = doc.get("warnings", [])
    if warned:
        out.append("\nperflab's warnings about these profiles:\n\n```text\n" + "\n".join(warned) + "\n```")
    else:
        lost = ", ".join(f"{p[0]} {p[2]['lost_events']}" for p in profiles)
        out.append(f"\nperflab gave no warning about these profiles (events lost: {lost}).")
    return "\n".join(out)


WARNING_KINDS = [
    ("never entered", "exists in the program but was never entered"),
    ("never incremented", "was never incremented"),
    ("span time mostly off the CPU", "was spent off the CPU"),
    ("time outside any span (unattributed)", "outside any top-level span"),
    ("span figures mostly probe cost", "one span costs"),
]


def template(sentence):
    """A warning with its figures and quoted names taken out, so that the
    same warning about different variants or runs groups as one."""
    t = re.sub(r'"[^"]*"', '"…"', sentence)
    t = re.sub(r"\d+(\.\d+)?", "N", t)
    return t


def block_warnings(run):
    """Every warning of every experiment, grouped by kind, each kind once;
    the off-CPU profile's are in its own block."""
    docs = {}
    for path in sorted(run.out.glob("*.json")):
        if path.name.startswith("traced-"):
            continue
        doc = json.loads(path.read_text())
        if doc.get("format") == "perflab-sampling/1":
            continue
        docs[doc.get("name") or path.stem] = doc
    groups = {}
    others = {}
    for name, doc in docs.items():
        for w in doc.get("profile_warnings", []):
            for kind, marker in WARNING_KINDS:
                if marker in w:
                    subject = re.search(r"(span|counter) `([^`]+)`|thread ([^']+?)'s|on thread (.+?) was", w)
                    what = next((g for g in subject.groups()[1:] if g), "") if subject else ""
                    group = groups.setdefault(kind, ({}, set()))
                    group[0].setdefault(what.strip(), set()).add(name)
                    group[1].add(name)
                    break
            else:
                others.setdefault(template(w.split(": ", 1)[-1]), []).append((name, w.split(": ", 1)[-1]))
        warnings = list((doc.get("machine") or {}).get("warnings", [])) + list(doc.get("warnings", []))
        for w in warnings:
            others.setdefault(template(w), []).append((name, w))
    total = len(docs)
    rows = []
    for kind, _ in WARNING_KINDS:
        if kind not in groups:
            continue
        subjects, experiments = groups[kind]
        named = ", ".join(
            f"{s} ({len(e)})" for s, e in sorted(subjects.items()) if s
        )
        rows.append([kind, named or "-", f"{len(experiments)} of {total}"])
    out = [
        "From the runs' profiles (each subject with the number of experiments that warned about it):\n",
        table(["warning", "subjects", "experiments"], rows) if rows else "No warnings from the profiles.",
    ]
    if others:
        out.append("\nFrom perflab about the runs and the machine, each sentence once with how often it came:\n")
        for t, seen in sorted(others.items(), key=lambda kv: -len(kv[1])):
            experiments = sorted({e for e, _ in seen})
            # The first sentence stands for the group; the clause after a colon
            # (what to do) is in REPORT.md.
            example = seen[0][1].split(": ")[0]
            out.append(
                f"- {len(seen)}× in {len(experiments)} of {total} experiments"
                + (", for example: " if len(seen) > 1 else ": ")
                + example
            )
    return "\n".join(out)


def block_budget(run):
    seconds = run.text("seconds").strip()
    spin = run.doc("spin")
    over = int(seconds) > 15 * 60
    return (
        f"This run measured {records(spin)} records per run and took {seconds} s from the first "
        "measurement to the report (the build and the wait for a quiet machine not counted)"
        + (", over the budget of 15 minutes: lower the sizes." if over else ".")
    )


BLOCKS = {
    "answer": block_answer,
    "spans": block_spans,
    "threads": block_threads,
    "futures": block_futures,
    "ab": block_ab,
    "per-record": block_per_record,
    "batch": lambda run: block_sweep(run, "sweep-batch", "batch size"),
    "partitions": lambda run: block_sweep(run, "sweep-partitions", "partitions"),
    "suite": block_suite,
    "dropped": block_dropped,
    "misplaced": block_misplaced,
    "settle": block_settle,
    "seed-procedures": block_seed_procedures,
    "warnings": block_warnings,
    "budget": block_budget,
    "offcpu": block_offcpu,
}


def main(argv):
    if len(argv) != 3:
        fail("usage: figures.py OUT README.md")
    run = Run(pathlib.Path(argv[1]))
    readme = pathlib.Path(argv[2])
    fill_blocks(readme, BLOCKS, run, fail)


if __name__ == "__main__":
    main(sys.argv)
