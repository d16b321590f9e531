#!/usr/bin/env python3
"""Rewrites the marked blocks of README.md from the files investigate.sh wrote.

A block runs from `<!-- begin: NAME -->` to `<!-- end: NAME -->`; its new
content is results/NAME.md as it is, or results/NAME.txt inside a text
fence. A block without its file is an error, so that no figure in the README
is left from an earlier run without saying so. The `provenance` block is
publish-gate.sh's (publish_provenance writes it once the figures are in)
and is left as it is.
"""
import pathlib
import re
import sys

KEPT = {"provenance"}  # written by publish-gate.sh's publish_provenance
BLOCK = re.compile(r"(<!-- begin: ([\w-]+) -->\n).*?(<!-- end: \2 -->)", re.S)


def content(results, name):
    md, txt = results / f"{name}.md", results / f"{name}.txt"
    if md.exists():
        return md.read_text().rstrip("\n") + "\n"
    if txt.exists():
        return "```text\n" + txt.read_text().rstrip("\n") + "\n```\n"
    sys.exit(f"fill_readme.py: README.md has a block `{name}` but neither {md} nor {txt} exists")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: fill_readme.py README.md RESULTS_DIR")
    readme, results = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    text = readme.read_text()
    filled = BLOCK.sub(
        lambda m: m.group(0) if m.group(2) in KEPT
        else m.group(1) + content(results, m.group(2)) + m.group(3),
        text,
    )
    readme.write_text(filled)


if __name__ == "__main__":
    main()
