#!/usr/bin/env bash
# Reruns the hash-trie investigation: the answer check, the sweeps of the
# trie over 1K..4M keys against std's HashMap, the sweep of rpds over
# 1K..1M, the pool-size A/B, and the trie's history as commits of a
# throwaway repository. Writes REPORT.md and report.html with `perflab
# report`, and rewrites the marked blocks of README.md from the real output;
# it prints its duration at the end, and README.md keeps it.
#
# Each sweep runs every point until ±5% or 6 runs, or until its time limit
# once every point has 3 runs: on a loaded machine the limits, not the run
# counts, bound the script's duration.
#
# Smaller runs (the workspace test does its own, smaller still):
#   HASH_TRIE_SIZES       the trie sweeps' sizes      [default: 1K..4096K:x4]
#   HASH_TRIE_RPDS_SIZES  the rpds sweep's sizes      [default: 1K..1024K:x4]
#   HASH_TRIE_MAX_RUNS    runs per sweep point        [default: 6]
#   HASH_TRIE_SWEEP_TIME  time limit of each trie sweep [default: 140s]
#   HASH_TRIE_RPDS_TIME   time limit of the rpds sweep  [default: 90s]
#   HASH_TRIE_HISTORY_N   keys of the history runs    [default: 256000]
#   HASH_TRIE_POOL_N      inserts of the pool A/B     [default: 1024000]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sizes=${HASH_TRIE_SIZES:-1K..4096K:x4}
rpds_sizes=${HASH_TRIE_RPDS_SIZES:-1K..1024K:x4}
max_runs=${HASH_TRIE_MAX_RUNS:-6}
sweep_time=${HASH_TRIE_SWEEP_TIME:-140s}
rpds_time=${HASH_TRIE_RPDS_TIME:-90s}
history_n=${HASH_TRIE_HISTORY_N:-256000}
pool_n=${HASH_TRIE_POOL_N:-1024000}
export CARGO_INCREMENTAL=0
started=$(date +%s)

echo "== building perflab and the example"
(cd "$root" && cargo build --release --quiet -p perflab-cli -p hash-trie)
perflab=$root/target/release/perflab
# A committed tree and a quiet machine, or no figures (see publish-gate.sh).
. "$root/examples/publish-gate.sh"
publish_gate "$@"

# Everything this run makes, apart from the reports: the store, the JSON
# documents and each command's terminal output (gitignored).
out=$here/out
rm -rf "$out"
mkdir -p "$out"
export PERFLAB_STORE=$out/perflab.db
cp "$root/target/release/hash-trie" "$out/hash-trie"
cd "$out"

# Runs a perflab command that ends in a verdict, keeping its result (stdout;
# progress and build messages stay on the terminal) in FILE: GO, NEUTRAL
# (0), NO-GO (3) and INCONCLUSIVE (4) are results to report; a failure (1)
# or bad usage (2) stops the script.
decided() {
    local file=$1
    shift
    local code=0
    "$@" >"$file" || code=$?
    cat "$file"
    if [ "$code" -ne 0 ] && [ "$code" -ne 3 ] && [ "$code" -ne 4 ]; then
        echo "investigate.sh: '$*' failed with exit code $code" >&2
        exit "$code"
    fi
}

echo "== the answer check: every structure prints the same checksum"
: >checksums.txt
for op in insert query; do
    for n in 1000 64000 256000; do
        expected=""
        for structure in std trie rpds; do
            line=$(PERFLAB_TABLE=0 ./hash-trie "$structure" "$op" "$n" 2>/dev/null | grep '^checksum')
            printf '%-5s %s\n' "$structure" "$line" >>checksums.txt
            if [ -z "$expected" ]; then
                expected=$line
            elif [ "$line" != "$expected" ]; then
                echo "investigate.sh: $structure printed '$line' where std printed '$expected'" >&2
                exit 1
            fi
        done
    done
done
cat checksums.txt

# Every run is a fresh process whose cost is its own work, and the answer
# check has just loaded the binary: no warm-up runs (--warmup 0).
for op in insert query; do
    echo "== sweep: $op over n=$sizes"
    "$perflab" sweep -p "n=$sizes" --name "hash-trie $op" \
        --measure op_cpu_ns --better lower --warmup 0 \
        --min-runs 3 --max-runs "$max_runs" --precision 5% --max-time "$sweep_time" --seed 13 --quiet \
        --command-name trie --command-name trie-small-pool \
        "./hash-trie trie $op {n}" \
        "./hash-trie trie $op {n} --pool-slots 65536" \
        --reference "./hash-trie std $op {n}" --reference-name std-HashMap \
        --json "sweep-$op.json" --markdown "sweep-$op.md" | tee "sweep-$op.txt"
done

# rpds up to 1M keys only: at 4M one run of it costs more than the runs of
# the trie, the small-pool trie and std together, for the same figures.
echo "== sweep: rpds, insert and query over n=$rpds_sizes"
"$perflab" sweep -p op=insert,query -p "n=$rpds_sizes" --name "hash-trie rpds" \
    --measure op_cpu_ns --better lower --warmup 0 \
    --min-runs 3 --max-runs "$max_runs" --precision 5% --max-time "$rpds_time" --seed 13 --quiet \
    --command-name rpds "./hash-trie rpds {op} {n}" \
    --reference "./hash-trie std {op} {n}" --reference-name std-HashMap \
    --json sweep-rpds.json --markdown sweep-rpds.md | tee sweep-rpds.txt

echo "== the pool's size at $pool_n inserts: 65,536 slots against sized by the keys"
decided pool-ab.txt "$perflab" ab --name "pool size, $pool_n inserts" \
    --name-a pool-65536-slots --name-b pool-sized-by-keys \
    --measure op_cpu_ns --better lower --min-runs 10 --max-runs 20 --seed 13 --quiet \
    --json pool-ab.json \
    "./hash-trie trie insert $pool_n --pool-slots 65536" "./hash-trie trie insert $pool_n"

echo "== the trie's history: one commit per step in a throwaway repository"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
repo=$scratch/trie-history
mkdir -p "$repo"
git -C "$repo" init -q
git -C "$repo" config user.name "hash-trie example"
git -C "$repo" config user.email "hash-trie@example.invalid"
sed "s|@ROOT@|$root|" "$here/steps/Cargo.toml.in" >"$repo/Cargo.toml"
cp "$root/Cargo.lock" "$repo/Cargo.lock"
printf '/hash-trie\n/.perflab/\n/.perflab-build\n/target/\n' >"$repo/.gitignore"
# Every package of the step's lock file at the version perflab's lock file
# pins: fetching may trim the lock file, never move a version.
lock_versions() { awk '/^name = /{n=$3} /^version = /{print n, $3}' "$1" | sort -u; }
same_versions() {
    local moved
    moved=$(comm -23 <(lock_versions "$repo/Cargo.lock") <(lock_versions "$root/Cargo.lock"))
    if [ -n "$moved" ]; then
        echo "investigate.sh: the trie's history resolved versions perflab's Cargo.lock does not pin:" >&2
        echo "$moved" >&2
        exit 1
    fi
}
step() {
    local tag=$1 patch=$2 subject=$3
    rm -rf "$repo/src"
    cp -r "$here/src" "$repo/src"
    if [ -n "$patch" ]; then
        git -C "$repo" apply "$here/steps/$patch"
    fi
    # Trims the copied lock file to this package's dependencies and fetches
    # any the cargo cache lacks (online when needed), at the versions of
    # perflab's own lock file: the builds below then run offline.
    (cd "$repo" && cargo fetch --quiet)
    same_versions
    git -C "$repo" add -A
    git -C "$repo" commit -qm "$subject"
    git -C "$repo" tag "$tag"
}
step baseline 1-baseline.patch "baseline: node arrays from the global allocator"
step pool 2-pool.patch "pool: node arrays from a pool of 65,536 slots, the global allocator when it runs out"
step pool-sized "" "pool sized by the number of keys"
git -C "$repo" log --oneline --reverse | tee commits.txt

# Every step builds in perflab's target folder under a package name of its
# own, so the dependencies are built once and the example's binary stays.
build="CARGO_TARGET_DIR='$root/target' cargo build --release --offline --quiet && cp '$root/target/release/hash-trie-step' hash-trie"
judge() {
    local before=$1 after=$2
    echo "-- $before -> $after (insert, n=$history_n)"
    (cd "$repo" && decided "$out/step-$after.txt" "$perflab" ab --rev "$before" --rev "$after" \
        --build "$build" --name "step: $after" \
        --measure op_cpu_ns --better lower --min-runs 10 --max-runs 30 --seed 13 --quiet \
        --json "$out/step-$after.json" -- "./hash-trie trie insert $history_n")
}
judge baseline pool
judge pool pool-sized

# The history: each commit measured where perflab checked it out, so every
# run records its commit, then `perflab history` judges step after step.
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
        --name "trie $op, n=$history_n" --json "history-$op.json" --markdown "history-$op.md"
done

echo "== reports"
"$perflab" report "hash-trie insert" "hash-trie query" "hash-trie rpds" "pool size, $pool_n inserts" \
    "step: pool" "step: pool-sized" "trie insert, n=$history_n" "trie query, n=$history_n" \
    --markdown "$here/REPORT.md" --html "$here/report.html"
# The history by commit, judged on the timed phase, as perflab history wrote it.
for op in insert query; do
    printf '\n' >>"$here/REPORT.md"
    cat "history-$op.md" >>"$here/REPORT.md"
done
echo "investigate.sh ran in $(($(date +%s) - started)) s; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >duration.txt

# Rewrites the block between <!-- begin: NAME --> and <!-- end: NAME --> of
# README.md with FILE, as a text block.
python3 - "$here/README.md" <<'PY'
import re, sys
readme = sys.argv[1]
text = open(readme).read()
def block(match):
    name = match.group(1)
    body = open(f"{name}.txt").read().rstrip("\n")
    return f"<!-- begin: {name} -->\n```text\n{body}\n```\n<!-- end: {name} -->"
text = re.sub(r"<!-- begin: ([\w-]+) -->.*?<!-- end: \1 -->", block, text, flags=re.S)
open(readme, "w").write(text)
PY
cat duration.txt
echo "investigate.sh: REPORT.md, report.html and README.md rewritten"
publish_provenance "$here/README.md"
