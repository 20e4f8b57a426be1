#!/usr/bin/env python3
"""One conversation's speed beside llama.cpp on the same GPU and the same GGUF files (issue 35).

Both engines read the very same files: pyramid-bench --write-gguf writes generated weights of a
named shape (default LLaMA-2-7B) in each --types storage (default F16 and llama.cpp's Q4_K_M
mix) with LLaMA-2's vocabulary from --vocab, once, into --dir. Speed does not depend on the
weights' values; that both engines read the same tensors is checked, not assumed: llama-bench's
model_size and model_n_params must equal what pyramid-bench read (stored_bytes, parameters).

Then, per file and round, the engines take turns (llama.cpp first in even rounds, ours first
in odd ones), batch 1:
  llama.cpp  llama-bench -ngl 99, flash attention off and on: prefill of each --prompt-lens
             prompt (-p N -n 0) and --gen-len tokens decoded after such a prompt (-p 0 -n M -d N)
  ours       pyramid-bench --batch 1 --prompt-len N --gen-len M, --policy full,pyramid (the two
             side by side inside one process): prefill tokens/s is N over its prompt steps' time,
             decode tokens/s its decode steps'; with --overlap off,on once more with kernels launched
             to overlap the one before (PYRAMID_CUDA_OVERLAP=on), the two in turns
The medians over the rounds go into one Markdown table (stdout, --md) with the ratios against
llama.cpp's faster setting, and JSON with every round (--json): device, driver, date, both
commits. llama.cpp is the peer built by ../shared/tools/llamacpp-peer.sh cuda (its code never
enters this repository); scripts/gpu-run.sh staged-peer runs this on the device machine.

    python3 bench/gpu_llamacpp.py --llama-bin DIR --pyramid-bench EXE --vocab ggml-vocab-llama-spm.gguf \\
        --dir /tmp/models [--shape llama2-7b] [--types f16,q4_k_m] [--device cuda] [--json out.json]

On a machine without a GPU, --device cpu --shape tiny runs the same comparison on the CPU (how
the script is checked without a device).
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

import llamacpp_cpu  # its commit(): what the checkout's build was built from

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, env=None, fatal=True):
    """The command's stdout. A failure stops the script, or with fatal=False is printed and gives None."""
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    result = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        message = f"gpu_llamacpp: {' '.join(cmd)} failed ({result.returncode}):\n{result.stderr[-3000:]}"
        if fatal:
            sys.exit(message)
        print(message, file=sys.stderr, flush=True)
        return None
    return result.stdout


def model_file(args, storage):
    """The shape's generated weights in `storage`, written once by pyramid-bench --write-gguf."""
    path = os.path.join(args.dir, f"{args.shape}-{storage}.gguf")
    if not os.path.exists(path):
        os.makedirs(args.dir, exist_ok=True)
        run([args.pyramid_bench, "--write-gguf", path, "--vocab", args.vocab, "--shape", args.shape,
             "--weight-type", storage, "--seed", str(args.seed)])
    return path


def flash_attention(entry):
    """llama-bench's flash_attn field as "on" / "off" (an int, a bool or a name, by version)."""
    v = entry["flash_attn"]
    if isinstance(v, str):
        return "on" if v.lower() in ("on", "enabled", "true", "1") else "off"
    return "on" if int(v) > 0 else "off"


def llama_bench(args, path):
    """{("llama.cpp FA off"|"... on"): {"prefill N": tok/s, "decode N": tok/s}} and llama-bench's facts."""
    base = [os.path.join(args.llama_bin, "llama-bench"), "-m", path, "-ngl", "99", "-fa", "off,on",
            "-r", str(args.repetitions), "-o", "json"]
    if args.device == "cpu":
        base += ["-t", str(args.threads)]
    lens = ",".join(str(n) for n in args.prompt_lens)
    entries = json.loads(run(base + ["-p", lens, "-n", "0"])) + \
        json.loads(run(base + ["-p", "0", "-n", str(args.gen_len), "-d", lens]))
    out = {}
    for e in entries:
        setting = out.setdefault(f"llama.cpp FA {flash_attention(e)}", {})
        if e["n_gen"] == 0:
            setting[f"prefill {e['n_prompt']}"] = e["avg_ts"]
        else:
            setting[f"decode {e['n_depth']}"] = e["avg_ts"]
    first = entries[0]
    facts = {k: first.get(k) for k in ("build_commit", "build_number", "gpu_info", "cpu_info", "backends",
                                       "model_size", "model_n_params", "n_batch", "n_ubatch", "n_threads")}
    return out, facts


def pyramid_bench(args, path):
    """{("ours full"|"ours pyramid", ", launches overlapped" with --overlap on): {...}} as
    llama_bench's, and pyramid-bench's facts. One process per prompt length and --overlap
    setting (PYRAMID_CUDA_OVERLAP, read at the backend's creation), the settings in turns. The
    overlapped runs are an experiment beside the table: one that fails is noted in
    args.failures and leaves its rows out, instead of stopping the comparison."""
    out, facts = {}, {}
    for n in args.prompt_lens:
        for overlap in args.overlap:
            env = dict(os.environ, PYRAMID_CUDA_OVERLAP=overlap)
            if args.device == "cpu":
                env["OMP_NUM_THREADS"] = str(args.threads)
            fatal = overlap == "off"
            with tempfile.TemporaryDirectory() as tmp:
                report_path = os.path.join(tmp, "run.json")
                done = run([args.pyramid_bench, "--model", path, "--device", args.device, "--batch", "1",
                            "--prompt-len", str(n), "--gen-len", str(args.gen_len), "--policy", args.policy,
                            "--warmup", "1", "--repetitions", str(args.repetitions), "--json", report_path],
                           env, fatal)
                if done is None:
                    args.failures.append(f"ours with launches overlapped, {os.path.basename(path)}, prompt {n}: "
                                         "pyramid-bench failed (its error is in the log)")
                    continue
                with open(report_path) as f:
                    report = json.load(f)
            for r in report["runs"]:
                if not r["ok"]:
                    if fatal:
                        sys.exit(f"gpu_llamacpp: pyramid-bench {r['label']} failed on {path}: {r['error']}")
                    args.failures.append(f"ours {r['label']} with launches overlapped, {os.path.basename(path)}, "
                                         f"prompt {n}: {r['error']}")
                    continue
                label = f"ours {r['label']}" + (", launches overlapped" if overlap == "on" else "")
                setting = out.setdefault(label, {})
                setting[f"prefill {n}"] = n / r["prefill_s"]
                setting[f"decode {n}"] = r["decode_tokens_per_s"]
            facts = {"device": report["device"], "stored_bytes": report["model"]["stored_bytes"],
                     "parameters": report["model"]["parameters"]}
    return out, facts


def same_tensors(llama, ours):
    """Whether both engines read the same tensors: equal bytes and parameter counts."""
    return llama["model_size"] == ours["stored_bytes"] and llama["model_n_params"] == ours["parameters"]


def device_facts(device):
    if device != "cuda":
        return {"name": platform.processor() or platform.machine(), "cpus": os.cpu_count()}
    q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                       capture_output=True, text=True)
    name, driver, memory = (q.stdout.strip().split(", ") + ["?", "?", "?"])[:3] if q.returncode == 0 else ("?",) * 3
    return {"name": name, "driver": driver, "memory": memory}


def commit(args):
    return args.commit or llamacpp_cpu.commit() or "unknown"


def table(args, results):
    columns = [f"prefill {n}" for n in args.prompt_lens] + [f"decode {n}" for n in args.prompt_lens]
    titles = [f"prefill {n} tok/s" for n in args.prompt_lens] + \
        [f"decode after {n} tok/s" for n in args.prompt_lens]
    lines = ["| weights | engine, setting | " + " | ".join(titles) + " |", "|---|---|" + "---:|" * len(columns)]
    for r in results:
        m = r["median"]
        llama = [s for s in m if s.startswith("llama.cpp")]
        best = {c: max(m[s][c] for s in llama) for c in columns}
        for setting, values in m.items():
            cells = [f"{values[c]:.1f}" for c in columns]
            if not setting.startswith("llama.cpp"):
                cells = [f"{values[c]:.1f} ({values[c] / best[c]:.2f}x)" for c in columns]
            lines.append(f"| {r['weights']} | {setting} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report(args, results):
    """The table on stdout (and --md), the JSON (--json), of the files measured so far."""
    device = device_facts(args.device)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    llama = results[0]["llama.cpp"]
    head = (f"{args.shape} generated weights, batch 1, on {device['name']}"
            + (f" (driver {device['driver']})" if "driver" in device else "") + f", {date}; "
            f"pyramid-bench {commit(args)} (--policy {args.policy}, launch overlap {','.join(args.overlap)}), "
            f"llama.cpp {llama['build_commit']} "
            f"(llama-bench -ngl 99, n_batch {llama['n_batch']}, n_ubatch {llama['n_ubatch']}). Medians of "
            f"{args.rounds} alternating rounds of {args.repetitions} runs each; decode is {args.gen_len} tokens "
            f"after the prompt. Ours in brackets: against llama.cpp's faster setting. Both engines read the same "
            f"tensors (bytes and parameter counts equal) from the same files.\n")
    text = head + "\n" + table(args, results) + "\n"
    if args.failures:
        text += "\nNot measured:\n" + "".join(f"- {f}\n" for f in args.failures)
    print(text, flush=True)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tool": "gpu_llamacpp.py", "date": date, "device": device, "shape": args.shape,
                       "commit": commit(args), "policy": args.policy, "overlap": args.overlap,
                       "failures": args.failures,
                       "prompt_lens": args.prompt_lens,
                       "gen_len": args.gen_len, "rounds": args.rounds, "repetitions": args.repetitions,
                       "results": results}, f, indent=2)
            f.write("\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--llama-bin", required=True, help="folder with llama-bench (llamacpp-peer.sh cuda prints it)")
    p.add_argument("--pyramid-bench", default=os.path.join(ROOT, "build", "app", "bench", "pyramid-bench"))
    p.add_argument("--vocab", required=True, help="LLaMA-2's vocabulary as GGUF (../shared/models/ggml-vocab-llama-spm.gguf)")
    p.add_argument("--dir", required=True, help="where the model files are written (once) and read")
    p.add_argument("--shape", default="llama2-7b")
    p.add_argument("--types", default="f16,q4_k_m")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    p.add_argument("--threads", type=int, default=2, help="on the CPU: threads of both engines")
    p.add_argument("--prompt-lens", default="512,3840")
    p.add_argument("--gen-len", type=int, default=128)
    p.add_argument("--policy", default="full,pyramid")
    p.add_argument("--overlap", default="off",
                   help="ours with kernels launched to overlap the one before (PYRAMID_CUDA_OVERLAP): off, on "
                        "or off,on (both, in turns)")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--repetitions", type=int, default=2, help="timed runs per engine invocation")
    p.add_argument("--json")
    p.add_argument("--md", help="also write the table and its header here")
    p.add_argument("--commit", help="what pyramid-bench was built from (default: the checkout's commit)")
    args = p.parse_args()
    args.prompt_lens = [int(n) for n in args.prompt_lens.split(",")]
    args.overlap = args.overlap.split(",")
    args.failures = []
    if not args.overlap or any(o not in ("off", "on") for o in args.overlap):
        p.error("--overlap takes off, on or off,on")

    results = []
    for storage in args.types.split(","):
        path = model_file(args, storage)
        rounds, llama_facts, our_facts = [], {}, {}
        for i in range(args.rounds):
            measured = {}
            order = (llama_bench, pyramid_bench) if i % 2 == 0 else (pyramid_bench, llama_bench)
            for engine in order:
                settings, facts = engine(args, path)
                measured.update(settings)
                (llama_facts if engine is llama_bench else our_facts).update(facts)
            rounds.append(measured)
            print(f"[{storage} round {i + 1}/{args.rounds}] " +
                  ", ".join(f"{s}: decode {v[f'decode {args.prompt_lens[0]}']:.1f}" for s, v in measured.items()),
                  file=sys.stderr, flush=True)
        if not same_tensors(llama_facts, our_facts):
            sys.exit(f"gpu_llamacpp: {path}: llama.cpp read {llama_facts['model_size']} bytes in "
                     f"{llama_facts['model_n_params']} parameters, pyramid-bench {our_facts['stored_bytes']} in "
                     f"{our_facts['parameters']}: not the same tensors")
        # Settings measured in every round at every prompt length (an overlapped run that failed
        # leaves its setting out).
        columns = [f"{kind} {n}" for kind in ("prefill", "decode") for n in args.prompt_lens]
        complete = [s for s in rounds[0] if all(s in r and all(c in r[s] for c in columns) for r in rounds)]
        median = {s: {c: statistics.median(r[s][c] for r in rounds) for c in columns} for s in complete}
        results.append({"weights": storage, "file": os.path.basename(path), "file_bytes": os.path.getsize(path),
                        "tensor_bytes": our_facts["stored_bytes"], "parameters": our_facts["parameters"],
                        "llama.cpp": llama_facts, "ours": our_facts, "rounds": rounds, "median": median})

        # Written after each file, so a run cut short keeps what it measured.
        report(args, results)


if __name__ == "__main__":
    main()
