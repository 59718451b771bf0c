#!/usr/bin/env python3
"""debian/control's Build-Depends against what the build uses (t_build.sh).

  build_depends.py TOP TMPDIR PKG-CONFIG-MODULE...   every header the sources
      include (as the compiler resolves it), every pkg-config module the build
      links and -lelf, -lz's libraries belong to a package of Build-Depends, of
      their dependencies, or of build-essential's: what a package build in a
      clean root has. Names the others; exit 1 if any.
  build_depends.py --list TOP                        Build-Depends, one a line

Build-Depends is parsed here on its own, not by scripts/deps.sh, whose
build list this checks too.
"""
import os, re, subprocess, sys


def build_depends(top):
    """The field's relations, each by its first alternative, bare."""
    field, on = [], False
    for line in open(os.path.join(top, "debian/control")):
        if line[:1] not in (" ", "\t"):
            on = line.startswith("Build-Depends:")
            line = line.split(":", 1)[1] if on else line
        if on:
            field.append(line)
    bd = {re.split(r"[\s(\[<|]", r.strip(), 1)[0] for r in " ".join(field).split(",") if r.strip()}
    bd.discard("debhelper-compat")
    return bd


if sys.argv[1] == "--list":
    print("\n".join(sorted(build_depends(sys.argv[2]))))
    sys.exit(0)
top, tmp = sys.argv[1], sys.argv[2]
bd = build_depends(top)
# build-essential's closure and Build-Depends', of the installed packages: what a
# package build in a clean root has (a header may come from a -dev package's own dependency)
deps = {}
out = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\t${Status}\t${Pre-Depends}, ${Depends}\t${Provides}\n"],
                     capture_output=True, text=True).stdout
prov = {}
for l in out.splitlines():
    p, st, d, pv = (l.split("\t") + [""] * 4)[:4]
    if not st.endswith(" installed"):
        continue
    deps[p] = [[re.split(r"[\s(:]", a.strip(), 1)[0] for a in rel.split("|")] for rel in d.split(",") if rel.strip()]
    for v in pv.split(","):
        if v.strip():
            prov.setdefault(re.split(r"[\s(]", v.strip(), 1)[0], []).append(p)
ok, todo = set(), ["build-essential"] + sorted(bd)
while todo:
    p = todo.pop()
    if p in ok or p not in deps:
        continue
    ok.add(p)
    for alts in deps[p]:
        todo += [a for a in alts if a in deps] + [q for a in alts for q in prov.get(a, [])]
# every header the sources include, resolved as the build's compiler does
hdrs = set()
for d in ("src", "bpf"):
    for root, _, files in os.walk(os.path.join(top, d)):
        for f in files:
            if f.endswith((".c", ".h")):
                hdrs |= set(re.findall(r"^#\s*include\s*<([^>]+)>", open(os.path.join(root, f), errors="replace").read(), re.M))
cflags = subprocess.run(["pkg-config", "--cflags"] + sys.argv[3:], capture_output=True, text=True).stdout.split()
srcs = []
for i, h in enumerate(sorted(hdrs)):
    srcs.append(os.path.join(tmp, f"h{i}.c"))
    open(srcs[-1], "w").write(f"#include <{h}>\n")
m = subprocess.run(["cc", "-M", "-MG", "-D_GNU_SOURCE", "-I" + os.path.join(top, "src"), "-I" + os.path.join(top, "bpf")] + cflags + srcs,
                   capture_output=True, text=True).stdout
paths = sorted({p for p in m.replace("\\\n", " ").split() if p.startswith("/") and not p.startswith(tmp) and not p.startswith(top)})
# and the libraries linked: their pkg-config files, -lelf and -lz's .so
for mod in sys.argv[3:]:
    paths.append(os.path.join(subprocess.run(["pkg-config", "--variable=pcfiledir", mod], capture_output=True, text=True).stdout.strip(), mod + ".pc"))
for lib in ("libelf.so", "libz.so"):
    paths.append(subprocess.run(["cc", "-print-file-name=" + lib], capture_output=True, text=True).stdout.strip())
owner = {}
for l in subprocess.run(["dpkg", "-S"] + [os.path.normpath(p) for p in paths], capture_output=True, text=True).stdout.splitlines():
    pk, path = l.split(": ", 1)
    owner[path] = [re.sub(r":.*", "", x.strip()) for x in pk.split(",")]
bad = {}
for p in paths:
    o = owner.get(os.path.normpath(p))
    if o is None:
        bad.setdefault("(no package)", []).append(p)
    elif not any(x in bd or x in ok for x in o):
        bad.setdefault(",".join(o), []).append(p)
for pk, ps in sorted(bad.items()):
    print(f"{pk}: {len(ps)} file(s) the build uses, not in Build-Depends (e.g. {ps[0]})")
print(f"{len(paths)} headers and libraries, {len(bd)} Build-Depends", file=sys.stderr)
sys.exit(1 if bad else 0)
