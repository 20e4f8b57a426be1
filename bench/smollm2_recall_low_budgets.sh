#!/usr/bin/env bash
# Recall across turns at 35% and 25% of a full cache on all 200 generated conversations
# (docs/quality/smollm2-policies.md, "Recall across turns at 35% and 25% of the cache"): the
# newest tokens (local) and SnapKV, the two that recalled the most of the baselines at half the
# cache (H2O recalled none there and PyramidKV 8; PyramidInfer cannot be set below about half).
# Extend mode, as the app runs a conversation. The full cache's scores are read from the
# committed recall-extend-200.json (--reference), not scored again. The cases are cut into
# SHARDS slices run side by side, one process (one thread) each; bench/merge_recall.py joins
# them with the half-cache runs of recall-half-200.json.
# Usage: bench/smollm2_recall_low_budgets.sh OUT_DIR [SHARDS]   (about 2.5 CPU-hours in all)
source "$(dirname "$0")/smollm2_env.sh"
out=${1:?output folder}
shards=${2:-2}
reference=docs/quality/smollm2/recall-extend-200.json
recall_shards "$out" "$shards"
for cases in "$out"/shards/cases-*.jsonl; do
    shard=$(basename "$cases" .jsonl)
    (
        for fraction in 0.35 0.25; do
            "$eval_tool" recall --model "$model" --cases "$cases" --mode extend --policy local,snapkv \
                --budget-fraction "$fraction" --reference "$reference" --json "$out/shards/$shard-$fraction.json" \
                > "$out/shards/$shard-$fraction.md"
        done
    ) &
done
wait
python3 bench/merge_recall.py --out "$out/recall-low-200.json" \
    --pair "local (keeps 0.35 of full) vs snapkv (keeps 0.35 of full)" \
    --pair "local (keeps 0.25 of full) vs snapkv (keeps 0.25 of full)" \
    --pair "snapkv (keeps 0.35 of full) vs snapkv (keeps 0.5 of full)" \
    --pair "local (keeps 0.35 of full) vs local (keeps 0.5 of full)" \
    --pair "snapkv (keeps 0.25 of full) vs full" --pair "local (keeps 0.25 of full) vs full" \
    "$out"/shards/*-0.35.json "$out"/shards/*-0.25.json docs/quality/smollm2/recall-half-200.json \
    | tee "$out/recall-low-200.md"
