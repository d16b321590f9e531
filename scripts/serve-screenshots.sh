#!/usr/bin/env bash
# Screenshots of perflab serve's pages over a store.
#
#   scripts/serve-screenshots.sh STORE OUTDIR
#
# Starts `perflab serve` on a free port of 127.0.0.1 over STORE (a SQLite
# file or a postgres:// URL), finds from its JSON API the series with the
# most commits and the newest experiment, and writes headless Chromium's
# screenshots of three pages into OUTDIR:
#
#   home.png        the home page, /
#   series.png      the page of the series with the most commits
#   experiment.png  the page of the newest experiment
#
# The series is chosen among those with a change point (the home page's
# regressions and "changed most") and those of the newest 1,000
# experiments, by the number of commits its page shows.
#
# The server is stopped at the end, whatever happens. Environment:
#   PERFLAB           the perflab command [default: perflab on PATH, else
#                     this checkout's target/release or target/debug build]
#   PERFLAB_CHROMIUM  the browser [default: chromium, chromium-browser or
#                     google-chrome on PATH]
#   WINDOW_SIZE       the screenshots' size [default: 1280,2400]
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 STORE OUTDIR" >&2
    exit 2
fi
store=$1
outdir=$2
here=$(cd "$(dirname "$0")/.." && pwd)

perflab=${PERFLAB:-}
if [ -z "$perflab" ]; then
    for candidate in "$(command -v perflab || true)" "$here/target/release/perflab" "$here/target/debug/perflab"; do
        if [ -n "$candidate" ] && [ -x "$candidate" ]; then
            perflab=$candidate
            break
        fi
    done
fi
if [ -z "$perflab" ]; then
    echo "$0: no perflab to run: build it (cargo build -p perflab-cli) or set PERFLAB=PATH" >&2
    exit 2
fi
chromium=${PERFLAB_CHROMIUM:-}
if [ -z "$chromium" ]; then
    for candidate in chromium chromium-browser google-chrome; do
        if command -v "$candidate" >/dev/null; then
            chromium=$(command -v "$candidate")
            break
        fi
    done
fi
if [ -z "$chromium" ]; then
    echo "$0: no headless Chromium: apt-get install chromium, or set PERFLAB_CHROMIUM=PATH" >&2
    exit 2
fi
case "$store" in
    postgres://* | postgresql://*) ;;
    *)
        if [ ! -f "$store" ]; then
            echo "$0: STORE $store is not a file; give a perflab store (.perflab/perflab.db) or a postgres:// URL" >&2
            exit 2
        fi
        ;;
esac
mkdir -p "$outdir"

work=$(mktemp -d)
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$perflab" --store "$store" serve --listen 127.0.0.1:0 2>"$work/serve.log" &
server_pid=$!
base=
for _ in $(seq 600); do
    base=$(sed -n 's|.* on \(http://[^/ ]*\)/ .*|\1|p' "$work/serve.log" | head -n 1)
    [ -n "$base" ] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then
        echo "$0: perflab serve stopped:" >&2
        cat "$work/serve.log" >&2
        exit 1
    fi
    sleep 0.1
done
if [ -z "$base" ]; then
    echo "$0: perflab serve did not say where it serves within a minute:" >&2
    cat "$work/serve.log" >&2
    exit 1
fi
echo "perflab serve at $base"

# The pages to take, as paths: the series with the most commits, the newest experiment.
/usr/bin/python3 - "$base" >"$work/paths" <<'PY'
import json, sys, urllib.parse, urllib.request

base = sys.argv[1]

def get(path):
    with urllib.request.urlopen(base + path, timeout=600) as answer:
        return json.load(answer)

def series_path(key):
    pairs = [(k, key[k]) for k in ("name", "metric", "variant", "host") if key.get(k) is not None]
    return "/series?" + urllib.parse.urlencode(pairs)

home = get("/api/home?per_page=200")
items = home["experiments"]["items"]
if not items:
    sys.exit("the store holds no experiment")
newest = items[0]["id"]

# Candidates: every series with a change point, then the series of the
# newest experiments, by how many commits they ran at.
candidates = {}
for row in [c for h in home["regressions"] for c in h["changes"]] + home["most_changed"]:
    key = row["series"]
    candidates[series_path(key)] = 0
commits = {}
for page in range(1, 6):
    listing = home["experiments"] if page == 1 else get(f"/api/home?per_page=200&page={page}")["experiments"]
    for e in listing["items"]:
        if not e["metric"] or (e["name"] or "").startswith("confirm: "):
            continue
        for variant in e["variants"]:
            key = {"name": e["name"], "metric": e["metric"], "variant": variant, "host": e["host"] or None}
            commits.setdefault(series_path(key), set()).add(e["commit"] or e["id"])
    if page >= listing["pages"]:
        break
for path, seen in sorted(commits.items(), key=lambda kv: -len(kv[1]))[:10]:
    candidates.setdefault(path, 0)
best, most = None, -1
for path in candidates:
    try:
        series = get("/api" + path)
    except Exception:
        continue
    steps = sum(len(s["steps"]) for s in series["history"]["series"])
    if steps > most:
        best, most = path, steps
print("/")
print(best or "")
print(f"/experiments/{newest}")
PY
mapfile -t paths <"$work/paths"
window=${WINDOW_SIZE:-1280,2400}
shoot() {
    local path=$1 file=$2
    if [ -z "$path" ]; then
        echo "$0: no series in the store to take $file of" >&2
        return 1
    fi
    timeout 300 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --hide-scrollbars --user-data-dir="$work/chromium-$file" \
        --window-size="$window" --screenshot="$outdir/$file" "$base$path" \
        >"$work/chromium.log" 2>&1 || {
        echo "$0: Chromium failed on $base$path:" >&2
        tail -n 20 "$work/chromium.log" >&2
        return 1
    }
    if [ ! -s "$outdir/$file" ]; then
        echo "$0: Chromium wrote no $outdir/$file" >&2
        return 1
    fi
    echo "$outdir/$file: $path"
}
status=0
shoot "${paths[0]}" home.png || status=1
shoot "${paths[1]}" series.png || status=1
shoot "${paths[2]}" experiment.png || status=1
exit $status
