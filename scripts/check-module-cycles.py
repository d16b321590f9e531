#!/usr/bin/env python3
"""Import cycles between the modules of the workspace's crates.

Usage: scripts/check-module-cycles.py [CRATE_SRC_DIR ...]
(default: every crates/*/src). Exits 1 when it finds a cycle, so CI keeps
the layers of ARCHITECTURE.md true.

Every file is a module (foo.rs and foo/mod.rs are `foo`). An edge A -> B is a
path `crate::B...`, `super::...` or `self::...` in A that resolves to module B
(the longest known module prefix). Edges from a module to its own descendants
(declaration and `pub use` re-exports in the parent) and from a module to its
ancestors are reported separately from sibling cycles, because a parent that
re-exports its children is not a layering problem, while two siblings (or two
top-level modules) that use each other are.

Prints the strongly connected components with more than one module, at two
levels: top-level modules, and modules within the same parent.
"""
import os
import re
import sys

def check(src):
    mods = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)[:-3].split(os.sep)
            if rel[-1] in ("mod", "lib", "main"):
                rel = rel[:-1]
            if rel and rel[0] == "bin":
                continue
            mods[tuple(rel)] = path

    known = set(mods)


    def resolve(parts):
        for n in range(len(parts), -1, -1):
            if tuple(parts[:n]) in known:
                return tuple(parts[:n])
        return ()


    def strip_cfg_test(text):
        # drop `#[cfg(test)] mod tests { ... }` blocks: tests may use anything
        out = []
        i = 0
        for m in re.finditer(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text):
            if m.start() < i:
                continue
            out.append(text[i:m.start()])
            depth = 1
            j = m.end()
            while j < len(text) and depth:
                if text[j] == "{":
                    depth += 1
                elif text[j] == "}":
                    depth -= 1
                j += 1
            i = j
        out.append(text[i:])
        return "".join(out)


    edges = {}
    for mod, path in mods.items():
        text = strip_cfg_test(open(path).read())
        text = re.sub(r"//[^\n]*", "", text)
        targets = set()
        # expand `use crate::a::{b, c::d}` one level of braces
        for m in re.finditer(r"\b(crate|super|self)((?:::\w+)+)(::\{([^}]*)\})?", text):
            head, tail, _, group = m.group(1), m.group(2), m.group(3), m.group(4)
            base = [p for p in tail.split("::") if p]
            if head == "crate":
                start = []
            elif head == "super":
                start = list(mod[:-1])
                while base and base[0] == "super":
                    base = base[1:]
                    start = start[:-1]
            else:
                start = list(mod)
            heads = [start + base]
            if group:
                heads = []
                for item in group.split(","):
                    item = item.strip().split(" as ")[0]
                    if not item:
                        continue
                    heads.append(start + base + [p for p in item.split("::") if p and p != "self"])
            for parts in heads:
                t = resolve(parts)
                if t and t != mod:
                    targets.add(t)
        edges[mod] = targets


    def is_ancestor(a, b):
        return len(a) < len(b) and b[: len(a)] == a


    def scc(nodes, adj):
        index = {}
        low = {}
        stack = []
        on = set()
        out = []
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


    name = lambda m: "::".join(m) or "crate"
    found = False
    # top level
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
    # siblings within a parent (ignoring parent<->child edges)
    parents = {m[:-1] for m in known if m}
    for p in sorted(parents):
        kids = [m for m in known if len(m) > len(p) and m[: len(p)] == p]
        adj = {}
        for a in kids:
            ka = a[: len(p) + 1]
            for b in edges[a]:
                if len(b) > len(p) and b[: len(p)] == p:
                    kb = b[: len(p) + 1]
                    if kb != ka:
                        adj.setdefault(ka, set()).add(kb)
        if not p:
            continue  # top level handled above
        for comp in scc(sorted(adj), adj):
            found = True
            print("cycle in", name(p) + ":", " <-> ".join(name(c) for c in comp))
    return found


def main():
    dirs = sys.argv[1:] or sorted(
        os.path.join("crates", c, "src") for c in os.listdir("crates")
        if os.path.isdir(os.path.join("crates", c, "src"))
    )
    bad = [d for d in dirs if check(d.rstrip("/"))]
    if bad:
        print("module cycles in:", ", ".join(bad))
        sys.exit(1)
    print(f"no module cycles in {len(dirs)} crates")


if __name__ == "__main__":
    main()
