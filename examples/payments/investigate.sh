#!/usr/bin/env bash
# The payments investigation, rerun from scratch:
#
#   examples/payments/investigate.sh [--allow-busy]
#
# builds perflab and the engine in release mode, checks that the machine is
# quiet (examples/publish-gate.sh), writes the workloads, shows the two
# workloads the expectations refuse, then measures:
#   1. the suite v1 against v2 in six scenarios (perflab.toml);
#   2. the original investigation's comparisons between scenarios, every
#      workload against the baseline's under both versions (scenarios.toml);
#   3. v1 against v2 span by span, on one thread and on worker threads;
#   4. the CPU time of the multi-threaded path against one thread;
#   5. the maps sized up front against grown (what their growth costs);
#   6. a CPU sampling profile of one thread, and an off-CPU profile of the
#      multi-threaded path of both versions;
#   7. a sweep of the stream's size on one thread and on worker threads;
# then writes REPORT.md and report.html with `perflab report`, and rewrites
# the marked blocks of README.md from this run's JSON documents
# (readme_blocks.py). Everything it measures is kept in out/perflab.db.
#
# Knobs. The defaults are sized to finish well within 15 minutes on a quiet
# 2-CPU machine: about 1,100 runs of 0.05-0.2 s each (the suites and A/Bs
# stop at their run limits), two profiles and a sweep up to 1M transactions.
#   PAYMENTS_TRANSACTIONS (300000): the size of every scenario's workload;
#   PAYMENTS_SWEEP_SIZES (10000,30000,100000,300000,1000000): the sweep's sizes;
#   PAYMENTS_THREADS (CPUs - 1, at least 1): worker threads of the
#       multi-threaded path, so that the reader and the workers have a CPU each.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
transactions="${PAYMENTS_TRANSACTIONS:-300000}"
sweep_sizes="${PAYMENTS_SWEEP_SIZES:-10000,30000,100000,300000,1000000}"
cpus=$(nproc)
export PAYMENTS_THREADS="${PAYMENTS_THREADS:-$((cpus > 1 ? cpus - 1 : 1))}"
threads=$PAYMENTS_THREADS
scenarios=(baseline hot-accounts dispute-heavy store-heavy sparse-ids)

cd "$root"
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
cargo build --release -p perflab-cli -p payments
perflab="$root/target/release/perflab"
# A committed tree and a quiet machine, or no figures (see publish-gate.sh).
. "$root/examples/publish-gate.sh"
publish_gate "$@"
payments="$root/target/release/payments"
started=$(date +%s)

cd "$here"
rm -rf out data data-broken data-two-changes
mkdir -p out data data-broken data-two-changes
export PERFLAB_STORE="$here/out/perflab.db"
# The engine's own span table stays off stderr: perflab prints it.
export PERFLAB_TABLE=0
step() { printf '\n== %s\n' "$*" >&2; }
# Runs perflab; a verdict (exit 0, 3 or 4) is a result, anything else stops.
measure() {
    set +e
    "$perflab" "$@"
    local code=$?
    set -e
    case "$code" in 0 | 3 | 4) ;; *) echo "perflab $1 failed (exit $code)" >&2; exit 1 ;; esac
}

step "workloads: $transactions transactions, one account per hundred"
for s in "${scenarios[@]}"; do
    "$payments" generate --scenario "$s" --transactions "$transactions" --output "data/$s.csv"
done
"$payments" generate --scenario dispute-heavy --transactions "$transactions" --broken \
    --output data-broken/dispute-heavy.csv
# The original "sparse ids": ids spread out, and a quarter of the accounts.
"$payments" generate --scenario sparse-ids --transactions "$transactions" \
    --accounts $((transactions / 400)) --output data/sparse-ids-quarter-accounts.csv
cp data/sparse-ids-quarter-accounts.csv data-two-changes/sparse-ids.csv
IFS=, read -r -a sizes <<<"$sweep_sizes"
for n in "${sizes[@]}"; do
    "$payments" generate --scenario baseline --transactions "$n" --output "data/sweep-$n.csv"
done
echo "$transactions $threads $cpus $sweep_sizes" >out/settings.txt

# Runs one scenario of the suite on the workloads of folder $1, which the
# expectations must refuse (exit 2); keeps the message in out/$2.txt.
refused() {
    set +e
    PAYMENTS_DATA="$1" "$perflab" ab -f perflab.toml --scenario "$3" --quiet >"out/$2.txt" 2>&1
    local code=$?
    set -e
    # Keep the message, not the balances the refused run printed.
    sed -i '/^The end of its output:/,/^(/{/^(/!d}' "out/$2.txt"
    if [ "$code" -ne 2 ]; then
        echo "expected the $2 workload to be refused with exit 2, got $code:" >&2
        cat "out/$2.txt" >&2
        exit 1
    fi
    cat "out/$2.txt"
}

step "the original generator's workload, refused by the expectations"
refused data-broken broken dispute-heavy
step "a sparse-ids workload that changed the number of accounts too, refused"
refused data-two-changes two-changes sparse-ids

step "1. the suite: v1 against v2 in six scenarios"
measure ab -f perflab.toml --quiet --json out/suite.json | tee out/suite.txt

step "2. the original's comparisons between scenarios, under both versions"
measure ab -f scenarios.toml --quiet --json out/scenarios.json | tee out/scenarios.txt

one="$payments process data/baseline.csv"
many="$payments process data/baseline.csv --threads $threads"
step "3. v1 against v2, span by span"
measure ab --quiet --name "v1 vs v2: one thread" --name-a v1 --name-b v2 --max-runs 30 \
    --json out/ab-one-thread.json "$one --engine v1" "$one --engine v2" | tee out/ab-one-thread.txt
measure ab --quiet --name "v1 vs v2: worker threads" --name-a v1 --name-b v2 --max-runs 30 \
    --json out/ab-threads.json "$many --engine v1" "$many --engine v2" | tee out/ab-threads.txt

step "4. CPU time: worker threads against one thread (v1)"
measure ab --quiet --measure cpu --name "cpu: one thread vs worker threads" \
    --name-a one-thread --name-b worker-threads --max-runs 30 \
    --json out/cpu-threads.json "$one --engine v1" "$many --engine v1" | tee out/cpu-threads.txt

step "5. the maps sized up front against grown (v1, one thread)"
measure ab --quiet --name "maps grown vs presized" --name-a grown --name-b presized --max-runs 30 \
    --json out/presize.json "$one --engine v1" "$one --engine v1 --presize" | tee out/presize.txt

step "6. where the CPU time of one thread goes (v1), sampled"
# Four runs in a row under one perf record, for samples enough to read.
"$perflab" profile --name "cpu profile: one thread" -F 3999 --call-graph dwarf --top 500 \
    --no-svg --json out/profile.json -- \
    sh -c "for i in 1 2 3 4; do $one --engine v1 >/dev/null; done" >out/profile.txt
step "6. where the worker threads' wall time goes, on and off the CPU (v1 against v2)"
"$perflab" profile --off-cpu --name "off-cpu profile: worker threads" --call-graph dwarf \
    --top 500 --svg out/flamegraph.svg --json out/offcpu.json \
    --baseline "$many --engine v1" -- $many --engine v2 >out/offcpu.txt

step "7. a sweep of the stream's size (v1), one thread and worker threads"
measure sweep --quiet --name "sweep: baseline" --command-name one-thread \
    --command-name worker-threads -p "n=$sweep_sizes" --max-runs 10 --json out/sweep.json \
    "$payments process --engine v1 data/sweep-{n}.csv" \
    "$payments process --engine v1 data/sweep-{n}.csv --threads $threads" | tee out/sweep.txt

step "the report"
"$perflab" history >out/history.txt
# Every experiment of this run but the refused ones, oldest first.
mapfile -t ids < <(awk '$4 == "complete" { print $1 }' out/history.txt | sort -n)
"$perflab" report "${ids[@]}" --markdown REPORT.md --html report.html
git -C "$root" rev-parse HEAD >out/commit.txt
echo $(($(date +%s) - started)) >out/seconds.txt
# Paths in the output are shown relative to the repository, wherever it was cloned.
sed -i "s|$root/||g" REPORT.md report.html out/*.txt

step "README.md: the marked blocks, from this run's documents"
/usr/bin/env python3 "$here/readme_blocks.py" "$here"
publish_provenance "$here/README.md"
echo "wrote REPORT.md, report.html and the blocks of README.md" >&2
