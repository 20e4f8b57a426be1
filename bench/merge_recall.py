#!/usr/bin/env python3
"""Merges `pyramid-eval recall` JSON files that scored disjoint slices of one case file (or the
same slice twice) into one file of the same form, and compares runs case by case
(docs/quality/smollm2-policies.md, "Recall across turns").

Each input file holds the full cache and one or more runs; runs are matched by label, parameters
and mode. Where two runs share a label (`--policy snapkv` at two budgets), the merged run is
named "label (parameters)", and --pair takes that name. A merged file can be merged again: a
label it names that way is read as the plain label.
A case scored by two files (the full cache, which every invocation runs) must have the same
answer log-probability in both, since the engine is deterministic; otherwise the merge stops.
Totals are recomputed as pyramid-eval computes them: recalled cases, mean answer log-probability,
the paired difference with the full cache (mean ± standard error over cases), and KV bytes over
the full cache's, summed over cases.

Usage: bench/merge_recall.py --out MERGED.json [--pair "LABEL_A vs LABEL_B" ...] FILE...
Prints, for each --pair, the paired difference A - B of the right answer's log-probability and
the cases only one of the two recalls, with the exact two-sided sign (McNemar) test on them:
in each mode both ran, or across modes when a side names one ("pyramid@rebuild vs pyramid@extend").
A side that names no run stops the merge before anything is written, listing the runs' names.
"""
import argparse
import json
import math

from paired_ppl import paired  # mean difference ± standard error, the one pairing of bench/


def sign_test(k, n):
    """Exact two-sided binomial test of k successes in n at p = 1/2."""
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(0, min(k, n - k) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def merge(paths):
    runs = {}  # (label, parameters, mode) -> the first file's run, its cases by id, seconds
    order = []
    model = None
    for path in paths:
        with open(path) as f:
            d = json.load(f)
        model = model or d["model"]
        if d["model"] != model:
            raise SystemExit(f"{path}: model {d['model']} differs from {model}")
        for r in d["runs"]:
            label = r["label"].removesuffix(f" ({r['parameters']})")
            key = (label, r["parameters"], r["mode"])
            if key not in runs:
                runs[key] = {"base": dict(r, label=label), "cases": {}, "seconds": 0.0, "timed": set()}
                order.append(key)
            m = runs[key]
            if m["base"]["config"] != r["config"]:
                raise SystemExit(f"{path}: run {key} has another configuration than an earlier file's")
            # A file that scored cases again (the full cache, which every run scores) adds only
            # its new cases' share of its time, so the full cache's time counts once; a run read
            # from a reference (recall --reference) scored nothing and times nothing.
            if "reference" not in r:
                new = [c["id"] for c in r["per_case"] if c["id"] not in m["timed"]]
                m["seconds"] += r.get("seconds", 0.0) * len(new) / max(1, len(r["per_case"]))
                m["timed"].update(new)
            for c in r["per_case"]:
                seen = m["cases"].get(c["id"])
                if seen is not None and (seen["answer_logprob"] != c["answer_logprob"] or seen["kv_bytes"] != c["kv_bytes"]):
                    raise SystemExit(f"{path}: {key} case {c['id']} scored {c['answer_logprob']} here and "
                                     f"{seen['answer_logprob']} before: not the same engine")
                m["cases"][c["id"]] = c
    merged = []
    parameters_of = {}
    for label, parameters, _ in order:
        parameters_of.setdefault(label, set()).add(parameters)
    for label, parameters, mode in order:
        m = runs[(label, parameters, mode)]
        full = runs.get(("full", "no compression", mode))
        if full is None:
            raise SystemExit(f"no full-cache run for mode {mode}")
        if set(m["cases"]) != set(full["cases"]):
            raise SystemExit(f"run {label} ({mode}) scored other cases than the full cache")
        ids = sorted(m["cases"])
        cases = [m["cases"][i] for i in ids]
        logprobs = [c["answer_logprob"] for c in cases]
        delta, se = paired(logprobs, [full["cases"][i]["answer_logprob"] for i in ids])
        out = dict(m["base"])
        if m["timed"]:  # scored here, at least in part: no longer a copy of a reference
            out.pop("reference", None)
        out.update({
            "label": label if len(parameters_of[label]) == 1 else f"{label} ({parameters})",
            "cases": len(cases),
            "recalled": sum(c["recalled"] for c in cases),
            "mean_answer_logprob": sum(logprobs) / len(logprobs),
            "delta_logprob_vs_full": delta,
            "delta_standard_error": se,
            "kv_fraction": sum(c["kv_bytes"] for c in cases) / sum(c["full_kv_bytes"] for c in cases),
            "seconds": m["seconds"],
            "per_case": cases,
        })
        merged.append(out)
    return {"cases": "merged: " + ", ".join(paths), "model": model, "runs": merged}


def side(text):
    """A pair's side: "LABEL" (in every mode) or "LABEL@MODE" (in that mode only)."""
    label, _, mode = text.partition("@")
    return label, mode or None


def check_pair(merged, pair):
    """Stops, naming the side and the runs there are, unless both sides of "A vs B" name a run."""
    runs = {(r["label"], r["mode"]) for r in merged["runs"]}
    for text in pair.split(" vs "):
        label, mode = side(text)
        if not any(l == label and (mode is None or m == mode) for l, m in runs):
            names = ", ".join(sorted({f'"{l}"' for l, _ in runs}))
            raise SystemExit(f'--pair "{pair}": no run is "{text}"; the runs are {names}')


def compare(merged, text_a, text_b):
    by = {(r["label"], r["mode"]): r for r in merged["runs"]}
    (label_a, mode_a), (label_b, mode_b) = side(text_a), side(text_b)
    lines = []
    for (label, mode), a in by.items():
        if label != label_a or (mode_a or mode) != mode:
            continue
        other_mode = mode_b or mode
        if (label_b, other_mode) not in by:
            continue
        b = {c["id"]: c for c in by[(label_b, other_mode)]["per_case"]}
        ids = [c["id"] for c in a["per_case"]]
        ca = {c["id"]: c for c in a["per_case"]}
        delta, se = paired([ca[i]["answer_logprob"] for i in ids], [b[i]["answer_logprob"] for i in ids])
        only_a = sum(ca[i]["recalled"] and not b[i]["recalled"] for i in ids)
        only_b = sum(b[i]["recalled"] and not ca[i]["recalled"] for i in ids)
        both = sum(ca[i]["recalled"] and b[i]["recalled"] for i in ids)
        modes = mode if other_mode == mode else f"{mode} − {other_mode}"
        lines.append(f"| {label_a} − {label_b} | {modes} | {len(ids)} | {delta:+.2f} ± {se:.2f} | {both} | {only_a} | "
                     f"{only_b} | {sign_test(only_a, only_a + only_b):.3f} |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--pair", action="append", default=[], help="\"LABEL_A vs LABEL_B\", a side LABEL@MODE")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    merged = merge(args.files)
    for pair in args.pair:
        if len(pair.split(" vs ")) != 2:
            raise SystemExit(f'--pair "{pair}": write it "LABEL_A vs LABEL_B"')
        check_pair(merged, pair)
    with open(args.out, "w") as f:
        json.dump(merged, f, indent=1)
    print("| run | mode | cases | recalled | answer log-prob | Δ vs full (nats ± s.e.) | KV bytes / full |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in merged["runs"]:
        print(f"| {r['label']} | {r['mode']} | {r['cases']} | {r['recalled']} ({100 * r['recalled'] / r['cases']:.1f}%) | "
              f"{r['mean_answer_logprob']:.2f} | {r['delta_logprob_vs_full']:+.2f} ± {r['delta_standard_error']:.2f} | "
              f"{r['kv_fraction']:.3f} |")
    if args.pair:
        print("\n| pair (A − B) | mode | cases | Δ answer log-prob (nats ± s.e.) | recalled by both | only A | only B "
              "| sign test p |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for pair in args.pair:
            a, b = pair.split(" vs ")
            for line in compare(merged, a, b):
                print(line)


if __name__ == "__main__":
    main()
