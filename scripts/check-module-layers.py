#!/usr/bin/env python3
"""The layers of ARCHITECTURE.md, checked: no import cycles between modules,
and no import in perflab-cli that climbs its layer table.

Usage:
    scripts/check-module-layers.py [CRATE_SRC_DIR ...]
    scripts/check-module-layers.py --self-test

Exits 1, naming what is wrong, when it finds a cycle, a module of
perflab-cli that the layer table leaves out, or an import that climbs.
Standard library only; runs with any Python 3.8 or later.

Cycles (every crate, default every crates/*/src): every file is a module
(foo.rs and foo/mod.rs are `foo`). An edge A -> B is a path `crate::B...`,
`super::...` or `self::...` in A that resolves to module B (the longest known
module prefix). Edges from a module to its own descendants (declaration and
`pub use` re-exports in the parent) and from a module to its ancestors are
left out of sibling cycles, because a parent that re-exports its children is
not a layering problem, while two siblings (or two top-level modules) that
use each other are. Strongly connected components with more than one module
are printed at two levels: top-level modules, and modules within one parent.

Layers (perflab-cli only): the table under "## Layers inside perflab-cli" in
ARCHITECTURE.md is the single source. Each row is `| N name | modules |`;
the modules are the backquoted names outside parentheses (`report`,
`sweep::document`, `lib.rs` for the crate root). A module's layer is that of
the longest entry that is a prefix of its path, so `sweep::document` can sit
above `sweep`. A module may use modules of its own layer or below. A path
that names an item re-exported by another module (`use crate::x::Y` where
`x` has `pub use crate::z::Y`) is followed to where the item is defined, so
a re-export cannot hide a climbing import. Every top-level module in the
code must be in the table; entries of the table that the code does not have
are skipped. A parent's re-exports of its own descendants are not imports.
Test modules (`#[cfg(test)] mod ...` blocks and modules named `tests`) may
use anything.
"""
import os
import re
import subprocess
import sys
import tempfile

LAYER_HEADING = "## Layers inside perflab-cli"
LAYERED_CRATE = os.path.join("crates", "perflab-cli", "src")
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def modules_of(src):
    """Module path (tuple) -> file, for every .rs file of a crate's src."""
    mods = {}
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith(".rs"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)[:-3].split(os.sep)
            if rel == ["main"] and os.path.exists(os.path.join(src, "lib.rs")):
                continue  # the binary uses the library by its crate name
            if rel[-1] in ("mod", "lib", "main"):
                rel = rel[:-1]
            if rel and rel[0] == "bin":
                continue
            mods[tuple(rel)] = path
    return mods


def blank(text, start, end):
    """`text` with [start, end) replaced by its newlines only (line numbers stay)."""
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def matching_brace(text, open_at):
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(text) - 1


def code_of(path):
    """The file's text without comments and `#[cfg(test)] mod x { ... }`
    blocks (tests may use anything), with line numbers kept."""
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"//[^\n]*", lambda m: " " * len(m.group(0)), text)
    while True:
        m = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
        if not m:
            return text
        text = blank(text, m.start(), matching_brace(text, m.end() - 1) + 1)


def split_top(group):
    """Splits `a, b::{c, d}, e` at its top-level commas."""
    items, depth, current = [], 0, ""
    for c in group:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += c
    items.append(current)
    return [i.strip() for i in items if i.strip()]


def expand(prefix, tree):
    """Paths named by a use tree: `a::{b, c::{d, e}}` under `prefix`.
    Returns (path, alias) pairs; alias is the name the path is bound to."""
    tree = re.sub(r"\s+", " ", tree).strip()
    m = re.match(r"^((?:\w+\s*::\s*)*)\{(.*)\}$", tree, re.S)
    if m:
        base = prefix + [p.strip() for p in m.group(1).split("::") if p.strip()]
        out = []
        for item in split_top(m.group(2)):
            out.extend(expand(base, item))
        return out
    alias = None
    if " as " in tree:
        tree, alias = [t.strip() for t in tree.split(" as ", 1)]
    parts = [p.strip() for p in tree.split("::") if p.strip()]
    if parts and parts[-1] == "self":
        parts = parts[:-1]
    path = prefix + parts
    return [(path, alias or (path[-1] if path else None))]


def absolute(mod, parts):
    """`crate::a`, `super::a`, `self::a` (as parts) from module `mod`, as a
    path from the crate root; None for paths of other crates."""
    if not parts:
        return None
    head, rest = parts[0], parts[1:]
    if head == "crate":
        return rest
    if head == "self":
        return list(mod) + rest
    if head == "super":
        start = list(mod[:-1])
        while rest and rest[0] == "super":
            rest = rest[1:]
            start = start[:-1]
        return start + rest
    return None


PATH_OR_TREE = re.compile(
    r"\b(crate|super|self)((?:\s*::\s*" + IDENT + r")*)(\s*::\s*\{)?"
)


def references(mod, text):
    """(line, absolute path, is a `pub use` re-export) for every crate-relative
    path in the module's code, use trees expanded."""
    out = []
    for m in PATH_OR_TREE.finditer(text):
        if m.start() > 0 and text[m.start() - 1] in "$:":
            continue  # `$crate::`, or the tail of another path
        parts = [m.group(1)] + [p.strip() for p in m.group(2).split("::") if p.strip()]
        if len(parts) == 1 and not m.group(3):
            continue  # `pub(crate)`, `&self`, `pub(super)`: not a path
        line = text.count("\n", 0, m.start()) + 1
        statement_start = text.rfind(";", 0, m.start())
        statement = text[statement_start + 1 : m.start()]
        reexport = re.search(r"\bpub(\([^)]*\))?\s+use\s+$", statement) is not None
        if m.group(3):
            close = matching_brace(text, m.end() - 1)
            paths = [p for p, _ in expand(parts, text[m.end() - 1 : close + 1])]
        else:
            paths = [parts]
        for p in paths:
            a = absolute(mod, p)
            if a is not None:
                out.append((line, a, reexport))
    return out


def reexports_of(mod, text):
    """Name -> absolute path of what the module re-exports by name
    (`pub use x::Y;`, `pub(crate) use x::{Y, Z as W}`), and the absolute
    paths of its glob re-exports (`pub use x::*`)."""
    named, globs = {}, []
    for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", text):
        for path, alias in expand([], m.group(1)):
            a = absolute(mod, path) if path and path[0] in ("crate", "super", "self") else None
            if a is None and path and path[0] not in ("crate", "super", "self"):
                # `pub use child::Y` is relative to the module itself
                a = list(mod) + path
            if a is None:
                continue
            if alias == "*":
                globs.append(a[:-1])
            elif alias:
                named[alias] = a
    return named, globs


def defines(text, name):
    return re.search(
        r"\b(fn|struct|enum|trait|type|const|static|mod|union)\s+" + re.escape(name) + r"\b"
        r"|macro_rules!\s*" + re.escape(name) + r"\b",
        text,
    ) is not None


class Crate:
    def __init__(self, src):
        self.src = src
        self.mods = modules_of(src)
        self.code = {m: code_of(p) for m, p in self.mods.items()}
        self.reexports = {m: reexports_of(m, t) for m, t in self.code.items()}

    def resolve(self, parts):
        for n in range(len(parts), -1, -1):
            if tuple(parts[:n]) in self.mods:
                return tuple(parts[:n])
        return ()

    def origin(self, parts, seen=None):
        """The module where the item `parts` names is defined, following
        re-exports; and the modules whose re-exports were followed."""
        seen = seen or []
        target = self.resolve(parts)
        rest = parts[len(target):]
        if not rest or len(seen) > 16:
            return target, seen
        name = rest[0]
        named, globs = self.reexports[target]
        if name in named and named[name] != list(parts):
            return self.origin(named[name] + rest[1:], seen + [target])
        if defines(self.code[target], name):
            return target, seen
        for glob in globs:
            source = self.resolve(glob)
            if source != target and (
                defines(self.code.get(source, ""), name) or name in self.reexports[source][0]
            ):
                return self.origin(glob + rest, seen + [target])
        return target, seen


# ---------------------------------------------------------------- cycles


def scc(nodes, adj):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in adj.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            strong(v)
    return out


def name(m):
    return "::".join(m) or "crate"


def check_cycles(crate):
    """Prints the cycles of one crate; True when there is one."""
    edges = {}
    for mod, text in crate.code.items():
        targets = set()
        for _, parts, _ in references(mod, text):
            t = crate.resolve(parts)
            if t and t != mod:
                targets.add(t)
        edges[mod] = targets
    found = False
    top = {}
    for a, ts in edges.items():
        if not a:
            continue
        for b in ts:
            if b and b[0] != a[0]:
                top.setdefault(a[0], set()).add(b[0])
    for comp in scc(sorted(top), top):
        found = True
        print("top-level cycle:", " <-> ".join(comp))
        for a in comp:
            for b in comp:
                if b in top.get(a, ()):
                    why = sorted(
                        name(x) + " -> " + name(y)
                        for x, ys in edges.items()
                        for y in ys
                        if x and y and x[0] == a and y[0] == b
                    )
                    print("   ", "; ".join(why))
    known = set(crate.mods)
    for p in sorted({m[:-1] for m in known if m}):
        if not p:
            continue  # top level handled above
        adj = {}
        for a in [m for m in known if len(m) > len(p) and m[: len(p)] == p]:
            ka = a[: len(p) + 1]
            for b in edges[a]:
                if len(b) > len(p) and b[: len(p)] == p:
                    kb = b[: len(p) + 1]
                    if kb != ka:
                        adj.setdefault(ka, set()).add(kb)
        for comp in scc(sorted(adj), adj):
            found = True
            print("cycle in", name(p) + ":", " <-> ".join(name(c) for c in comp))
    return found


# ---------------------------------------------------------------- layers


def layer_table(architecture):
    """Module path (tuple; () for lib.rs) -> (layer number, layer name), from
    the table under LAYER_HEADING."""
    text = open(architecture, encoding="utf-8").read()
    start = text.find(LAYER_HEADING)
    if start < 0:
        raise SystemExit(f"{architecture}: no '{LAYER_HEADING}' section")
    table = {}
    for line in text[start:].splitlines()[1:]:
        if line.startswith("## "):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not re.match(r"^\d+\b", cells[0]):
            continue
        number = int(re.match(r"^\d+", cells[0]).group(0))
        layer = (number, cells[0])
        depth, outside = 0, ""
        for c in "|".join(cells[1:]):
            if c == "(":
                depth += 1
            elif c == ")":
                depth = max(0, depth - 1)
            elif depth == 0:
                outside += c
        for entry in re.findall(r"`([^`]+)`", outside):
            if entry == "lib.rs":
                table[()] = layer
            elif re.fullmatch(IDENT + r"(::" + IDENT + r")*", entry):
                table[tuple(entry.split("::"))] = layer
    if not table:
        raise SystemExit(f"{architecture}: the '{LAYER_HEADING}' table has no modules")
    return table


def layer_of(table, mod):
    """The layer of the longest table entry that is a prefix of `mod`; the
    crate root's entry (`lib.rs`) is the root's only."""
    if not mod:
        return table.get(())
    for n in range(len(mod), 0, -1):
        if tuple(mod[:n]) in table:
            return table[tuple(mod[:n])]
    return None


def is_test_module(mod):
    return "tests" in mod


def check_layers(crate, table, architecture):
    """Prints every climbing import and every module missing from the table;
    True when there is one."""
    found = False
    for mod in sorted(m for m in crate.mods if len(m) == 1):
        if layer_of(table, mod) is None:
            found = True
            print(
                f"{crate.mods[mod]}: module {name(mod)} is in no layer of "
                f"{architecture} ('{LAYER_HEADING}'); add it to the table"
            )
    for mod in sorted(crate.mods):
        if is_test_module(mod):
            continue
        own = layer_of(table, mod)
        if own is None:
            continue
        for line, parts, reexport in references(mod, crate.code[mod]):
            if reexport and crate.resolve(parts)[: len(mod)] == mod:
                continue  # a parent re-exporting its own descendants
            target, through = crate.origin(parts)
            theirs = layer_of(table, target)
            if theirs is None or theirs[0] <= own[0] or target == mod:
                continue
            found = True
            via = "".join(f" (re-exported by {name(t)})" for t in through)
            print(
                f"{crate.mods[mod]}:{line}: module {name(mod)} (layer {own[1]}) uses "
                f"{'::'.join(['crate'] + parts)}{via}, defined in module {name(target)} "
                f"(layer {theirs[1]}), a higher layer"
            )
    return found


# ---------------------------------------------------------------- self-test

SELF_TEST_ARCHITECTURE = """# Test

## Layers inside perflab-cli

| layer | modules |
| --- | --- |
| 2 top | `commands` (glue, `ignored`), `lib.rs` `run()` |
| 1 middle | `middle`, `gone` (named here, absent from the code) |
| 0 ground | `ground`, `middle::low_part` |

## Next section

| 9 not | `ground` |
"""

SELF_TEST_FILES = {
    "lib.rs": "pub mod commands;\npub mod ground;\npub mod middle;\n",
    "commands.rs": "use crate::middle::Middle;\nuse crate::{ground::Ground};\n",
    "middle/mod.rs": "mod low_part;\npub use low_part::Low;\n"
    "use crate::ground::Ground;\n/// Middle.\npub struct Middle;\n",
    "middle/low_part.rs": "use crate::ground::Ground;\n/// Low.\npub struct Low;\n",
    "ground.rs": "/// Ground.\npub struct Ground;\n"
    "#[cfg(test)]\nmod tests {\n    use crate::commands::Top;\n}\n",
}


def run_self(args):
    return subprocess.run(
        [sys.executable, os.path.abspath(__file__)] + args,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )


def self_test():
    """Builds small crates with and without a climbing import and checks that
    the script passes and fails on them as it should."""
    cases = [
        ("a tree that keeps its layers passes", {}, 0, []),
        (
            "a direct climbing import fails, naming file, line, modules and layers",
            {"ground.rs": "use crate::middle::Middle;\n/// Ground.\npub struct Ground;\n"},
            1,
            ["ground.rs:1: module ground (layer 0 ground) uses crate::middle::Middle, "
             "defined in module middle (layer 1 middle)"],
        ),
        (
            "a climbing import through a re-export fails, naming the re-export",
            {
                "ground.rs": "use crate::middle::Top;\n/// Ground.\npub struct Ground;\n",
                "middle/mod.rs": SELF_TEST_FILES["middle/mod.rs"] + "pub use crate::commands::Top;\n",
            },
            1,
            ["ground.rs:1: module ground (layer 0 ground) uses crate::middle::Top "
             "(re-exported by middle), defined in module commands (layer 2 top)",
             "mod.rs:6: module middle (layer 1 middle) uses crate::commands::Top, "
             "defined in module commands (layer 2 top)"],
        ),
        (
            "a climbing import in a use tree fails",
            {"middle/low_part.rs": "use crate::{ground::Ground, middle::Middle};\n"},
            1,
            ["low_part.rs:1: module middle::low_part (layer 0 ground) uses "
             "crate::middle::Middle, defined in module middle (layer 1 middle)"],
        ),
        (
            "a module missing from the table fails",
            {"extra.rs": "/// Extra.\npub struct Extra;\n"},
            1,
            ["module extra is in no layer"],
        ),
        (
            "an import cycle fails",
            {"ground.rs": "use crate::commands::Top;\n"},
            1,
            ["top-level cycle: commands <-> ground"],
        ),
    ]
    failures = 0
    for title, changes, code, expected in cases:
        with tempfile.TemporaryDirectory() as root:
            architecture = os.path.join(root, "ARCHITECTURE.md")
            with open(architecture, "w") as f:
                f.write(SELF_TEST_ARCHITECTURE)
            src = os.path.join(root, "src")
            files = dict(SELF_TEST_FILES, **changes)
            files["commands.rs"] += "/// Top.\npub struct Top;\n"
            for rel, text in files.items():
                path = os.path.join(src, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
            out = run_self(["--architecture", architecture, "--layered", src, src])
            missing = [e for e in expected if e not in out.stdout]
            if out.returncode != code or missing:
                failures += 1
                print(f"FAILED: {title}: exit {out.returncode} (expected {code}), "
                      f"missing {missing}\n{out.stdout}")
            else:
                print(f"ok: {title}")
    if failures:
        print(f"self-test: {failures} of {len(cases)} cases failed")
        return 1
    print(f"self-test: {len(cases)} cases passed")
    return 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    architecture = os.path.join(root, "ARCHITECTURE.md")
    layered = os.path.join(root, LAYERED_CRATE)
    dirs = []
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--architecture":
            architecture = args.pop(0)
        elif arg == "--layered":
            layered = args.pop(0)
        else:
            dirs.append(arg.rstrip("/"))
    if not dirs:
        crates = os.path.join(root, "crates")
        dirs = sorted(
            os.path.join(crates, c, "src")
            for c in os.listdir(crates)
            if os.path.isdir(os.path.join(crates, c, "src"))
        )
    bad = [d for d in dirs if check_cycles(Crate(d))]
    if bad:
        print("module cycles in:", ", ".join(bad))
    climbing = os.path.isdir(layered) and check_layers(
        Crate(layered), layer_table(architecture), architecture
    )
    if climbing:
        print(f"imports that climb the layers of {architecture} in {layered}")
    if bad or climbing:
        return 1
    print(f"no module cycles in {len(dirs)} crates; {layered} keeps the layers of {architecture}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
