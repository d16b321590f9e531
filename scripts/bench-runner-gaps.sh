#!/usr/bin/env bash
# Where a runner's time per run goes, read from the kernel's own events:
# perflab's and hyperfine's runs of `true`, traced by `perf record` on the
# scheduler's tracepoints (a process forked, exec'd, exited) of the whole
# machine, the tool's own process tree picked out afterwards. Recording the
# whole machine, not the tool's tree, keeps perf out of every fork and exit
# (a traced tree has its events copied to each child at fork and gathered
# at exit, which made both tools' runs 100 µs longer here).
#
#   scripts/bench-runner-gaps.sh [--runs N] [--perflab PATH]
#
# For each tool it prints the median over its N runs (300) of (and, for
# the time between runs, the 90th percentile, where a runner's occasional
# slow turn shows, and the mean, where a rare long one does, such as a
# write to the store every 64 runs):
#   between runs   the command's exit to the fork of the next run: the
#                  runner's own time on the path from one run to the next
#                  (reaping, reading counters, reporting, starting again);
#   fork to exec   the new process until `true` is exec'd;
#   exec to exit   `true` itself;
#   a run          one exec to the next;
# and, at the command's exit, how long until it wakes the process that
# forks the next run (the runner: perflab's fork server, or hyperfine),
# and how many wake-ups of processes on other CPUs it makes before that:
# on a virtual machine each such wake-up is an interrupt to another CPU,
# whose sending holds up the exiting command's CPU, and the runner with it
# (counted at the exits where the runner was asleep, and how many those
# were: on a busy machine a runner waiting for a CPU is not woken);
# and, at the start, the runner's own work once the new process has
# released it (its exec; both runners fork as vfork does) until the
# runner sleeps, during which the new process waits on the same CPU.
# perflab runs as `perflab run -N true --runs N --warmup 0 --quiet` with a
# store of its own in a temporary folder; hyperfine as `hyperfine -N -r N
# true` (skipped, with the reason, where it is not installed). The tools
# run one after the other, not taking turns: compare the figures of one
# run of this script only, with the machine's load it prints.
#
# Needs perf able to record the machine's sched tracepoints (root, or
# kernel.perf_event_paranoid of -1) and python3.
set -euo pipefail

usage() {
  echo "bench-runner-gaps.sh: $1" >&2
  echo "usage: scripts/bench-runner-gaps.sh [--runs N] [--perflab PATH]" >&2
  exit 2
}

runs=300 perflab=''
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) [[ $# -ge 2 && $2 =~ ^[0-9]+$ && $2 -ge 3 ]] || usage "--runs takes a number of 3 or more"; runs=$2; shift 2 ;;
    --perflab) [[ $# -ge 2 ]] || usage "--perflab takes the path of a perflab binary"; perflab=$2; shift 2 ;;
    *) usage "unknown argument '$1'" ;;
  esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z $perflab ]]; then
  perflab="$here/target/release/perflab"
  [[ -x $perflab ]] || usage "no perflab at $perflab; build it (cargo build --release -p perflab-cli) or give --perflab PATH"
fi
[[ -x $perflab ]] || usage "--perflab $perflab is not an executable file"
command -v perf >/dev/null || { echo "bench-runner-gaps.sh: perf is not installed (apt-get install linux-perf)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench-runner-gaps.sh: python3 is not installed" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
events=sched:sched_process_fork,sched:sched_process_exec,sched:sched_process_exit,sched:sched_waking,sched:sched_switch

# Records the whole machine while the command given runs, into $work/NAME.txt.
trace() {
  local name=$1
  shift
  if ! perf record -a -q -e "$events" -o "$work/$name.data" -- "$@" >"$work/$name.out" 2>"$work/$name.err"; then
    echo "bench-runner-gaps.sh: perf could not trace '$*':" >&2
    tail -5 "$work/$name.err" >&2
    echo "(tracepoints need root or kernel.perf_event_paranoid of -1)" >&2
    exit 1
  fi
  perf script -i "$work/$name.data" -F pid,cpu,time,event,trace >"$work/$name.txt" 2>/dev/null
}

echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; CPU pressure: $(head -1 /proc/pressure/cpu 2>/dev/null || echo 'not available')"
trace perflab "$perflab" run -N true --runs "$runs" --warmup 0 --quiet --store "$work/store.db"
tools=(perflab)
if command -v hyperfine >/dev/null; then
  trace hyperfine hyperfine -N -r "$runs" --style none true
  tools+=(hyperfine)
else
  echo "hyperfine: skipped: not installed (apt-get install hyperfine)"
fi

python3 - "$work" "$runs" "${tools[@]}" <<'EOF'
import re, statistics, sys

work, runs, tools = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
line = re.compile(r"\s*(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+sched:(\w+):\s+(.*)")
for tool in tools:
    # The whole machine was recorded: keep the tool's process tree, from
    # the tool's exec down through the forks.
    tree, forks, forker, execs, exits, wakings = set(), {}, {}, {}, {}, {}
    released, awaiting, runner_after_release = {}, {}, {}
    for text in open(f"{work}/{tool}.txt"):
        match = line.match(text)
        if not match:
            continue
        pid, cpu, at, event, detail = int(match[1]), int(match[2]), float(match[3]), match[4], match[5]
        if event == "sched_process_exec" and not tree and re.search(rf"filename=\S*/{tool}\b", detail):
            tree.add(pid)
        if pid not in tree:
            continue
        if event == "sched_process_fork":
            child = int(re.search(r"child_pid=(\d+)", detail)[1])
            tree.add(child)
            forks[child] = at
            forker[child] = pid
        elif event == "sched_process_exec" and re.search(r"filename=\S*/true\b", detail):
            execs[pid] = at
        elif event == "sched_process_exit" and re.search(r"comm=true\b", detail):
            exits[pid] = at
        elif event == "sched_waking" and pid in exits:
            # A wake-up the exiting command makes (the waker is the
            # process the event is recorded in).
            woken = int(re.search(r"\bpid=(\d+)", detail)[1])
            target = int(re.search(r"target_cpu=(\d+)", detail)[1])
            wakings.setdefault(pid, []).append((at, woken, target != cpu))
        elif event == "sched_waking" and pid in forker and pid not in released:
            # The new process releasing its runner, before it is `true`.
            if int(re.search(r"\bpid=(\d+)", detail)[1]) == forker[pid]:
                released[pid] = at
                awaiting[forker[pid]] = pid
        elif event == "sched_switch" and pid in awaiting and "prev_state=S" in detail:
            # The runner going to sleep after it was released.
            started = awaiting.pop(pid)
            runner_after_release[started] = at - released[started]
    order = sorted(execs, key=execs.get)
    if len(order) < 2:
        sys.exit(f"bench-runner-gaps.sh: the trace of {tool} shows {len(order)} runs of true, not {runs}")
    us = lambda seconds: seconds * 1e6
    between = [us(forks[b] - exits[a]) for a, b in zip(order, order[1:]) if a in exits and b in forks]
    fork_to_exec = [us(execs[p] - forks[p]) for p in order if p in forks]
    exec_to_exit = [us(exits[p] - execs[p]) for p in order if p in exits]
    cycle = [us(execs[b] - execs[a]) for a, b in zip(order, order[1:])]
    # At each exit: the runner's wake-up, and the other CPUs woken before it.
    runner_woken, other_cpus = [], []
    for a, b in zip(order, order[1:]):
        made = wakings.get(a, [])
        runner = [i for i, (_, woken, _) in enumerate(made) if woken == forker.get(b)]
        if a in exits and runner:
            runner_woken.append(us(made[runner[0]][0] - exits[a]))
            other_cpus.append(sum(1 for _, _, other in made[: runner[0]] if other))
    median = lambda values: statistics.median(values) if values else float("nan")
    p90 = lambda values: sorted(values)[int(0.9 * (len(values) - 1))] if values else float("nan")
    mean = lambda values: statistics.mean(values) if values else float("nan")
    # A runner that was not asleep at an exit (on a busy machine, one
    # waiting for a CPU) is not woken there: those exits are left out, and
    # said so where that is all of them.
    if runner_woken:
        at_exit = (
            f"the runner woken after {median(runner_woken):.1f} µs (at {len(runner_woken)} of "
            f"{len(order) - 1} exits), other CPUs woken before it "
            f"{statistics.mean(other_cpus):.2f} times per run (mean)"
        )
    else:
        at_exit = "the runner never woken (not asleep at any exit)"
    released = [us(t) for t in runner_after_release.values()]
    at_start = f"{median(released):.1f} µs" if released else "not seen"
    print(
        f"{tool}: {len(order)} runs; medians: between runs {median(between):.1f} µs "
        f"(90th percentile {p90(between):.1f} µs, mean {mean(between):.1f} µs), "
        f"fork to exec {median(fork_to_exec):.1f} µs, exec to exit {median(exec_to_exit):.1f} µs, "
        f"a run {median(cycle):.1f} µs; at the command's exit, {at_exit}; "
        f"at the start, the runner's work once released {at_start}"
    )
EOF
