#!/usr/bin/env bash
# Perplexity against KV bytes on SmolLM2-135M-Instruct (docs/quality/smollm2-policies.md):
# WikiText-2 test in consecutive token windows of P prompt + 128 scored tokens; full cache,
# PyramidInfer at several decay ratios, and local, H2O, SnapKV, PyramidKV keeping 75, 50, 35
# and 25% of a full cache. Usage: bench/smollm2_ppl_vs_kv.sh OUT_DIR [P:WINDOWS ...]
# SWEEP_DECAY and SWEEP_FRACTION (comma-separated) narrow the sweep, for prompts so long that
# every setting would take hours on one thread; an empty SWEEP_DECAY runs no PyramidInfer
# setting (its smallest cache is about half of full, so the 35% and 25% budgets are the
# baselines' alone). Separate runs of one prompt length are joined by `pyramid-eval ppl-merge`.
source "$(dirname "$0")/smollm2_env.sh"
out=${1:?output folder}
shift
specs=("${@:-512:24 2048:8}")
mkdir -p "$out"
for spec in ${specs[@]}; do
    prefill=${spec%%:*}
    windows=${spec##*:}
    decay=${SWEEP_DECAY-0.9,0.5,0.2,0.05}
    "$eval_tool" ppl --model "$model" --text "$text" --align tokens \
        --prefill "$prefill" --continuation 128 --windows "$windows" \
        ${decay:+--sweep-decay "$decay"} --sweep-fraction "${SWEEP_FRACTION:-0.75,0.5,0.35,0.25}" \
        --json "$out/ppl-vs-kv-p$prefill.json" --plot-dir "$out/plots-p$prefill" \
        | tee "$out/ppl-vs-kv-p$prefill.md"
done
