#!/bin/sh
# perflab-gate.sh: a CI job's performance gate. Builds the base and the head
# revision of the repository (each in its own worktree), measures them with
# `perflab ab --rev BASE --rev HEAD`, writes the result as Markdown to the
# job summary, and exits with perflab's verdict: NO-GO fails the job,
# INCONCLUSIVE only when PERFLAB_FAIL_ON_INCONCLUSIVE=true.
#
# The GitHub Actions workflow and the GitLab CI job next to this script call
# it; it runs the same on a laptop. Settings, from the environment:
#
#   PERFLAB_BUILD      required: the build command, run in each revision's
#                      worktree (e.g. 'cargo build --release')
#   PERFLAB_COMMAND    required: the command measured, run in each
#                      revision's worktree (e.g. './target/release/app big.txt')
#   PERFLAB_BASE       the baseline revision [the merge request's base
#                      (CI_MERGE_REQUEST_DIFF_BASE_SHA), else HEAD~1: on a
#                      GitHub pull request, HEAD is the merge commit and
#                      HEAD~1 the base branch it merges into]
#   PERFLAB_HEAD       the candidate revision [HEAD]
#   PERFLAB_NAME       the experiment's name, which `perflab history` follows [ci-gate]
#   PERFLAB_STORE      the store; keep its folder as a CI cache so the history
#                      grows from run to run [.perflab-ci/perflab.db]
#   PERFLAB_ARGS       more flags for `perflab ab`, split on spaces
#                      (e.g. '--measure cpu --go 2% --nogo -2% --max-runs 60')
#   PERFLAB_FAIL_ON_INCONCLUSIVE
#                      true: an INCONCLUSIVE verdict fails the job too [false]
#   PERFLAB_SUMMARY    the Markdown file the result is added to
#                      [$GITHUB_STEP_SUMMARY, else perflab-summary.md]
#   PERFLAB_HTML       also write the HTML report there (a CI artifact) [none]
#   PERFLAB            the perflab program [perflab]
#
# Exit codes: 0 GO, NEUTRAL, or INCONCLUSIVE not asked to fail; 3 NO-GO;
# 4 INCONCLUSIVE with PERFLAB_FAIL_ON_INCONCLUSIVE=true; 2 bad settings or a
# failed build; 1 perflab itself failed.
set -eu

perflab=${PERFLAB:-perflab}
name=${PERFLAB_NAME:-ci-gate}
head=${PERFLAB_HEAD:-HEAD}
base=${PERFLAB_BASE:-${CI_MERGE_REQUEST_DIFF_BASE_SHA:-}}
summary=${PERFLAB_SUMMARY:-${GITHUB_STEP_SUMMARY:-perflab-summary.md}}
PERFLAB_STORE=${PERFLAB_STORE:-.perflab-ci/perflab.db}
export PERFLAB_STORE

refuse() {
    echo "perflab-gate: $*" >&2
    exit 2
}

[ -n "${PERFLAB_BUILD:-}" ] ||
    refuse "PERFLAB_BUILD is not set: give the command that builds a revision, e.g. PERFLAB_BUILD='cargo build --release'"
[ -n "${PERFLAB_COMMAND:-}" ] ||
    refuse "PERFLAB_COMMAND is not set: give the command to measure, e.g. PERFLAB_COMMAND='./target/release/app input.txt'"
case ${PERFLAB_FAIL_ON_INCONCLUSIVE:-false} in
    true | 1) fail_on_inconclusive=true ;;
    false | 0 | '') fail_on_inconclusive=false ;;
    *) refuse "PERFLAB_FAIL_ON_INCONCLUSIVE is '$PERFLAB_FAIL_ON_INCONCLUSIVE': give true or false" ;;
esac
command -v "$perflab" >/dev/null 2>&1 ||
    refuse "'$perflab' is not on PATH: install it first (cargo install --path crates/perflab-cli in perflab's sources), or set PERFLAB to the program"

# A push's "before" commit is all zeros for a new branch: nothing to compare with.
case $base in
    '' | *[!0]*) ;;
    *) base= ;;
esac
base=${base:-HEAD~1}
for rev in "$base" "$head"; do
    git rev-parse --verify --quiet "$rev^{commit}" >/dev/null ||
        refuse "revision '$rev' is not in this clone: fetch the history it needs (GitHub: actions/checkout with fetch-depth: 0; GitLab: GIT_DEPTH: 0)"
done
mkdir -p "$(dirname "$PERFLAB_STORE")"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "perflab-gate: $base against $head, store $PERFLAB_STORE" >&2

set +e
# PERFLAB_ARGS is split on spaces on purpose: it holds several flags.
# shellcheck disable=SC2086
"$perflab" ab --name "$name" --rev "$base" --rev "$head" --name-a base --name-b head \
    --build "$PERFLAB_BUILD" ${PERFLAB_ARGS:-} -- "$PERFLAB_COMMAND"
verdict=$?
set -e

case $verdict in
    0 | 3 | 4)
        # The stored experiment with its provenance (commits, host, CI job)
        # and, once the store has several commits, the metric's history.
        "$perflab" report "$name" --markdown "$work/report.md" ${PERFLAB_HTML:+--html "$PERFLAB_HTML"} >&2
        {
            cat "$work/report.md"
            printf '\n\n<details><summary>Experiments named %s in the store</summary>\n\n```text\n' "$name"
            "$perflab" history --name "$name" -n 10
            printf '```\n\n</details>\n\n'
        } >>"$summary"
        ;;
    *)
        printf '## perflab\n\nNo result: perflab exited with code %s; the job log says why.\n\n' "$verdict" >>"$summary"
        exit "$verdict"
        ;;
esac

case $verdict in
    3)
        echo "perflab-gate: NO-GO: $head is worse than $base; failing the job" >&2
        exit 3
        ;;
    4)
        if [ "$fail_on_inconclusive" = true ]; then
            echo "perflab-gate: INCONCLUSIVE, and PERFLAB_FAIL_ON_INCONCLUSIVE=true: failing the job" >&2
            exit 4
        fi
        echo "perflab-gate: INCONCLUSIVE: not failing the job (PERFLAB_FAIL_ON_INCONCLUSIVE=true would)" >&2
        ;;
esac
exit 0
