#!/usr/bin/env python3
"""One decode step's kernels from an Nsight Compute CSV (scripts/gpu-run.sh staged-profile).

The profile is of pyramid-bench's decode steps only: the CUDA backend opens an NVTX range
"decode step" from a step's embedding to its logits (kernels/step_range.h), and ncu runs with
--nvtx --nvtx-include "decode step/" --csv --page raw --print-units base and the metrics
gpu__time_duration.sum, dram__bytes_read.sum and dram__bytes_write.sum. Every step starts with
the token embedding (embed_kernel, or dequantize_kernel for a quantized table), so the rows
split into steps there; the last complete one is summed per kernel (its name without template
arguments and parameters): launches, time, share of the step's kernel time, DRAM bytes and the
bandwidth they were moved at. The step's kernel time beside the step's measured time says how
long the GPU idled within it (queueing, host work); --copy-bandwidth GB/s adds each kernel's
share of the device's copy bandwidth.

    python3 bench/ncu_step.py ncu-7b-q4_k_m.csv [--copy-bandwidth 3000] [--json out.json]
"""
import argparse
import csv
import json
import re
import sys

STEP_START = ("embed_kernel", "dequantize_kernel")
METRICS = {"time": "gpu__time_duration.sum", "read": "dram__bytes_read.sum", "write": "dram__bytes_write.sum"}
SCALE = {"nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0,
         "byte": 1.0, "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9, "kibyte": 1024.0, "mibyte": 2.0 ** 20,
         "gibyte": 2.0 ** 30}


def kernel_base_name(name):
    """'void pyramid::cuda::(anonymous namespace)::k4_matvec_int8_kernel<(Q)12>(const T1 *, int)'
    -> 'k4_matvec_int8_kernel' (ncu --print-kernel-base function prints the short form already)."""
    name = name.replace("(anonymous namespace)", "")
    depth, out = 0, []
    for c in name:  # template arguments, nested ones included
        depth += c == "<"
        if depth == 0:
            out.append(c)
        depth -= c == ">"
    words = "".join(out).split("(")[0].split()  # parameters
    return words[-1].split("::")[-1] if words else name.strip()


def read_kernels(path):
    """The CSV's kernel rows in launch order: name, seconds, bytes read, bytes written."""
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]  # ncu's own ==PROF== lines are not CSV
    rows = list(csv.reader(lines))
    if not rows or "Kernel Name" not in rows[0]:
        sys.exit(f"ncu_step: {path}: no 'Kernel Name' header (is it ncu --csv --page raw?)")
    header = rows[0]
    column = {k: header.index(m) for k, m in METRICS.items() if m in header}
    missing = set(METRICS) - set(column)
    if missing:
        sys.exit(f"ncu_step: {path}: no column for {', '.join(METRICS[k] for k in sorted(missing))}")
    units = {k: 1.0 for k in column}
    kernels = []
    for row in rows[1:]:
        if not row[0].strip().isdigit():  # the units row
            units = {k: SCALE.get(row[i].strip().lower(), 1.0) for k, i in column.items()}
            continue
        values = {k: float(row[i].replace(",", "")) * units[k] for k, i in column.items()}
        kernels.append({"name": kernel_base_name(row[header.index("Kernel Name")]), **values})
    return kernels


def last_step(kernels):
    """The kernels of the last complete decode step (from a step start to the next one)."""
    starts = [i for i, k in enumerate(kernels) if k["name"] in STEP_START]
    if len(starts) < 2:
        sys.exit(f"ncu_step: {len(starts)} step start(s) found ({' or '.join(STEP_START)}); "
                 "need two decode steps (--gen-len 3 or more)")
    return kernels[starts[-2]:starts[-1]], len(starts) - 1


def summarize(step, copy_bandwidth=None):
    by_name = {}
    for k in step:
        s = by_name.setdefault(k["name"], {"launches": 0, "time": 0.0, "read": 0.0, "write": 0.0})
        s["launches"] += 1
        for m in ("time", "read", "write"):
            s[m] += k[m]
    total = {m: sum(s[m] for s in by_name.values()) for m in ("time", "read", "write")}
    total["launches"] = len(step)
    for s in list(by_name.values()) + [total]:
        s["gbs"] = (s["read"] + s["write"]) / s["time"] / 1e9 if s["time"] > 0 else 0.0
        if copy_bandwidth:
            s["of_copy"] = s["gbs"] / copy_bandwidth
    return dict(sorted(by_name.items(), key=lambda kv: -kv[1]["time"])), total


def table(by_name, total, copy_bandwidth=None):
    extra = " | of copy bandwidth" if copy_bandwidth else ""
    lines = ["| kernel | launches | time µs | share | DRAM MB | GB/s" + extra + " |",
             "|---|---:|---:|---:|---:|---:|" + ("---:|" if copy_bandwidth else "")]
    for name, s in list(by_name.items()) + [("**the step's kernels**", total)]:
        cells = [name, str(s["launches"]), f"{s['time'] * 1e6:.1f}", f"{s['time'] / total['time']:.1%}",
                 f"{(s['read'] + s['write']) / 1e6:.1f}", f"{s['gbs']:.0f}"]
        if copy_bandwidth:
            cells.append(f"{s['of_copy']:.0%}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", nargs="+")
    p.add_argument("--copy-bandwidth", type=float, help="the device's copy bandwidth in GB/s")
    p.add_argument("--json")
    args = p.parse_args()
    out = {}
    for path in args.csv:
        step, steps = last_step(read_kernels(path))
        by_name, total = summarize(step, args.copy_bandwidth)
        print(f"{path}: the last of {steps} complete decode steps profiled, {total['launches']} kernels, "
              f"{total['time'] * 1e3:.3f} ms of kernel time\n")
        print(table(by_name, total, args.copy_bandwidth) + "\n")
        out[path] = {"steps": steps, "kernels": by_name, "total": total}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
