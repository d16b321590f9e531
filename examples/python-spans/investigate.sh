#!/usr/bin/env bash
# Reruns this example's investigation and rewrites the figures in README.md
# (only from a committed tree on a quiet machine: examples/publish-gate.sh):
# the A/B of perflab.toml (terminal output and REPORT.md from `perflab
# report`), the span table of one run, and what a span costs
# (python/bench/span_cost.py). Takes a few minutes; the workspace tests run
# the same programs on small inputs (crates/perflab-cli/tests/python_package.rs).
set -uo pipefail
cd "$(dirname "$0")"
root=../..
perflab=${PERFLAB:-$root/target/release/perflab}
if [ ! -x "$perflab" ]; then
  cargo build --release -p perflab-cli --manifest-path "$root/Cargo.toml" || exit 1
fi
# A committed tree and a quiet machine, or no figures (see publish-gate.sh).
. "$root/examples/publish-gate.sh"
publish_gate "$@"
export PERFLAB_STORE="$PWD/.perflab/perflab.db"
export PYTHONPATH="$PWD/$root/python/src"
# The package as pip installs it: with its C accelerator, built next to the
# sources (pure Python where it does not build).
(cd "$root/python" && python3 setup.py -q build_ext --inplace >/dev/null 2>&1) ||
  echo "the C accelerator did not build: the programs record through pure Python" >&2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

load() { awk '{ printf "load average %s, %s, %s", $1, $2, $3 }' /proc/loadavg; }

PERFLAB_TABLE=1 python3 logstats.py >/dev/null 2>"$out/table.txt" || exit 1
{ echo "# $(python3 --version), $(nproc) CPUs, $(load)"; cat "$out/table.txt"; } >"$out/table.block"

"$perflab" ab -f perflab.toml >"$out/ab.txt" 2>&1
status=$?
# 3 is NO-GO, 4 INCONCLUSIVE: results, not failures.
if [ "$status" -ne 0 ] && [ "$status" -ne 3 ] && [ "$status" -ne 4 ]; then
  cat "$out/ab.txt" >&2
  exit "$status"
fi
{ echo "# perflab ab -f perflab.toml   (exit $status; $(load) at the end)"; cat "$out/ab.txt"; } >"$out/ab.block"
"$perflab" report --markdown REPORT.md || exit 1

python3 "$root/python/bench/span_cost.py" >"$out/cost.txt" || exit 1
{ echo "$(nproc) CPUs, $(load) at the end"; echo; cat "$out/cost.txt"; } >"$out/cost.block"

python3 - "$out" <<'PY'
import pathlib, re, sys
out = pathlib.Path(sys.argv[1])
readme = pathlib.Path("README.md")
text = readme.read_text()
for name, fence in (("table", "text"), ("ab", "text"), ("cost", "")):
    body = (out / (name + ".block")).read_text().rstrip("\n")
    block = "```%s\n%s\n```" % (fence, body) if fence else body
    pattern = re.compile(r"(<!-- begin: %s -->\n)(?:.*?\n)?(<!-- end: %s -->)" % (name, name), re.S)
    text, count = pattern.subn(lambda m: m.group(1) + block + "\n" + m.group(2), text)
    if count != 1:
        sys.exit("README.md has no block `%s` (<!-- begin: %s --> ... <!-- end: %s -->)" % (name, name, name))
readme.write_text(text)
PY
[ $? -eq 0 ] || exit 1
publish_provenance README.md
echo "README.md and REPORT.md rewritten"
