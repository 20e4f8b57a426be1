#!/usr/bin/env bash
# Recall across turns and passkey retrieval on SmolLM2-135M-Instruct
# (docs/quality/smollm2-policies.md). Usage: bench/smollm2_recall.sh OUT_DIR [CASES [NEEDLE_LENGTHS]]
#   CASES           conversations scored (default 24; the generator makes 200)
#   NEEDLE_LENGTHS  filler tokens of the passkey cases (default 1000,2000,4000)
# Policies at half of a full cache: local, H2O, SnapKV, PyramidKV; PyramidInfer at decay 0.05
# (its nearest setting, about 0.55 of full), and the full cache.
source "$(dirname "$0")/smollm2_env.sh"
out=${1:?output folder}
cases=${2:-24}
lengths=${3:-1000,2000,4000}
mkdir -p "$out"
recall_conversations "$out/recall-conversations.jsonl"
python3 bench/make_recall_cases.py needle --lengths "$lengths" --depths 10 --out "$out/needle-cases.jsonl"
"$eval_tool" recall --model "$model" --cases "$out/recall-conversations.jsonl" --limit "$cases" \
    --mode extend --sweep-decay 0.05 --sweep-fraction 0.5 --json "$out/recall-extend.json" | tee "$out/recall-extend.md"
"$eval_tool" recall --model "$model" --cases "$out/needle-cases.jsonl" --mode rebuild --policy full \
    --json "$out/needle-full.json" | tee "$out/needle-full.md"
