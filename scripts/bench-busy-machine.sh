#!/usr/bin/env bash
# perflab on a busy machine: each measuring mode, quiet and under a
# background load, side by side.
#
#   scripts/bench-busy-machine.sh [--load 'CMD'] [--experiments N] [--pairs P] [--ab-defaults] [--quick]
#       [--workloads python,quickstart] [--modes default,shield,duet,wait-quiet]
#       [--loads quiet,loaded] [--max-time DURATION] [--perflab PATH]
#       [--quickstart PATH] [--out DIR] [--no-history] [--history-runs R] [--seed S]
#
# The load is a command prefix that runs a command under load (default: the
# project's `scripts/busy-load run --`: four CPU burners per CPU and a
# 256 MiB memory streamer). Every round runs, for each workload, mode and
# kind of experiment in a shuffled order, one experiment quiet and then the
# same experiment under the load, so that slow drift of the machine falls
# on both alike. Each experiment is a `perflab ab` of exactly P pairs
# (--min-runs P --max-runs P), or, with --ab-defaults, each A/B of a known
# change one with perflab ab's own run limits (10 to 60 pairs, stopping at
# the first verdict, as a user runs it):
#
# - A against A (the same command twice): a GO or NO-GO is a false alarm;
#   the width of its 95% interval at P pairs is what the load costs.
# - A against B, a known change: the Python workload's B runs 5% longer
#   (the right decision is NO-GO): it does more work by the factor that
#   lengthens a whole run, interpreter start included, by 5%, measured
#   before the rounds (`bench-busy-workload.py --longer-by 0.05`; 5% more
#   work alone made runs only about 3% longer); the quickstart's is the README's
#   experiment, examples/quickstart/perflab.toml, whose B skips a redundant
#   check (about 9% less work; the right decision is GO).
#
# The workloads: scripts/bench-busy-workload.py under /usr/bin/python3
# (about 30 ms of pure-Python work), and the quickstart program with the
# settings of examples/quickstart/perflab.toml (warmup 2; the peak-memory
# guard in its A/B only). The modes: perflab's default, `--shield CPU` (the last online
# CPU), `--duet` and `--wait-quiet`; a mode `perflab ab --help` does not
# list is reported as not available, and one perflab refuses (exit 2) as
# refused, with its message. An experiment that ends without a single pair
# (--wait-quiet on a machine that never gets quiet, stopped by --max-time)
# ends its cell: the rest of that cell's experiments are skipped.
#
# Prints one Markdown table (per workload and mode: false alarms, median
# interval width quiet and loaded and their ratio, right decisions, median
# CPU wait of the runs where perflab measures it), preceded by the machine's
# load average and CPU pressure at the start, and writes every experiment's
# figures to OUT/results.csv and OUT/results.json (its result document and
# stderr in OUT/experiments/). Then, unless --no-history, runs
# scripts/bench-busy-history.sh with the same load into OUT/history.
#
# Flags (defaults in parentheses):
#   --load 'CMD'        the command prefix that runs a command under load
#                       (the project's scripts/busy-load run --)
#   --experiments N     A=A and A/B experiments per cell (20)
#   --pairs P           pairs of runs per experiment (20)
#   --ab-defaults       the A/Bs of a known change run with perflab ab's own
#                       run limits instead of exactly P pairs (the A=A
#                       experiments keep P, for their width)
#   --workloads, --modes, --loads   what to measure, comma-separated (all)
#   --max-time D        perflab's --max-time for each experiment (3m)
#   --perflab PATH      the perflab to measure; without it, perflab and the
#                       quickstart are built in release mode first
#   --quickstart PATH   the quickstart program (target/release/quickstart)
#   --out DIR           where the raw results go (a new temporary folder)
#   --no-history        leave out the history part
#   --history-runs R    runs per commit of the histories (10)
#   --seed S            seed of the shuffled order of each round (1)
#   --quick             2 experiments of 5 pairs, 3 runs per commit: a check
#                       that the script works, not figures
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Quotes a word for the shell only where it needs it, as a person would write it.
shell_word() {
  if [[ $1 =~ ^[A-Za-z0-9_./:=,+%@-]+$ ]]; then printf '%s' "$1"; else printf "'%s'" "${1//\'/\'\\\'\'}"; fi
}
invocation=scripts/bench-busy-machine.sh
for word in "$@"; do invocation+=" $(shell_word "$word")"; done

usage() {
  echo "bench-busy-machine.sh: $1" >&2
  echo "usage: scripts/bench-busy-machine.sh [--load 'CMD'] [--experiments N] [--pairs P] [--quick] ..." >&2
  echo "(see the comment at the top of scripts/bench-busy-machine.sh)" >&2
  exit 2
}

load="$root/scripts/busy-load run --"
experiments='' pairs='' history_runs='' quick=0 history=1 seed=1 ab_defaults=0
workloads=python,quickstart
modes=default,shield,duet,wait-quiet
loads=quiet,loaded
max_time=3m
perflab='' quickstart='' out=''
while (($#)); do
  flag=$1
  case "$flag" in
    --quick) quick=1; shift; continue ;;
    --no-history) history=0; shift; continue ;;
    --ab-defaults) ab_defaults=1; shift; continue ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  esac
  (($# >= 2)) || usage "$flag needs a value"
  case "$flag" in
    --load) load=$2 ;;
    --experiments) experiments=$2 ;;
    --pairs) pairs=$2 ;;
    --workloads) workloads=$2 ;;
    --modes) modes=$2 ;;
    --loads) loads=$2 ;;
    --max-time) max_time=$2 ;;
    --perflab) perflab=$2 ;;
    --quickstart) quickstart=$2 ;;
    --out) out=$2 ;;
    --history-runs) history_runs=$2 ;;
    --seed) seed=$2 ;;
    *) usage "unknown flag $flag" ;;
  esac
  shift 2
done
if ((quick)); then
  experiments=${experiments:-2} pairs=${pairs:-5} history_runs=${history_runs:-3}
fi
experiments=${experiments:-20} pairs=${pairs:-20} history_runs=${history_runs:-10}

whole() { [[ $2 =~ ^[0-9]+$ ]] && (($2 >= $3)) || usage "$1 takes a whole number, at least $3, not '$2'"; }
whole --experiments "$experiments" 1
whole --pairs "$pairs" 2
whole --history-runs "$history_runs" 2
whole --seed "$seed" 0
[[ -n $load ]] || usage "--load needs a command prefix, e.g. --load 'scripts/busy-load run --'"
IFS=, read -ra workloads <<< "$workloads"
IFS=, read -ra modes <<< "$modes"
IFS=, read -ra loads <<< "$loads"
for w in "${workloads[@]}"; do
  [[ $w == python || $w == quickstart ]] || usage "--workloads takes python and quickstart, not '$w'"
done
for m in "${modes[@]}"; do
  [[ $m =~ ^(default|shield|duet|wait-quiet)$ ]] ||
    usage "--modes takes default, shield, duet and wait-quiet, not '$m'"
done
for l in "${loads[@]}"; do
  [[ $l == quiet || $l == loaded ]] || usage "--loads takes quiet and loaded, not '$l'"
done

if [[ -z $perflab ]]; then
  (cd "$root" && cargo build --release -q -p perflab-cli -p quickstart)
  perflab=$root/target/release/perflab
fi
# A bare name is looked up on PATH, as the shell would.
[[ $perflab == */* ]] || perflab=$(command -v "$perflab" || echo "$perflab")
[[ -x $perflab ]] || usage "--perflab $perflab is not an executable file"
perflab=$(cd "$(dirname "$perflab")" && pwd)/$(basename "$perflab")
quickstart=${quickstart:-$root/target/release/quickstart}
if [[ " ${workloads[*]} " == *" quickstart "* && ! -x $quickstart ]]; then
  usage "--quickstart $quickstart is not an executable file: build it with
  cargo build --release -p quickstart, or leave the quickstart out with --workloads python"
fi
python=/usr/bin/python3
[[ -x $python ]] || usage "the Python workload runs under $python, which is missing"
workload="$root/scripts/bench-busy-workload.py"
python_b=''
if [[ " ${workloads[*]} " == *" python "* ]]; then
  echo "bench-busy-machine: timing the Python workload's start to make its B run 5% longer" >&2
  python_b=$("$python" "$workload" --longer-by 0.05)
  echo "bench-busy-machine: the Python workload's B does $python_b times A's work" >&2
fi

out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/bench-busy-machine.XXXXXX")}
mkdir -p "$out/experiments"
out=$(cd "$out" && pwd)
store="$out/store.db"
manifest="$out/manifest.tsv"
: > "$manifest"

# What `perflab ab --help` lists decides which modes can run.
help=$("$perflab" ab --help)
has_flag() { grep -Eq -- "^ +(-[a-zA-Z], )?$1([ =<\[,]|\$)" <<< "$help"; }
last_cpu=$(sed 's/.*[-,]//' /sys/devices/system/cpu/online)
declare -A mode_label=([default]=default [shield]="--shield $last_cpu" [duet]=--duet [wait-quiet]=--wait-quiet)
declare -A mode_flags=([default]='' [shield]="--shield $last_cpu" [duet]=--duet [wait-quiet]=--wait-quiet)
declare -A skip=()
for m in "${modes[@]}"; do
  [[ $m == default ]] && continue
  flag=${mode_flags[$m]%% *}
  has_flag "$flag" || skip[$m]="not available: \`perflab ab --help\` lists no $flag"
done

{
  echo "invocation	$invocation"
  echo "cpus	$(nproc --all)"
  echo "loadavg	$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "pressure	$(head -1 /proc/pressure/cpu 2>/dev/null || echo 'not available')"
  echo "load	$load"
  echo "perflab	$perflab ($("$perflab" --version))"
  echo "commit	$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "experiments	$experiments"
  echo "pairs	$pairs"
  echo "ab_runs	$( ((ab_defaults)) && echo "perflab ab's own run limits" || echo "$pairs")"
  echo "workloads	$(IFS=,; echo "${workloads[*]}")"
  echo "modes	$(IFS=,; echo "${modes[*]}")"
  echo "loads	$(IFS=,; echo "${loads[*]}")"
  echo "shield_cpu	$last_cpu"
  echo "python_b_work	${python_b:-not measured}"
  echo "started	$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > "$out/machine.tsv"
echo "bench-busy-machine: results go to $out" >&2

# Whether a result document holds at least one run of each variant.
measured_a_pair() {
  /usr/bin/python3 -c 'import json, sys
try:
    variants = json.load(open(sys.argv[1]))["variants"]
except (OSError, ValueError, KeyError):
    sys.exit(1)
sys.exit(0 if variants and min(v["runs"] for v in variants) > 0 else 1)' "$1"
}

# One experiment: perflab ab of a workload's A=A or A/B in a mode, quiet or
# under the load; its exit code, time and result go into the manifest.
number=0
experiment() {
  local round=$1 w=$2 m=$3 kind=$4 l=$5
  number=$((number + 1))
  local id
  id=$(printf '%04d' "$number")
  local json="$out/experiments/$id.json" err="$out/experiments/$id.stderr"
  local -a cmd=("$perflab" --store "$store" ab --quiet --json "$json" --name "busy-$w-$kind"
    --max-time "$max_time")
  if [[ $kind == aa ]] || ((!ab_defaults)); then
    cmd+=(--min-runs "$pairs" --max-runs "$pairs")
  fi
  # shellcheck disable=SC2206 # the mode's flags are words
  cmd+=(${mode_flags[$m]})
  case "$w/$kind" in
    python/aa) cmd+=("$python $workload 1" "$python $workload 1") ;;
    python/ab) cmd+=("$python $workload 1" "$python $workload $python_b") ;;
    # The A/B is the README's experiment, examples/quickstart/perflab.toml,
    # as flags (so that --quickstart can name the program); the A=A keeps its
    # warmup but not its guard, which could only turn a false GO into another
    # verdict.
    quickstart/aa) cmd+=(--warmup 2 "$quickstart" "$quickstart") ;;
    quickstart/ab) cmd+=(--warmup 2 --guard peak-memory:10%+256KiB --env-b QUICKSTART_FAST=1
      "$quickstart" "$quickstart") ;;
  esac
  local start end code=0
  start=$(date +%s%N)
  if [[ $l == loaded ]]; then
    sh -c "$load \"\$@\"" busy-load-prefix "${cmd[@]}" < /dev/null > /dev/null 2> "$err" || code=$?
  else
    "${cmd[@]}" < /dev/null > /dev/null 2> "$err" || code=$?
  fi
  end=$(date +%s%N)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$round" "$w" "$m" "$kind" "$l" "$code" \
    "$(((end - start) / 1000000))" >> "$manifest"
  echo "  $id round $round: $w, ${mode_label[$m]}, $kind, $l: exit $code" >&2
  if ((code == 2)); then
    skip[$w/$m]="refused (exit 2): $(grep -m1 . "$err" || echo 'no message')"
  elif ! measured_a_pair "$json"; then
    skip[$w/$m/$l]="experiment $id ended (exit $code) without a pair of runs (--max-time $max_time); the rest of this cell was skipped"
  fi
}

shuffled() { awk -v seed="$1" 'BEGIN { srand(seed) } { print rand() "\t" $0 }' | sort -n | cut -f2-; }

# Ctrl-C reaches perflab and the load, which stop; the script then prints
# the table of what was measured and leaves the history out.
interrupted=0
trap 'interrupted=1' INT
started=$(date +%s)
for ((round = 1; round <= experiments && !interrupted; round++)); do
  plan=$(for w in "${workloads[@]}"; do for m in "${modes[@]}"; do for kind in aa ab; do
    echo "$w $m $kind"; done; done; done | shuffled $((seed * 1000 + round)))
  while read -r w m kind; do
    [[ -n ${skip[$m]:-} || -n ${skip[$w/$m]:-} ]] && continue
    for l in "${loads[@]}"; do
      ((interrupted)) && break 2
      [[ -n ${skip[$w/$m/$l]:-} ]] && continue
      experiment "$round" "$w" "$m" "$kind" "$l"
    done
  done <<< "$plan"
done
trap - INT
{
  for key in "${!skip[@]}"; do printf '%s\t%s\n' "$key" "${skip[$key]}"; done
} > "$out/skipped.tsv"
echo "seconds	$(($(date +%s) - started))" >> "$out/machine.tsv"

/usr/bin/python3 "$root/scripts/bench-busy-table.py" "$out" | tee "$out/table.md"

if ((interrupted)); then
  echo "bench-busy-machine: interrupted; the table shows the experiments that ran" >&2
  exit 130
fi
if ((history)); then
  echo >&2
  "$root/scripts/bench-busy-history.sh" --load "$load" --perflab "$perflab" \
    --runs "$history_runs" --out "$out/history" | tee "$out/history.md"
fi
