"""Writes every figure of README.md from one run of investigate.sh, and
every conclusion that rests on an interval from that interval: no figure
or reading here is typed in.

    /usr/bin/python3 figures.py samples OUT          the span_cost samples perflab compare reads
    /usr/bin/python3 figures.py readme OUT README.md the README's blocks

OUT is the folder investigate.sh fills: one run of wordfreq per table size
(one-*.txt, one-*.json), the A/B (ab.txt, ab.json), and span_cost's runs
(cost/recording-N.txt, cost/idle-N.txt, cost/monotonic-N.txt, with the
profiles of the recording runs) and the two `perflab compare` results.

`samples` writes one number per line per case: each run's median of its
repetitions (one run is one sample; repetitions inside a run are not
independent of each other). `readme` replaces each `<!-- begin: NAME -->`
... `<!-- end: NAME -->` block of README.md by the block NAME below; a
block the README lacks, or one it has and this script does not write, is
an error (exit 2). The `provenance` block is publish-gate.sh's.

Readings follow the intervals: a change is called a change only when its
95% interval excludes zero; one whose interval spans zero is undecided,
never "unchanged".
"""
import json
import pathlib
import re
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from figure_words import change_cell, fill_blocks  # noqa: E402  (the shared module is one folder up)

# span_cost's cases, in the order it prints them.
CASES = ["empty", "span", "two-reads", "count", "gauge", "one-read"]
CASE_NAMES = {
    "empty": "empty loop",
    "span": "`PERFLAB_SCOPE` around the body",
    "two-reads": "two clock reads (what a span reads)",
    "count": "`PERFLAB_COUNT` in the body",
    "gauge": "`PERFLAB_GAUGE` in the body",
    "one-read": "one clock read (what a gauge reads)",
}
MODES = ["recording", "idle", "monotonic"]
LINE = re.compile(r"^  (.+?)\s+([0-9.]+)  \[([0-9.]+), ([0-9.]+)\]$")


def fail(message):
    print(f"figures.py: {message}", file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------- wording








def reading_of(ci, less, more, undecided="undecided (the interval spans zero)"):
    """What an interval of a change (decision orientation) allows one to say."""
    lo, hi = ci
    if lo > 0:
        return less
    if hi < 0:
        return more
    return undecided


def ns(value):
    return f"{value:.2f}"


def thousands(n):
    return f"{int(n):,}"


def fence(text):
    return "```text\n" + text.rstrip("\n") + "\n```"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


# ---------------------------------------------------------------- reading


class Run:
    def __init__(self, out):
        self.out = pathlib.Path(out)
        self.root = str(self.out.resolve().parents[2]) + "/"

    def text(self, name):
        path = self.out / name
        if not path.exists():
            fail(f"{path} is missing: run investigate.sh")
        # Paths are shown relative to the repository, wherever it was cloned.
        return path.read_text().replace(self.root, "")

    def json(self, name):
        return json.loads(self.text(name))

    def sizes(self):
        return dict(line.split("=", 1) for line in self.text("sizes.txt").split())

    def clock(self, mode):
        """The clock span_cost's clock rows read in `mode`, as it names them."""
        text = (self.out / "cost" / f"{mode}-1.txt").read_text()
        found = re.search(r"two clock reads \(([\w]+)\)", text)
        if not found:
            fail(f"span_cost names no clock in {self.out / 'cost' / f'{mode}-1.txt'}")
        return found.group(1)

    def cost_runs(self, mode):
        """Each run of span_cost in `mode`: {case: median}, in run order."""
        runs = []
        for path in sorted((self.out / "cost").glob(f"{mode}-*.txt"), key=lambda p: int(p.stem.split("-")[1])):
            medians = [float(m.group(2)) for m in map(LINE.match, path.read_text().splitlines()) if m]
            if len(medians) != len(CASES):
                fail(f"{path}: expected {len(CASES)} cases of span_cost, found {len(medians)}")
            runs.append(dict(zip(CASES, medians)))
        if not runs:
            fail(f"no runs of span_cost ({mode}) in {self.out / 'cost'}")
        return runs

    def header_costs(self, mode):
        """The span cost each recording run's header measured at start-up, and its timer."""
        docs = [json.loads(p.read_text()) for p in sorted((self.out / "cost").glob(f"{mode}-*.json"))]
        if not docs:
            fail(f"no profiles of span_cost ({mode}) in {self.out / 'cost'}")
        return [d["timer"]["span_cost_ns"] for d in docs], docs[0]["timer"]["name"]

    def iterations(self):
        first = (self.out / "cost" / "recording-1.txt").read_text().split()
        return int(first[0]), int(first[3])


def write_samples(out):
    run = Run(out)
    recording = run.cost_runs("recording")
    series = {
        "span": [r["span"] for r in recording],
        "two-reads": [r["two-reads"] for r in recording],
        "gauge": [r["gauge"] for r in recording],
        "read-and-count": [r["one-read"] + r["count"] for r in recording],
    }
    for name, values in series.items():
        (run.out / "cost" / f"{name}.samples").write_text("".join(f"{v}\n" for v in values))


# ---------------------------------------------------------------- blocks


def section(text, first_word):
    """The header and rows of the `counter` or `gauge` section of a span table."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.split()[:1] == [first_word]:
            rows = []
            for row in lines[i + 1 :]:
                if not row.strip() or row.split()[0] in ("counter", "gauge", "*"):
                    break
                rows.append(row)
            return line, rows
    fail(f"no `{first_word}` section in the span table:\n{text}")


def block_gauge(run):
    words = thousands(run.sizes()["words"])
    out = [f"# ./wordfreq with {words} words and PERFLAB_TABLE=1: the counter and the gauge of one run per table size"]
    texts = {"baseline": run.text("one-baseline.txt"), "WORDFREQ_TABLE=small": run.text("one-small.txt")}
    for word in ("counter", "gauge"):
        header, _ = section(texts["baseline"], word)
        out.append(header)
        for label, text in texts.items():
            out += [f"{row}     ({label})" for row in section(text, word)[1]]
    base, small = run.json("one-baseline.json"), run.json("one-small.json")

    def probe(doc, kind, name):
        for item in doc[kind]:
            if item["name"] == name:
                return item
        fail(f"no {kind[:-1]} `{name}` in wordfreq's profile")

    fill = [probe(d, "gauges", "table_fill")["last"] for d in (base, small)]
    steps = [probe(d, "counters", "probe_steps")["total"] for d in (base, small)]
    ratio = f"{steps[1] / steps[0]:.2f} times" if steps[0] else "more"
    sentence = (
        f"At the end of `count` the half-size table is {fill[1]:.1%} full against the "
        f"baseline's {fill[0]:.1%}, and it looked at {ratio} as many slots beyond the first "
        f"(`probe_steps`: {thousands(steps[1])} against {thousands(steps[0])}). Both are counts, "
        "the same on every run of these words, not timings."
    )
    return fence("\n".join(out)) + "\n\n" + sentence


def block_ab(run):
    sizes = run.sizes()
    max_runs = int(sizes["max_runs"])
    min_runs = min(10, max_runs)
    status = run.text("ab-exit.txt").strip()
    load = run.text("ab-load.txt").strip().replace(" ", ", ")
    head = (
        f"# WORDFREQ_WORDS={sizes['words']} perflab ab -f perflab.toml --min-runs {min_runs} "
        f"--max-runs {max_runs}   (exit {status}; load average {load} at the end)"
    )
    return fence(head + "\n" + run.text("ab.txt"))


def block_ab_reading(run):
    doc = run.json("ab.json")
    a, b = (v["name"] for v in doc["variants"])
    d = doc["decision"]
    out = [
        f"Verdict **{d['verdict']}**: `{b}`'s wall time against `{a}`'s is {change_cell(d['change'], d['ci'])} "
        f"(95% interval, {d['runs']} runs per variant): "
        + reading_of(d["ci"], f"`{b}` takes less time.", f"`{b}` takes more time.",
                     "undecided whether it takes more or less (the interval spans zero).")
        + f" Self time per span, `{b}` against `{a}`:",
        "",
    ]
    for s in doc["spans"]:
        if s.get("change") is None or not s.get("ci"):
            entered = [v.get("runs_entered") for v in s["per_variant"]]
            out.append(f"- `{s['name']}`: no interval (entered in {entered[0]} and {entered[1]} runs)")
            continue
        reading = reading_of(s["ci"], f"less time with `{b}`", f"more time with `{b}`")
        out.append(f"- `{s['name']}` {change_cell(s['change'], s['ci'])}: {reading}")
    return "\n".join(out)


def median_range(values):
    return f"{ns(statistics.median(values))} ({ns(min(values))} to {ns(max(values))})"


def block_cost(run):
    runs = {mode: run.cost_runs(mode) for mode in MODES}
    header_recording, _ = run.header_costs("recording")
    header_monotonic, _ = run.header_costs("monotonic")
    iterations, repetitions = run.iterations()
    load = run.text("cost-load.txt").strip().replace(" ", ", ")
    n = len(runs["recording"])
    head = (
        f"{n} runs of `span_cost {iterations}` per column, taking turns ({iterations:,} iterations, "
        f"{repetitions} repetitions per run); each cell is the median over the runs of each run's median "
        f"of its repetitions, with their range, in ns per iteration. Load average {load} at the end."
    )
    rows = [
        [CASE_NAMES[case]] + [median_range([r[case] for r in runs[mode]]) for mode in MODES]
        for case in CASES
    ]
    rows.append(["a span, as the header measured it at start-up", median_range(header_recording), "–",
                 median_range(header_monotonic)])
    return head + "\n\n" + table(
        [
            "case",
            f"recording (clock: {run.clock('recording')})",
            f"not recording (clock rows: {run.clock('idle')})",
            f"recording with `PERFLAB_TIMER=clock_monotonic` (clock: {run.clock('monotonic')})",
        ],
        rows,
    )


def block_cost_reading(run):
    recording = run.cost_runs("recording")
    monotonic = run.cost_runs("monotonic")
    timer = run.clock("recording")
    med = {case: statistics.median(r[case] for r in recording) for case in CASES}
    n = len(recording)
    span = run.json("cost/span-vs-reads.json")["decision"]
    gauge = run.json("cost/gauge-vs-read-and-count.json")["decision"]
    how = f"95% interval of `perflab compare` on the {n} runs' medians"
    first = (
        f"Recording, a `PERFLAB_SCOPE` took {ns(med['span'])} ns per iteration and the two clock reads it "
        f"makes {ns(med['two-reads'])} ns: the span's time against theirs is "
        f"{change_cell(span['change'], span['ci'])} ({how}), "
        + reading_of(
            span["ci"],
            "so a span costs less than its two clock reads.",
            f"so a span costs more than its two clock reads; its bookkeeping adds about "
            f"{ns(med['span'] - med['two-reads'])} ns (difference of the medians).",
            "undecided whether a span costs more or less than its two clock reads (the interval spans zero).",
        )
    )
    second = (
        f"A `PERFLAB_GAUGE` took {ns(med['gauge'])} ns, and one clock read plus a `PERFLAB_COUNT` "
        f"{ns(statistics.median(r['one-read'] + r['count'] for r in recording))} ns (each run's sum): the gauge's time "
        f"against that sum is {change_cell(gauge['change'], gauge['ci'])} ({how}), "
        + reading_of(
            gauge["ci"],
            "so a gauge costs less than a clock read and a counter's bookkeeping together.",
            "so a gauge costs more than a clock read and a counter's bookkeeping together.",
            "undecided whether a gauge costs more or less than a clock read and a counter's bookkeeping "
            "together (the interval spans zero).",
        )
    )
    one_read = [r["one-read"] for r in monotonic]
    third = (
        f"With `PERFLAB_TIMER=clock_monotonic` each clock read is a `clock_gettime` call: one read took "
        f"{median_range(one_read)} ns, against {ns(med['one-read'])} ns for the {timer} clock "
        "of the first column."
    )
    return "\n\n".join([first, second, third])


def block_budget(run):
    sizes = run.sizes()
    seconds = run.text("seconds.txt").strip()
    text = (
        f"This run: {thousands(sizes['words'])} words per run of wordfreq, at most {sizes['max_runs']} runs "
        f"per variant in the A/B, {sizes['bench_runs']} runs of span_cost per column of the cost "
        f"table, {thousands(sizes['iterations'])} iterations per loop; {seconds} s from the first measurement to "
        "the last (the build and the wait for a quiet machine not counted)."
    )
    if sizes["published"] != "1":
        text += (
            " **A small check** (`C_SPANS_QUICK=1` or smaller `C_SPANS_*` sizes than the published "
            "run's): the figures show that the script works, not what these programs cost."
        )
    return text


BLOCKS = {
    "budget": block_budget,
    "gauge": block_gauge,
    "ab": block_ab,
    "ab-reading": block_ab_reading,
    "cost": block_cost,
    "cost-reading": block_cost_reading,
}


def write_readme(out, readme):
    run = Run(out)
    fill_blocks(readme, BLOCKS, run, fail)


def main(argv):
    if len(argv) == 3 and argv[1] == "samples":
        write_samples(argv[2])
    elif len(argv) == 4 and argv[1] == "readme":
        write_readme(argv[2], argv[3])
    else:
        fail("usage: figures.py samples OUT | figures.py readme OUT README.md")


if __name__ == "__main__":
    main(sys.argv)
