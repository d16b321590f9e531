#!/usr/bin/env python3
"""Two sampling profiles of one command side by side: one as small as the
original investigation's (about 65 samples) and one of thousands, read from
the perflab-sampling/1 documents `perflab profile --json` wrote.

    profile_table.py SMALL.json LARGE.json

Prints, as Markdown for the README, the top functions by self share of the
large profile with each one's share and 95% Wilson interval in both, the
widest interval of each, and perflab's warnings about each profile. Every
figure is perflab's; this script only lays them side by side.
"""
import json
import sys

TOP = 6


def profile(path):
    with open(path) as f:
        doc = json.load(f)
    if not doc.get("profiles"):
        sys.exit(f"profile_table.py: {path} holds no profile")
    return doc, doc["profiles"][0]


def share(f):
    lo, hi = f["self_ci"]
    return f"{f['self_share'] * 100:.1f}% [{lo * 100:.1f}%, {hi * 100:.1f}%]"


def widest(p):
    """The widest self-share interval among the shown functions, in points."""
    return max(((f["self_ci"][1] - f["self_ci"][0]) * 50 for f in p["functions"]), default=0.0)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: profile_table.py SMALL.json LARGE.json")
    (small_doc, small), (large_doc, large) = profile(sys.argv[1]), profile(sys.argv[2])
    by_name = {f["name"]: f for f in small["functions"]}
    top = sorted(large["functions"], key=lambda f: -f["self_share"])[:TOP]
    print(f"| function (self share, 95% interval) | {small['samples']} samples "
          f"| {large['samples']} samples |")
    print("| --- | ---: | ---: |")
    for f in top:
        other = by_name.get(f["name"])
        print(f"| `{f['name']}` | {share(other) if other else 'not in its table'} | {share(f)} |")
    print(f"| widest interval shown | ±{widest(small):.1f} points | ±{widest(large):.1f} points |")
    print()
    for doc, p in ((small_doc, small), (large_doc, large)):
        warnings = [w for w in doc.get("warnings") or []
                    if w.startswith("only ") or "no samples were taken" in w]
        print(f"perflab on the profile of {p['samples']} samples: ", end="")
        print("; ".join(f"\"{w}\"" for w in warnings) if warnings
              else "no warning about the number of samples.")
        print()


if __name__ == "__main__":
    main()
