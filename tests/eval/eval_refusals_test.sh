#!/usr/bin/env bash
# pyramid-eval refuses what it cannot do before it measures anything: result files it cannot
# write, a plot run that will not exist, budgets for another model, turns that outgrow the
# context, recall cases that are not cases, a model without a chat format, or parts to merge
# that are not ppl reports (exit 2, the problem named).
#   eval_refusals_test.sh PYRAMID_EVAL SHARED_DIR
set -euo pipefail
eval_tool=$1 shared=$2
source "$(dirname "$0")/../support/tool_checks.sh"
model=$shared/models/stories260K.gguf text=$shared/data/tinystories_val_prefix.txt
if [ ! -f "$model" ] || [ ! -f "$text" ]; then
  echo "SKIP: the shared data is missing"
  exit 77
fi

ppl=("$eval_tool" ppl --model "$model" --text "$text" -P 32 -C 8 --windows 2)
expect 2 "cannot write /proc/no/r.json" "${ppl[@]}" --json /proc/no/r.json
expect 2 "cannot create the folder /proc/no/plots" "${ppl[@]}" --plot-dir /proc/no/plots
expect 2 'no run is labelled "bogus"' "${ppl[@]}" --sweep-decay 0.5 --lengths-run bogus
expect 2 "layer_budgets has 2 entries but the model has 5 layers" "${ppl[@]}" --policy local --budgets 10,10

multiturn=("$eval_tool" multiturn --model "$model" --text "$text" --transcripts 1)
expect 2 "cannot write /proc/no/m.json" "${multiturn[@]}" --json /proc/no/m.json
expect 2 "need 2401 positions, after BOS; the model's context holds 2048" \
  "${multiturn[@]}" --turns 3 --prompt-tokens 700 --reply-tokens 100
expect 2 "layer_budgets has 1 entries" "${multiturn[@]}" --policy h2o --budgets 8

cases=$tmp/cases.jsonl
printf '%s\n' '{"id": "a", "messages": [{"role": "user", "content": "hi"}], "lead_in": "x", "answer": " y"}' \
  '{"id": "b", "messages": "hi", "lead_in": "x", "answer": " y"}' > "$cases"
expect 2 "line 2: \"messages\" must be a non-empty array" "$eval_tool" recall --model "$model" --cases "$cases"
printf '%s\n' '{"id": "a", "messages": [{"role": "user", "content": "hi"}], "lead_in": "x", "answer": " y"}' > "$cases"
expect 2 "the model has no chat format" "$eval_tool" recall --model "$model" --cases "$cases"

printf '{"tool": "pyramid-eval ppl", "runs": [' > "$tmp/cut.json"
expect 2 "$tmp/cut.json is not JSON" "$eval_tool" ppl-merge "$tmp/cut.json"
echo '{"tool": "pyramid-bench", "runs": []}' > "$tmp/bench.json"
expect 2 "$tmp/bench.json: not the JSON of pyramid-eval ppl" "$eval_tool" ppl-merge "$tmp/bench.json"
echo '{"tool": "pyramid-eval ppl", "model": "m", "text": "t"}' > "$tmp/bare.json"
expect 2 "$tmp/bare.json: the report has no \"protocol\"" "$eval_tool" ppl-merge "$tmp/bare.json"

expect 2 "cannot write /proc/no/out.json" "$eval_tool" replay "$shared/golden/full_cache.json" --out /proc/no/out.json
echo "eval refusals: all checks passed"
