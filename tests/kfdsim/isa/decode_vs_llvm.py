#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Differential test of kfdsim's gfx9 decoder against LLVM.

decode_vs_llvm.py ISA_DISASM [BINARY...]

Finds gfx9 code objects (ELF, e_machine AMDGPU) embedded in ROCr's
libhsa-runtime64 (its blit and trap kernels for gfx900/906/908/90a), the
gfx90a code objects of Debian's librocrand and those of librocsparse that
hold its csrmv kernels (when installed), and the code objects in the given
binaries (HIP executables: clang offload bundles), disassembles
each with llvm-objdump-15 for its target and with ISA_DISASM (kfdsim's
decoder), and requires the same instruction boundaries and mnemonics, and
that every register LLVM prints for an instruction is named by one of the
decoded operand fields (unused fields may name more).
Prints a table of the mnemonics seen, how often, and whether the
interpreter implements them. Exit 0 match, 1 mismatch, 77 skip."""
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from collections import Counter

MACH = {0x2C: "gfx900", 0x2F: "gfx906", 0x30: "gfx908", 0x3F: "gfx90a"}
BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"


def elf_size(data, off):
    """Bytes of the ELF64 image starting at off (to its last section)."""
    shoff, = struct.unpack_from("<Q", data, off + 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, off + 0x3A)
    end = shoff + shentsize * shnum
    for i in range(shnum):
        sh = off + shoff + i * shentsize
        typ, = struct.unpack_from("<I", data, sh + 4)
        soff, ssize = struct.unpack_from("<QQ", data, sh + 0x18)
        if typ != 8:  # NOBITS
            end = max(end, soff + ssize)
    return end


def embedded_elfs(data):
    i = data.find(b"\x7fELF\x02\x01\x01")
    while i >= 0:
        mach, = struct.unpack_from("<H", data, i + 18)
        if mach == 0xE0:
            yield data[i:i + elf_size(data, i)]
        i = data.find(b"\x7fELF\x02\x01\x01", i + 1)


def bundled_elfs(data):
    i = data.find(BUNDLE_MAGIC)
    while i >= 0:
        n, = struct.unpack_from("<Q", data, i + 24)
        p = i + 32
        for _ in range(min(n, 64)):
            off, size, tlen = struct.unpack_from("<QQQ", data, p)
            triple = data[p + 24:p + 24 + tlen]
            p += 24 + tlen
            if b"amdgcn" in triple and data[i + off:i + off + 4] == b"\x7fELF":
                yield data[i + off:i + off + size]
        i = data.find(BUNDLE_MAGIC, i + 1)


def text_section(elf):
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    strtab_off, = struct.unpack_from("<Q", elf, shoff + shstrndx * shentsize + 0x18)
    for i in range(shnum):
        sh = shoff + i * shentsize
        name, = struct.unpack_from("<I", elf, sh)
        nm = elf[strtab_off + name:elf.index(b"\0", strtab_off + name)]
        addr, off, size = struct.unpack_from("<QQQ", elf, sh + 0x10)
        if nm == b".text":
            return addr, elf[off:off + size]
    return None, b""


def norm(m):
    return re.sub(r"_(e32|e64|dpp|sdwa)$", "", m)


REG = re.compile(r"\b(?:([sva]|ttmp)\[(\d+):\d+\]|([sva]|ttmp)(\d+)\b|(vcc|exec|m0|flat_scratch|xnack_mask)(?:_lo|_hi)?\b)")


def regs(text):
    """First registers of the operands LLVM prints."""
    out = set()
    for m in REG.finditer(text):
        if m.group(1):
            out.add(m.group(1) + m.group(2))
        elif m.group(3):
            out.add(m.group(3) + m.group(4))
        else:
            out.add(m.group(5))
    return out


def llvm_insts(path, target):
    out = subprocess.run(["llvm-objdump-15", "-d", "--mcpu=" + target, path],
                         capture_output=True, text=True, check=True).stdout
    insts = {}
    for line in out.splitlines():
        m = re.match(r"^\s+([a-z_0-9]+)\b(.*)//\s*([0-9A-Fa-f]+):((?:\s+[0-9A-Fa-f]{8})+)", line)
        if m:
            insts[int(m.group(3), 16)] = (norm(m.group(1)), 4 * len(m.group(4).split()),
                                          regs(m.group(2)))
    return insts


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    disasm = sys.argv[1]
    if not shutil.which("llvm-objdump-15"):
        print("SKIP: llvm-objdump-15 not installed")
        return 77
    objs = []
    for lib in sorted(glob.glob("/usr/lib/*/libhsa-runtime64.so*")):
        if not os.path.islink(lib):
            objs += [("rocr:" + os.path.basename(lib), e) for e in embedded_elfs(open(lib, "rb").read())]
    # precompiled library kernels (offload bundles): gfx90a, and for
    # rocSPARSE (1.3 GB, 777 code objects) the ones with csrmv kernels
    for pattern, must_hold in (("librocrand.so.*", None), ("librocsparse.so.*", b"csrmv")):
        for lib in sorted(glob.glob("/usr/lib/*/" + pattern)):
            if os.path.islink(lib):
                continue
            with open(lib, "rb") as fh:
                data = fh.read()
            for e in bundled_elfs(data):
                if (struct.unpack_from("<I", e, 0x30)[0] & 0xFF) == 0x3F and (
                        must_hold is None or must_hold in e):
                    objs.append((os.path.basename(lib), e))
            del data
    for b in sys.argv[2:]:
        objs += [(os.path.basename(b), e) for e in bundled_elfs(open(b, "rb").read())]
    objs = [(n, e) for n, e in objs if (struct.unpack_from("<I", e, 0x30)[0] & 0xFF) in MACH]
    if not objs:
        print("SKIP: no gfx9 code objects found")
        return 77
    seen, impl, bad = Counter(), {}, 0
    with tempfile.TemporaryDirectory() as d:
        for k, (name, elf) in enumerate(objs):
            target = MACH[struct.unpack_from("<I", elf, 0x30)[0] & 0xFF]
            path, text = os.path.join(d, "co%d" % k), os.path.join(d, "text%d" % k)
            open(path, "wb").write(elf)
            base, code = text_section(elf)
            open(text, "wb").write(code)
            ref = llvm_insts(path, target)
            mine = {}
            out = subprocess.run([disasm, target, text], capture_output=True, text=True,
                                 check=True).stdout
            for line in out.splitlines():
                off, mn, size, im, rs = line.split()
                mine[base + int(off, 16)] = (mn, int(size), set(rs.split(",")) - {"-"})
                if mn != "<invalid>":
                    impl[(target, mn)] = im == "1"
            for addr, (mn, size, rs) in sorted(ref.items()):
                got = mine.get(addr)
                seen[(target, mn)] += 1
                # same mnemonic and length; every register LLVM prints is
                # named by one of the decoded operand fields
                if got is None or got[:2] != (mn, size) or (
                        not mn.startswith("image_") and not rs <= got[2]):
                    bad += 1
                    if bad <= 20:
                        print("MISMATCH %s %s %#x: llvm %s/%d %s, kfdsim %s" %
                              (name, target, addr, mn, size, sorted(rs), got))
    total = sum(seen.values())
    print("%d code objects, %d instructions, %d mnemonics, %d mismatches" %
          (len(objs), total, len(seen), bad))
    missing = sorted((t, m, c) for (t, m), c in seen.items() if not impl.get((t, m), False))
    print("not implemented (target mnemonic count):")
    for t, m, c in missing:
        print("  %s %s %d" % (t, m, c))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
