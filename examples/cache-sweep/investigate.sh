#!/usr/bin/env bash
# Reruns this example's sweep and rewrites every figure of README.md:
#
#   examples/cache-sweep/investigate.sh [--allow-busy]
#
# builds perflab (release) and cachewalk (make), checks that the tree is
# committed and the machine quiet (examples/publish-gate.sh), reads the
# machine's cache sizes from /sys, runs the sweep of the working set over
# the sizes below, and rewrites the marked blocks of README.md from the
# sweep's JSON document (figures.py): the sweep as perflab printed it, and
# a reading of its cliffs, its steps at each cache level and its imprecise
# points, each from their intervals. The provenance block is written last.
# Everything is kept in out/ (gitignored), the store in out/perflab.db.
#
# Sizes (defaults: the published run, well under a minute of sweeping on a
# quiet 2-CPU machine after the build). CACHE_SWEEP_QUICK=1 makes every
# default small (a check of the script in a few seconds, whose figures the
# README then marks as a small check); each variable below overrides it:
#   CACHE_SWEEP_SIZES      working sets in KiB, as perflab's -p  (4..65536:x4; quick 4..1024:x4)
#   CACHE_SWEEP_STEPS      dependent loads per run of cachewalk  (5000000; quick 200000)
#   CACHE_SWEEP_MIN_RUNS   runs per point, at least              (5; quick 3)
#   CACHE_SWEEP_MAX_RUNS   runs per point, at most               (10; quick 4)
# PERFLAB=PATH uses that perflab binary instead of building one.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [ "${CACHE_SWEEP_QUICK:-0}" = 1 ]; then
    quick=(4..1024:x4 200000 3 4)
else
    quick=(4..65536:x4 5000000 5 10)
fi
sizes="${CACHE_SWEEP_SIZES:-${quick[0]}}"
steps="${CACHE_SWEEP_STEPS:-${quick[1]}}"
min_runs="${CACHE_SWEEP_MIN_RUNS:-${quick[2]}}"
max_runs="${CACHE_SWEEP_MAX_RUNS:-${quick[3]}}"

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
make -s cachewalk
rm -rf out
mkdir -p out
export PERFLAB_STORE="$here/out/perflab.db"

# The caches the sweep walks through, as the kernel lists them for CPU 0:
# level, type, size and the CPUs sharing it, one cache a line.
for cache in /sys/devices/system/cpu/cpu0/cache/index*; do
    [ -r "$cache/size" ] || continue
    echo "$(cat "$cache/level") $(cat "$cache/type") $(cat "$cache/size") $(cat "$cache/shared_cpu_list")"
done >out/caches.txt

command=(sweep -p "kib=$sizes" "./cachewalk {kib} $steps" --measure ns_per_access --better lower
    --per-item --size kib --precision 5% --min-runs "$min_runs" --max-runs "$max_runs")
printf '%s\n' "${command[@]}" >out/command.txt
set +e
"$perflab" "${command[@]}" --json out/sweep.json >out/sweep.txt 2>&1
status=$?
set -e
if [ "$status" -ne 0 ]; then
    cat out/sweep.txt >&2
    echo "perflab sweep failed (exit $status)" >&2
    exit 1
fi
cut -d' ' -f1-3 /proc/loadavg >out/load.txt
cat out/sweep.txt

echo "$(($(date +%s) - started))" >out/seconds.txt
published=0
[ "$sizes" = 4..65536:x4 ] && [ "$steps" = 5000000 ] && [ "$min_runs" = 5 ] && [ "$max_runs" = 10 ] && published=1
echo "$published" >out/published.txt

"$python" figures.py out README.md
publish_provenance "$here/README.md"
echo "rewrote the blocks of README.md in $(cat out/seconds.txt) s" >&2
