#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The dependency rules of docs/architecture.md ("Layout and dependency
rules"), checked.

  ci/check-layout.py               the sources: what each folder includes
  ci/check-layout.py BUILDDIR...   also the built libraries: libvkfd-guest
                                   has no NEEDED host library and no host or
                                   kfdsim code, the preload and libvkfd-host
                                   export nothing outside their allow-lists

Prints every violation and exits 1 if there is any, else 0.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Component of a source or header, by path (first match wins).
COMPONENTS = [
    ("src/guest/shim/backend_native.c", "shim-native"),
    ("src/guest/", "guest"),
    ("src/direct/", "direct"),
    ("src/vtest/", "vtest"),
    ("src/proto/", "proto"),
    ("src/log/", "log"),
    ("src/kfd_uapi/", "kfd_uapi"),
    ("src/svm/", "svm"),
    ("src/amdkfd/", "host"),
    ("src/kfdsim/", "kfdsim"),
    ("src/server/", "server"),
    ("src/tools/vkfd_info.c", "guest-tool"),
    ("src/tools/", "host-tool"),
    ("include/vkfd/guest.h", "guest-api"),
    ("include/vkfd/host.h", "host-api"),
    ("include/vkfd/device.h", "host-api"),
    ("include/vkfd/kfdsim.h", "kfdsim-api"),
]

SHARED = {"proto", "vtest", "log", "kfd_uapi", "svm"}
GUEST_SIDE = SHARED | {"guest", "guest-api"}
HOST_SIDE = SHARED | {"host", "host-api", "kfdsim-api"}

# What each component may include (besides itself and system headers).
MAY_INCLUDE = {
    "log": set(),
    "kfd_uapi": set(),
    "svm": {"kfd_uapi"},
    "vtest": set(),
    "proto": set(),
    "guest": GUEST_SIDE,
    "guest-api": set(),
    "guest-tool": GUEST_SIDE,
    # the shim's native backend embeds kfdsim (vkfd-run --native, tests);
    # it is not built in a guest-only build
    "shim-native": GUEST_SIDE | {"kfdsim-api", "host-api"},
    # tests and vkfd-bench only: the guest library with a host in process
    "direct": GUEST_SIDE | {"host-api"},
    "host-api": set(),
    "kfdsim-api": {"host-api"},
    "kfdsim": {"kfd_uapi", "svm", "kfdsim-api", "host-api"},
    "host": HOST_SIDE | {"kfdsim"},
    "server": SHARED | {"server", "host-api"},
    "host-tool": None,  # vkfd-run, vkfd-bench: anything
}

# Where a quoted include may be found, besides the including file's folder.
INCLUDE_ROOTS = [
    "include", "src/proto", "src/vtest", "src/log", "src/kfd_uapi", "src/svm", "src/guest",
    "src/direct", "src/amdkfd", "src/kfdsim", "src/kfdsim/engine", "src/kfdsim/isa",
    "src/server", "src/tools/bench",
]

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def component(rel):
    for prefix, name in COMPONENTS:
        if rel == prefix or (prefix.endswith("/") and rel.startswith(prefix)):
            return name
    return None


def resolve(src_rel, kind, name):
    """Repository path of an included file, or None (system/generated)."""
    candidates = []
    if kind == '"':
        candidates.append(os.path.join(os.path.dirname(src_rel), name))
    if kind == '"' or name.startswith("vkfd/"):
        candidates += [os.path.join(r, name) for r in INCLUDE_ROOTS]
    for c in candidates:
        c = os.path.normpath(c)
        if os.path.isfile(os.path.join(ROOT, c)):
            return c
    return None


def check_sources():
    errors = []
    files = subprocess.run(["git", "ls-files", "src", "include"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    for rel in files:
        if not rel.endswith((".c", ".h")):
            continue
        comp = component(rel)
        if comp is None or MAY_INCLUDE.get(comp, ()) is None:
            continue
        allowed = MAY_INCLUDE[comp] | {comp}
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            text = f.read()
        for m in INCLUDE_RE.finditer(text):
            target = resolve(rel, m.group(1), m.group(2))
            if target is None:
                continue
            tcomp = component(target)
            if tcomp is not None and tcomp not in allowed:
                line = text.count("\n", 0, m.start()) + 1
                errors.append(f"{rel}:{line}: {comp} includes {target} ({tcomp})")
    # kfdsim's test hooks are not public API
    with open(os.path.join(ROOT, "include/vkfd/kfdsim.h"), encoding="utf-8") as f:
        if re.search(r"kfdsim_(inject|latch)_|kfdsim_bytes_allocated", f.read()):
            errors.append("include/vkfd/kfdsim.h: declares test hooks "
                          "(they belong in src/kfdsim/kfdsim_test_hooks.h)")
    return errors


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def map_globals(map_rel):
    """Symbol names listed under global: in a linker version script."""
    with open(os.path.join(ROOT, map_rel), encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    m = re.search(r"global:(.*?)local:", text, re.S)
    return [s.strip() for s in m.group(1).split(";") if s.strip()] if m else []


def exported(lib):
    names = []
    for line in run(["nm", "-D", "--defined-only", lib]).splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] != "A":  # A: version node names
            names.append(parts[2].split("@")[0])
    return names


def allowed_by(name, patterns):
    for p in patterns:
        if p.endswith("*") and name.startswith(p[:-1]) or name == p:
            return True
    return False


def check_build(builddir):
    errors = []
    guest = os.path.join(builddir, "src/guest/libvkfd-guest.so")
    preload = os.path.join(builddir, "src/guest/shim/libvkfd-preload.so")
    host = os.path.join(builddir, "src/amdkfd/libvkfd-host.so")
    if not os.path.isfile(guest):
        return [f"{guest}: not built"]
    for line in run(["readelf", "-d", guest]).splitlines():
        if "(NEEDED)" in line and "vkfd" in line:
            errors.append(f"{guest}: NEEDED {line.split('[')[-1].rstrip(']')}")
    # every symbol, local ones too: no host or kfdsim object is linked in
    for line in run(["nm", guest]).splitlines():
        sym = line.split()[-1]
        if re.match(r"(vkfd_host_|kfdsim_|sim_|engine_|isa_|host_|gt_direct_transport)", sym):
            errors.append(f"{guest}: carries host/kfdsim symbol {sym}")
            break
    for lib, map_rel in ((guest, "src/guest/vkfd-guest.map"),
                         (preload, "src/guest/shim/vkfd-preload.map"),
                         (host, "src/amdkfd/vkfd-host.map")):
        if not os.path.isfile(lib):
            continue
        allow = map_globals(map_rel)
        names = exported(lib)
        extra = [n for n in names if not allowed_by(n, allow)]
        if extra:
            errors.append(f"{lib}: exports outside {map_rel}: {' '.join(sorted(extra))}")
        # a listed name that is not exported is a lost interposer or API
        missing = [p for p in allow if not p.endswith("*") and p not in names]
        if any(p.startswith("kfdsim_") for p in missing) and not any(
                n.startswith("kfdsim_") for n in names):
            missing = [p for p in missing if not p.startswith("kfdsim_")]  # built without kfdsim
        if missing:
            errors.append(f"{lib}: does not export {' '.join(sorted(missing))} ({map_rel})")
    return errors


def main():
    errors = check_sources()
    for d in sys.argv[1:]:
        errors += check_build(d)
    for e in errors:
        print(f"layout: {e}")
    if errors:
        print(f"layout: {len(errors)} violation(s) of docs/architecture.md's dependency rules")
        return 1
    print("layout: the dependency rules hold" +
          (f" (sources and {', '.join(sys.argv[1:])})" if sys.argv[1:] else " (sources)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
