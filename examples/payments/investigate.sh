#!/usr/bin/env bash
# The payments investigation, rerun from scratch:
#
#   examples/payments/investigate.sh
#
# builds perflab and the engine in release mode, writes the six scenarios'
# workloads, shows the original generator refused by the suite's
# expectations, runs the suite (six scenarios x two engine versions), the
# span tables of every scenario, two A/B runs that show which spans the
# optimisation moved, a sampling profile of the slowest scenario and a sweep
# of 10K..1M transactions; then writes REPORT.md and report.html with
# `perflab report`, and rewrites the marked blocks of README.md from the
# real output. Everything it measures is kept in out/perflab.db.
#
# PAYMENTS_TRANSACTIONS (default 300000) sets the size of the suite's
# workloads; the sweep always goes from 10K to 1M.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
transactions="${PAYMENTS_TRANSACTIONS:-300000}"
scenarios=(baseline hot-accounts dispute-heavy store-heavy sparse-ids multi-threaded)

cd "$root"
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
cargo build --release -p perflab-cli -p payments
perflab="$root/target/release/perflab"
# A committed tree and a quiet machine, or no figures (see publish-gate.sh).
. "$root/examples/publish-gate.sh"
publish_gate "$@"
payments="$root/target/release/payments"

cd "$here"
rm -rf out data data-broken data-two-changes
mkdir -p out data data-broken data-two-changes
export PERFLAB_STORE="$here/out/perflab.db"
# The engine's own span table stays off stderr: perflab prints it.
export PERFLAB_TABLE=0
step() { printf '\n== %s\n' "$*" >&2; }

step "workloads: $transactions transactions, one account per hundred"
for s in "${scenarios[@]:0:5}"; do
    "$payments" generate --scenario "$s" --transactions "$transactions" --output "data/$s.csv"
done
"$payments" generate --scenario dispute-heavy --transactions "$transactions" --broken \
    --output data-broken/dispute-heavy.csv
# The original "sparse ids": ids spread out, and a quarter of the accounts.
"$payments" generate --scenario sparse-ids --transactions "$transactions" \
    --accounts $((transactions / 400)) --output data-two-changes/sparse-ids.csv
for n in 10000 30000 100000 300000 1000000; do
    "$payments" generate --scenario baseline --transactions "$n" --output "data/sweep-$n.csv"
done

# Runs one scenario of the suite on the workloads of folder $1, which the
# expectations must refuse (exit 2); keeps the message in out/$2.txt.
refused() {
    set +e
    PAYMENTS_DATA="$1" "$perflab" ab -f perflab.toml --scenario "$3" --quiet >"out/$2.txt" 2>&1
    local code=$?
    set -e
    # Keep the message, not the balances the refused run printed.
    sed -i '/^The end of its output:/,/^(/{/^(/!d}' "out/$2.txt"
    if [ "$code" -ne 2 ]; then
        echo "expected the $2 workload to be refused with exit 2, got $code:" >&2
        cat "out/$2.txt" >&2
        exit 1
    fi
    cat "out/$2.txt"
}

step "the original generator's workload, refused by the expectations"
refused data-broken broken dispute-heavy
step "a sparse-ids workload that changed the number of accounts too, refused"
refused data-two-changes two-changes sparse-ids

step "the suite: six scenarios x v1, v2"
set +e
"$perflab" ab -f perflab.toml --quiet --json out/suite.json --markdown out/suite.md \
    | tee out/suite.txt
code=${PIPESTATUS[0]}
set -e
case "$code" in 0 | 3 | 4) ;; *) echo "the suite failed (exit $code)" >&2; exit 1 ;; esac

step "where the time goes: the span table of every scenario (v1)"
for s in "${scenarios[@]}"; do
    args="data/$s.csv"
    [ "$s" = multi-threaded ] && args="data/baseline.csv --threads 4"
    "$perflab" run -r 5 --warmup 1 --quiet --name "spans: $s" \
        "$payments process --engine v1 $args" | tee "out/spans-$s.txt"
done

step "what the optimisation changed, span by span"
for s in baseline multi-threaded; do
    args="data/$s.csv"
    [ "$s" = multi-threaded ] && args="data/baseline.csv --threads 4"
    set +e
    "$perflab" ab --quiet --name "v1 vs v2: $s" --name-a v1 --name-b v2 --max-runs 20 \
        "$payments process --engine v1 $args" "$payments process --engine v2 $args" \
        | tee "out/ab-$s.txt"
    code=${PIPESTATUS[0]}
    set -e
    case "$code" in 0 | 3 | 4) ;; *) echo "the A/B failed (exit $code)" >&2; exit 1 ;; esac
done

step "a sampling profile of the slowest scenario (v1)"
slowest=$(jq -r '[.variants[] | select(.name | endswith(" / v1"))]
                 | max_by(.summary.median) | .name | rtrimstr(" / v1")' out/suite.json)
echo "slowest scenario: $slowest" | tee out/slowest.txt
args="data/$slowest.csv"
[ "$slowest" = multi-threaded ] && args="data/baseline.csv --threads 4"
# Four runs in a row under one perf record, for samples enough to read.
"$perflab" profile --name "profile: $slowest" -F 3999 --call-graph dwarf --top 12 \
    --svg out/flamegraph.svg -- \
    sh -c "for i in 1 2 3 4; do '$payments' process --engine v1 $args >/dev/null; done" \
    | tee out/profile.txt

step "a sweep of the baseline from 10K to 1M transactions (v1)"
"$perflab" sweep --quiet --name "sweep: baseline" --command-name v1 -p n=10K,30K,100K,300K,1M \
    --max-runs 10 --json out/sweep.json --markdown out/sweep.md \
    "$payments process --engine v1 data/sweep-{n}.csv" | tee out/sweep.txt

step "the report"
"$perflab" history | tee out/history.txt
# Every experiment of this run but the refused ones, oldest first.
mapfile -t ids < <(awk '$4 == "complete" { print $1 }' out/history.txt | sort -n)
"$perflab" report "${ids[@]}" --markdown REPORT.md --html report.html
git -C "$root" rev-parse HEAD >out/commit.txt
# Paths in the output are shown relative to the repository, wherever it was cloned.
sed -i "s|$root/||g" REPORT.md report.html out/*.txt

step "README.md: the marked blocks, from this run's output"
python3 - <<'PY'
import pathlib, re
here = pathlib.Path(".")
out = here / "out"
blocks = {
    "commit": "commit " + (out / "commit.txt").read_text().strip(),
    "history": (out / "history.txt").read_text(),
    "broken": (out / "broken.txt").read_text(),
    "two-changes": (out / "two-changes.txt").read_text(),
    "suite": (out / "suite.txt").read_text(),
    "ab-baseline": (out / "ab-baseline.txt").read_text(),
    "ab-multi-threaded": (out / "ab-multi-threaded.txt").read_text(),
    "profile": (out / "slowest.txt").read_text() + (out / "profile.txt").read_text(),
    "sweep": (out / "sweep.txt").read_text(),
}
for s in ["baseline", "hot-accounts", "dispute-heavy", "store-heavy", "sparse-ids", "multi-threaded"]:
    blocks["spans-" + s] = (out / f"spans-{s}.txt").read_text()
readme = here / "README.md"
text = readme.read_text()
for name, body in blocks.items():
    pattern = re.compile(
        rf"(<!-- begin: {re.escape(name)} -->\n).*?(<!-- end: {re.escape(name)} -->)", re.S
    )
    if not pattern.search(text):
        raise SystemExit(f"README.md has no block `{name}`")
    fenced = "```text\n" + body.rstrip("\n") + "\n```\n"
    text = pattern.sub(lambda m: m.group(1) + fenced + m.group(2), text)
readme.write_text(text)
PY
echo "wrote REPORT.md, report.html and the blocks of README.md" >&2
publish_provenance "$here/README.md"
