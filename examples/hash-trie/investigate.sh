#!/usr/bin/env bash
# Reruns the hash-trie investigation: the answer check, the sweeps of the
# trie over 1K..4M keys against std's HashMap, the sweep of rpds over
# 1K..1M, the pool-size A/B, the trie's history as commits of a throwaway
# repository (every step against the one before, and the last against the
# first), and a profile of the seed's size beside one large enough. Writes
# REPORT.md and report.html with `perflab report`, and rewrites the marked
# blocks of README.md from perflab's JSON documents with tables.py, which
# also words every conclusion that rests on an interval.
#
# Each sweep runs every point until ±5% or 20 runs, or until its time limit
# once every point has 5 runs: the limits, not the run counts, bound the
# script's duration (about 11 minutes of measuring on a quiet 2-CPU machine,
# plus the release build).
#
# Smaller runs (the workspace test does its own, smaller still):
#   HASH_TRIE_SIZES       the trie sweeps' sizes        [default: 1K..4096K:x4]
#   HASH_TRIE_RPDS_SIZES  the rpds sweep's sizes        [default: 1K..1024K:x4]
#   HASH_TRIE_MIN_RUNS    runs per sweep point, at least [default: 5]
#   HASH_TRIE_MAX_RUNS    runs per sweep point, at most  [default: 20]
#   HASH_TRIE_SWEEP_TIME  time limit of each trie sweep [default: 150s]
#   HASH_TRIE_RPDS_TIME   time limit of the rpds sweep  [default: 75s]
#   HASH_TRIE_AB_RUNS     runs per variant of each A/B, at most [default: 30]
#   HASH_TRIE_HISTORY_N   keys of the history runs      [default: 256000]
#   HASH_TRIE_POOL_N      inserts of the pool A/B       [default: 1024000]
#   HASH_TRIE_PROFILE_N   inserts of the profiled run   [default: 1024000]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sizes=${HASH_TRIE_SIZES:-1K..4096K:x4}
rpds_sizes=${HASH_TRIE_RPDS_SIZES:-1K..1024K:x4}
min_runs=${HASH_TRIE_MIN_RUNS:-5}
max_runs=${HASH_TRIE_MAX_RUNS:-20}
sweep_time=${HASH_TRIE_SWEEP_TIME:-150s}
rpds_time=${HASH_TRIE_RPDS_TIME:-75s}
ab_runs=${HASH_TRIE_AB_RUNS:-30}
ab_min=$((ab_runs < 10 ? ab_runs : 10))
history_n=${HASH_TRIE_HISTORY_N:-256000}
pool_n=${HASH_TRIE_POOL_N:-1024000}
profile_n=${HASH_TRIE_PROFILE_N:-1024000}
# The size of the seed's profile, in samples.
seed_samples=139
tables=$here/tables.py
export CARGO_INCREMENTAL=0
started=$(date +%s)

echo "== building perflab and the example"
(cd "$root" && cargo build --release --quiet -p perflab-cli -p hash-trie)
built=$(date +%s)
perflab=$root/target/release/perflab
# A committed tree and a quiet machine, or no figures (see publish-gate.sh).
. "$root/examples/publish-gate.sh"
publish_gate "$@"

# Everything this run makes, apart from the reports: the store, the JSON
# documents, each command's terminal output and the README's blocks
# (gitignored).
out=$here/out
rm -rf "$out"
mkdir -p "$out"
export PERFLAB_STORE=$out/perflab.db
cp "$root/target/release/hash-trie" "$out/hash-trie"
cd "$out"

# Runs a perflab command that ends in a verdict, keeping its terminal result
# in FILE: GO, NEUTRAL (0), NO-GO (3) and INCONCLUSIVE (4) are results to
# report; a failure (1) or bad usage (2) stops the script.
decided() {
    local file=$1
    shift
    local code=0
    "$@" >"$file" || code=$?
    if [ "$code" -ne 0 ] && [ "$code" -ne 3 ] && [ "$code" -ne 4 ]; then
        cat "$file"
        echo "investigate.sh: '$*' failed with exit code $code" >&2
        exit "$code"
    fi
}

echo "== the answer check: every structure prints the same checksum"
checked=0
for op in insert query; do
    for n in 1000 64000 256000; do
        expected=""
        for structure in std trie rpds; do
            line=$(PERFLAB_TABLE=0 ./hash-trie "$structure" "$op" "$n" 2>/dev/null | grep '^checksum')
            printf '%-5s %s\n' "$structure" "$line" >>all-checksums.txt
            if [ -z "$expected" ]; then
                expected=$line
            elif [ "$line" != "$expected" ]; then
                echo "investigate.sh: $structure printed '$line' where std printed '$expected'" >&2
                exit 1
            fi
        done
        checked=$((checked + 1))
    done
done
echo "std, trie and rpds printed the same checksum in all $checked cases (insert and query at n = 1000, 64000, 256000)." >checksums.md

# Every run is a fresh process whose cost is its own work, and the answer
# check has just loaded the binary: no warm-up runs (--warmup 0).
for op in insert query; do
    echo "== sweep: $op over n=$sizes"
    "$perflab" sweep -p "n=$sizes" --name "hash-trie $op" \
        --measure op_cpu_ns --better lower --warmup 0 \
        --min-runs "$min_runs" --max-runs "$max_runs" --precision 5% --max-time "$sweep_time" \
        --seed 13 --quiet \
        --command-name trie --command-name trie-small-pool \
        "./hash-trie trie $op {n}" \
        "./hash-trie trie $op {n} --pool-slots 65536" \
        --reference "./hash-trie std $op {n}" --reference-name std-HashMap \
        --json "sweep-$op.json" >"sweep-$op.txt"
    /usr/bin/python3 "$tables" sweep "sweep-$op.json" --steps="steps-$op.md" >"sweep-$op.md"
done

# rpds up to 1M keys only: at 4M one run of it costs more than the runs of
# the trie, the small-pool trie and std together.
echo "== sweep: rpds, insert and query over n=$rpds_sizes"
"$perflab" sweep -p op=insert,query -p "n=$rpds_sizes" --name "hash-trie rpds" \
    --measure op_cpu_ns --better lower --warmup 0 \
    --min-runs "$min_runs" --max-runs "$max_runs" --precision 5% --max-time "$rpds_time" \
    --seed 13 --quiet \
    --command-name rpds "./hash-trie rpds {op} {n}" \
    --reference "./hash-trie std {op} {n}" --reference-name std-HashMap \
    --json sweep-rpds.json >sweep-rpds.txt
/usr/bin/python3 "$tables" sweep sweep-rpds.json --steps=steps-rpds.md >sweep-rpds.md

echo "== the pool's size at $pool_n inserts: 65,536 slots against sized by the keys"
decided pool-ab.txt "$perflab" ab --name "pool size, $pool_n inserts" \
    --name-a pool-65536-slots --name-b pool-sized-by-keys \
    --measure op_cpu_ns --better lower --min-runs "$ab_min" --max-runs "$ab_runs" --seed 13 --quiet \
    --json pool-ab.json \
    "./hash-trie trie insert $pool_n --pool-slots 65536" "./hash-trie trie insert $pool_n"
/usr/bin/python3 "$tables" pool pool-ab.json >pool.md

echo "== the trie's history: one commit per step in a throwaway repository"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
repo=$scratch/trie-history
"$here/steps/make-history.sh" "$repo"
git -C "$repo" log --oneline --reverse >commits.txt

# Every step builds in perflab's target folder under a package name of its
# own, so the dependencies are built once and the example's binary stays;
# make-history.sh fetched every crate, so the builds run offline.
build="CARGO_TARGET_DIR='$root/target' cargo build --release --offline --quiet && cp '$root/target/release/hash-trie-step' hash-trie"
judge() {
    local op=$1 before=$2 after=$3
    echo "-- $before -> $after ($op, n=$history_n)"
    (cd "$repo" && decided "$out/step-$op-$before-$after.txt" "$perflab" ab --rev "$before" --rev "$after" \
        --build "$build" --name "step $op: $before -> $after" \
        --measure op_cpu_ns --better lower --min-runs "$ab_min" --max-runs "$ab_runs" --seed 13 --quiet \
        --json "$out/step-$op-$before-$after.json" -- ./hash-trie trie "$op" "$history_n")
}
# Every step against the one before, then the last commit against the first:
# the net result of the whole history.
for op in insert query; do
    judge "$op" baseline pool
    judge "$op" pool pool-sized
    judge "$op" baseline pool-sized
done

# The history: each commit measured where perflab checked it out, so every
# run records its commit, then `perflab history` judges the series.
for tag in baseline pool pool-sized; do
    commit=$(git -C "$repo" rev-parse "$tag")
    worktree=$(git -C "$repo" worktree list --porcelain |
        awk -v c="$commit" '/^worktree /{w=substr($0, 10)} /^HEAD /{if ($2 == c) print w}' |
        grep -F /.perflab/worktrees/ | head -n 1)
    for op in insert query; do
        (cd "$worktree" && "$perflab" run --name "trie $op, n=$history_n" \
            -r 10 --quiet "./hash-trie trie $op $history_n" >/dev/null)
    done
done
for op in insert query; do
    # Three commits are too few for change points found by shuffling whole
    # commits (the default): shuffle runs, which assumes the runs of a commit
    # differ only by the code (true of CPU time of the timed phase here).
    decided "history-$op.txt" "$perflab" history --metric op_cpu_ns --better lower --permute runs \
        --name "trie $op, n=$history_n" --json "history-$op.json" --markdown "history-$op-perflab.md"
    /usr/bin/python3 "$tables" history "$op" "step-$op-baseline-pool.json" \
        "step-$op-pool-pool-sized.json" "step-$op-baseline-pool-sized.json" \
        "history-$op.json" >"history-$op.md"
done

echo "== a profile of the seed's size ($seed_samples samples) beside one large enough"
# The same run profiled twice: at 4,999 Hz, then at the frequency that takes
# about as many samples as the seed read.
"$perflab" profile -F 4999 --name "profile: trie insert $profile_n" --json profile-proper.json \
    --svg flamegraph.svg -- ./hash-trie trie insert "$profile_n" >profile-proper.txt 2>&1
samples=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["profiles"][0]["samples"])' profile-proper.json)
small_hz=$((4999 * seed_samples / (samples > 0 ? samples : 1)))
small_hz=$((small_hz > 0 ? small_hz : 1))
"$perflab" profile -F "$small_hz" --name "profile: trie insert $profile_n, $seed_samples samples" \
    --json profile-small.json --no-svg -- ./hash-trie trie insert "$profile_n" >profile-small.txt 2>&1
/usr/bin/python3 "$tables" profile profile-proper.json profile-small.json >profile.md

echo "== reports"
"$perflab" report "hash-trie insert" "hash-trie query" "hash-trie rpds" "pool size, $pool_n inserts" \
    "step insert: baseline -> pool" "step insert: pool -> pool-sized" "step insert: baseline -> pool-sized" \
    "step query: baseline -> pool" "step query: pool -> pool-sized" "step query: baseline -> pool-sized" \
    "trie insert, n=$history_n" "trie query, n=$history_n" \
    "profile: trie insert $profile_n" "profile: trie insert $profile_n, $seed_samples samples" \
    --markdown "$here/REPORT.md" --html "$here/report.html"
# The history by commit, judged on the timed phase, as perflab history wrote it.
for op in insert query; do
    printf '\n' >>"$here/REPORT.md"
    cat "history-$op-perflab.md" >>"$here/REPORT.md"
done
# Every step of every sweep, judged cliff / no cliff / undecided (tables.py).
cat steps-insert.md steps-query.md steps-rpds.md >>"$here/REPORT.md"
/usr/bin/python3 "$tables" warnings sweep-*.json pool-ab.json step-*.json profile-*.json >warnings.md
/usr/bin/python3 "$tables" answer . >answer.md

finished=$(date +%s)
echo "investigate.sh measured for $((finished - built)) s after a release build of $((built - started)) s; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >duration.txt
/usr/bin/python3 "$tables" fill "$here/README.md" "$out"
cat duration.txt
publish_provenance "$here/README.md"
echo "investigate.sh: REPORT.md, report.html and README.md rewritten"
