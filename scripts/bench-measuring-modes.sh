#!/usr/bin/env bash
# The slowdown of each measuring mode of perflab against a plain run of the
# same program, measured side by side: every round runs every mode once, in
# a random order, so that drift of the machine falls on all of them.
#
#   scripts/bench-measuring-modes.sh [ROUNDS] [ITERATIONS]
#
# The program is the one the profile tests use: two functions, one doing
# three times the loop iterations of the other. The tool command lines are
# the ones perflab builds. Prints the median wall time of each mode and its
# ratio to the plain run's median.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-7}
iterations=${2:-200000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/twocosts.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) unsigned long light(unsigned long n) {
    unsigned long x = 1;
    for (unsigned long i = 0; i < n; i++) { x = x * 2654435761u + i; __asm__ volatile("" : "+r"(x)); }
    return x;
}
__attribute__((noinline)) unsigned long heavy(unsigned long n) {
    unsigned long x = 2;
    for (unsigned long i = 0; i < 3 * n; i++) { x = x * 2654435761u + i; __asm__ volatile("" : "+r"(x)); }
    return x;
}
int main(int argc, char **argv) {
    unsigned long n = strtoul(argv[1], 0, 10);
    for (int r = 0; r < 20; r++) { sink += light(n / 20); sink += heavy(n / 20); }
    printf("%lu\n", sink);
    return 0;
}
C
cc -O1 -fno-omit-frame-pointer -fno-inline -o "$work/prog" "$work/twocosts.c"
cargo build -q -p perflab-cli
perflab=target/debug/perflab
prog="$work/prog $iterations"

run_mode() {
  case "$1" in
    plain) $prog ;;
    perf-record-fp) perf record --quiet --no-buildid-cache -e cpu-clock -F 999 --call-graph fp \
        -o "$work/fp.data" -- $prog ;;
    perf-record-dwarf) perf record --quiet --no-buildid-cache -e cpu-clock -F 999 --call-graph dwarf \
        -o "$work/dwarf.data" -- $prog ;;
    perflab-profile) $perflab --store "$work/s.db" profile --no-svg -- $prog ;;
    callgrind) env -i PATH=/usr/local/bin:/usr/bin:/bin setarch "$(uname -m)" -R valgrind \
        --tool=callgrind --quiet --trace-children=yes --callgrind-out-file="$work/cg.%p" $prog ;;
    perflab-run) $perflab --store "$work/s.db" run -N -r 1 --quiet --json "$work/r.json" "$prog" ;;
    perflab-run-counters) $perflab --store "$work/s.db" run -N -r 1 --quiet --counters \
        --json "$work/r.json" "$prog" ;;
  esac
}

modes=(plain perf-record-fp perf-record-dwarf perflab-profile callgrind perflab-run perflab-run-counters)
reported=(perflab-run perflab-run-counters)
for ((r = 1; r <= rounds; r++)); do
  for mode in $(printf '%s\n' "${modes[@]}" | shuf); do
    start=$(date +%s%N)
    run_mode "$mode" >/dev/null 2>&1
    end=$(date +%s%N)
    echo "$mode $(( (end - start) / 1000 ))" >> "$work/times"
    if [[ $mode == perflab-run* ]]; then
      # The run's own wall time as perflab measured it, without perflab's start-up.
      wall=$(grep -o '"wall_s": [0-9.e-]*' "$work/r.json" | head -1 | awk '{ print int($2 * 1e6) }')
      echo "$mode(wall_s) $wall" >> "$work/times"
    fi
  done
  echo "round $r of $rounds done" >&2
done

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
plain=$(awk '$1 == "plain" { print $2 }' "$work/times" | median)
printf '%-30s %12s %9s   (%s rounds, %s iterations, %s)\n' mode "median ms" "x plain" "$rounds" "$iterations" "$(nproc) cores"
for mode in "${modes[@]}" "${reported[@]/%/(wall_s)}"; do
  m=$(awk -v m="$mode" '$1 == m { print $2 }' "$work/times" | median)
  awk -v mode="$mode" -v m="$m" -v p="$plain" 'BEGIN { printf "%-30s %12.1f %9.2f\n", mode, m / 1000, m / p }'
done
