#!/usr/bin/env bash
# PyramidInfer's options on SmolLM2-135M-Instruct (docs/quality/smollm2-policies.md, "Where
# PyramidInfer's cost comes from"): perplexity at 2048 + 128 tokens of WikiText-2 test for the
# paper's rule at decay 0.9, with an observation window of 32 (pooled over 7 or not), with
# hidden states kept, with both, and with a recent window of 33 tokens; SnapKV at the paper's
# per-layer prefill lengths; and recall across turns with hidden states kept.
# Usage: bench/smollm2_pyramid_options.sh OUT_DIR [WINDOWS [CASES]]
#   WINDOWS  perplexity windows (default 4, as the report's main table)
#   CASES    conversations scored (default 24; 0 skips recall)
source "$(dirname "$0")/smollm2_env.sh"
out=${1:?output folder}
windows=${2:-4}
cases=${3:-24}
mkdir -p "$out"
ppl() {
    local name=$1
    shift
    "$eval_tool" ppl --model "$model" --text "$text" --align tokens --prefill 2048 --continuation 128 \
        --windows "$windows" "$@" --json "$out/ppl-p2048-w$windows-$name.json" > "$out/ppl-p2048-w$windows-$name.md"
}
ppl reference --policy pyramid --decay-ratio 0.9
ppl window32 --policy pyramid --decay-ratio 0.9 --pyramid-observation-window 32
ppl window32-pool7 --policy pyramid --decay-ratio 0.9 --pyramid-observation-window 32 --pyramid-pooling-kernel 7
ppl hidden --policy pyramid --decay-ratio 0.9 --keep-hidden-states
ppl window32-pool7-hidden --policy pyramid --decay-ratio 0.9 --pyramid-observation-window 32 \
    --pyramid-pooling-kernel 7 --keep-hidden-states
# A recent window of 33 tokens (r = 32, as SnapKV's window) instead of 410, pooled, hidden states kept.
ppl recent32-pool7-hidden --policy pyramid --decay-ratio 0.9 --recent-ratio 0.016 --pyramid-pooling-kernel 7 \
    --keep-hidden-states
# PyramidInfer d=0.9's lengths after a 2048-token prompt (prefill_kv_lengths of the reference run).
ppl snapkv-at-pyramid-lengths --policy snapkv --budgets \
    2048,2048,2047,2045,2040,2032,2021,2005,1984,1957,1925,1887,1843,1793,1738,1678,1614,1547,1478,1408,1337,1267,1198,1132,1069,1009,953,901,853,809
bench/paired_ppl.py "$out/ppl-p2048-w$windows-reference.json:pyramid" "$out"/ppl-p2048-w"$windows"-*.json \
    > "$out/ppl-p2048-w$windows-paired.md"
[ "$cases" -gt 0 ] || exit 0
recall_conversations "$out/recall-conversations.jsonl"
"$eval_tool" recall --model "$model" --cases "$out/recall-conversations.jsonl" --limit "$cases" \
    --mode extend --policy pyramid --decay-ratio 0.9 --keep-hidden-states --json "$out/recall-extend-hidden.json" \
    > "$out/recall-extend-hidden.md"
