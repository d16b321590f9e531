#!/usr/bin/env bash
# What `perflab compare` costs on large samples files: two files of N values
# each (10,000,000 by default), compared once under /usr/bin/time -v.
#
#   scripts/bench-large-compare.sh [--values N] [--perflab PATH]
#
# The files hold normal-ish values (a seeded sum of uniforms) around 100
# (baseline) and 103 (candidate), one per line with six decimals, written by
# /usr/bin/python3 before the clock starts. The goal, "compare of two
# 10M-value files in under 10 s and 1 GB", is met when the two figures
# printed last are below 10 s and 1024 MB. Prints the machine's load and CPU
# pressure at the start, perflab's table, and one line with the wall time
# and peak resident memory. Without --perflab, perflab is built in release
# mode first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  echo "bench-large-compare.sh: $1" >&2
  echo "usage: scripts/bench-large-compare.sh [--values N] [--perflab PATH]" >&2
  exit 2
}

values=10000000 perflab=''
while [[ $# -gt 0 ]]; do
  case $1 in
    --values) [[ $# -ge 2 && $2 =~ ^[0-9]+$ && $2 -ge 10 ]] || usage "--values takes a number of 10 or more"; values=$2; shift 2 ;;
    --perflab) [[ $# -ge 2 ]] || usage "--perflab takes a path"; perflab=$2; shift 2 ;;
    *) usage "unknown argument '$1'" ;;
  esac
done
[[ -x /usr/bin/time ]] || usage "/usr/bin/time is needed for the peak memory (apt-get install time)"
if [[ -z $perflab ]]; then
  (cd "$root" && cargo build --release -p perflab-cli >&2)
  perflab=$root/target/release/perflab
fi
[[ -x $perflab ]] || usage "no perflab at $perflab"
perflab=$(cd "$(dirname "$perflab")" && pwd)/$(basename "$perflab")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
/usr/bin/python3 - "$values" <<'PY'
import random, sys
n = int(sys.argv[1])
for name, centre, seed in (("A.txt", 100.0, 1), ("B.txt", 103.0, 2)):
    rng = random.Random(seed)
    with open(name, "w") as f:
        chunk = []
        for _ in range(n):
            # The sum of 4 uniforms: bell-shaped, sd 2 around the centre.
            u = rng.random() + rng.random() + rng.random() + rng.random() - 2.0
            chunk.append("%.6f\n" % (centre + u * 2.0 * 3.0 ** 0.5))
            if len(chunk) == 65536:
                f.write("".join(chunk))
                chunk.clear()
        f.write("".join(chunk))
PY
echo "load average $(cut -d' ' -f1-3 /proc/loadavg); CPU pressure: $(head -1 /proc/pressure/cpu 2>/dev/null || echo unknown)"
echo "perflab compare A.txt B.txt, $values values each ($(du -h A.txt | cut -f1) per file)"
status=0
/usr/bin/time -v -o "$work/time.txt" \
  "$perflab" --store "$work/store.db" compare A.txt B.txt || status=$?
# 0 GO, 3 NO-GO, 4 INCONCLUSIVE: a verdict; anything else is a failure.
case $status in 0|3|4) ;; *) echo "bench-large-compare.sh: perflab compare failed (exit $status)" >&2; exit "$status" ;; esac
/usr/bin/python3 - "$work/time.txt" "$values" <<'PY'
import sys
fields = dict(line.strip().rsplit(": ", 1) for line in open(sys.argv[1]) if ": " in line)
clock = fields["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")
wall = sum(float(part) * 60 ** i for i, part in enumerate(reversed(clock)))
peak_mb = int(fields["Maximum resident set size (kbytes)"]) / 1024
print(f"compare of {sys.argv[2]} values each: {wall:.2f} s wall, {peak_mb:.0f} MB peak resident memory")
PY
