#!/usr/bin/env bash
# Quality of the KV cache types on SmolLM2-135M-Instruct (docs/quality/kv-types.md): perplexity
# on WikiText-2 at 2048 prompt + 128 scored tokens, and recall of turn-1 facts across turns, for
# each --kv-type with the full cache and PyramidInfer's reference-7b preset (pyramid-eval runs the
# full cache beside the policy in both).
# Usage: bench/smollm2_kv_types.sh OUT_DIR [WINDOWS [CASES [TYPES]]]
#   WINDOWS  perplexity windows (default 8); CASES  recall conversations (default 4)
#   TYPES    comma-separated --kv-type values (default f16,q8,q4)
source "$(dirname "$0")/smollm2_env.sh"
out=${1:?output folder}
windows=${2:-8}
cases=${3:-4}
types=${4:-f16,q8,q4}
mkdir -p "$out"
recall_conversations "$out/recall-conversations.jsonl"
for type in ${types//,/ }; do
    "$eval_tool" ppl --model "$model" --text "$text" --align tokens --prefill 2048 \
        --continuation 128 --windows "$windows" --preset reference-7b --kv-type "$type" \
        --json "$out/ppl-$type.json" | tee "$out/ppl-$type.md"
done
for type in ${types//,/ }; do
    "$eval_tool" recall --model "$model" --cases "$out/recall-conversations.jsonl" --limit "$cases" \
        --mode extend --preset reference-7b --kv-type "$type" \
        --json "$out/recall-$type.json" | tee "$out/recall-$type.md"
done
