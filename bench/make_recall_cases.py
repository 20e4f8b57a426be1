#!/usr/bin/env python3
"""Writes recall cases for `pyramid-eval recall` (JSON Lines, see app/eval/recall_command.h).

Two kinds, both generated from WikiText-2 text and random facts (no hand-picked cases):

conversation  Turn 1 gives an encyclopedia article of --filler-tokens (a range) with three facts
              about made-up people inserted at random paragraph breaks, and asks what the
              article is about; the reference replies name the article. Turns 2.. give further
              articles the same way. The last turn asks about one of the turn-1 facts: a number,
              a city, or an item of a short list. The answer follows a lead-in sentence.
needle        One user message: a 5-digit pass key hidden at a given depth of repeated filler
              sentences (the passkey test of Mohtashami & Jaggi, 2023), then the question.

Token counts are estimated from words (WikiText-2: about 1.3 SmolLM2 tokens per word); the
tool reports each case's real count.
"""
import argparse
import json
import random
import re

FIRST = ["Amelia", "Bruno", "Chiara", "Dmitri", "Elena", "Farid", "Greta", "Hiroshi", "Ines", "Jonas",
         "Keira", "Luca", "Maya", "Nikolai", "Olga", "Pavel", "Quinn", "Rosa", "Soren", "Tamsin",
         "Ulrich", "Vera", "Wendell", "Ximena", "Yusuf", "Zora"]
LAST = ["Abbott", "Brennan", "Castillo", "Dahl", "Eriksen", "Fontaine", "Gallo", "Hartmann", "Ivanova",
        "Jansen", "Kowalski", "Lindqvist", "Moreau", "Novak", "Okafor", "Petrov", "Quiroga", "Rossi",
        "Sandoval", "Takahashi", "Urquhart", "Varga", "Whitfield", "Yilmaz", "Zeller"]
CITIES = ["Lisbon", "Montreal", "Nairobi", "Oslo", "Porto", "Quito", "Riga", "Santiago", "Tallinn",
          "Utrecht", "Valencia", "Warsaw", "Zagreb", "Auckland", "Bergen", "Cairo", "Dublin",
          "Edinburgh", "Florence", "Geneva", "Helsinki", "Istanbul", "Jakarta", "Kyoto", "Lima",
          "Manila", "Naples", "Osaka", "Prague", "Seville", "Toronto", "Vienna"]
ITEMS = ["a lantern", "a compass", "a notebook", "a kettle", "a scarf", "a hammer", "a blanket",
         "a flashlight", "a map", "a rope", "a camera", "a teapot", "a whistle", "a candle", "a pillow",
         "an umbrella", "a toothbrush", "a shovel", "a backpack", "a radio", "a thermos", "a pencil"]
FILLER = ("The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again. ")
TOKENS_PER_WORD = 1.3


def articles(path):
    """WikiText-2 articles as (title, paragraphs), detokenized the usual way."""
    out, title, paras = [], None, []
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        m = re.fullmatch(r"= ([^=].*[^=]) =", line)
        if m:
            if title and paras:
                out.append((title, paras))
            title, paras = m.group(1).strip(), []
        elif line and not line.startswith("="):
            text = line.replace(" @-@ ", "-").replace(" @,@ ", ",").replace(" @.@ ", ".")
            text = re.sub(r" ([.,;:!?)'])", r"\1", text).replace("( ", "(").replace(" n't", "n't")
            paras.append(text)
    if title and paras:
        out.append((title, paras))
    return out


def take_words(rng, pool, tokens):
    """Paragraphs of one article (or several), about `tokens` tokens; returns (title, paragraphs)."""
    title, paras = rng.choice(pool)
    want = int(tokens / TOKENS_PER_WORD)
    chosen, words = [], 0
    for p in paras:
        if words >= want:
            break
        w = p.split()
        if words + len(w) > want:
            p = " ".join(w[: want - words]) + "."
            w = p.split()
        chosen.append(p)
        words += len(w)
    return title, chosen


def facts(rng):
    people = rng.sample([f"{f} {l}" for f in FIRST for l in LAST], 2)
    number = str(rng.randint(1000, 9999))
    city = rng.choice(CITIES)
    items = rng.sample(ITEMS, 3)
    stated = [
        f"{people[0]}'s locker number is {number}.",
        f"{people[1]} moved to {city} last spring.",
        f"The items on the packing list are {items[0]}, {items[1]} and {items[2]}.",
    ]
    questions = [
        (f"What is {people[0]}'s locker number?", f"{people[0]}'s locker number is", f" {number}", "number"),
        (f"Which city did {people[1]} move to?", f"{people[1]} moved to", f" {city}", "city"),
        ("What is the second item on the packing list?", "The second item on the packing list is",
         f" {items[1]}", "list"),
    ]
    return stated, questions


def conversation_case(rng, pool, index, turns, lo, hi):
    stated, questions = facts(rng)
    title, paras = take_words(rng, pool, rng.randint(lo, hi))
    paras = list(paras)
    for sentence in stated:
        paras.insert(rng.randint(0, len(paras)), sentence)
    messages = [{"role": "user", "content": "Read this article.\n\n" + "\n\n".join(paras) +
                 "\n\nWhat is it about, in one sentence?"},
                {"role": "assistant", "content": f"It is an encyclopedia article about {title}."}]
    for _ in range(turns - 2):
        t, p = take_words(rng, pool, rng.randint(150, 400))
        messages += [{"role": "user", "content": "Here is another one.\n\n" + "\n\n".join(p) + "\n\nWhat is this one about?"},
                     {"role": "assistant", "content": f"This one is about {t}."}]
    question, lead_in, answer, kind = rng.choice(questions)
    messages.append({"role": "user", "content": "Back to the first article. " + question})
    return {"id": f"conversation-{index:03d}", "kind": "conversation", "fact": kind, "turns": turns,
            "messages": messages, "lead_in": lead_in, "answer": answer}


def needle_case(rng, index, tokens, depth):
    sentences = int(tokens / (len(FILLER.split()) * TOKENS_PER_WORD))
    key = str(rng.randint(10000, 99999))
    needle = f"The pass key is {key}. Remember it. {key} is the pass key. "
    at = round(sentences * depth / 100)
    text = FILLER * at + needle + FILLER * (sentences - at)
    content = ("There is important information hidden inside a lot of irrelevant text. Find it and "
               "memorize it.\n\n" + text.strip() + "\n\nWhat is the pass key?")
    return {"id": f"needle-{tokens}-{depth:03d}-{index}", "kind": "needle", "length": tokens, "depth": depth,
            "messages": [{"role": "user", "content": content}], "lead_in": "The pass key is", "answer": f" {key}"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kind", choices=["conversation", "needle"])
    ap.add_argument("--text", default="../shared/data/wikitext-2-raw-v1.test.txt")
    ap.add_argument("--count", type=int, default=200, help="conversation: number of cases")
    ap.add_argument("--turns", type=int, default=4, help="conversation: turns, the question included")
    ap.add_argument("--filler-tokens", default="1000:4000", help="conversation: turn-1 article length range")
    ap.add_argument("--lengths", default="1000,2000,4000,7000", help="needle: filler tokens")
    ap.add_argument("--depths", type=int, default=10, help="needle: depths from 0%% to 100%%")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with open(args.out, "w", encoding="utf-8") as f:
        if args.kind == "conversation":
            pool = [a for a in articles(args.text) if sum(len(p.split()) for p in a[1]) > 500]
            lo, hi = (int(x) for x in args.filler_tokens.split(":"))
            for i in range(args.count):
                f.write(json.dumps(conversation_case(rng, pool, i, args.turns, lo, hi)) + "\n")
        else:
            depths = [round(100 * d / (args.depths - 1)) for d in range(args.depths)]
            for length in (int(x) for x in args.lengths.split(",")):
                for i, depth in enumerate(depths):
                    f.write(json.dumps(needle_case(rng, i, length, depth)) + "\n")


if __name__ == "__main__":
    main()
