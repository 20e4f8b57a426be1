#!/usr/bin/env python3
"""Greedy replies of pyramid-cli next to llama.cpp's llama-simple on the same GGUF file.

Each prompt goes to both engines as one ChatML user turn (no system turn), decoded greedily
with the full cache for --tokens tokens or until the end of the turn. llama-simple gets the
ChatML text with its control tokens spelled out (it parses them); pyramid-cli builds the same
tokens itself (--format chatml). The report says, per prompt, how many leading tokens agree
(both replies tokenized with pyramid-inspect --tokenize) and shows both replies, as Markdown
on stdout and JSON (--json). llama.cpp is the peer ../shared/tools/llamacpp-peer.sh builds.

    python3 bench/greedy_llamacpp.py --model SmolLM2-135M-Instruct.Q4_1.gguf [--json out.json]
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROMPTS = [
    "What is the capital of France?",
    "Write a haiku about the sea.",
    "Explain in one sentence what a KV cache is.",
    "List three fruits that are red.",
    "How many legs does a spider have?",
    "Translate 'good morning' into German.",
]


def run(cmd, stdin=None):
    r = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"greedy_llamacpp: {' '.join(cmd[:3])} ... failed ({r.returncode}): {r.stderr[-1500:]}")
    return r.stdout


def ids(inspect, model, text):
    return json.loads(run([inspect, model, "--tokenize"], stdin=text))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True)
    p.add_argument("--llama-bin", help="folder with llama-simple (default: what llamacpp-peer.sh cpu prints)")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--tokens", type=int, default=48)
    p.add_argument("--ours-args", default="", help="more pyramid-cli options, e.g. '--kv-type f32'")
    p.add_argument("--json")
    args = p.parse_args()
    llama_bin = args.llama_bin or subprocess.run(
        ["bash", os.path.join(ROOT, "..", "shared", "tools", "llamacpp-peer.sh"), "cpu"],
        check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    cli = os.path.join(args.build, "app", "cli", "pyramid-cli")
    inspect = os.path.join(args.build, "app", "inspect", "pyramid-inspect")

    rows = []
    for prompt in PROMPTS:
        chatml = f"<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n"
        theirs = run([os.path.join(llama_bin, "llama-simple"), "-m", args.model, "-n", str(args.tokens), chatml])
        theirs = theirs[theirs.find(chatml) + len(chatml):] if chatml in theirs else theirs
        ours = run([cli, "-m", args.model, "--format", "chatml", "--temperature", "0", "--policy", "full",
                    "-n", str(args.tokens), "-p", prompt] + args.ours_args.split())
        a, b = ids(inspect, args.model, ours.rstrip("\n")), ids(inspect, args.model, theirs.rstrip("\n"))
        same = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        rows.append({"prompt": prompt, "ours": ours.rstrip("\n"), "llama.cpp": theirs.rstrip("\n"),
                     "ours_tokens": len(a), "llama_cpp_tokens": len(b), "leading_tokens_equal": same,
                     "identical": a == b})
        print(f"[{prompt}] {same} leading tokens equal ({len(a)} / {len(b)})", file=sys.stderr)

    print(f"Greedy, full cache, at most {args.tokens} tokens, ChatML without a system turn"
          f"{'; ours with ' + args.ours_args if args.ours_args else ''}.\n")
    print("| prompt | equal leading tokens (ours / llama.cpp tokens) | identical |")
    print("|---|---|---|")
    for r in rows:
        print(f"| {r['prompt']} | {r['leading_tokens_equal']} ({r['ours_tokens']} / {r['llama_cpp_tokens']}) | "
              f"{'yes' if r['identical'] else 'no'} |")
    for r in rows:
        print(f"\n**{r['prompt']}**\n\n- ours: {json.dumps(r['ours'])}\n- llama.cpp: {json.dumps(r['llama.cpp'])}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tool": "greedy_llamacpp.py", "model": os.path.basename(args.model), "tokens": args.tokens,
                       "ours_args": args.ours_args,
                       "rows": rows}, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
