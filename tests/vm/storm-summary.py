#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tabulate vkfd-bench storm results (docs/integration.md, "Storm replay in
the VM"). Not used by CI.

    storm-summary.py LABEL=FILE [LABEL=FILE ...]

FILE is vkfd-bench's table output, or a VM console log that holds it. Runs
with the same LABEL are one group. Prints a markdown table of every run
(wall time and the blob steps' distributions), then each group's median of
every figure and the ratio of each group's medians to every earlier group's.
"""
import re
import statistics
import sys

FIGURES = [
    "wall_ms", "commands_per_s",
    "blob_create_p50_us", "blob_create_p90_us", "blob_create_p99_us", "blob_create_max_us",
    "blob_map_p50_us", "blob_map_p90_us", "blob_map_p99_us", "blob_map_max_us",
    "blob_destroy_p50_us", "blob_destroy_p90_us", "blob_destroy_p99_us", "blob_destroy_max_us",
    "cpumap_p50_us", "cpumap_max_us", "cpuunmap_p50_us", "cpuunmap_max_us",
    "submit_p50_us", "submit_max_us", "wait_p50_us", "wait_max_us",
    "op_p99_us", "op_max_us",
]
ROW = re.compile(r"^\s*(vtest|virtgpu|direct)\s+wall_ms\s+([0-9.]+)\s+\S+\s+(.*)$")


def parse(path):
    """One dict of figures per storm result line in the file."""
    runs = []
    with open(path, errors="replace") as f:
        for line in f:
            m = ROW.match(line.replace("\r", ""))
            if not m:
                continue
            fig = {"path": m.group(1), "wall_ms": float(m.group(2))}
            for kv in m.group(3).split():
                k, _, v = kv.partition("=")
                try:
                    fig[k] = float(v)
                except ValueError:
                    pass
            runs.append(fig)
    return runs


def fmt(v):
    if v is None:
        return "–"
    if v >= 100:
        return f"{v:.0f}"
    return f"{v:.3g}"


def main(argv):
    groups = {}
    order = []
    for arg in argv:
        label, _, path = arg.partition("=")
        if label not in groups:
            groups[label] = []
            order.append(label)
        for run in parse(path):
            run["file"] = path
            groups[label].append(run)
    print("| run | " + " | ".join(FIGURES) + " |")
    print("|---" * (len(FIGURES) + 1) + "|")
    for label in order:
        for i, run in enumerate(groups[label], 1):
            print(f"| {label} #{i} | " + " | ".join(fmt(run.get(k)) for k in FIGURES) + " |")
    med = {}
    for label in order:
        med[label] = {}
        for k in FIGURES:
            vals = [r[k] for r in groups[label] if k in r]
            med[label][k] = statistics.median(vals) if vals else None
    print()
    print("| median of | runs | " + " | ".join(FIGURES) + " |")
    print("|---" * (len(FIGURES) + 2) + "|")
    for label in order:
        print(f"| {label} | {len(groups[label])} | " +
              " | ".join(fmt(med[label][k]) for k in FIGURES) + " |")
    if len(order) < 2:
        return 0
    print()
    print("| ratio of medians | " + " | ".join(FIGURES) + " |")
    print("|---" * (len(FIGURES) + 1) + "|")
    for i, base in enumerate(order):
        for label in order[i + 1:]:
            cells = []
            for k in FIGURES:
                a, b = med[label][k], med[base][k]
                cells.append(f"{a / b:.3g}" if a is not None and b else "–")
            print(f"| {label} / {base} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
