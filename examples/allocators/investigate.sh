#!/usr/bin/env bash
# The allocator investigation, rerun from scratch: installs the allocators
# when missing, builds perflab and the workloads, runs the suite, the
# environment-gated A/B, the A-against-A runs and the profile of the loser,
# then writes REPORT.md, report.html, flamegraph-diff.svg and the figures in
# README.md. About 8 minutes on a 2-core VM once perflab is built.
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

rm -rf results && mkdir results
store=(--store results/perflab.db)

# perflab exits 3 for NO-GO and 4 for INCONCLUSIVE: verdicts, not failures.
verdict() { "$@" || { rc=$?; [ "$rc" -eq 3 ] || [ "$rc" -eq 4 ] || exit "$rc"; }; }

echo "== the suite: 4 allocators x 4 workloads"
verdict "$perflab" ab -f suite.toml "${store[@]}" --quiet \
  --json results/suite.json > results/suite.txt
cat results/suite.txt
python3 suite_tables.py figures results/suite.json > results/figures.md
python3 suite_tables.py reasons results/suite.json > results/reasons.md

echo "== the environment-gated A/B, and the ten-run rule on the same runs"
verdict "$perflab" ab -f tcache.toml "${store[@]}" --quiet \
  --json results/tcache.json > results/tcache.txt
cat results/tcache.txt
python3 ten_run_rule.py ab results/tcache.json | tee results/tcache-rules.md

echo "== A against A: how often the ten-run rule claims a change"
verdict "$perflab" ab -f aa.toml "${store[@]}" --quiet \
  --json results/aa.json > results/aa.txt
python3 ten_run_rule.py aa results/aa.json | tee results/aa-rules.md

echo "== the published samples of the original investigation"
verdict "$perflab" compare original/baseline.txt original/optimized.txt --better higher \
  "${store[@]}" > results/published.txt
cat results/published.txt
python3 ten_run_rule.py published original/baseline.txt original/optimized.txt \
  | tee results/published-rate.md

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
# The README quotes the loser's table (B) and the shares that moved.
sed -n '/^perflab profile B:/,/flame graph:/p' results/profile.txt > results/profile-loser.txt
sed -n '/^shares that moved/,/did not move/p' results/profile.txt > results/profile-moved.txt
{
  echo "The allocator that loses most: **$loser**; the one that wins most: **$winner**;"
  echo "the scenario where they are furthest apart: **$scenario** (\`$command\`),"
  echo "profiled at 10 times the suite's work (\`ALLOCBENCH_SCALE=10\`)."
} > results/picked.md

echo "== report"
"$perflab" report "${store[@]}" allocators tcache-64 small-a-against-a \
  "profile-$loser-vs-$winner" --markdown REPORT.md --html report.html
{
  echo "Taken on $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)),"
  echo "load average $load_at_start at the start (1, 5 and 15 minutes),"
  echo "$(cut -d' ' -f1-3 /proc/loadavg) at the end; investigate.sh took $SECONDS s."
} > results/machine.md
python3 fill_readme.py README.md results
echo "wrote REPORT.md, report.html, flamegraph-diff.svg and README.md's figures"
publish_provenance "$here/README.md"
