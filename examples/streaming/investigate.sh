#!/usr/bin/env bash
# The streaming investigation, rerun from scratch:
#
#   examples/streaming/investigate.sh
#
# builds perflab and the pipeline in release mode, then: the program's own
# phase figures and perflab's span table (phases, tasks, unattributed
# time), the "0.000s" timers reproduced and caught, a sweep over record
# counts of the SQL and passthrough engines (cost per record of each), the
# busy-spin hypothesis (yields per record, busy and idle time, an A/B of
# yield_now() against Notify on CPU and wall time), batch-size and
# partition-count sweeps, the fixed sleep reproduced and caught, and the
# suite of waiting strategies with its records-in = records-out
# expectation (and a pipeline that drops records, refused). Writes
# REPORT.md and report.html with `perflab report` and rewrites the marked
# blocks of README.md from the real output. Everything it measures is kept
# in out/perflab.db. About 3 minutes on a 2-core machine, after the build.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
records="${STREAMING_RECORDS:-200K}"

cd "$root"
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
cargo build --release -p perflab-cli -p streaming
perflab="$root/target/release/perflab"
# A committed tree and a quiet machine, or no figures (see publish-gate.sh).
. "$root/examples/publish-gate.sh"
publish_gate "$@"
streaming="$root/target/release/streaming"

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

# The load this run was measured under, before and after (see the README).
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)" >out/load.txt

step "1. phases: the program's own figures, then perflab's table"
{ echo "\$ streaming --records $records"; "$streaming" --records "$records"; } | tee out/own.txt
"$perflab" run -r 10 --warmup 1 --quiet --name "phases" --json out/phases.json \
    "$streaming --records $records" | tee out/phases.txt

step "1. the original timers: every phase 0.000s, and what perflab says"
{ echo "\$ streaming --records $records --misplaced-timers"
  "$streaming" --records "$records" --misplaced-timers; } | tee out/own-misplaced.txt
"$perflab" run -r 10 --warmup 1 --quiet --name "misplaced timers" \
    "$streaming --records $records --misplaced-timers" | tee out/misplaced.txt
grep -q "within 4x the .* one span costs\|9[0-9].[0-9]% of thread main" out/misplaced.txt \
    || { echo "the misplaced timers were not caught" >&2; exit 1; }

step "2. cost per record: a sweep over record counts, SQL and passthrough engines"
"$perflab" sweep --quiet --name "records: sql vs passthrough" -p n=25K,50K,100K,200K,400K \
    --command-name "sql, spin" --command-name "passthrough, spin" --command-name "sql, notify" --command-name "passthrough, notify" \
    --max-runs 20 --json out/sweep-engines.json \
    "$streaming --engine sql --wait spin --records {n}" \
    "$streaming --engine passthrough --wait spin --records {n}" \
    "$streaming --engine sql --wait notify --records {n}" \
    "$streaming --engine passthrough --wait notify --records {n}" \
    | tee out/sweep-engines.txt

step "3. the busy-spin hypothesis: yields, busy and idle time, spin against Notify"
"$perflab" run -r 10 --warmup 1 --quiet --name "spans: notify" --json out/notify.json \
    "$streaming --records $records --wait notify" | tee out/notify.txt
for measure in cpu wall; do
    verdict "$perflab" ab --quiet --measure "$measure" --name "spin vs notify: $measure" \
        --name-a spin --name-b notify --max-runs 30 \
        "$streaming --records $records --wait spin" "$streaming --records $records --wait notify" \
        | tee "out/ab-$measure.txt"
done

step "4. batch size and partition count"
"$perflab" sweep --quiet --name "batch size" -p batch=10,100,1000 --command-name spin --command-name notify \
    --max-runs 20 "$streaming --records $records --batch-size {batch} --wait spin" \
    "$streaming --records $records --batch-size {batch} --wait notify" | tee out/sweep-batch.txt
"$perflab" sweep --quiet --name "partitions" -p partitions=1,2,4,8 --command-name spin --command-name notify \
    --max-runs 20 "$streaming --records $records --partitions {partitions} --wait spin" \
    "$streaming --records $records --partitions {partitions} --wait notify" \
    | tee out/sweep-partitions.txt

step "5. the fixed sleep inside the timed region, and what perflab says"
{ echo "\$ streaming --records $records --settle-ms 100"
  "$streaming" --records "$records" --settle-ms 100; } | tee out/own-settle.txt
"$perflab" run -r 10 --warmup 1 --quiet --name "fixed sleep" \
    "$streaming --records $records --settle-ms 100" | tee out/settle.txt
grep -q "inside spans on thread main (#1) was spent off the CPU" out/settle.txt || { echo "the fixed sleep was not caught" >&2; exit 1; }
"$perflab" sweep --quiet --name "records: sql with the fixed sleep" -p n=25K,50K,100K,200K,400K \
    --command-name "sql + sleep" --max-runs 20 "$streaming --records {n} --settle-ms 100" \
    | tee out/sweep-settle.txt

step "the suite: spin, notify and recv on both engines"
verdict "$perflab" ab -f perflab.toml --quiet --max-runs 20 --json out/suite.json \
    --markdown out/suite.md | tee out/suite.txt

step "a pipeline that drops the last partial batches, refused by the expectation"
set +e
STREAMING_FLAGS=--drop-partial-batches STREAMING_RECORDS=100007 \
    "$perflab" ab -f perflab.toml --scenario sql --quiet >out/dropped.txt 2>&1
code=$?
set -e
# Keep the message, not the rows the refused run printed.
sed -i '/^The end of its output:/,/^(/{/^(/!d}' out/dropped.txt
[ "$code" -eq 2 ] || { echo "expected the dropping pipeline to be refused (exit 2), got $code" >&2; cat out/dropped.txt >&2; exit 1; }
cat out/dropped.txt

step "figures derived from the runs' documents"
python3 derived.py out | tee out/per-record.txt

step "the report"
"$perflab" history | tee out/history.txt
mapfile -t ids < <(awk '$4 == "complete" { print $1 }' out/history.txt | sort -n)
"$perflab" report "${ids[@]}" --markdown REPORT.md --html report.html
git -C "$root" rev-parse HEAD >out/commit.txt
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >>out/load.txt
# Paths in the output are shown relative to the repository, wherever it was cloned.
sed -i "s|$root/||g" REPORT.md report.html out/*.txt

step "README.md: the marked blocks, from this run's output"
python3 - <<'PY'
import pathlib, re
out = pathlib.Path("out")
names = ["own", "phases", "own-misplaced", "misplaced", "sweep-engines", "notify", "ab-cpu",
         "ab-wall", "per-record", "sweep-batch", "sweep-partitions", "own-settle", "settle",
         "sweep-settle", "suite", "dropped", "history"]
blocks = {n: (out / f"{n}.txt").read_text() for n in names}
blocks["commit"] = "commit " + (out / "commit.txt").read_text().strip() + "\n" + (out / "load.txt").read_text()
readme = pathlib.Path("README.md")
text = readme.read_text()
for name, body in blocks.items():
    pattern = re.compile(
        rf"(<!-- begin: {re.escape(name)} -->\n).*?(<!-- end: {re.escape(name)} -->)", re.S
    )
    if not pattern.search(text):
        raise SystemExit(f"README.md has no block `{name}`")
    fenced = "```text\n" + body.rstrip("\n") + "\n```\n"
    text = pattern.sub(lambda m: m.group(1) + fenced + m.group(2), text)
readme.write_text(text)
PY
echo "wrote REPORT.md, report.html and the blocks of README.md" >&2
publish_provenance "$here/README.md"
