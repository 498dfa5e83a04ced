#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""File-level call graph of the host library (src/amdkfd), checked for cycles.

Reads the static archive the build made (one object per source file), asks
nm which global symbols each object defines and which it references, and draws an edge a -> b when
a.o references a symbol b.o defines. Fails on any cycle between files, and on any edge
that does not go down the layers of docs/architecture.md ("Host library
layers", LAYERS below): handlers call down into the core and the leaf tables,
never sideways or up.

Usage: check-amdkfd-calls.py ARCHIVE [--nm NM] [--dot]
  ARCHIVE     e.g. build/src/amdkfd/libvkfd-host-internal.a
  --dot       print the graph (Graphviz) instead of checking it
Exit: 0 acyclic and layered, 1 cycle or layer violation (printed), 2 usage error, 77 no symbols (skip).
"""
import os
import subprocess
import sys


def archive_symbols(nm, archive):
    """{member object: (defined globals, undefined references)} of a static archive."""
    out = subprocess.run([nm, "-A", "--format=posix", archive], check=True,
                         capture_output=True, text=True).stdout
    objs = {}
    for line in out.splitlines():
        # "lib.a[file.c.o]: name KIND [value size]"
        head, sep, rest = line.partition("]: ")
        if not sep or "[" not in head:
            continue
        member = os.path.basename(head[head.rindex("[") + 1:])
        parts = rest.split()
        if len(parts) < 2:
            continue
        defined, used = objs.setdefault(member, (set(), set()))
        name, kind = parts[0], parts[1]
        if kind == "U":
            used.add(name)
        elif kind.isupper() or kind in ("u", "v", "w"):
            defined.add(name)  # lower-case kinds are static: they do not link
    return objs


def file_name(obj):
    # meson names objects after their source: topology.c.o -> topology.c
    return obj[:-2] if obj.endswith(".o") else obj


def graph(archive, nm):
    objs = archive_symbols(nm, archive)
    if not any(d for d, _ in objs.values()):
        # e.g. LTO objects an nm without the plugin cannot read
        print("check-amdkfd-calls: nm found no symbols in %s: skipped" % archive)
        raise SystemExit(77)
    defs = {}
    for o, (d, _) in objs.items():
        for s in d:
            defs.setdefault(s, file_name(o))
    edges = {file_name(o): {} for o in objs}
    for o, (_, used) in objs.items():
        name = file_name(o)
        for s in used:
            target = defs.get(s)
            if target and target != name:
                edges[name].setdefault(target, []).append(s)
    return edges


# The layers of docs/architecture.md ("Host library layers"), lowest first:
# a file may call only files of a lower layer. cmd_*.c are layer "handlers".
LAYERS = [
    ("log", ["host_log.c"]),
    ("leaves", ["obj_table.c", "va_map.c", "fence.c", "wait_pool.c", "wait_order.c",
                "doorbell_relay.c",
                "shmem.c", "topology.c", "device_real.c"]),
    ("device", ["host_device.c"]),
    ("core", ["host_core.c", "host_wait_ring.c"]),
    ("memory", ["host_arena.c", "host_blob.c", "render_alloc.c"]),
    ("handlers", ["cmd_*.c"]),
    ("dispatch", ["host_executor.c"]),
    ("lifecycle", ["host_context.c"]),
    ("api", ["host_lib.c"]),
]


def layer_of(name):
    for rank, (layer, files) in enumerate(LAYERS):
        for f in files:
            if name == f or (f.endswith("*.c") and name.startswith(f[:-3]) and
                             name.endswith(".c")):
                return rank, layer
    return None, None


def layer_violations(edges):
    """Edges that do not go strictly down, and files without a layer."""
    out = []
    for a in sorted(edges):
        ra, la = layer_of(a)
        if ra is None:
            out.append("%s: in no layer (add it to LAYERS here and to docs/architecture.md)"
                       % a)
            continue
        for b in sorted(edges[a]):
            rb, lb = layer_of(b)
            if rb is not None and rb >= ra:
                out.append("%s (%s) -> %s (%s): %s" % (a, la, b, lb, " ".join(sorted(edges[a][b]))))
    return out


def cycles(edges):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main(argv):
    args = list(argv[1:])
    nm = os.environ.get("NM", "nm")
    dot = False
    if "--dot" in args:
        args.remove("--dot")
        dot = True
    if "--nm" in args:
        i = args.index("--nm")
        nm = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.stderr.write(__doc__)
        return 2
    edges = graph(args[0], nm)
    if dot:
        print("digraph amdkfd {")
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print('  "%s" -> "%s";' % (a, b))
        print("}")
        return 0
    found = cycles(edges)
    bad = layer_violations(edges)
    if not found and not bad:
        n = sum(len(t) for t in edges.values())
        print("amdkfd call graph: %d files, %d edges, no cycle, every call goes down a layer"
              % (len(edges), n))
        return 0
    for line in bad:
        print("amdkfd layer rule broken: " + line)
    for comp in found:
        print("amdkfd call cycle between %d files: %s" % (len(comp), " ".join(comp)))
        members = set(comp)
        for a in comp:
            for b in sorted(edges[a]):
                if b in members:
                    print("  %s -> %s: %s" % (a, b, " ".join(sorted(edges[a][b]))))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
