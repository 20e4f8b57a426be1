#!/usr/bin/env bash
# Recall across turns for the baselines at one fraction of a full cache on all 200 generated
# conversations (docs/quality/smollm2-policies.md, "Recall across turns, every policy at half
# the cache" and "... at three quarters"): local, H2O and PyramidKV keeping FRACTION (default
# 0.5), in extend mode as the app runs a conversation. The full cache's scores are read from the
# committed recall-extend-200.json (--reference), not scored again. The cases are cut into
# SHARDS slices run side by side, one process (one thread) each; bench/merge_recall.py joins
# them into OUT_DIR/recall-baselines-200.{json,md} with the runs of recall-extend-200.json (the
# presets, SnapKV at 75% and 50%, PyramidInfer) and, at half, recall-pooled-half-200.json
# (option (a) at half), pairing each with the full cache and with SnapKV at the same fraction,
# and at half and three quarters PyramidInfer at about the same size with local and PyramidKV.
# Usage: bench/smollm2_recall_policies.sh OUT_DIR [SHARDS] [FRACTION]
# (1.5 CPU-hours at 0.5, 2.4 at 0.75)
source "$(dirname "$0")/smollm2_env.sh"
out=${1:?output folder}
shards=${2:-2}
fraction=${3:-0.5}
committed=docs/quality/smollm2
recall_shards "$out" "$shards"
for cases in "$out"/shards/cases-*.jsonl; do
    shard=$(basename "$cases" .jsonl)
    "$eval_tool" recall --model "$model" --cases "$cases" --mode extend --policy local,h2o,pyramidkv \
        --budget-fraction "$fraction" --reference "$committed/recall-extend-200.json" \
        --json "$out/shards/$shard-$fraction.json" > "$out/shards/$shard-$fraction.md" &
done
wait
pairs=()
for policy in local h2o pyramidkv; do
    pairs+=(--pair "$policy vs full" --pair "$policy vs snapkv (keeps $fraction of full)")
done
more=()
if [ "$fraction" = 0.5 ]; then
    more=("$committed/recall-pooled-half-200.json")
    pairs+=(--pair "pyramid (decay=0.05) vs local" --pair "pyramid (decay=0.05) vs pyramidkv"
            --pair "pyramid (decay=0.05, window=32, pool=7) vs local")
elif [ "$fraction" = 0.75 ]; then
    # PyramidInfer at the paper's sizes (0.78 of the cache), by its rule and pooled (option (a))
    for pyramid in "pyramid (decay=0.9)" "pyramid (decay=0.9, window=32, pool=7)"; do
        pairs+=(--pair "$pyramid vs local" --pair "$pyramid vs pyramidkv")
    done
fi
python3 bench/merge_recall.py --out "$out/recall-baselines-200.json" "${pairs[@]}" \
    "$out"/shards/*-"$fraction".json "$committed/recall-extend-200.json" "${more[@]}" \
    | tee "$out/recall-baselines-200.md"
