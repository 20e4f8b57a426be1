#!/usr/bin/env bash
# Recall with the conversation prefilled whole, its question included (rebuild mode), for the
# two runs the rebuild table of docs/quality/smollm2-policies.md lacked: SnapKV keeping half the
# cache (the max-saving preset) and PyramidInfer scoring by its last 32 tokens pooled over 7
# (option (a), the recall preset). All 200 generated conversations; the full cache's rebuild
# scores are read from the committed recall-rebuild-200.json (--reference). The cases are cut
# into SHARDS slices run side by side, one process (one thread) each; bench/merge_recall.py joins
# them into OUT_DIR/recall-rebuild-more-200.{json,md} with recall-rebuild-200.json and the
# extend runs of recall-extend-200.json, pairing each run with itself in extend mode.
# Usage: bench/smollm2_recall_rebuild.sh OUT_DIR [SHARDS]   (about 1 CPU-hour)
source "$(dirname "$0")/smollm2_env.sh"
out=${1:?output folder}
shards=${2:-2}
committed=docs/quality/smollm2
recall_shards "$out" "$shards"
for cases in "$out"/shards/cases-*.jsonl; do
    shard=$(basename "$cases" .jsonl)
    (
        "$eval_tool" recall --model "$model" --cases "$cases" --mode rebuild --policy snapkv --budget-fraction 0.5 \
            --reference "$committed/recall-rebuild-200.json" --json "$out/shards/$shard-snapkv-half.json" \
            > "$out/shards/$shard-snapkv-half.md"
        "$eval_tool" recall --model "$model" --cases "$cases" --mode rebuild --policy pyramid --decay-ratio 0.9 \
            --pyramid-observation-window 32 --pyramid-pooling-kernel 7 \
            --reference "$committed/recall-rebuild-200.json" --json "$out/shards/$shard-pooled.json" \
            > "$out/shards/$shard-pooled.md"
    ) &
done
wait
half="snapkv (keeps 0.5 of full)" pooled="pyramid (decay=0.9, window=32, pool=7)"
python3 bench/merge_recall.py --out "$out/recall-rebuild-more-200.json" \
    --pair "$half@rebuild vs $half@extend" --pair "$pooled@rebuild vs $pooled@extend" \
    --pair "$half vs full" --pair "$pooled vs full" \
    --pair "$pooled vs snapkv (keeps 0.75 of full)" --pair "$pooled vs pyramid (decay=0.9)" \
    "$out"/shards/*-snapkv-half.json "$out"/shards/*-pooled.json \
    "$committed/recall-rebuild-200.json" "$committed/recall-extend-200.json" | tee "$out/recall-rebuild-more-200.md"
