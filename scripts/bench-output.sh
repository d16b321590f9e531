#!/usr/bin/env bash
# What perflab's reading of a run's output costs a program that prints a
# lot: the same work, printing its output into perflab's pipe (B) against
# writing it to /dev/null itself (A), measured by perflab as an interleaved
# A/B, so that drift of the machine falls on both alike.
#
#   scripts/bench-output.sh [--bytes N] [--pairs P] [--perflab PATH]
#
# The program is `yes | head -c N` (200,000,000 bytes of short lines by
# default); perflab reads B's output as it reads any run's (`--output pipe`,
# the default: metric lines found, the answer hashed, a tail kept). The
# A/B runs exactly P pairs (20) with thresholds at +5% and -5%, so the goal,
# "a command printing 200 MB is measured within 5% of the same command
# writing to /dev/null", is met when the verdict is NEUTRAL: the whole
# interval of the change lies within 5%. Prints the machine's load and CPU
# pressure at the start, perflab's table, and one line with the change and
# its interval. Without --perflab, perflab is built in release mode first.
#
# Then, where a C compiler is at hand, the floor any reader of a pipe sets:
# a second A/B of the same A against `yes | head -c N | drain`, where drain
# moves the pipe's pages to /dev/null with splice(2), never copying a byte
# into its own memory, the cheapest reading Linux offers. The writer's copy
# into the pipe is paid whatever reads it; if this A/B is not NEUTRAL
# either, no way of reading a pipe can meet the goal on this machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  echo "bench-output.sh: $1" >&2
  echo "usage: scripts/bench-output.sh [--bytes N] [--pairs P] [--perflab PATH]" >&2
  exit 2
}

bytes=200000000 pairs=20 perflab=''
while [[ $# -gt 0 ]]; do
  case $1 in
    --bytes) [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || usage "--bytes takes a number of bytes"; bytes=$2; shift 2 ;;
    --pairs) [[ $# -ge 2 && $2 =~ ^[0-9]+$ && $2 -ge 2 ]] || usage "--pairs takes a number of 2 or more"; pairs=$2; shift 2 ;;
    --perflab) [[ $# -ge 2 ]] || usage "--perflab takes a path"; perflab=$2; shift 2 ;;
    *) usage "unknown argument '$1'" ;;
  esac
done
if [[ -z $perflab ]]; then
  (cd "$root" && cargo build --release -p perflab-cli >&2)
  perflab=$root/target/release/perflab
fi
[[ -x $perflab ]] || usage "no perflab at $perflab"
perflab=$(cd "$(dirname "$perflab")" && pwd)/$(basename "$perflab")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg); CPU pressure: $(head -1 /proc/pressure/cpu 2>/dev/null || echo unknown)"
# against_a LETTER NAME COMMAND WHAT: an A/B of A against COMMAND, and one
# line saying how much longer COMMAND took, WHAT being what it stands for.
against_a() {
  local letter=$1 name=$2 command=$3 what=$4 status=0
  "$perflab" --store "$work/store.db" ab \
    "yes | head -c $bytes > /dev/null" "$command" \
    --name "$name-$bytes" --min-runs "$pairs" --max-runs "$pairs" --warmup 1 \
    --go 5% --nogo -5% --json "$work/$name.json" || status=$?
  # 0 GO, 3 NO-GO, 4 INCONCLUSIVE: a verdict; anything else is a failure.
  case $status in 0|3|4) ;; *) echo "bench-output.sh: perflab ab failed (exit $status)" >&2; exit "$status" ;; esac
  /usr/bin/python3 - "$work/$name.json" "$letter" "$what" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
letter, what = sys.argv[2], sys.argv[3]
# perflab's change is in speed (A's time over the other's, less one);
# said here as the other's time against A's.
change, (lo, hi) = doc["change"], doc["ci"]
longer = lambda c: 1 / (1 + c) - 1
within = doc["verdict"] == "NEUTRAL"
print(f"{letter} takes {longer(change):+.1%} longer than A [{longer(hi):+.1%}, {longer(lo):+.1%}] "
      f"({doc['verdict']}): {what} {'costs' if within else 'is not shown to cost'} less than 5%")
PY
}

echo "A: yes | head -c $bytes > /dev/null    B: yes | head -c $bytes, read by perflab"
against_a B output "yes | head -c $bytes" "the output's reading"

cc=$(command -v cc || command -v gcc || true)
if [[ -z $cc ]]; then
  echo "no C compiler: the floor of a pipe's reading is not measured"
  exit 0
fi
cat >drain.c <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
/* Moves stdin (a pipe) to /dev/null with splice: the bytes never reach
   this process's memory. */
int main(void) {
    int null = open("/dev/null", O_WRONLY);
    if (null < 0) return 1;
    for (;;) {
        ssize_t n = splice(0, NULL, null, NULL, 1 << 20, SPLICE_F_MOVE);
        if (n == 0) return 0;
        if (n < 0) return 1;
    }
}
C
"$cc" -O2 -o drain drain.c
echo
echo "A: yes | head -c $bytes > /dev/null    C: yes | head -c $bytes | drain (splice to /dev/null)"
against_a C output-floor "yes | head -c $bytes | $work/drain" "the cheapest reading of a pipe"
