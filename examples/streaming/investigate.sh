#!/usr/bin/env bash
# The streaming investigation, rerun from scratch:
#
#   examples/streaming/investigate.sh [--allow-busy]
#
# builds perflab and the pipeline in release mode, checks that the tree is
# committed and the machine quiet (examples/publish-gate.sh), then measures:
# the span table and each thread's clocks (on the CPU, preempted, blocked);
# the seed's misplaced timers; an A/B of yield_now() against Notify on CPU
# and wall time; a sweep over record counts (cost per record, fixed part);
# batch-size and partition sweeps; the fixed sleep inside the timed region;
# the suite of waiting strategies with its records-in = records-out
# expectation; one traced run whose every call is summarised the seeds' way
# and perflab's; an off-CPU profile of one run of spin against one of
# notify (where each thread's waiting went: preempted or blocked, and from
# which stacks). Writes REPORT.md and report.html (`perflab report`) and
# rewrites the marked blocks of README.md from this run's JSON documents
# (figures.py). Everything it measures is kept in out/perflab.db.
#
# Sizes (defaults: the published run; smaller values for a quick check):
#   STREAMING_RECORDS     records per run                       (200K)
#   STREAMING_RUNS        runs of each `perflab run`             (10)
#   STREAMING_MAX_RUNS    most runs per variant of the A/Bs      (30)
#   STREAMING_SWEEP_RUNS  most runs per point and suite cell     (20)
#   STREAMING_SIZES       record counts of the sweeps over n     (25K,50K,100K,200K,400K)
# Budget: the script makes at most about 1,100 runs (44 of `perflab run`,
# 120 in the A/Bs, 780 in the sweeps, 120 in the suite, 2 profiled off the
# CPU), each a fraction of a second on a quiet 2-CPU machine (the fixed
# sleep's 100 ms and the 400K-record points the longest): a few minutes
# after the build, inside 15; the README's `budget` block says how long
# this run took. A small check
# (STREAMING_RECORDS=20K STREAMING_RUNS=3 STREAMING_MAX_RUNS=6
# STREAMING_SWEEP_RUNS=3 STREAMING_SIZES=5K,10K,20K) takes under a minute.
# PERFLAB=PATH and STREAMING_BIN=PATH use those binaries instead of building
# them (a test runs the script on debug builds).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
records="${STREAMING_RECORDS:-200K}"
runs="${STREAMING_RUNS:-10}"
max_runs="${STREAMING_MAX_RUNS:-30}"
sweep_runs="${STREAMING_SWEEP_RUNS:-20}"
sizes="${STREAMING_SIZES:-25K,50K,100K,200K,400K}"
# perflab's least runs (10), or fewer when the most allowed is below it.
min_runs=$((max_runs < 10 ? max_runs : 10))
min_sweep_runs=$((sweep_runs < 10 ? sweep_runs : 10))

cd "$root"
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
packages=()
[ -n "${PERFLAB:-}" ] || packages+=(-p perflab-cli)
[ -n "${STREAMING_BIN:-}" ] || packages+=(-p streaming)
[ "${#packages[@]}" -eq 0 ] || cargo build --release "${packages[@]}"
perflab="${PERFLAB:-$root/target/release/perflab}"
# A committed tree and a quiet machine, or no figures (see publish-gate.sh).
. "$root/examples/publish-gate.sh"
publish_gate "$@"
streaming="${STREAMING_BIN:-$root/target/release/streaming}"
# perflab.toml's suite runs the same binary.
export STREAMING_BIN="$streaming"
# The system's Python: the figures need nothing beyond its standard library.
python=$(command -v /usr/bin/python3 || command -v python3)
started=$(date +%s)

cd "$here"
rm -rf out
mkdir -p out
export PERFLAB_STORE="$here/out/perflab.db"
export STREAMING_RECORDS="$records"
# The pipeline's own span table stays off stderr: perflab prints it.
export PERFLAB_TABLE=0
step() { printf '\n== %s\n' "$*" >&2; }
# Runs perflab and accepts a verdict of any kind (0, 3, 4), not a failure.
verdict() {
    set +e
    "$@"
    local code=$?
    set -e
    case "$code" in 0 | 3 | 4) ;; *) echo "perflab failed (exit $code): $*" >&2; exit 1 ;; esac
}
run() { "$perflab" run -r "$runs" --warmup 1 --quiet "$@"; }

step "1. phases and threads: spin and notify"
"$streaming" --records "$records" >out/own.txt
run --name "spans: spin" --json out/spin.json "$streaming --records $records --wait spin" >out/spin.txt
run --name "spans: notify" --json out/notify.json "$streaming --records $records --wait notify" >out/notify.txt

step "2. the original timers: every phase 0.000s"
"$streaming" --records "$records" --misplaced-timers >out/own-misplaced.txt
run --name "misplaced timers" --json out/misplaced.json \
    "$streaming --records $records --misplaced-timers" >out/misplaced.txt
grep -q "one span costs" out/misplaced.txt && grep -q "of thread main (#1)'s" out/misplaced.txt \
    || { echo "the misplaced timers were not caught" >&2; exit 1; }

step "3. spin against notify, on CPU time and on wall time"
for measure in cpu wall; do
    verdict "$perflab" ab --quiet --measure "$measure" --name "spin vs notify: $measure" \
        --name-a spin --name-b notify --min-runs "$min_runs" --max-runs "$max_runs" --json "out/ab-$measure.json" \
        "$streaming --records $records --wait spin" "$streaming --records $records --wait notify" \
        >"out/ab-$measure.txt"
done

step "4. cost per record: a sweep over record counts, SQL and passthrough engines"
"$perflab" sweep --quiet --name "records: sql vs passthrough" -p "n=$sizes" \
    --command-name "sql, spin" --command-name "passthrough, spin" \
    --command-name "sql, notify" --command-name "passthrough, notify" \
    --min-runs "$min_sweep_runs" --max-runs "$sweep_runs" --json out/sweep-engines.json \
    "$streaming --engine sql --wait spin --records {n}" \
    "$streaming --engine passthrough --wait spin --records {n}" \
    "$streaming --engine sql --wait notify --records {n}" \
    "$streaming --engine passthrough --wait notify --records {n}" >out/sweep-engines.txt

step "5. batch size and partition count"
# notify is the reference: every point gives spin's ratio to it, with its interval.
"$perflab" sweep --quiet --name "batch size" -p batch=10,100,1000 --command-name spin --reference-name notify \
    --min-runs "$min_sweep_runs" --max-runs "$sweep_runs" --json out/sweep-batch.json \
    --reference "$streaming --records $records --batch-size {batch} --wait notify" \
    "$streaming --records $records --batch-size {batch} --wait spin" >out/sweep-batch.txt
"$perflab" sweep --quiet --name "partitions" -p partitions=1,2,4,8 --command-name spin --reference-name notify \
    --min-runs "$min_sweep_runs" --max-runs "$sweep_runs" --json out/sweep-partitions.json \
    --reference "$streaming --records $records --partitions {partitions} --wait notify" \
    "$streaming --records $records --partitions {partitions} --wait spin" >out/sweep-partitions.txt

step "6. the fixed sleep inside the timed region"
"$streaming" --records "$records" --settle-ms 100 >out/own-settle.txt
run --name "fixed sleep" --json out/settle.json "$streaming --records $records --settle-ms 100" >out/settle.txt
grep -q "inside spans on thread main (#1) was spent off the CPU" out/settle.txt \
    || { echo "the fixed sleep was not caught" >&2; exit 1; }
"$perflab" sweep --quiet --name "records: sql with the fixed sleep" -p "n=$sizes" \
    --command-name "sql + sleep" --min-runs "$min_sweep_runs" --max-runs "$sweep_runs" --json out/sweep-settle.json \
    "$streaming --records {n} --settle-ms 100" >out/sweep-settle.txt

step "7. the suite: spin, notify and recv on both engines"
verdict "$perflab" ab -f perflab.toml --quiet --min-runs "$min_sweep_runs" --max-runs "$sweep_runs" --json out/suite.json >out/suite.txt

step "8. a pipeline that drops the last partial batches, refused by the expectation"
set +e
STREAMING_FLAGS=--drop-partial-batches STREAMING_RECORDS=100007 \
    "$perflab" ab -f perflab.toml --scenario sql --quiet >out/dropped.txt 2>&1
code=$?
set -e
[ "$code" -eq 2 ] || { echo "expected the dropping pipeline to be refused (exit 2), got $code" >&2; cat out/dropped.txt >&2; exit 1; }

step "9. one traced run, summarised the seeds' way and perflab's"
PERFLAB_PROFILE=out/traced-profile.json PERFLAB_TRACE=out/traced-trace.json \
    "$streaming" --records "$records" --wait spin >/dev/null
"$python" seed_procedures.py out/traced-trace.json out/traced-profile.json >out/seed-procedures.txt

step "10. where the threads waited: an off-CPU profile of one run of spin and one of notify"
# One run each, spin as the baseline: its switches off and back on a CPU,
# each interval with the stack it left from, preempted or blocked (DWARF
# stacks: the release build keeps no frame pointers).
"$perflab" profile --off-cpu --call-graph dwarf --name "off-cpu profile: spin vs notify" \
    --top 500 --svg out/offcpu.svg --json out/offcpu.json \
    --baseline "$streaming --records $records --wait spin" \
    -- "$streaming" --records "$records" --wait notify >out/offcpu.txt

step "the report"
"$perflab" history >out/history.txt
mapfile -t ids < <(awk '$4 == "complete" { print $1 }' out/history.txt | sort -n)
"$perflab" report "${ids[@]}" --markdown REPORT.md --html report.html
# Paths in the output are shown relative to the repository, wherever it was cloned.
sed -i "s|$root/||g" REPORT.md report.html out/*.txt
echo "$(($(date +%s) - started))" >out/seconds.txt

step "README.md: the marked blocks, from this run's documents"
"$python" figures.py out README.md
publish_provenance "$here/README.md"
echo "wrote REPORT.md, report.html and the blocks of README.md in $(cat out/seconds.txt) s" >&2
