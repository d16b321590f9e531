# Sourced by the case studies' investigate.sh before they measure anything:
# refuses to rewrite a README's figures from a dirty tree or a busy machine,
# and writes the provenance line (commit, machine, start load) into the
# README's `provenance` block afterwards.
#
# Needs: $root (the repository), $perflab (the built binary), and the
# script's arguments passed to `publish_gate "$@"`.
#   --allow-busy or PERFLAB_ALLOW_BUSY=1: measure on a busy machine anyway;
#       the README's figures are then marked as taken on a busy machine.
#   PERFLAB_ALLOW_DIRTY=1: measure from a tree with uncommitted changes;
#       the provenance line then says so.
#   PERFLAB_QUIET_WAIT (default 10m): how long to wait for a quiet machine.
#   PERFLAB_MAX_LOAD (default 0.5 per CPU), PERFLAB_MAX_PRESSURE (default 5%).

publish_gate() {
    local allow_busy=${PERFLAB_ALLOW_BUSY:-0}
    for arg in "$@"; do
        case $arg in
        --allow-busy) allow_busy=1 ;;
        *)
            echo "investigate.sh: unknown argument '$arg'; the only one is --allow-busy" >&2
            exit 2
            ;;
        esac
    done
    publish_commit=$(git -C "$root" rev-parse --short=12 HEAD)
    publish_tree="commit $publish_commit"
    if [ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then
        if [ "${PERFLAB_ALLOW_DIRTY:-0}" != 1 ]; then
            echo "investigate.sh: the tree has uncommitted changes; figures are published from a commit." >&2
            echo "  Commit or stash them, or set PERFLAB_ALLOW_DIRTY=1 to measure anyway (the README then says so)." >&2
            exit 1
        fi
        publish_tree="commit $publish_commit with uncommitted changes"
    fi
    local status=0
    publish_start=$("$perflab" system check --wait "${PERFLAB_QUIET_WAIT:-10m}" \
        --max-load "${PERFLAB_MAX_LOAD:-0.5}" --max-pressure "${PERFLAB_MAX_PRESSURE:-5%}") || status=$?
    echo "machine at the start: $publish_start"
    publish_busy=""
    if [ "$status" -ne 0 ]; then
        if [ "$status" -ne 1 ]; then
            echo "investigate.sh: perflab system check failed (exit $status)" >&2
            exit "$status"
        fi
        if [ "$allow_busy" != 1 ]; then
            echo "investigate.sh: the machine is busy, so its figures would not be worth publishing:" >&2
            echo "  $publish_start" >&2
            echo "  Stop what runs (builds, test suites), or pass --allow-busy (PERFLAB_ALLOW_BUSY=1) to" >&2
            echo "  measure anyway; the README's figures are then marked as taken on a busy machine." >&2
            exit 1
        fi
        publish_busy="**Taken on a busy machine** (--allow-busy): the intervals are wider and the figures not for publication. "
    fi
    local cpu
    cpu=$(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
    publish_machine="$(uname -n) ($(nproc) CPUs${cpu:+, $cpu}, Linux $(uname -r))"
}

# Writes the provenance line into README's `provenance` block
# (<!-- begin: provenance --> ... <!-- end: provenance -->), adding the block
# after the README's first line when it has none.
publish_provenance() {
    local readme=$1
    local line="${publish_busy}Measured by \`investigate.sh\` at $publish_tree on $publish_machine; at the start: $publish_start."
    /usr/bin/env python3 - "$readme" "$line" <<'PY'
import re, sys
path, line = sys.argv[1], sys.argv[2]
text = open(path).read()
block = f"<!-- begin: provenance -->\n{line}\n<!-- end: provenance -->"
pattern = re.compile(r"<!-- begin: provenance -->.*?<!-- end: provenance -->", re.S)
if pattern.search(text):
    text = pattern.sub(lambda _: block, text)
else:
    first, _, rest = text.partition("\n")
    text = f"{first}\n\n{block}\n{rest}"
open(path, "w").write(text)
PY
}
