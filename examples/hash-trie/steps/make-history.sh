#!/usr/bin/env bash
# Usage: steps/make-history.sh REPO
#
# Makes the trie's history as a throwaway git repository in REPO (a folder
# that must not exist yet): one commit per step, tagged baseline, pool and
# pool-sized (see README.md here). Each step's crates are fetched with
# `cargo fetch` (online when the cargo cache lacks them) at the versions of
# perflab's own Cargo.lock, so that the steps then build with --offline on a
# machine whose cargo cache held none of them. investigate.sh calls it.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: make-history.sh REPO (a folder that does not exist yet)" >&2
    exit 2
fi
repo=$1
if [ -e "$repo" ]; then
    echo "make-history.sh: $repo exists; give a folder that does not exist yet" >&2
    exit 2
fi
steps=$(cd "$(dirname "$0")" && pwd)
here=$(cd "$steps/.." && pwd)
root=$(cd "$here/../.." && pwd)

mkdir -p "$repo"
git -C "$repo" init -q
git -C "$repo" config user.name "hash-trie example"
git -C "$repo" config user.email "hash-trie@example.invalid"
sed "s|@ROOT@|$root|" "$steps/Cargo.toml.in" >"$repo/Cargo.toml"
cp "$root/Cargo.lock" "$repo/Cargo.lock"
printf '/hash-trie\n/.perflab/\n/.perflab-build\n/target/\n' >"$repo/.gitignore"

# Every package from a registry in the step's lock file at the version
# perflab's lock file pins: fetching may trim the lock file, never move a
# version. (Packages without a source are local: the step's own, perflab's.)
lock_versions() {
    awk '/^\[\[package\]\]/{n=""; v=""} /^name = /{n=$3} /^version = /{v=$3} /^source = /{print n, v}' "$1" | sort -u
}
same_versions() {
    local moved
    moved=$(comm -23 <(lock_versions "$repo/Cargo.lock") <(lock_versions "$root/Cargo.lock"))
    if [ -n "$moved" ]; then
        echo "make-history.sh: the trie's history resolved versions perflab's Cargo.lock does not pin:" >&2
        echo "$moved" >&2
        exit 1
    fi
}

step() {
    local tag=$1 patch=$2 subject=$3
    rm -rf "$repo/src"
    cp -r "$here/src" "$repo/src"
    if [ -n "$patch" ]; then
        git -C "$repo" apply "$steps/$patch"
    fi
    # Trims the copied lock file to this package's dependencies and fetches
    # any the cargo cache lacks, for every platform the lock file names (an
    # offline build resolves them all), at perflab's pinned versions.
    (cd "$repo" && cargo fetch --quiet)
    same_versions
    git -C "$repo" add -A
    git -C "$repo" commit -qm "$subject"
    git -C "$repo" tag "$tag"
}

step baseline 1-baseline.patch "baseline: node arrays from the global allocator"
step pool 2-pool.patch "pool: node arrays from a pool of 65,536 slots, the global allocator when it runs out"
step pool-sized "" "pool sized by the number of keys"
