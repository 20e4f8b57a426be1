#!/usr/bin/env python3
"""Paired perplexity comparison across pyramid-eval ppl JSON files run on the same windows
(docs/quality/smollm2-policies.md, "PyramidInfer's options"). Each file holds the full cache and
one or more runs; every run is compared with its file's full cache and with one reference run,
window by window (mean difference of per-window NLL ± its standard error). Prints Markdown.

Usage: bench/paired_ppl.py REFERENCE_FILE:LABEL FILE...
"""
import json
import math
import os
import sys


def paired(a, b):
    d = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(d) / len(d)
    if len(d) < 2:
        return mean, float("nan")
    var = sum((x - mean) ** 2 for x in d) / (len(d) - 1)
    return mean, math.sqrt(var / len(d))


def main():
    ref_path, ref_label = sys.argv[1].rsplit(":", 1)
    reference = next(r for r in json.load(open(ref_path))["runs"] if r["label"] == ref_label)
    print(f"Reference: `{ref_label}` of {os.path.basename(ref_path)}, {reference['windows']} windows.\n")
    print("| file | run | parameters | KV bytes / full | PPL | PPL vs full | ΔNLL vs full (± s.e.) "
          "| ΔNLL vs reference (± s.e.) |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for path in sys.argv[2:]:
        runs = json.load(open(path))["runs"]
        full = next(r for r in runs if r["policy"] == "full")
        for r in runs:
            if r is full:
                continue
            vs_full = paired(r["window_mean_nll"], full["window_mean_nll"])
            vs_ref = paired(r["window_mean_nll"], reference["window_mean_nll"])
            print(f"| {os.path.basename(path)} | {r['label']} | {r['parameters']} | {r['kv_fraction']:.3f} | "
                  f"{r['perplexity']:.4f} | {100 * (r['perplexity'] / full['perplexity'] - 1):+.1f}% | "
                  f"{vs_full[0]:+.4f} ± {vs_full[1]:.4f} | {vs_ref[0]:+.4f} ± {vs_ref[1]:.4f} |")


if __name__ == "__main__":
    main()
