#!/usr/bin/env python3
"""Calls between source files and between directories must go one way.

Reads the object files of a build (nm: the global symbols each object
defines and the ones it leaves undefined) and builds two graphs:

  files        one node per .c file of a directory (lib/ by default): A -> B
               when A uses a function or variable that B defines
  directories  lib/ util/ pkg/ guard/ cli/ rpm-plugin/ hooks/: the same, one
               node per directory

A cycle in either graph (two files that call each other, directly or around
a loop) is a failure: the members of each cycle are printed with the
symbols that make its edges.  Headers do not count (only what the compiler
left as a reference between objects does).

Usage: tests/tools/callcycles.py [--build DIR] [--files DIR]... [--graph]
  --build DIR   the build directory (default: $B, else build)
  --files DIR   check DIR's files against each other (default: lib; repeatable)
  --graph       also print every edge of the graphs checked
Prints "ok"/"not ok" lines and "N passed, N failed"; exits 1 on a cycle.
"""
import argparse
import collections
import glob
import os
import subprocess
import sys

DIRS = ["lib", "util", "pkg", "guard", "cli", "rpm-plugin", "hooks"]


def nm(path, *opts):
    out = subprocess.run(["nm", *opts, path], check=True, capture_output=True, text=True).stdout
    syms = set()
    for line in out.splitlines():
        f = line.split()
        if not f:
            continue
        # "ADDR TYPE NAME" for defined symbols, "U NAME" (or "w NAME") for undefined
        kind, name = (f[-2], f[-1]) if len(f) >= 2 else ("U", f[0])
        if kind in ("U", "w", "v") and "--defined-only" in opts:
            continue
        syms.add(name)
    return syms


def read_objects(build):
    """{node: (defined, undefined)} for build/DIR/*.o, node = "DIR/NAME.c"."""
    objs = {}
    for d in DIRS:
        for o in sorted(glob.glob(os.path.join(build, d, "*.o"))):
            node = "%s/%s.c" % (d, os.path.basename(o)[:-2])
            objs[node] = (nm(o, "-g", "--defined-only"), nm(o, "-u"))
    return objs


def edges(objs, group):
    """{(a, b): {symbols}} between the groups of @objs (group(node) -> name)."""
    definers = collections.defaultdict(set)
    for node, (defined, _) in objs.items():
        for s in defined:
            definers[s].add(group(node))
    e = collections.defaultdict(set)
    for node, (_, undefined) in objs.items():
        a = group(node)
        for s in undefined:
            by = definers.get(s, set())
            # a name defined in the user's own group (front ends linked into
            # different programs may reuse one) is that group's own
            if a in by:
                continue
            for b in by:
                e[(a, b)].add(s)
    return e


def cycles(nodes, e):
    """Strongly connected components of more than one node (Tarjan)."""
    succ = collections.defaultdict(list)
    for a, b in e:
        succ[a].append(b)
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(succ[v]):
            if w not in index:
                visit(w)
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
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def check(title, nodes, e, show):
    if show:
        for (a, b), syms in sorted(e.items()):
            print("# %s -> %s: %s" % (a, b, " ".join(sorted(syms))))
    found = cycles(nodes, e)
    if not found:
        print("ok - %s: no cycle (%d nodes, %d edges)" % (title, len(nodes), len(e)))
        return True
    print("not ok - %s: %d cycle(s)" % (title, len(found)))
    for comp in found:
        print("#   cycle: %s" % " ".join(comp))
        for a in comp:
            for b in comp:
                if (a, b) in e:
                    print("#     %s -> %s: %s" % (a, b, " ".join(sorted(e[(a, b)]))))
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.environ.get("B") or "build")
    ap.add_argument("--files", action="append")
    ap.add_argument("--graph", action="store_true")
    args = ap.parse_args()

    objs = read_objects(args.build)
    if not any(n.startswith("lib/") for n in objs):
        print("not ok - no object files under %s/lib (build first)" % args.build)
        print("0 passed, 1 failed")
        return 1
    results = []
    for d in args.files or ["lib"]:
        d = d.rstrip("/")
        sub = {n: v for n, v in objs.items() if n.startswith(d + "/")}
        results.append(check("files of %s/" % d, set(sub), edges(sub, lambda n: n), args.graph))
    dirs = {n.split("/")[0] for n in objs}
    results.append(check("directories", dirs, edges(objs, lambda n: n.split("/")[0]), args.graph))
    passed = sum(results)
    print("%d passed, %d failed" % (passed, len(results) - passed))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
