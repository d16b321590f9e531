#!/usr/bin/env bash
# A history measured while a background load comes and goes: does
# `perflab history --confirm` keep the change points the load made out, and
# keep a real one?
#
#   scripts/bench-busy-history.sh [--load 'CMD'] [--commits N] [--every K] [--step-at C]
#       [--runs R] [--perflab PATH] [--out DIR] [--quick]
#
# Makes two throwaway git repositories of N commits (default 20) of a Python
# program (scripts/bench-busy-workload.py): in one the program never
# changes (flat); in the other it runs 5% longer from commit C on
# (default 11), doing more work by the factor that lengthens a whole run,
# interpreter start included, by 5%. Each commit is measured right after it is made, with
# `perflab run --name busy-history -r R` (default 10 runs) in the
# repository's own store, the load on (the command prefix --load, default
# the project's `scripts/busy-load run --`) for every other K commits
# (default 5: commits 6-10 and 16-20 under load). Then, load off, in each
# repository:
#
#   perflab history --metric wall --name busy-history
#   perflab history --metric wall --name busy-history --confirm --build true
#
# the first for the change points the series alone shows, the second to
# confirm each with an interleaved A/B of the commits around it. Expected:
# no confirmed change point in the flat history (exit 0), a confirmed
# regression in the other (exit 3). A perflab whose `history --help` lists
# no --confirm is reported as such. Prints a Markdown table; the
# repositories, their stores and perflab's output stay in OUT (default a
# new temporary folder). --quick measures 3 runs per commit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  echo "bench-busy-history.sh: $1" >&2
  echo "usage: scripts/bench-busy-history.sh [--load 'CMD'] [--commits N] [--every K] [--step-at C] [--runs R] [--perflab PATH] [--out DIR] [--quick]" >&2
  exit 2
}

load="$root/scripts/busy-load run --"
commits=20 every=5 step_at=11 runs='' quick=0 perflab='' out=''
while (($#)); do
  flag=$1
  case "$flag" in
    --quick) quick=1; shift; continue ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  esac
  (($# >= 2)) || usage "$flag needs a value"
  case "$flag" in
    --load) load=$2 ;;
    --commits) commits=$2 ;;
    --every) every=$2 ;;
    --step-at) step_at=$2 ;;
    --runs) runs=$2 ;;
    --perflab) perflab=$2 ;;
    --out) out=$2 ;;
    *) usage "unknown flag $flag" ;;
  esac
  shift 2
done
((quick)) && runs=${runs:-3}
runs=${runs:-10}
whole() { [[ $2 =~ ^[0-9]+$ ]] && (($2 >= $3)) || usage "$1 takes a whole number, at least $3, not '$2'"; }
whole --commits "$commits" 2
whole --every "$every" 1
whole --step-at "$step_at" 2
whole --runs "$runs" 2
((step_at <= commits)) || usage "--step-at $step_at is past the last commit (--commits $commits)"
[[ -n $load ]] || usage "--load needs a command prefix, e.g. --load 'scripts/busy-load run --'"

if [[ -z $perflab ]]; then
  (cd "$root" && cargo build --release -q -p perflab-cli)
  perflab=$root/target/release/perflab
fi
# A bare name is looked up on PATH, as the shell would.
[[ $perflab == */* ]] || perflab=$(command -v "$perflab" || echo "$perflab")
[[ -x $perflab ]] || usage "--perflab $perflab is not an executable file"
perflab=$(cd "$(dirname "$perflab")" && pwd)/$(basename "$perflab")
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/bench-busy-history.XXXXXX")}
mkdir -p "$out"
out=$(cd "$out" && pwd)
command="/usr/bin/python3 work.py"
has_confirm=0
help=$("$perflab" history --help)
grep -Eq -- '^ +--confirm([ =<]|$)' <<< "$help" && has_confirm=1

loaded() { (((($1 - 1) / every) % 2 == 1)); }
loaded_commits=$(for ((i = 1; i <= commits; i++)); do if loaded "$i"; then echo "$i"; fi; done |
  awk 'NR == 1 || $1 != last + 1 { if (NR > 1) printf "%s, ", (start == last ? start : start "–" last); start = $1 } { last = $1 }
       END { if (NR) printf "%s", (start == last ? start : start "–" last) }')

# The work factor that makes a whole run 5% longer, timed before the
# histories (see scripts/bench-busy-workload.py --longer-by).
step_work=$(/usr/bin/python3 "$root/scripts/bench-busy-workload.py" --longer-by 0.05)

# One repository, measured commit after commit; $1 names it, $2 is the
# commit from which the program runs 5% longer (0: never).
measure_history() {
  local name=$1 step=$2 repo="$out/$1"
  rm -rf "$repo"
  mkdir -p "$repo"
  git -C "$repo" init -q -b main
  git -C "$repo" config user.email bench@example.invalid
  git -C "$repo" config user.name bench
  # What the script writes into the repository is not part of its commits:
  # a measured tree with uncommitted changes could not be confirmed.
  printf '.perflab/\nruns.stderr\n' > "$repo/.gitignore"
  for ((i = 1; i <= commits; i++)); do
    local work=1.0
    ((step > 0 && i >= step)) && work=$step_work
    sed "s/^DEFAULT_WORK = .*/DEFAULT_WORK = $work/" "$root/scripts/bench-busy-workload.py" > "$repo/work.py"
    echo "commit $i" > "$repo/commit.txt"
    git -C "$repo" add -A
    git -C "$repo" commit -qm "commit $i (work $work)"
    local -a run=("$perflab" run --quiet --name busy-history -r "$runs" --warmup 1
      --json "$repo/.perflab/run-$i.json" "$command")
    local code=0
    if loaded "$i"; then
      # The load's command line is run from here (it may name a path relative
      # to this folder); what it runs goes into the repository first.
      sh -c "$load \"\$@\"" busy-load-prefix sh -c 'cd "$1" && shift && exec "$@"' in-repository \
        "$repo" "${run[@]}" < /dev/null > /dev/null 2>> "$repo/runs.stderr" || code=$?
    else
      (cd "$repo" && "${run[@]}") < /dev/null > /dev/null 2>> "$repo/runs.stderr" || code=$?
    fi
    ((code != 130)) || { echo "bench-busy-history: interrupted at commit $i of $name" >&2; exit 130; }
    ((code == 0)) || { echo "bench-busy-history: commit $i of $name: perflab run exited $code (see $repo/runs.stderr)" >&2; exit 1; }
    echo "  $name: commit $i measured$(loaded "$i" && echo ' under load')" >&2
  done
  local code=0
  (cd "$repo" && "$perflab" history --metric wall --name busy-history --json "$repo/history.json") \
    > "$repo/history.txt" 2>&1 || code=$?
  echo "$code" > "$repo/history.exit"
  if ((has_confirm)); then
    code=0
    (cd "$repo" && "$perflab" history --metric wall --name busy-history --confirm --build true \
      --json "$repo/confirm.json") > "$repo/confirm.txt" 2>&1 || code=$?
    echo "$code" > "$repo/confirm.exit"
  fi
}

measure_history flat 0
measure_history step "$step_at"

/usr/bin/python3 - "$out" "$commits" "$runs" "$step_at" "$loaded_commits" "$load" "$has_confirm" <<'PY'
import json
import sys
from pathlib import Path

out, commits, runs, step_at, loaded, load, has_confirm = sys.argv[1:]
out = Path(out)


def change_points(repo):
    try:
        doc = json.loads((repo / "history.json").read_text())
    except (OSError, ValueError):
        return None
    found = []
    for series in doc.get("series", []):
        for point in series.get("change_points", []):
            # A change point's step is the first commit of the new level (0-based).
            found.append(point["step"] + 1)
    return sorted(found)


def confirmation(repo, expected_code):
    if has_confirm != "1":
        return "not available: `perflab history --help` lists no --confirm", None
    code = int((repo / "confirm.exit").read_text())
    meaning = {
        0: "exit 0: no confirmed regression",
        3: "exit 3: a confirmed regression",
        2: "exit 2: refused",
    }.get(code, f"exit {code}: failed")
    words = [line.strip() for line in (repo / "confirm.txt").read_text().splitlines()
             if "confirm" in line.lower()]
    return meaning, (code == expected_code, words)


print(
    f"Two histories of `/usr/bin/python3 work.py` (scripts/bench-busy-workload.py) over "
    f"{commits} commits, {runs} runs each, measured with the load on for commits {loaded} "
    f"(`{load}`); then, quiet, `perflab history --metric wall` (the change points the series "
    "alone shows) and `perflab history --metric wall --confirm --build true` (each confirmed "
    "by an interleaved A/B)."
)
print()
print("| history | change points found | at commits | --confirm | expected | as expected |")
print("|---|---|---|---|---|---|")
quotes = []
for name, label, expected, code in (
    ("flat", "flat", "no confirmed change point (exit 0)", 0),
    ("step", f"5% longer runs from commit {step_at}", "a confirmed regression (exit 3)", 3),
):
    repo = out / name
    points = change_points(repo)
    found = "–" if points is None else str(len(points))
    at = "–" if not points else ", ".join(map(str, points))
    if points is None:
        found = f"none read (exit {(repo / 'history.exit').read_text().strip()}; see {repo}/history.txt)"
    meaning, checked = confirmation(repo, code)
    agrees = "–" if checked is None else ("yes" if checked[0] else "no")
    print(f"| {label} | {found} | {at} | {meaning} | {expected} | {agrees} |")
    if checked and checked[1]:
        quotes.append((label, checked[1]))
for label, words in quotes:
    print()
    print(f"What `--confirm` said of the {label} history:")
    print()
    for line in words[:12]:
        print(f"    {line}")
print()
print(f"The repositories, their stores and perflab's output: {out}.")
PY
