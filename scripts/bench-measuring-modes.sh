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
# ratio to the plain run's median. Off-CPU recording costs per switch off
# the CPU, which that program hardly makes, so its modes also run on a
# second program of two threads passing a byte back and forth through pipes
# (`switching`, 20,000 round trips), against that program's plain run.
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
cat > "$work/switching.c" <<'C'
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
static int there[2], back[2];
static long rounds;
static void *echo(void *unused) {
    char byte;
    for (long i = 0; i < rounds; i++) { if (read(there[0], &byte, 1) != 1 || write(back[1], &byte, 1) != 1) exit(1); }
    return unused;
}
int main(int argc, char **argv) {
    rounds = strtol(argv[1], 0, 10);
    if (pipe(there) || pipe(back)) return 1;
    pthread_t thread;
    pthread_create(&thread, 0, echo, 0);
    char byte = 'x';
    for (long i = 0; i < rounds; i++) { if (write(there[1], &byte, 1) != 1 || read(back[0], &byte, 1) != 1) return 1; }
    pthread_join(thread, 0);
    return 0;
}
C
cc -O1 -fno-omit-frame-pointer -pthread -o "$work/switching" "$work/switching.c"
switching="$work/switching 20000"
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
    perf-record-off-cpu) perf record --quiet --no-buildid-cache -e cpu-clock/freq=999/ --switch-events \
        -e sched:sched_switch -c 1 --call-graph fp -o "$work/off.data" -- $prog ;;
    perflab-profile-off-cpu) $perflab --store "$work/s.db" profile --off-cpu --no-svg -- $prog ;;
    switching-plain) $switching ;;
    switching-perf-record-fp) perf record --quiet --no-buildid-cache -e cpu-clock -F 999 --call-graph fp \
        -o "$work/sfp.data" -- $switching ;;
    switching-perf-record-off-cpu) perf record --quiet --no-buildid-cache -e cpu-clock/freq=999/ \
        --switch-events -e sched:sched_switch -c 1 --call-graph fp -o "$work/soff.data" -- $switching ;;
    callgrind) env -i PATH=/usr/local/bin:/usr/bin:/bin setarch "$(uname -m)" -R valgrind \
        --tool=callgrind --quiet --trace-children=yes --callgrind-out-file="$work/cg.%p" $prog ;;
    perflab-run) $perflab --store "$work/s.db" run -N -r 1 --quiet --json "$work/r.json" "$prog" ;;
    perflab-run-counters) $perflab --store "$work/s.db" run -N -r 1 --quiet --perf-events \
        --json "$work/r.json" "$prog" ;;
  esac
}

modes=(plain perf-record-fp perf-record-dwarf perf-record-off-cpu perflab-profile perflab-profile-off-cpu
  callgrind perflab-run perflab-run-counters switching-plain switching-perf-record-fp
  switching-perf-record-off-cpu)
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
switching_plain=$(awk '$1 == "switching-plain" { print $2 }' "$work/times" | median)
for mode in "${modes[@]}" "${reported[@]/%/(wall_s)}"; do
  m=$(awk -v m="$mode" '$1 == m { print $2 }' "$work/times" | median)
  base=$plain
  # The switching program's modes are against its own plain run.
  [[ $mode == switching-* ]] && base=$switching_plain
  awk -v mode="$mode" -v m="$m" -v p="$base" 'BEGIN { printf "%-30s %12.1f %9.2f\n", mode, m / 1000, m / p }'
done
