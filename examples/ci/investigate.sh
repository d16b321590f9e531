#!/usr/bin/env bash
# Reruns the CI gate end to end, as a pull request would meet it: a
# throwaway repository whose head commit makes its program ~20% slower,
# perflab-gate.sh run there exactly as the CI files run it, and the job
# summary it writes copied to examples/ci/report.md. The gate is expected
# to fail the job (exit 3, NO-GO); any other exit fails this script.
# Like the case studies' scripts, it writes report.md only from a committed
# tree on a quiet machine (examples/publish-gate.sh), and names the commit
# and the machine in report.md's provenance block.
#
#   bash examples/ci/investigate.sh [--allow-busy]   # from the repository's root
#   CI_GATE_LOOPS=20000 bash examples/ci/investigate.sh   # size of the work
#   PERFLAB=PATH uses that perflab binary instead of building one.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/examples/ci"
loops=${CI_GATE_LOOPS:-100000}

if [ -n "${PERFLAB:-}" ]; then
    perflab="$PERFLAB"
else
    cargo build --release --quiet -p perflab-cli --manifest-path "$root/Cargo.toml"
    perflab="$root/target/release/perflab"
fi
# A committed tree and a quiet machine, or no report (see publish-gate.sh).
. "$root/examples/publish-gate.sh"
publish_gate "$@"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
git init --quiet -b main
git config user.email ci@example.invalid
git config user.name ci
write_app() {
    printf '#!/bin/sh\ni=0\nwhile [ $i -lt %s ]; do i=$((i+1)); done\necho done\n' "$1" >app
    chmod +x app
}
write_app "$loops"
git add app && git commit --quiet -m base
write_app $((loops * 6 / 5))
git commit --quiet -am "head: 20% more work"
mkdir -p ci && cp "$here/perflab-gate.sh" ci/

load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average before the gate: $load"
set +e
PERFLAB="$perflab" PERFLAB_BUILD=true PERFLAB_COMMAND=./app \
    PERFLAB_SUMMARY="$work/summary.md" PERFLAB_STORE="$work/.perflab-ci/perflab.db" \
    sh ci/perflab-gate.sh
code=$?
set -e
{
    printf '# The CI gate on a 20%%-slower head commit\n\n'
    printf 'Written by `bash examples/ci/investigate.sh` (exit code of the gate: %s;\n' "$code"
    printf 'load average before the gate: %s).\n\n' "$load"
    sed -e "s|$work|<repository>|g" summary.md
} >"$here/report.md"
publish_provenance "$here/report.md"
echo "gate exit $code; summary in examples/ci/report.md"
[ "$code" -eq 3 ] || { echo "expected NO-GO (exit 3), got $code" >&2; exit 1; }
