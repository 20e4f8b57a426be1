#!/usr/bin/env python3
"""pyramid-bench beside llama.cpp's llama-bench on the CPU, on the same GGUF files.

For each model file and each round, the two engines take turns (llama.cpp, then ours, then
llama.cpp ...), with the same thread count, batch 1:
  prefill  a prompt of --prompt-len tokens   (llama-bench -p N -n 0)
  decode   --gen-len tokens after that prompt (llama-bench -p 0 -n M -d N: generation at
           depth N, as ours decodes after its prompt)
and then --batch sequences (default 8) decoding together, each after its own prompt
(llama-batched-bench -npp N -ntg M -npl B), all sequences' tokens per second.
llama.cpp runs with flash attention off and on (-fa off,on), and each column compares with its
faster setting (on this CPU, prompts ran faster with it on and decode with it off; its default,
auto, turns it on). The median of the rounds is reported with the ratio ours / llama.cpp, as a
Markdown table on stdout and JSON with every round, both settings included (--json). llama.cpp is the peer built by
../shared/tools/llamacpp-peer.sh (its code never enters this repository); ours runs with
--policy full (the same cache work as llama.cpp) unless --policy says otherwise.

--baseline BINARY adds another pyramid-bench (the build before a change) to every round, its
turn rotating with the others', and --busy N runs N processes that only spin beside all the
runs, as a desktop's other programs would take the cores.

    python3 bench/llamacpp_cpu.py --model A.gguf [--model B.gguf ...] [--rounds 3] [--json out.json]
    python3 bench/llamacpp_cpu.py --generated /tmp/peer-models   # the issue-32 table: 134M, five types
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import contextlib
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def peer_bin_folder(llama_bin=None):
    """Where llama-bench and llama-quantize are: llama_bin, or the peer llamacpp-peer.sh builds."""
    if llama_bin:
        return llama_bin
    script = os.path.join(ROOT, "..", "shared", "tools", "llamacpp-peer.sh")
    out = subprocess.run(["bash", script, "cpu"], check=True, capture_output=True, text=True).stdout
    return out.strip().splitlines()[-1]


def run(cmd, env=None):
    result = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.exit(f"llamacpp_cpu: {' '.join(cmd)} failed ({result.returncode}):\n{result.stderr[-2000:]}")
    return result.stdout


FLASH_ATTENTION = ("off", "on")


def best_of(by_setting):
    """The faster of llama.cpp's flash-attention settings: its tokens/s and the setting."""
    setting = max(by_setting, key=by_setting.get)
    return by_setting[setting], setting


def llama_bench(binary, model, threads, prompt_len, gen_len):
    """Prefill and decode tokens/s of llama-bench (its own mean over its repetitions) at its faster
    flash-attention setting for each, with both settings' numbers ("prefill_fa_off", ...)."""
    base = [os.path.join(binary, "llama-bench"), "-m", model, "-t", str(threads), "-r", "1", "-o", "json",
            "-fa", ",".join(FLASH_ATTENTION)]
    pp = json.loads(run(base + ["-p", str(prompt_len), "-n", "0"]))
    tg = json.loads(run(base + ["-p", "0", "-n", str(gen_len), "-d", str(prompt_len)]))
    measured = {}
    for name, entries in (("prefill", pp), ("decode", tg)):
        by_setting = {FLASH_ATTENTION[int(bool(e["flash_attn"]))]: e["avg_ts"] for e in entries}
        if sorted(by_setting) != sorted(FLASH_ATTENTION):
            sys.exit(f"llamacpp_cpu: llama-bench reported flash attention {sorted(by_setting)} for {name}, "
                     f"not {list(FLASH_ATTENTION)}")
        measured[name], measured[f"{name}_fa"] = best_of(by_setting)
        for setting, value in by_setting.items():
            measured[f"{name}_fa_{setting}"] = value
    return measured


def llama_batched_bench(binary, model, threads, prompt_len, gen_len, batch):
    """Decode tokens/s of `batch` sequences together, each after its own prompt (all sequences' tokens),
    at the faster flash-attention setting: (tokens/s, setting, {setting: tokens/s})."""
    by_setting = {}
    for setting in FLASH_ATTENTION:
        out = run([os.path.join(binary, "llama-batched-bench"), "-m", model, "-t", str(threads),
                   "-c", str(batch * (prompt_len + gen_len)), "-npp", str(prompt_len), "-ntg", str(gen_len),
                   "-npl", str(batch), "-fa", setting, "--output-format", "jsonl"])
        by_setting[setting] = json.loads(out.strip().splitlines()[-1])["speed_tg"]
    return (*best_of(by_setting), by_setting)


def pyramid_bench(binary, model, threads, prompt_len, gen_len, policy, batch=1):
    """Prefill tokens/s (batch 1) and decode tokens/s of all the batch's sequences."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run.json")
        run([binary, "--model", model, "--device", "cpu", "--batch", str(batch), "--prompt-len", str(prompt_len),
             "--gen-len", str(gen_len), "--policy", policy, "--warmup", "1", "--json", out], env)
        with open(out) as f:
            r = json.load(f)["runs"][0]
    if not r["ok"]:
        sys.exit(f"llamacpp_cpu: pyramid-bench failed on {model}: {r['error']}")
    return {"prefill": prompt_len / r["prefill_s"], "decode": r["decode_tokens_per_s"]}


@contextlib.contextmanager
def busy_processes(count):
    """`count` processes spinning at the same priority while the block runs."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for s in spinners:
            s.kill()
            s.wait()


def commit():
    """The checkout's commit, as git names it (-dirty with local changes): what build/ was built from."""
    result = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], capture_output=True, text=True)
    return result.stdout.strip()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", action="append", default=[], help="GGUF file (repeat for several)")
    p.add_argument("--generated", metavar="DIR",
                   help="also the generated 134M LLaMA-shape model in DIR, one file per --types (bench/peer_models.py "
                        "makes them there once, with llama.cpp's quantizer)")
    p.add_argument("--types", default="q4_k_m,q4_0,q8_0,f16,f32", help="the generated model's types, for --generated")
    p.add_argument("--pyramid-bench", default=os.path.join(ROOT, "build", "app", "bench", "pyramid-bench"))
    p.add_argument("--llama-bin", help="folder with llama-bench (default: what llamacpp-peer.sh cpu prints)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--prompt-len", type=int, default=512)
    p.add_argument("--gen-len", type=int, default=128)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--policy", default="full")
    p.add_argument("--batch", type=int, default=8,
                   help="also decode of this many sequences at once, against llama-batched-bench (0: not)")
    p.add_argument("--batch-rounds", type=int, default=1)
    p.add_argument("--baseline", metavar="BINARY", help="another pyramid-bench measured in the same rounds")
    p.add_argument("--busy", type=int, default=0, metavar="N", help="processes that spin beside every run")
    p.add_argument("--json")
    p.add_argument("--commit", help="what the pyramid-bench binary was built from, for the JSON (default: the "
                                    "checkout's commit, right for the build tree's binary)")
    args = p.parse_args()
    binary = peer_bin_folder(args.llama_bin)
    models = list(args.model)
    if args.generated:
        import peer_models
        models += peer_models.make(args.generated, binary, args.types.split(","))
    if not models:
        p.error("no model: give --model or --generated")

    batched = args.batch > 1 and args.batch_rounds > 0  # --batch-rounds 0: batch 1 only
    engines = {"llama.cpp": lambda model: llama_bench(binary, model, args.threads, args.prompt_len, args.gen_len),
               "ours": lambda model: pyramid_bench(args.pyramid_bench, model, args.threads, args.prompt_len,
                                                   args.gen_len, args.policy)}
    batch_engines = {
        "llama.cpp": lambda model: llama_batched_bench(binary, model, args.threads, args.prompt_len, args.gen_len,
                                                       args.batch),
        "ours": lambda model: pyramid_bench(args.pyramid_bench, model, args.threads, args.prompt_len, args.gen_len,
                                            args.policy, args.batch)["decode"]}
    if args.baseline:
        engines["baseline"] = lambda model: pyramid_bench(args.baseline, model, args.threads, args.prompt_len,
                                                          args.gen_len, args.policy)
        batch_engines["baseline"] = lambda model: pyramid_bench(args.baseline, model, args.threads, args.prompt_len,
                                                                args.gen_len, args.policy, args.batch)["decode"]
    names = list(engines)
    results = []
    with busy_processes(args.busy):
        for model in models:
            rounds = []
            for i in range(args.rounds):
                turn = names[i % len(names):] + names[:i % len(names)]  # who goes first rotates
                measured = {name: engines[name](model) for name in turn}
                rounds.append({name: measured[name] for name in names})
                ours, llama = measured["ours"], measured["llama.cpp"]
                print(f"[{os.path.basename(model)} {i + 1}/{args.rounds}] prefill {ours['prefill']:.1f} / "
                      f"{llama['prefill']:.1f} (flash attention {llama['prefill_fa']}), decode {ours['decode']:.1f} / "
                      f"{llama['decode']:.1f} (flash attention {llama['decode_fa']}) tokens/s (ours / llama.cpp)"
                      + (f"; baseline {measured['baseline']['prefill']:.1f}, {measured['baseline']['decode']:.1f}"
                         if args.baseline else ""), file=sys.stderr)
            keys = ["prefill", "decode"]
            if batched:
                keys.append("batch_decode")
                for i in range(min(args.batch_rounds, args.rounds)):
                    turn = names[i % len(names):] + names[:i % len(names)]
                    measured = {name: batch_engines[name](model) for name in turn}
                    llama, setting, by_setting = measured["llama.cpp"]
                    rounds[i]["llama.cpp"]["batch_decode"] = llama
                    rounds[i]["llama.cpp"]["batch_decode_fa"] = setting
                    for s_name, value in by_setting.items():
                        rounds[i]["llama.cpp"][f"batch_decode_fa_{s_name}"] = value
                    for name in (n for n in names if n != "llama.cpp"):
                        rounds[i][name]["batch_decode"] = measured[name]
                    print(f"[{os.path.basename(model)} batch {args.batch}, {i + 1}/{args.batch_rounds}] "
                          f"decode {measured['ours']:.1f} / {llama:.1f} (flash attention {setting}) tokens/s "
                          "(ours / llama.cpp)" + (f"; baseline {measured['baseline']:.1f}" if args.baseline else ""),
                          file=sys.stderr)
            median = {e: {k: statistics.median(r[e][k] for r in rounds if k in r[e]) for k in keys} for e in names}
            results.append({"model": os.path.basename(model), "rounds": rounds, "median": median})

    print(f"{args.threads} threads, prompt {args.prompt_len} tokens, {args.gen_len} decoded after it; batch 1 the "
          f"median of {args.rounds} alternating rounds"
          + (f", batch {args.batch} (all sequences' tokens/s, llama-batched-bench) of {args.batch_rounds}" if batched
             else "") + f"; ours with --policy {args.policy}"
          + (f"; {args.busy} spinning processes beside every run" if args.busy else "")
          + (f"; baseline: {args.baseline}" if args.baseline else "")
          + "; llama.cpp at its faster flash-attention setting (off or on) for each column.\n")
    columns = [("prefill", "prefill tok/s"), ("decode", "decode tok/s")]
    if batched:
        columns.append(("batch_decode", f"batch {args.batch} decode tok/s"))
    compared = [e for e in ("ours", "baseline") if e in names]
    print("| model | " + " | ".join(f"{title}: {e} / llama.cpp | ratio" for _, title in columns for e in compared)
          + " |")
    print("|---|" + "---|---|" * len(columns) * len(compared))
    for r in results:
        m = r["median"]
        cells = [f"{m[e][k]:.1f} / {m['llama.cpp'][k]:.1f} | {m[e][k] / m['llama.cpp'][k]:.2f}x"
                 for k, _ in columns for e in compared]
        print(f"| {r['model']} | " + " | ".join(cells) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tool": "llamacpp_cpu.py", "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                       "machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                       "threads": args.threads, "prompt_len": args.prompt_len, "gen_len": args.gen_len,
                       "policy": args.policy, "batch": args.batch, "busy_processes": args.busy,
                       "baseline": args.baseline, "commit": args.commit or commit(), "results": results}, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
