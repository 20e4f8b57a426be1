#!/usr/bin/env python3
"""The KV cache types' quality table of docs/quality/kv-types.md, from the JSON that
bench/smollm2_kv_types.sh writes: for each type and policy, the KV bytes against the f16 full
cache, perplexity and its change against f16 under the same policy (paired over the same
windows), and recall across turns with its answer log-probability.

Usage: bench/summarize_kv_types.py OUT_DIR [TYPES]   (TYPES default f16,q8,q4; the first is the
reference; a name like kf16-vq8 reads ppl-kf16-vq8.json, keys and values apart, balanced-q8
ppl-balanced-q8.json). Each file's runs (full, pyramid, snapkv...) are compared with the
reference's run of the same label.
"""
import json
import math
import sys
from pathlib import Path


def load(path):
    return json.loads(path.read_text()) if path.exists() and path.stat().st_size else None


def paired(a, b):
    """Mean and standard error of b - a over paired values."""
    d = [y - x for x, y in zip(a, b)]
    n = len(d)
    mean = sum(d) / n
    var = sum((x - mean) ** 2 for x in d) / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(var / n)


def main():
    out = Path(sys.argv[1])
    types = (sys.argv[2] if len(sys.argv) > 2 else "f16,q8,q4").split(",")
    ppl = {t: load(out / f"ppl-{t}.json") for t in types}
    recall = {t: load(out / f"recall-{t}.json") for t in types}
    base = {r["label"]: r for r in ppl[types[0]]["runs"]}
    base_full_bytes = base["full"]["mean_kv_bytes"]
    print("| kv-type | policy | KV bytes / f16 full | PPL | PPL vs f16 | ΔNLL vs f16 (nats/token ± s.e., paired windows) "
          "| recalled | answer log-prob | Δ log-prob vs f16 (± s.e., paired cases) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    base_recall = {r["label"]: r for r in recall[types[0]]["runs"]} if recall[types[0]] else {}
    for t in types:
        if not ppl[t]:
            continue
        runs = {r["label"]: r for r in ppl[t]["runs"]}
        rec = {r["label"]: r for r in recall[t]["runs"]} if recall[t] else {}
        for label in runs:
            if label not in base:
                continue
            r, b = runs[label], base[label]
            nll, se = paired(b["window_mean_nll"], r["window_mean_nll"])
            cells = [t, label, f"{r['mean_kv_bytes'] / base_full_bytes:.3f}", f"{r['perplexity']:.4f}",
                     f"{100 * (r['perplexity'] / b['perplexity'] - 1):+.2f}%", f"{nll:+.4f} ± {se:.4f}"]
            # The recall runs name the full cache "full" and the preset's run by its policy.
            rr = rec.get(label) or next((x for x in rec.values() if x["policy"] == label), None)
            br = base_recall.get(label) or next((x for x in base_recall.values() if x["policy"] == label), None)
            if rr and br:
                lp, lse = paired([c["answer_logprob"] for c in br["per_case"]],
                                 [c["answer_logprob"] for c in rr["per_case"]])
                cells += [f"{rr['recalled']} of {rr['cases']}", f"{rr['mean_answer_logprob']:.3f}",
                          f"{lp:+.3f} ± {lse:.3f}"]
            else:
                cells += ["-", "-", "-"]
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
