#!/usr/bin/env bash
# SnapKV and PyramidKV selecting per KV head (as their papers) against per layer (the default)
# on SmolLM2-135M-Instruct (docs/quality/smollm2-policies.md, "Per-head selection"): perplexity
# at 2048 + 128 tokens of WikiText-2 test, at 75% and 50% of the full cache, each run beside its
# own full cache; then the per-head run paired with the per-layer one window by window; and
# recall across turns of SnapKV per head and per layer at 50%, on the same binary.
# Usage: bench/smollm2_per_head.sh OUT_DIR [WINDOWS [JOBS [CASES]]]
#   WINDOWS  perplexity windows (default 8: the report's first four and the next four)
#   JOBS     runs at a time (default 1)
#   CASES    conversations scored (default 24; 0 skips recall)
# PYRAMID_EVAL: the pyramid-eval binary (default build/app/eval/pyramid-eval; a copy keeps every
# run on one binary while the build tree changes)
source "$(dirname "$0")/smollm2_env.sh"
out=${1:?output folder}
windows=${2:-8}
jobs=${3:-1}
cases=${4:-24}
mkdir -p "$out"
name() { echo "ppl-p2048-w$windows-$1-$2-f$3"; }
run() {
    local policy=$1 selection=$2 fraction=$3
    nice -n 19 "${PYRAMID_EVAL:-build/app/eval/pyramid-eval}" ppl --model "$model" --text "$text" --align tokens --prefill 2048 \
        --continuation 128 --windows "$windows" --policy "$policy" --budget-fraction "$fraction" \
        --kv-selection "$selection" --json "$out/$(name "$policy" "$selection" "$fraction").json" \
        > "$out/$(name "$policy" "$selection" "$fraction").md"
}
export -f run name
export model text out windows PYRAMID_EVAL
for fraction in 0.75 0.5; do
    for policy in snapkv pyramidkv; do
        for selection in per-head per-layer; do
            echo "$policy $selection $fraction"
        done
    done
done | xargs -P "$jobs" -L 1 bash -c 'run "$@"' _
for fraction in 0.75 0.5; do
    for policy in snapkv pyramidkv; do
        bench/paired_ppl.py "$out/$(name "$policy" per-layer "$fraction").json:$policy" \
            "$out/$(name "$policy" per-layer "$fraction").json" "$out/$(name "$policy" per-head "$fraction").json"
        echo
    done
done > "$out/ppl-p2048-w$windows-paired.md"
[ "$cases" -gt 0 ] || exit 0
recall_conversations "$out/recall-conversations.jsonl"
for selection in per-layer per-head; do
    nice -n 19 "${PYRAMID_EVAL:-build/app/eval/pyramid-eval}" recall --model "$model" \
        --cases "$out/recall-conversations.jsonl" --limit "$cases" --mode extend --policy snapkv --budget-fraction 0.5 \
        --kv-selection "$selection" --json "$out/recall-extend-f0.5-snapkv-$selection.json" \
        > "$out/recall-extend-f0.5-snapkv-$selection.md"
done
