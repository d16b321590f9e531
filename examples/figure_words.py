"""What the examples' figure scripts share: a change worded as every perflab
report words it, and a README's `<!-- begin: NAME -->` ... `<!-- end: NAME -->`
blocks replaced by what the script writes for each.

A figure script imports it from the folder above its own:

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
    from figure_words import change_cell, fill_blocks
"""
import pathlib
import re


def signed_percent(fraction):
    """`+20.8%`, or two decimals under 1%."""
    p = fraction * 100
    return f"{p:+.1f}%" if abs(p) >= 1 else f"{p:+.2f}%"


def ratio_of_improvement(change):
    """Candidate over baseline for a lower-is-better metric, from a change
    stored in the decision's orientation (positive: the candidate is
    better), as perflab's change words convert it."""
    return 1.0 / (1.0 + change)


def change_cell(change, ci):
    """`+20.8% [+18.0%, +24.0%]`: the candidate's value over the
    baseline's, as every perflab report words a change."""
    r = ratio_of_improvement(change)
    lo, hi = sorted(ratio_of_improvement(c) for c in ci)
    return f"{signed_percent(r - 1)} [{signed_percent(lo - 1)}, {signed_percent(hi - 1)}]"


def fill_blocks(readme, blocks, run, fail):
    """Replaces each block of `readme` named in `blocks` (name -> function
    of `run` returning the block's text). A block the README lacks, or one
    it has that `blocks` does not name, is refused through `fail` (which
    exits); the `provenance` block is publish-gate.sh's."""
    readme = pathlib.Path(readme)
    text = readme.read_text()
    present = set(re.findall(r"<!-- begin: ([\w-]+) -->", text)) - {"provenance"}
    unknown = present - blocks.keys()
    if unknown:
        fail(f"{readme} has blocks this script does not write: {', '.join(sorted(unknown))}")
    for name, make in blocks.items():
        pattern = re.compile(rf"(<!-- begin: {re.escape(name)} -->\n).*?(<!-- end: {re.escape(name)} -->)", re.S)
        if not pattern.search(text):
            fail(f"{readme} has no block `{name}` (<!-- begin: {name} --> ... <!-- end: {name} -->)")
        body = make(run).rstrip("\n") + "\n"
        text = pattern.sub(lambda m: m.group(1) + body + m.group(2), text)
    readme.write_text(text)
