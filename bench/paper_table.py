#!/usr/bin/env python3
"""Runs pyramid-bench and the Hugging Face baseline on one workload and prints
the PyramidInfer paper's table (Model, Bsz, Length, Method, KV Mem, Thr).

Either runs both tools, one after the other, with the same shape, lengths,
batches, seed and device, or (--from-json) only renders JSON files they wrote.
Ratios: xHF is throughput over the HF baseline's at the same batch (for
max-batch rows: over HF's own max-batch throughput); xFull is the same against
pyramid-bench's full-cache policy.  Writes everything to --out as JSON.

Needs only the Python standard library; the HF baseline itself needs torch.
"""

import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HF_TOOL = "hf_baseline"
PYRAMID_TOOL = "pyramid-bench"
MODEL_NAMES = {"llama2-7b": "LLaMA-2-7B", "llama2-13b": "LLaMA-2-13B"}


class TableError(Exception):
    """A tool failed or an input cannot be rendered; the message says which."""


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as error:
        raise TableError(f"cannot read {path}: {error.strerror}")
    except json.JSONDecodeError as error:
        raise TableError(f"{path}: not JSON ({error})")
    for field in ("tool", "model", "workload", "runs"):
        if field not in doc:
            raise TableError(f"{path}: missing field '{field}', expected output of "
                             f"{PYRAMID_TOOL} or {HF_TOOL}.py")
    if doc["tool"] not in (HF_TOOL, PYRAMID_TOOL):
        raise TableError(f"{path}: tool is '{doc['tool']}', expected '{PYRAMID_TOOL}' or '{HF_TOOL}'")
    doc.setdefault("max_batch", [])
    doc["_file"] = path
    return doc


def method_name(tool, label):
    return "HF Accelerate" if tool == HF_TOOL else f"ours {label}"


def method_order(row):
    """HF first, then our full cache, then the other policies by name."""
    if row["tool"] == HF_TOOL:
        return (0, "")
    return (1, "") if row["label"] == "full" else (2, row["label"])


def rows_of(doc):
    """One row per run plus one per max-batch entry that has no measured run."""
    model = doc["model"]["name"]
    work = doc["workload"]
    group = (model, work["prompt_len"], work["gen_len"])
    maxima = {m["label"]: m for m in doc["max_batch"]}
    rows, seen = [], set()
    for run in doc["runs"]:
        label = run.get("label", run.get("policy"))
        entry = maxima.get(label)
        is_max = entry is not None and entry["batch"] == run["batch"]
        capped = is_max and bool(entry.get("limited"))
        seen.add((label, run["batch"]))
        rows.append({"group": group, "tool": doc["tool"], "label": label,
                     "method": method_name(doc["tool"], label), "batch": run["batch"],
                     "max": is_max, "capped": capped, "within": entry.get("within") if is_max else None,
                     "ok": run.get("ok", True), "error": run.get("error", ""),
                     "kv_bytes": run.get("kv_bytes_peak"), "kv_bytes_full": run.get("kv_bytes_full"),
                     "throughput": run.get("throughput_tokens_per_s"),
                     "peak_device_memory": run.get("peak_device_memory"),
                     "device": doc.get("device", {}).get("name"), "source": doc["_file"]})
    for label, entry in maxima.items():
        if (label, entry["batch"]) in seen:
            continue
        found = bool(entry["batch"])
        rows.append({"group": group, "tool": doc["tool"], "label": label,
                     "method": method_name(doc["tool"], label), "batch": entry["batch"],
                     "max": True, "capped": bool(entry.get("limited")), "within": entry.get("within"),
                     "ok": found, "error": "" if found else "no batch fits",
                     "kv_bytes": None, "kv_bytes_full": None,
                     "throughput": entry.get("throughput_tokens_per_s"),
                     "peak_device_memory": None,
                     "device": doc.get("device", {}).get("name"), "source": doc["_file"]})
    return rows


def add_ratios(rows):
    """xHF and xFull for every row, within its model and lengths."""
    def reference(row, tool, label):
        for other in rows:
            if (other["group"] == row["group"] and other["tool"] == tool
                    and (label is None or other["label"] == label) and other["max"] == row["max"]
                    and (row["max"] or other["batch"] == row["batch"])
                    and other["ok"] and other["throughput"]):
                return other["throughput"]
        return None

    for row in rows:
        hf = reference(row, HF_TOOL, None)
        # HF against our full cache is xHF read backwards; left blank.
        full = reference(row, PYRAMID_TOOL, "full") if row["tool"] == PYRAMID_TOOL else None
        usable = row["ok"] and row["throughput"]
        row["x_hf"] = row["throughput"] / hf if usable and hf else None
        row["x_full"] = row["throughput"] / full if usable and full else None


def sort_rows(rows):
    """Per model and lengths: fixed batches ascending, then each method's max batch."""
    return sorted(rows, key=lambda r: (r["group"], r["max"], 0 if r["max"] else r["batch"],
                                       method_order(r)))


def format_kv(row):
    if row["kv_bytes"] is None:
        return "-"
    size = row["kv_bytes"]
    text = f"{size / 1e9:.2f} GB" if size >= 1e8 else f"{size / 1e6:.2f} MB"
    if row["kv_bytes_full"] and row["kv_bytes"] != row["kv_bytes_full"]:
        text += f" ({100.0 * row['kv_bytes'] / row['kv_bytes_full']:.0f}%)"
    return text


def format_ratio(value):
    return f"{value:.2f}x" if value is not None else "-"


def render(rows):
    lines = ["| Model | Bsz | Length | Method | KV Mem | Thr (tok/s) | xHF | xFull |",
             "|---|---:|---|---|---:|---:|---:|---:|"]
    for row in rows:
        model, prompt_len, gen_len = row["group"]
        # "capped": the search stopped at its limit, so more might fit.
        mark = (" (max, capped)" if row["capped"] else
                f" (max, within {row['within']})" if row["max"] and row.get("within") else
                " (max)" if row["max"] else "")
        batch = f"{row['batch']}{mark}"
        if row["ok"] and row["throughput"] is not None:
            thr = f"{row['throughput']:.1f}"
        else:
            thr = "OOM" if "memory" in row["error"] else (row["error"] or "-")
        lines.append(f"| {MODEL_NAMES.get(model, model)} | {batch} | {prompt_len}+{gen_len} | "
                     f"{row['method']} | {format_kv(row)} | {thr} | {format_ratio(row['x_hf'])} | "
                     f"{format_ratio(row['x_full'])} |")
    return "\n".join(lines)


def describe_sources(docs):
    lines = []
    for doc in docs:
        device = doc.get("device", {})
        model, work = doc["model"], doc["workload"]
        lines.append(f"- {doc['tool']}: {model['name']} ({model.get('source', '?')}, "
                     f"{model.get('weight_type', '?')}) on {device.get('backend', '?')} "
                     f"'{device.get('name', '?')}', {work['prompt_len']}+{work['gen_len']}, "
                     f"warmup {work.get('warmup')}, repetitions {work.get('repetitions')}, "
                     f"seed {work.get('seed')} ({doc['_file']})")
    return "\n".join(lines)


def card_name(name):
    """The card alone: pyramid-bench adds its compute capability and precision, "(sm_90, fp16)"."""
    return name.split(" (")[0] if name else name


def mismatch_warnings(docs):
    """Same model and lengths compared on different devices make a misleading ratio."""
    warnings = []
    by_group = {}
    for doc in docs:
        key = (doc["model"]["name"], doc["workload"]["prompt_len"], doc["workload"]["gen_len"])
        by_group.setdefault(key, []).append(doc)
    for key, group in by_group.items():
        devices = {card_name(d.get("device", {}).get("name")) for d in group}
        seeds = {d["workload"].get("seed") for d in group}
        types = {d["model"].get("weight_type") for d in group}
        if len(devices) > 1:
            warnings.append(f"{key[0]} {key[1]}+{key[2]}: results from different devices "
                            f"({', '.join(sorted(str(d) for d in devices))}); ratios compare machines")
        if len(seeds) > 1:
            warnings.append(f"{key[0]} {key[1]}+{key[2]}: different seeds {sorted(seeds)}")
        if len(types) > 1:
            warnings.append(f"{key[0]} {key[1]}+{key[2]}: different weight types "
                            f"({', '.join(sorted(str(t) for t in types))})")
    return warnings


def run_tool(name, command, json_path):
    """Runs one tool with its output shown; a failure names the tool and command. pyramid-bench's
    exit 4 (a measurement failed, the others are in its JSON) still gives a table."""
    print(f"paper_table: running {name}: {shlex.join(command)}", file=sys.stderr, flush=True)
    try:
        result = subprocess.run(command)
    except OSError as error:
        raise TableError(f"cannot start {name} ({command[0]}): {error.strerror}")
    if result.returncode == 4 and name == PYRAMID_TOOL and os.path.getsize(json_path) > 0:
        print(f"paper_table: {name} reported a failed measurement; its table shows which", file=sys.stderr)
        return
    if result.returncode != 0:
        raise TableError(f"{name} failed with exit status {result.returncode}: {shlex.join(command)}")


def run_both(args, stem):
    pyramid_json = stem + ".pyramid-bench.json"
    hf_json = stem + ".hf_baseline.json"
    if not os.path.isfile(args.pyramid_bench):
        raise TableError(f"pyramid-bench not found at '{args.pyramid_bench}' "
                         "(build it, or pass --pyramid-bench PATH)")
    common = ["--shape", args.shape, "--prompt-len", str(args.prompt_len),
              "--gen-len", str(args.gen_len), "--warmup", str(args.warmup),
              "--repetitions", str(args.repetitions), "--seed", str(args.seed),
              "--device", args.device]
    if args.batch:
        common += ["--batch", args.batch]
    if args.max_batch:
        common += ["--max-batch"]
    if args.max_batch and args.max_batch_limit:
        common += ["--max-batch-limit", str(args.max_batch_limit)]
    ours = [args.pyramid_bench] + common + ["--policy", args.policy, "--json", pyramid_json]
    if args.preset:
        ours += ["--preset", args.preset]
    if args.kv_memory is not None:
        ours += ["--kv-memory", str(args.kv_memory)]
    hf = [args.hf_python, args.hf_script] + common + ["--dtype", args.dtype, "--json", hf_json]
    run_tool(PYRAMID_TOOL, ours, pyramid_json)
    if args.max_batch:
        # Each of the baseline's probes is a whole generate: it starts from our full cache's
        # largest batch, which holds the same cache, and stops within --max-batch-within.
        ours_full = [m["batch"] for m in load_json(pyramid_json)["max_batch"] if m.get("label") == "full"]
        if ours_full and ours_full[0] > 0:
            hf += ["--max-batch-from", str(ours_full[0])]
        hf += ["--max-batch-within", str(args.max_batch_within)]
    run_tool(HF_TOOL, hf, hf_json)
    return [pyramid_json, hf_json]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--from-json", nargs="+", metavar="FILE",
                   help="only render these pyramid-bench / hf_baseline JSON files")
    p.add_argument("--pyramid-bench", default=os.path.join("build", "app", "bench", "pyramid-bench"),
                   help="pyramid-bench binary (default build/app/bench/pyramid-bench)")
    p.add_argument("--hf-script", default=os.path.join(HERE, "hf_baseline.py"))
    p.add_argument("--hf-python", default=sys.executable,
                   help="Python with torch and transformers for the baseline (default: this one)")
    p.add_argument("--shape", default="llama2-7b")
    p.add_argument("--policy", default="full,pyramid", help="pyramid-bench policies (default full,pyramid)")
    p.add_argument("--preset", help="pyramid-bench --preset")
    p.add_argument("--batch", help="batch sizes N[,N...] for both tools")
    p.add_argument("--max-batch", action="store_true", help="both tools also search their largest batch")
    p.add_argument("--max-batch-limit", type=int, help="cap on both tools' max-batch search")
    p.add_argument("--max-batch-within", type=int, default=1, metavar="N",
                   help="the baseline's largest batch is searched to within N (default 1: exactly)")
    p.add_argument("--kv-memory", type=float, metavar="GIB",
                   help="pyramid-bench's KV memory budget (needed with --max-batch on the CPU)")
    p.add_argument("--prompt-len", type=int, default=512)
    p.add_argument("--gen-len", type=int, default=256)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--repetitions", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--dtype", default="float16", help="baseline dtype (pyramid-bench's shapes are f16)")
    p.add_argument("--out", metavar="JSON", help="write the combined JSON here; the tools' own "
                   "go beside it as OUT-STEM.pyramid-bench.json and OUT-STEM.hf_baseline.json")
    args = p.parse_args(argv)
    if not args.from_json and not args.batch and not args.max_batch:
        p.error("give --batch N[,N...] and/or --max-batch, or --from-json FILE...")
    if not args.from_json and args.max_batch and args.device == "cpu" and (
            args.kv_memory is None or args.max_batch_limit is None):
        # Only CUDA's out-of-memory ends a search; a CPU host would swap or kill the process.
        p.error("--max-batch on the CPU needs --kv-memory GIB and --max-batch-limit N")
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    try:
        if args.from_json:
            files = args.from_json
        else:
            if args.out:
                os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
                stem = os.path.splitext(args.out)[0]
            else:
                stem = os.path.join(tempfile.mkdtemp(prefix="paper_table-"), "run")
            files = run_both(args, stem)
        docs = [load_json(path) for path in files]
        rows = [row for doc in docs for row in rows_of(doc)]
        if not rows:
            raise TableError("the inputs hold no runs")
    except TableError as error:
        print(f"paper_table: {error}", file=sys.stderr)
        return 2
    add_ratios(rows)
    rows = sort_rows(rows)
    for warning in mismatch_warnings(docs):
        print(f"paper_table: warning: {warning}", file=sys.stderr)
    print(render(rows))
    print()
    print(describe_sources(docs))
    if args.out:
        combined = {"tool": "paper_table",
                    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                    "command": shlex.join([sys.argv[0]] + list(argv)),
                    "rows": [dict(r, model=r["group"][0], prompt_len=r["group"][1],
                                  gen_len=r["group"][2]) for r in rows],
                    "inputs": [{("file" if k == "_file" else k): v for k, v in doc.items()}
                               for doc in docs]}
        for row in combined["rows"]:
            del row["group"]
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(combined, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
