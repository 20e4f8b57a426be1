#!/usr/bin/env python3
"""Tables of the SmolLM2 policy measurements (docs/quality/smollm2-policies.md) from the JSON that
bench/smollm2_ppl_vs_kv.sh and the bench/smollm2_recall*.sh scripts write. Prints Markdown.

Usage: bench/summarize_policies.py DIR   (the folder both scripts wrote into)
"""
import glob
import json
import math
import os
import re
import sys
from collections import defaultdict


def ppl_tables(path):
    d = json.load(open(path))
    runs = d["runs"]
    full = next(r for r in runs if r["policy"] == "full")
    p = re.search(r"p(\d+)\.json$", path).group(1)
    out = [f"### Prompt {p} tokens + 128 scored, {full['windows']} windows of WikiText-2 test "
           f"({full['scored_tokens']} scored tokens)\n",
           "| run | KV bytes / full | PPL | PPL vs full | ΔNLL vs full (nats/token ± s.e.) |",
           "|---|---:|---:|---:|---:|"]
    for r in sorted(runs, key=lambda r: (r["policy"] != "full", r["series"], -r["kv_fraction"])):
        delta = r["delta_nll_vs_full"]
        out.append(f"| {r['label']} | {r['kv_fraction']:.3f} | {r['perplexity']:.3f} | "
                   f"{100 * (r['perplexity'] / full['perplexity'] - 1):+.1f}% | "
                   f"{delta['mean']:+.4f} ± {delta['standard_error']:.4f} |")
    out.append("")
    out.append("Smallest KV share within 1% of the full cache's perplexity (of the budgets measured):\n")
    out.append("| policy | KV bytes / full | PPL vs full |")
    out.append("|---|---:|---:|")
    best = defaultdict(lambda: None)
    for r in runs:
        if r["policy"] == "full" or r["perplexity"] > 1.01 * full["perplexity"]:
            continue
        b = best[r["policy"]]
        if b is None or r["kv_fraction"] < b["kv_fraction"]:
            best[r["policy"]] = r
    for policy in ["pyramid", "local", "h2o", "snapkv", "pyramidkv"]:
        r = best[policy]
        out.append(f"| {policy} | " + (f"{r['kv_fraction']:.3f} | {100 * (r['perplexity'] / full['perplexity'] - 1):+.1f}% |"
                                        if r else "none measured | – |"))
    return "\n".join(out) + "\n"


def recall_table(path, title):
    d = json.load(open(path))
    out = [f"### {title}\n",
           "| run | mode | recalled | by fact: number / city / list | answer log-prob | Δ vs full (nats ± s.e.) | KV bytes / full | s |",
           "|---|---|---:|---|---:|---:|---:|---:|"]
    for r in d["runs"]:
        by = defaultdict(lambda: [0, 0])
        for c in r["per_case"]:
            k = c["meta"].get("fact", c["meta"].get("kind", "?"))
            by[k][0] += c["recalled"]
            by[k][1] += 1
        facts = " / ".join(f"{by[k][0]}/{by[k][1]}" for k in ["number", "city", "list"] if k in by) or "–"
        out.append(f"| {r['label']} | {r['mode']} | {r['recalled']}/{r['cases']} ({100 * r['recalled'] / r['cases']:.0f}%) "
                   f"| {facts} | {r['mean_answer_logprob']:.2f} | {r['delta_logprob_vs_full']:+.2f} ± "
                   f"{r['delta_standard_error']:.2f} | {r['kv_fraction']:.3f} | {r['seconds']:.0f} |")
    return "\n".join(out) + "\n"


def needle_table(path):
    d = json.load(open(path))
    out = []
    for r in d["runs"]:
        grid = defaultdict(dict)
        for c in r["per_case"]:
            grid[c["meta"]["length"]][c["meta"]["depth"]] = "✓" if c["recalled"] else "·"
        depths = sorted({dep for row in grid.values() for dep in row})
        out.append(f"### Passkey, {r['label']} ({r['mode']}): ✓ recalled, · not\n")
        out.append("| filler tokens | " + " | ".join(f"{dep}%" for dep in depths) + " | recalled |")
        out.append("|---|" + "---|" * len(depths) + "---:|")
        for length in sorted(grid):
            row = grid[length]
            hits = sum(v == "✓" for v in row.values())
            out.append(f"| {length} | " + " | ".join(row.get(dep, "") for dep in depths) + f" | {hits}/{len(row)} |")
        out.append("")
    return "\n".join(out) + "\n"


def main():
    folder = sys.argv[1]
    parts = ["<!-- made by bench/summarize_policies.py from the JSON files beside it -->\n", "## Perplexity against KV bytes\n"]
    for path in sorted(glob.glob(os.path.join(folder, "ppl-vs-kv-p*.json")), key=lambda p: int(re.search(r"p(\d+)", p).group(1))):
        parts.append(ppl_tables(path))
    parts.append("## Recall across turns\n")
    for name, title in [("recall-extend-200.json", "All 200 conversations, turn by turn (extend): the presets"),
                        ("recall-pooled-alone-200.json",
                         "All 200 conversations, turn by turn (extend): PyramidInfer pooled over 7, scored by its whole recent window"),
                        ("recall-three-quarters-200.json",
                         "All 200 conversations, turn by turn (extend): every policy at three quarters of the cache"),
                        ("recall-half-200.json", "All 200 conversations, turn by turn (extend): every policy at half the cache"),
                        ("recall-low-200.json",
                         "All 200 conversations, turn by turn (extend): local and SnapKV at 35% and 25% of the cache"),
                        ("recall-extend.json", "The first 24 conversations, turn by turn (extend), half the cache"),
                        ("recall-extend-75.json", "The first 24 conversations, turn by turn (extend), three quarters of the cache"),
                        ("recall-rebuild-200.json",
                         "All 200 conversations prefilled whole, question included (rebuild), beside extend: "
                         "three quarters of the cache"),
                        ("recall-rebuild-more-200.json",
                         "All 200 conversations prefilled whole (rebuild), beside extend: SnapKV at half the cache "
                         "and PyramidInfer's option (a)")]:
        if os.path.exists(os.path.join(folder, name)):
            parts.append(recall_table(os.path.join(folder, name), title))
    parts.append("## Needle (passkey) retrieval\n")
    for path in sorted(glob.glob(os.path.join(folder, "needle-*.json"))):
        parts.append(needle_table(path))
    print("\n".join(parts))


if __name__ == "__main__":
    main()
