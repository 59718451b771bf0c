#!/usr/bin/env python3
"""The layering of src/, checked from the #include lines (HACKING.md).

Each folder of src/ is a layer; a file may include headers of its own layer
and of the layers below it, never above. Modules (a .c with its .h) form no
cycle. Outside src/tracers/, tracers are reached through tracers/tracer.h
alone, and the tools' harness includes no particular tool. Prints one line
per breach and exits 1, or says how many includes it read and exits 0.
"""
import os
import re
import sys

# Bottom first. A folder not listed here is a breach: give it a place.
LAYERS = ["base", "audit", "attach", "vm", "load", "results", "tracers", "measure", "cli", "doc",
          "output", "store", "compare", "report", "cmd", "main"]
# Other programs built from src/: what they may use.
PROGRAMS = {"preload": {"load", "base"}, "ust": {"load"}}
HARNESS = {"tracers/tools/tool.c", "tracers/tools/tool.h",
           "tracers/tools/tool_proc.c", "tracers/tools/tool_proc.h"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    """The layer of a path relative to src/."""
    top = path.split("/")[0]
    return "main" if "/" not in path else top


def main(src):
    files = []
    for root, _, names in os.walk(src):
        for n in names:
            if n.endswith((".c", ".h")):
                files.append(os.path.relpath(os.path.join(root, n), src))
    breaches, edges, count = [], {}, 0
    for f in sorted(files):
        text = open(os.path.join(src, f), encoding="utf-8", errors="replace").read()
        lf = layer_of(f)
        mod = os.path.splitext(f)[0]
        for inc in INCLUDE.findall(text):
            if not os.path.exists(os.path.join(src, inc)):
                continue  # generated (skeletons, version.h) or a bpf/ header
            count += 1
            li = layer_of(inc)
            if lf in PROGRAMS:
                if li not in PROGRAMS[lf] and li != lf:
                    breaches.append(f"{f}: includes '{inc}': {lf}/ may use only "
                                    f"{', '.join(sorted(PROGRAMS[lf]))}")
                continue
            for l in (lf, li):
                if l not in LAYERS and l not in PROGRAMS:
                    breaches.append(f"{f}: '{l}/' is not a layer (add it to LAYERS)")
            if lf in LAYERS and li in LAYERS and LAYERS.index(li) > LAYERS.index(lf):
                breaches.append(f"{f}: includes '{inc}': {li}/ is above {lf}/")
            if inc.startswith("tracers/") and not f.startswith("tracers/") \
                    and inc != "tracers/tracer.h":
                breaches.append(f"{f}: includes '{inc}': outside tracers/, only "
                                "tracers/tracer.h")
            if f in HARNESS and inc.startswith("tracers/tools/") and inc not in HARNESS:
                breaches.append(f"{f}: includes '{inc}': the tools' harness knows "
                                "no particular tool")
            im = os.path.splitext(inc)[0]
            if im != mod:
                edges.setdefault(mod, set()).add(im)
    for cycle in cycles(edges):
        breaches.append("cycle: " + " -> ".join(cycle + [cycle[0]]))
    for b in breaches:
        print(b)
    if breaches:
        return 1
    print(f"layers: {count} includes in {len(files)} files, none up a layer, no cycle")
    return 0


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
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

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "src"))
