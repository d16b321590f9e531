#!/usr/bin/env bash
# The allocator investigation, rerun from scratch: installs the allocators
# when missing, builds perflab and the workloads, runs the suite, the
# environment-gated A/B, the A-against-A runs, the original's A-then-B
# procedure while the machine changes beside perflab's interleaved A/B, a
# profile as small as the original's beside a large one and the profile of
# the loser, then writes REPORT.md, report.html, flamegraph-diff.svg and the
# figures in README.md. Budgeted for under 15 minutes on a quiet 2-CPU
# machine once perflab is built.
#
# Size knobs, for trying the script out (the README's figures come from a
# run without them):
#   ALLOCBENCH_SCALE=X   multiplies every workload's operations (default 1)
#   ALLOCATORS_QUICK=1   a few runs per experiment instead of the budgeted
#                        numbers
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"
load_at_start="$(cut -d' ' -f1-3 /proc/loadavg)"

packages=(libjemalloc2 libmimalloc2.0 libtcmalloc-minimal4)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  echo "== installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "== building perflab and the workloads, testing the workloads"
(cd "$root" && cargo build --release -q -p perflab-cli)
perflab="$root/target/release/perflab"
# A committed tree and a quiet machine, or no figures (see publish-gate.sh).
. "$root/examples/publish-gate.sh"
publish_gate "$@"
make -s test

# Runs per experiment: the budgeted numbers, or a few with ALLOCATORS_QUICK=1.
if [ "${ALLOCATORS_QUICK:-0}" = 1 ]; then
  suite_runs=(--max-runs 20); tcache_runs=(--max-runs 20); aa_runs=(--min-runs 40 --max-runs 40)
  drift_runs=10
else
  suite_runs=(); tcache_runs=(); aa_runs=(); drift_runs=30
fi

rm -rf results && mkdir results
store=(--store results/perflab.db)

# perflab exits 3 for NO-GO and 4 for INCONCLUSIVE: verdicts, not failures.
verdict() { "$@" || { rc=$?; [ "$rc" -eq 3 ] || [ "$rc" -eq 4 ] || exit "$rc"; }; }

echo "== the suite: 4 allocators x 4 workloads"
verdict "$perflab" ab -f suite.toml "${store[@]}" "${suite_runs[@]}" --quiet \
  --json results/suite.json > results/suite.txt
cat results/suite.txt
python3 suite_tables.py answer results/suite.json > results/answer.md
python3 suite_tables.py matrix results/suite.json > results/matrix.md
python3 suite_tables.py figures results/suite.json > results/figures.md
python3 suite_tables.py reasons results/suite.json > results/reasons.md

echo "== the environment-gated A/B, and the ten-run rule on the same runs"
verdict "$perflab" ab -f tcache.toml "${store[@]}" "${tcache_runs[@]}" --quiet \
  --json results/tcache.json > results/tcache.txt
cat results/tcache.txt
python3 ten_run_rule.py ab results/tcache.json | tee results/tcache-rules.md

echo "== A against A: how often the ten-run rule claims a change"
verdict "$perflab" ab -f aa.toml "${store[@]}" "${aa_runs[@]}" --quiet \
  --json results/aa.json > results/aa.txt
python3 ten_run_rule.py aa results/aa.json | tee results/aa-rules.md

echo "== the published samples of the original investigation"
verdict "$perflab" compare original/baseline.txt original/optimized.txt --better higher \
  "${store[@]}" --json results/published.json > results/published.txt
cat results/published.txt
python3 ten_run_rule.py samples original/baseline.txt original/optimized.txt \
  results/published.json | tee results/published-rule.md
python3 ten_run_rule.py published original/baseline.txt original/optimized.txt \
  | tee results/published-rate.md

echo "== A then B while the machine changes, and the same commands interleaved"
# Busy loops, one per CPU, stand for whatever starts on a machine halfway
# through an experiment (a build, a test suite). They are always stopped,
# even when the script fails or is interrupted.
burners=()
start_burners() {
  for _ in $(seq "$(nproc)"); do
    sh -c 'while :; do :; done' &
    burners+=("$!")
  done
}
stop_burners() {
  for pid in "${burners[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  burners=()
}
trap stop_burners EXIT
trap 'stop_burners; exit 130' INT TERM
drift_command="./allocbench small 2000000 32"
gate_variable=HAKMEM_FREE_WRAPPER_ENV_SNAPSHOT
started=$(date +%s%N)
"$perflab" run "${store[@]}" --name drift-a-then-b-A -N -r 10 --warmup 1 --quiet \
  --env "$gate_variable=0" --json results/drift-a.json "$drift_command" > /dev/null
a_took_ns=$(( $(date +%s%N) - started ))
start_burners
"$perflab" run "${store[@]}" --name drift-a-then-b-B -N -r 10 --warmup 1 --quiet \
  --env "$gate_variable=1" --json results/drift-b.json "$drift_command" > /dev/null
stop_burners
verdict "$perflab" compare results/drift-a.json results/drift-b.json "${store[@]}" \
  --json results/drift-compare.json > results/drift-compare.txt
cat results/drift-compare.txt
# The interleaved A/B: the busy loops start once it has made about as many
# runs as one variant's (half of them), timed by the A-then-B runs of A.
"$perflab" ab -f drift.toml "${store[@]}" --min-runs "$drift_runs" --max-runs "$drift_runs" \
  --quiet --json results/drift-ab.json > results/drift-ab.txt &
ab_pid=$!
sleep "$(awk -v ns="$a_took_ns" -v n="$drift_runs" 'BEGIN { printf "%.2f", ns * n / 10 / 1e9 }')"
start_burners
rc=0; wait "$ab_pid" || rc=$?
stop_burners
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || [ "$rc" -eq 4 ] || exit "$rc"
cat results/drift-ab.txt
python3 ten_run_rule.py sequential results/drift-a.json results/drift-b.json \
  results/drift-compare.json results/drift-ab.json | tee results/drift.md

echo "== a profile as small as the original's, and one of thousands of samples"
verdict "$perflab" profile "${store[@]}" --name profile-small --top 8 \
  --svg results/profile-small.svg --json results/profile-small.json -- $drift_command > results/profile-small.txt 2>&1
verdict "$perflab" profile "${store[@]}" --name profile-large --top 8 \
  --svg results/profile-large.svg --json results/profile-large.json -- ./allocbench small 100000000 32 \
  > results/profile-large.txt 2>&1
python3 profile_table.py results/profile-small.json results/profile-large.json \
  | tee results/profile-sizes.md

echo "== where the loser's time goes"
eval "$(python3 suite_tables.py pick results/suite.json)"
echo "loser $loser, winner $winner, in $scenario ($command, 10 times the work)"
# perflab profile's --env would apply to both commands; `env` sets each
# command's own allocator.
verdict "$perflab" profile "${store[@]}" --name "profile-$loser-vs-$winner" \
  --top 12 --svg flamegraph-diff.svg --json results/profile.json \
  --baseline "env ALLOCBENCH_SCALE=10 $winner_env $command" \
  -- env ALLOCBENCH_SCALE=10 $loser_env $command > results/profile.txt 2>&1
cat results/profile.txt
# The README quotes the shares that moved.
{ sed -n '/^shares that moved/,/did not move/p' results/profile.txt | head -9
  echo '  (the rest of the table, and both profiles in full: REPORT.md)'; } > results/profile-moved.txt
{
  echo "The allocator that loses most: **$loser**; the one that wins most: **$winner**;"
  echo "the scenario where they are furthest apart: **$scenario** (\`$command\`),"
  echo "profiled at 10 times the suite's work (\`ALLOCBENCH_SCALE=10\`)."
} > results/picked.md

echo "== report"
"$perflab" report "${store[@]}" allocators tcache-64 small-a-against-a drift-interleaved \
  profile-small profile-large "profile-$loser-vs-$winner" --markdown REPORT.md --html report.html
sizes=""
[ -n "${ALLOCBENCH_SCALE:-}" ] && sizes+=" ALLOCBENCH_SCALE=$ALLOCBENCH_SCALE"
[ "${ALLOCATORS_QUICK:-0}" = 1 ] && sizes+=" ALLOCATORS_QUICK=1"
{
  echo "Taken on $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)),"
  echo "load average $load_at_start at the start (1, 5 and 15 minutes),"
  echo "$(cut -d' ' -f1-3 /proc/loadavg) at the end; investigate.sh took $SECONDS s"
  if [ -n "$sizes" ]; then
    echo "at reduced sizes (${sizes# }): these figures only show that the script runs."
  else
    echo "at the default sizes."
  fi
} > results/machine.md
python3 fill_readme.py README.md results
echo "wrote REPORT.md, report.html, flamegraph-diff.svg and README.md's figures"
publish_provenance "$here/README.md"
