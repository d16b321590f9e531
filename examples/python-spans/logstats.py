"""logstats: summarises generated web-server log lines, instrumented with perflab.

The lines arrive in batches from a simulated service (`fetch_batch`, an
async function that waits 2 ms per batch, as for a network round trip, then
decodes the batch); then `parse` splits each line into fields, `aggregate`
counts requests and slow ones per path, and `top` sorts the paths. With
LOGSTATS_PARSER=regex, `parse` uses a regular expression instead of
str.split: the same fields, more time.

    python3 logstats.py [LINES]          (default: $LOGSTATS_LINES, else 200000)
"""

import asyncio
import os
import random
import re
import sys

import perflab

PATHS = ["/api/items/%d" % i for i in range(40)] + ["/static/app.js", "/login", "/health"]
BATCH = 5000
LINE = re.compile(r"(\S+) (\S+) (\S+) (\d+) (\d+)ms")


@perflab.measure
async def fetch_batch(number, size):
    await asyncio.sleep(0.002)
    rng = random.Random(number)
    return [
        "2026-11-23T10:%02d:%02d GET %s %d %dms"
        % (i // 60 % 60, i % 60, rng.choice(PATHS), rng.choice((200, 200, 200, 304, 404, 500)), int(rng.expovariate(1 / 40)))
        for i in range(size)
    ]


async def fetch_all(lines):
    sizes = [min(BATCH, lines - start) for start in range(0, lines, BATCH)]
    batches = await asyncio.gather(*(fetch_batch(number, size) for number, size in enumerate(sizes)))
    return [line for batch in batches for line in batch]


@perflab.measure
def parse(lines):
    records = []
    if os.environ.get("LOGSTATS_PARSER") == "regex":
        for line in lines:
            _, method, path, status, millis = LINE.match(line).groups()
            records.append((method, path, int(status), int(millis)))
    else:
        for line in lines:
            _, method, path, status, millis = line.split(" ")
            records.append((method, path, int(status), int(millis[:-2])))
    return records


def aggregate(records):
    requests, slow = {}, {}
    for _, path, status, millis in records:
        requests[path] = requests.get(path, 0) + 1
        if millis > 100 or status >= 500:
            slow[path] = slow.get(path, 0) + 1
    perflab.count("records", len(records))
    perflab.gauge("distinct_paths", len(requests))
    return requests, slow


def main():
    lines = int(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("LOGSTATS_LINES", 200_000))
    with perflab.span("fetch"):
        raw = asyncio.run(fetch_all(lines))
    records = parse(raw)
    with perflab.span("aggregate"):
        requests, slow = aggregate(records)
    with perflab.span("top"):
        ranked = sorted(requests, key=lambda path: (-slow.get(path, 0), path))[:5]
    for path in ranked:
        print("%-16s %7d requests %6d slow" % (path, requests[path], slow.get(path, 0)))


if __name__ == "__main__":
    main()
