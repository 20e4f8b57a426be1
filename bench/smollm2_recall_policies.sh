#!/usr/bin/env bash
# Recall across turns for the baselines at half of a full cache on all 200 generated
# conversations (docs/quality/smollm2-policies.md, "Recall across turns, every policy at half
# the cache"): local, H2O and PyramidKV keeping 50%, in extend mode as the app runs a
# conversation. The cases are cut into SHARDS slices run side by side, one process (one thread)
# each; bench/merge_recall.py joins them with the runs of recall-extend-200.json (the presets,
# SnapKV at 50%, PyramidInfer at decay 0.05) and recall-pooled-half-200.json (option (a) at
# half), checking that the full cache scored every case as it did there.
# Usage: bench/smollm2_recall_policies.sh OUT_DIR [SHARDS]   (about 2 CPU-hours in all)
source "$(dirname "$0")/smollm2_env.sh"
out=${1:?output folder}
shards=${2:-2}
recall_shards "$out" "$shards"
for cases in "$out"/shards/cases-*.jsonl; do
    shard=$(basename "$cases" .jsonl)
    "$eval_tool" recall --model "$model" --cases "$cases" --mode extend --policy full,local,h2o,pyramidkv \
        --budget-fraction 0.5 --json "$out/shards/$shard-half.json" > "$out/shards/$shard-half.md" &
done
wait
python3 bench/merge_recall.py --out "$out/recall-half-200.json" \
    --pair "local vs full" --pair "h2o vs full" --pair "pyramidkv vs full" \
    --pair "local vs snapkv (keeps 0.5 of full)" --pair "h2o vs snapkv (keeps 0.5 of full)" \
    --pair "pyramidkv vs snapkv (keeps 0.5 of full)" \
    --pair "pyramid (decay=0.05) vs local" --pair "pyramid (decay=0.05) vs pyramidkv" \
    --pair "pyramid (decay=0.05, window=32, pool=7) vs local" \
    "$out"/shards/*-half.json docs/quality/smollm2/recall-{extend,pooled-half}-200.json | tee "$out/recall-half-200.md"
