#!/usr/bin/env bash
# Reruns this example's measurements and rewrites every figure of README.md:
#
#   examples/c-spans/investigate.sh [--allow-busy]
#
# builds perflab (release) and the C programs (make), checks that the tree
# is committed and the machine quiet (examples/publish-gate.sh), then
#   1. runs wordfreq once per table size with PERFLAB_TABLE=1: its counter
#      (probe_steps) and gauge (table_fill);
#   2. runs the A/B of perflab.toml (the half-size table against the
#      baseline), with the span table of what moved;
#   3. runs span_cost in turns: recording, not recording, and recording
#      with PERFLAB_TIMER=clock_monotonic, and compares a span with its two
#      clock reads and a gauge with a clock read plus a counter through
#      `perflab compare` on the runs' medians (an interval for each);
# and rewrites the marked blocks of README.md from what it measured
# (figures.py), the provenance block last. Everything is kept in out/
# (gitignored), the store in out/perflab.db.
#
# Sizes (defaults: the published run, 3 to 4 minutes on a quiet 2-CPU
# machine after the build). C_SPANS_QUICK=1 makes every default small (a
# check of the script in well under a minute, whose figures the README
# then marks as a small check); each variable below overrides it:
#   C_SPANS_WORDS        words per run of wordfreq         (2000000; quick 200000)
#   C_SPANS_MAX_RUNS     most runs per variant in the A/B  (40, as perflab.toml; quick 5)
#   C_SPANS_BENCH_RUNS   runs of span_cost per column       (5; quick 4, the fewest an interval allows)
#   C_SPANS_ITERATIONS   iterations of each span_cost loop  (10000000; quick 100000)
# PERFLAB=PATH uses that perflab binary instead of building one.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [ "${C_SPANS_QUICK:-0}" = 1 ]; then
    quick=(200000 5 4 100000)
else
    quick=(2000000 40 5 10000000)
fi
words="${C_SPANS_WORDS:-${quick[0]}}"
max_runs="${C_SPANS_MAX_RUNS:-${quick[1]}}"
bench_runs="${C_SPANS_BENCH_RUNS:-${quick[2]}}"
iterations="${C_SPANS_ITERATIONS:-${quick[3]}}"
# perflab's least runs (10), or fewer when the most allowed is below it.
min_runs=$((max_runs < 10 ? max_runs : 10))
if [ "$bench_runs" -lt 4 ]; then
    echo "investigate.sh: C_SPANS_BENCH_RUNS=$bench_runs is too few: a 95% interval needs at least 4 runs each way" >&2
    exit 2
fi

if [ -n "${PERFLAB:-}" ]; then
    perflab="$PERFLAB"
else
    (cd "$root" && CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}" cargo build --release -q -p perflab-cli)
    perflab="$root/target/release/perflab"
fi
# A committed tree and a quiet machine, or no figures (see publish-gate.sh).
. "$root/examples/publish-gate.sh"
publish_gate "$@"
# The system's Python: the figures need nothing beyond its standard library.
python=$(command -v /usr/bin/python3 || command -v python3)
started=$(date +%s)

cd "$here"
make -s wordfreq span_cost
rm -rf out
mkdir -p out
export PERFLAB_STORE="$here/out/perflab.db"
# What the programs record is decided here, run by run, not by the caller's environment.
unset PERFLAB_PROFILE PERFLAB_TABLE PERFLAB_TRACE PERFLAB_TIMER
export WORDFREQ_WORDS="$words"
step() { printf '\n== %s\n' "$*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# Runs perflab and accepts a verdict of any kind (0, 3 NO-GO, 4 INCONCLUSIVE),
# not a failure; its exit code is left in out/exit.txt.
verdict() {
    set +e
    "$@"
    local code=$?
    set -e
    case "$code" in 0 | 3 | 4) echo "$code" >out/exit.txt ;; *) echo "perflab failed (exit $code): $*" >&2; exit 1 ;; esac
}

step "1. one run per table size: the counter and the gauge"
PERFLAB_TABLE=1 PERFLAB_PROFILE=out/one-baseline.json ./wordfreq >/dev/null 2>out/one-baseline.txt
WORDFREQ_TABLE=small PERFLAB_TABLE=1 PERFLAB_PROFILE=out/one-small.json ./wordfreq >/dev/null 2>out/one-small.txt

step "2. the A/B of perflab.toml"
verdict "$perflab" ab -f perflab.toml --min-runs "$min_runs" --max-runs "$max_runs" --json out/ab.json \
    >out/ab.txt 2>&1
mv out/exit.txt out/ab-exit.txt
load >out/ab-load.txt
cat out/ab.txt

step "3. what a span, a counter and a gauge cost: $bench_runs runs of span_cost per column"
mkdir -p out/cost
for i in $(seq 1 "$bench_runs"); do
    PERFLAB_PROFILE="out/cost/recording-$i.json" ./span_cost "$iterations" >"out/cost/recording-$i.txt"
    ./span_cost "$iterations" >"out/cost/idle-$i.txt"
    PERFLAB_TIMER=clock_monotonic PERFLAB_PROFILE="out/cost/monotonic-$i.json" ./span_cost "$iterations" \
        >"out/cost/monotonic-$i.txt"
done
load >out/cost-load.txt
# One number per line per case, then perflab's fixed-sample comparison.
"$python" figures.py samples out
verdict "$perflab" compare out/cost/two-reads.samples out/cost/span.samples \
    --json out/cost/span-vs-reads.json >out/cost/span-vs-reads.txt
verdict "$perflab" compare out/cost/read-and-count.samples out/cost/gauge.samples \
    --json out/cost/gauge-vs-read-and-count.json >out/cost/gauge-vs-read-and-count.txt

echo "$(($(date +%s) - started))" >out/seconds.txt
cat >out/sizes.txt <<EOF
words=$words
max_runs=$max_runs
bench_runs=$bench_runs
iterations=$iterations
published=$([ "$words" = 2000000 ] && [ "$max_runs" = 40 ] && [ "$bench_runs" = 5 ] && [ "$iterations" = 10000000 ] && echo 1 || echo 0)
EOF

step "README.md: the marked blocks, from this run"
"$python" figures.py readme out README.md
publish_provenance "$here/README.md"
echo "rewrote the blocks of README.md in $(cat out/seconds.txt) s" >&2
