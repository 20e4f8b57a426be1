#!/usr/bin/env bash
# Recall across turns for the app's presets on all 200 generated conversations
# (docs/quality/smollm2-policies.md, "Recall across turns"): the full cache, PyramidInfer at the
# paper's 7B knobs (reference-7b) and SnapKV keeping 75% (balanced), then SnapKV keeping 50%
# (max-saving) and PyramidInfer at decay 0.05, its setting nearest half the cache; then
# PyramidInfer scoring by its last 32 tokens pooled over 7 (the recall preset). Extend mode,
# as the app runs a conversation; then the full cache, PyramidInfer and SnapKV at 75% again in
# rebuild mode (the whole conversation prefilled at once, its question included), compared
# with extend case by case in recall-rebuild-200. The cases are cut into SHARDS slices run side
# by side, one process (one thread) each, and merged by bench/merge_recall.py, which checks that
# every full-cache case scored twice scored the same.
# Usage: bench/smollm2_recall_presets.sh OUT_DIR [SHARDS]   (about 6 CPU-hours in all)
source "$(dirname "$0")/smollm2_env.sh"
out=${1:?output folder}
shards=${2:-2}
recall_shards "$out" "$shards"
for cases in "$out"/shards/cases-*.jsonl; do
    shard=$(basename "$cases" .jsonl)
    (
        "$eval_tool" recall --model "$model" --cases "$cases" --mode extend --policy full,pyramid,snapkv \
            --decay-ratio 0.9 --budget-fraction 0.75 --json "$out/shards/$shard-75.json" > "$out/shards/$shard-75.md"
        "$eval_tool" recall --model "$model" --cases "$cases" --mode extend --policy snapkv,pyramid \
            --decay-ratio 0.05 --budget-fraction 0.5 --json "$out/shards/$shard-50.json" > "$out/shards/$shard-50.md"
        "$eval_tool" recall --model "$model" --cases "$cases" --mode extend --policy pyramid --decay-ratio 0.9 \
            --pyramid-observation-window 32 --pyramid-pooling-kernel 7 --json "$out/shards/$shard-pooled.json" \
            > "$out/shards/$shard-pooled.md"
        "$eval_tool" recall --model "$model" --cases "$cases" --mode rebuild --policy full,pyramid,snapkv \
            --decay-ratio 0.9 --budget-fraction 0.75 --json "$out/shards/$shard-rebuild.json" \
            > "$out/shards/$shard-rebuild.md"
    ) &
done
wait
python3 bench/merge_recall.py --out "$out/recall-extend-200.json" \
    --pair "pyramid (decay=0.9) vs snapkv (keeps 0.75 of full)" \
    --pair "pyramid (decay=0.05) vs snapkv (keeps 0.5 of full)" \
    --pair "snapkv (keeps 0.75 of full) vs full" --pair "snapkv (keeps 0.5 of full) vs full" \
    --pair "pyramid (decay=0.9) vs full" \
    --pair "pyramid (decay=0.9, window=32, pool=7) vs pyramid (decay=0.9)" \
    --pair "pyramid (decay=0.9, window=32, pool=7) vs snapkv (keeps 0.75 of full)" \
    --pair "pyramid (decay=0.9, window=32, pool=7) vs full" \
    "$out"/shards/*-{75,50,pooled}.json | tee "$out/recall-extend-200.md"
python3 bench/merge_recall.py --out "$out/recall-rebuild-200.json" \
    --pair "pyramid vs snapkv" --pair "pyramid vs full" --pair "snapkv vs full" \
    --pair "full@rebuild vs full@extend" --pair "pyramid@rebuild vs pyramid@extend" \
    --pair "snapkv@rebuild vs snapkv@extend" \
    "$out"/shards/*-75.json "$out"/shards/*-rebuild.json | tee "$out/recall-rebuild-200.md"
