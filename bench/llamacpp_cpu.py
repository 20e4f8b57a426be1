#!/usr/bin/env python3
"""pyramid-bench beside llama.cpp's llama-bench on the CPU, on the same GGUF files.

For each model file and each round, the two engines take turns (llama.cpp, then ours, then
llama.cpp ...), with the same thread count, batch 1:
  prefill  a prompt of --prompt-len tokens   (llama-bench -p N -n 0)
  decode   --gen-len tokens after that prompt (llama-bench -p 0 -n M -d N: generation at
           depth N, as ours decodes after its prompt)
The median of the rounds is reported with the ratio ours / llama.cpp, as a Markdown table on
stdout and JSON with every round (--json). llama.cpp is the peer built by
../shared/tools/llamacpp-peer.sh (its code never enters this repository); ours runs with
--policy full (the same cache work as llama.cpp) unless --policy says otherwise.

    python3 bench/llamacpp_cpu.py --model A.gguf [--model B.gguf ...] [--rounds 3] [--json out.json]
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def peer_bin(args):
    if args.llama_bin:
        return args.llama_bin
    script = os.path.join(ROOT, "..", "shared", "tools", "llamacpp-peer.sh")
    out = subprocess.run(["bash", script, "cpu"], check=True, capture_output=True, text=True).stdout
    return out.strip().splitlines()[-1]


def run(cmd, env=None):
    result = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.exit(f"llamacpp_cpu: {' '.join(cmd)} failed ({result.returncode}):\n{result.stderr[-2000:]}")
    return result.stdout


def llama_bench(binary, model, threads, prompt_len, gen_len):
    """Prefill and decode tokens/s of llama-bench (its own mean over its repetitions)."""
    base = [os.path.join(binary, "llama-bench"), "-m", model, "-t", str(threads), "-r", "1", "-o", "json"]
    pp = json.loads(run(base + ["-p", str(prompt_len), "-n", "0"]))
    tg = json.loads(run(base + ["-p", "0", "-n", str(gen_len), "-d", str(prompt_len)]))
    return pp[0]["avg_ts"], tg[0]["avg_ts"]


def pyramid_bench(binary, model, threads, prompt_len, gen_len, policy):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run.json")
        run([binary, "--model", model, "--device", "cpu", "--batch", "1", "--prompt-len", str(prompt_len),
             "--gen-len", str(gen_len), "--policy", policy, "--warmup", "1", "--json", out], env)
        with open(out) as f:
            r = json.load(f)["runs"][0]
    if not r["ok"]:
        sys.exit(f"llamacpp_cpu: pyramid-bench failed on {model}: {r['error']}")
    return prompt_len / r["prefill_s"], r["decode_tokens_per_s"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", action="append", required=True, help="GGUF file (repeat for several)")
    p.add_argument("--pyramid-bench", default=os.path.join(ROOT, "build", "app", "bench", "pyramid-bench"))
    p.add_argument("--llama-bin", help="folder with llama-bench (default: what llamacpp-peer.sh cpu prints)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--prompt-len", type=int, default=512)
    p.add_argument("--gen-len", type=int, default=128)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--policy", default="full")
    p.add_argument("--json")
    args = p.parse_args()
    binary = peer_bin(args)

    results = []
    for model in args.model:
        rounds = []
        for i in range(args.rounds):
            llama = llama_bench(binary, model, args.threads, args.prompt_len, args.gen_len)
            ours = pyramid_bench(args.pyramid_bench, model, args.threads, args.prompt_len, args.gen_len, args.policy)
            rounds.append({"llama.cpp": {"prefill": llama[0], "decode": llama[1]},
                           "ours": {"prefill": ours[0], "decode": ours[1]}})
            print(f"[{os.path.basename(model)} {i + 1}/{args.rounds}] prefill {ours[0]:.1f} / {llama[0]:.1f}, "
                  f"decode {ours[1]:.1f} / {llama[1]:.1f} tokens/s (ours / llama.cpp)", file=sys.stderr)
        median = {e: {k: statistics.median(r[e][k] for r in rounds) for k in ("prefill", "decode")}
                  for e in ("ours", "llama.cpp")}
        results.append({"model": os.path.basename(model), "rounds": rounds, "median": median})

    print(f"Batch 1, {args.threads} threads, prompt {args.prompt_len} tokens, {args.gen_len} decoded after it; "
          f"median of {args.rounds} alternating rounds; ours with --policy {args.policy}.\n")
    print("| model | prefill tok/s: ours / llama.cpp | ratio | decode tok/s: ours / llama.cpp | ratio |")
    print("|---|---|---|---|---|")
    for r in results:
        m = r["median"]
        print(f"| {r['model']} | {m['ours']['prefill']:.1f} / {m['llama.cpp']['prefill']:.1f} | "
              f"{m['ours']['prefill'] / m['llama.cpp']['prefill']:.2f}x | "
              f"{m['ours']['decode']:.1f} / {m['llama.cpp']['decode']:.1f} | "
              f"{m['ours']['decode'] / m['llama.cpp']['decode']:.2f}x |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tool": "llamacpp_cpu.py", "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                       "machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                       "threads": args.threads, "prompt_len": args.prompt_len, "gen_len": args.gen_len,
                       "policy": args.policy, "results": results}, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
