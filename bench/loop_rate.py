#!/usr/bin/env python3
"""How often a chat reply falls into a loop, by repetition penalty: pyramid-cli answers a set of
chat prompts with several seeds at each penalty, and each reply is checked for a loop.

A reply loops when one sentence of four words or more comes three times or more, or one run of
eight words four times or more (loops without full stops: lists, code). The prompts are what a
desktop chat gets: short questions and requests, and two long pastes to summarize (articles of
WikiText-2's test text, ../shared/data). Everything else is pyramid-cli's default (sampling
temperature 0.8, top-k 40, top-p 0.95, min-p 0.05; the pyramid policy; the file's chat
template), the penalty looking at the last 64 tokens.

    python3 bench/loop_rate.py --cli build/app/cli/pyramid-cli --model MODEL.gguf \\
        [--penalties 1,1.1] [--seeds 6] [--json out.json]

Prints a Markdown table (replies looping, per prompt and in all) and writes every reply to the
JSON file.
"""
import argparse
import collections
import datetime
import json
import os
import re
import subprocess
import sys

SHORT_PROMPTS = [
    "Tell me a short story about a dragon who is afraid of the dark.",
    "Explain how a refrigerator keeps food cold.",
    "Write a Python function that returns the n-th Fibonacci number.",
    "What are three good reasons to exercise every day?",
]
# Where the pasted articles start in WikiText-2's test text, and how much of each is pasted.
ARTICLES = [" The An Lushan Rebellion began in December 755", " = Robert Boulter = "]
PASTE_CHARS = 6000


def article(text, start):
    at = text.index(start)
    return text[at:at + PASTE_CHARS]


def loops(reply):
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", reply) if len(s.split()) >= 4]
    if sentences and collections.Counter(sentences).most_common(1)[0][1] >= 3:
        return True
    words = reply.split()
    runs = collections.Counter(tuple(words[i:i + 8]) for i in range(len(words) - 7))
    return bool(runs) and runs.most_common(1)[0][1] >= 4


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", default=os.path.join(here, "..", "build", "app", "cli", "pyramid-cli"))
    parser.add_argument("--model", required=True)
    parser.add_argument("--penalties", default="1,1.1")
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--wikitext", default=os.path.join(here, "..", "..", "shared", "data",
                                                             "wikitext-2-raw-v1.test.txt"))
    parser.add_argument("--json")
    args = parser.parse_args()

    with open(args.wikitext, encoding="utf-8") as f:
        text = f.read()
    prompts = [("short: " + p[:40], p) for p in SHORT_PROMPTS]
    prompts += [("paste: " + start.strip()[:30], "Summarize this article in two sentences:\n" + article(text, start))
                for start in ARTICLES]
    penalties = [float(p) for p in args.penalties.split(",")]

    replies = []
    for name, prompt in prompts:
        for seed in range(1, args.seeds + 1):
            for penalty in penalties:  # the penalties take turns on each prompt and seed
                command = [args.cli, "-m", args.model, "-p", "-", "-n", str(args.max_tokens),
                           "--repeat-penalty", str(penalty), "--seed", str(seed)]
                out = subprocess.run(command, input=prompt, capture_output=True, text=True, check=True).stdout
                replies.append({"prompt": name, "seed": seed, "penalty": penalty, "words": len(out.split()),
                                "loops": loops(out), "reply": out})
                print(f"[{name} seed {seed} penalty {penalty}] {'LOOPS' if replies[-1]['loops'] else 'ok'}, "
                      f"{replies[-1]['words']} words", file=sys.stderr)

    def count(rows):
        return f"{sum(r['loops'] for r in rows)} / {len(rows)}"

    print(f"{os.path.basename(args.model)}: replies that loop, {args.seeds} seeds a prompt, "
          f"at most {args.max_tokens} tokens\n")
    print("| prompt | " + " | ".join(f"penalty {p:g}" for p in penalties) + " |")
    print("|---|" + "---:|" * len(penalties))
    for name, _ in prompts + [("all", None)]:
        cells = [count([r for r in replies if r["penalty"] == p and name in ("all", r["prompt"])]) for p in penalties]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"command": " ".join(sys.argv), "date": datetime.date.today().isoformat(),
                       "model": args.model, "replies": replies}, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
