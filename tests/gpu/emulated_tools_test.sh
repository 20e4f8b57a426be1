#!/usr/bin/env bash
# pyramid-cli and pyramid-bench with --device cuda, as users run them, on the CPU emulation of
# the device (kernels/emulation; PYRAMID_CUDA_EMULATION_MEMORY_MIB sets its memory):
#   emulated_tools_test.sh PYRAMID_CLI PYRAMID_BENCH EMULATED_PLUGIN_DIR MODEL
set -euo pipefail
cli=$1 bench=$2 model=$4
export PYRAMID_BACKEND_DIR=$3
source "$(dirname "$0")/../support/tool_checks.sh"
[ -f "$model" ] || { echo "shared data not found: $model"; exit 77; }
reply() { "$cli" --model "$model" --raw -p "Once upon a time" -n 30 --temperature 0 --policy pyramid "$@"; }

# Greedy decoding gives the CPU's story, on the device.
reply --device cpu >"$tmp/cpu.txt" 2>/dev/null
reply --device cuda >"$tmp/cuda.txt" 2>"$tmp/cuda.err" || fail "pyramid-cli --device cuda: $(cat "$tmp/cuda.err")"
grep -q "on cuda: CUDA emulation" "$tmp/cuda.err" || fail "the CUDA backend was not used: $(cat "$tmp/cuda.err")"
grep -q " — the CUDA backend from $PYRAMID_BACKEND_DIR/libpyramid_cuda.so" "$tmp/cuda.err" ||
  fail "the model line does not name the backend library: $(cat "$tmp/cuda.err")"
cmp -s "$tmp/cpu.txt" "$tmp/cuda.txt" || fail "CPU and CUDA replies differ: $(cat "$tmp/cpu.txt") / $(cat "$tmp/cuda.txt")"

# A 1 MiB device holds the weights and, block by block, the cache of this reply.
PYRAMID_CUDA_EMULATION_MEMORY_MIB=1 reply --device cuda >"$tmp/small.txt" 2>"$tmp/small.err" ||
  fail "a reply on a 1 MiB device: $(cat "$tmp/small.err")"
cmp -s "$tmp/cpu.txt" "$tmp/small.txt" || fail "the 1 MiB device's reply differs"

# The KV pool running out mid-reply (a device just under 1 MiB holds the weights and about 130
# tokens): the reply stops with a message naming the GPU memory, and what came before stays
# printed, exactly the CPU's reply so far (then a newline); the exit status says it failed.
story() { "$cli" --model "$model" --raw -p "Once upon a time" -n 500 --temperature 0 --policy full "$@"; }
story --device cpu >"$tmp/story.txt" 2>/dev/null
rc=0
PYRAMID_CUDA_EMULATION_MEMORY_MIB=0.9 story --device cuda >"$tmp/cut.txt" 2>"$tmp/cut.err" || rc=$?
[ "$rc" = 4 ] || fail "a reply outgrowing the device exited $rc: $(cat "$tmp/cut.err")"
grep -q "reply ended early: CUDA out of memory allocating the KV cache pool" "$tmp/cut.err" ||
  fail "no out-of-memory message: $(cat "$tmp/cut.err")"
kept=$(($(stat -c %s "$tmp/cut.txt") - 1))
[ "$kept" -gt 100 ] || fail "only $kept bytes of the reply were printed"
cmp -s -n "$kept" "$tmp/cut.txt" "$tmp/story.txt" || fail "the reply before the failure differs from the CPU's"
[ "$kept" -lt "$(stat -c %s "$tmp/story.txt")" ] || fail "the reply did not stop early"

# Weights that do not fit: --device cuda refuses, naming the bytes; auto runs on the CPU and says why.
rc=0
PYRAMID_CUDA_EMULATION_MEMORY_MIB=0 reply --device cuda >/dev/null 2>"$tmp/refused.err" || rc=$?
[ "$rc" = 3 ] || fail "--device cuda without memory exited $rc"
grep -q "weights need .* bytes" "$tmp/refused.err" || fail "no memory message: $(cat "$tmp/refused.err")"
PYRAMID_CUDA_EMULATION_MEMORY_MIB=0 reply --device auto >"$tmp/auto.txt" 2>"$tmp/auto.err"
grep -q "running on the CPU: CUDA backend: the model's weights need" "$tmp/auto.err" ||
  fail "auto did not say why it runs on the CPU: $(cat "$tmp/auto.err")"
cmp -s "$tmp/cpu.txt" "$tmp/auto.txt" || fail "the CPU fallback's reply differs"

# The benchmark on the device: generated weights made there, batches, the largest batch.
"$bench" --shape tiny --device cuda --prompt-len 40 --gen-len 8 --batch 1,2 --policy full,pyramid \
  --max-batch --kv-memory 0.002 --warmup 0 --json "$tmp/r.json" >"$tmp/table.md" 2>"$tmp/bench.err" ||
  fail "pyramid-bench --device cuda: $(cat "$tmp/bench.err")"
grep -q '| pyramid | 2 | 40+8 |' "$tmp/table.md" || fail "no pyramid row: $(cat "$tmp/table.md")"
grep -q '(max; planned' "$tmp/table.md" || fail "no max-batch row"
grep -q '"backend": "cuda"' "$tmp/r.json" || fail "the JSON does not say cuda"
# Decode steps as CUDA graphs and queued one by one, side by side.
"$bench" --shape tiny --device cuda --prompt-len 20 --gen-len 6 --policy pyramid --step-graphs both --warmup 0 \
  --json "$tmp/graphs.json" >"$tmp/graphs.md" 2>"$tmp/graphs.err" || fail "--step-graphs both: $(cat "$tmp/graphs.err")"
grep -q '| pyramid | 1 | 20+6 |' "$tmp/graphs.md" && grep -q '| pyramid no-graphs | 1 | 20+6 |' "$tmp/graphs.md" ||
  fail "no rows with and without graphs: $(cat "$tmp/graphs.md")"
grep -q '"step_graphs": false' "$tmp/graphs.json" || fail "the JSON does not say which run had no graphs"
# --kv-type reaches the GPU: q8 entries of the small shape (16 KV heads of 64) take 2176 bytes a
# layer, keys and values, where fp16 takes 4096.
"$bench" --shape small --device cuda --prompt-len 16 --gen-len 2 --policy full --warmup 0 --kv-type q8 \
  --json "$tmp/q8.json" >"$tmp/q8.md" 2>"$tmp/q8.err" || fail "--kv-type q8 on the GPU: $(cat "$tmp/q8.err")"
grep -q '"kv_entry_bytes": 2176' "$tmp/q8.json" && grep -q 'KV q8' "$tmp/q8.md" ||
  fail "the GPU's cache is not q8: $(head -3 "$tmp/q8.md")"
# PYRAMID_CUDA_OVERLAP reaches the GPU (the emulated one is sm_90): its name says so, and a value
# that is not on or off is refused naming the variable.
PYRAMID_CUDA_OVERLAP=on "$bench" --shape tiny --device cuda --prompt-len 8 --gen-len 2 --policy full --warmup 0 \
  >"$tmp/overlap.md" 2>"$tmp/overlap.err" || fail "PYRAMID_CUDA_OVERLAP=on: $(cat "$tmp/overlap.err")"
grep -q 'launches overlapped' "$tmp/overlap.md" || fail "launches are not overlapped: $(head -3 "$tmp/overlap.md")"
rc=0
PYRAMID_CUDA_OVERLAP=yes "$bench" --shape tiny --device cuda --prompt-len 8 --gen-len 2 --warmup 0 \
  >/dev/null 2>"$tmp/overlap-bad.err" || rc=$?
[ "$rc" != 0 ] && grep -q "PYRAMID_CUDA_OVERLAP: unknown CUDA launch overlap 'yes' (known: on, off)" "$tmp/overlap-bad.err" ||
  fail "PYRAMID_CUDA_OVERLAP=yes: exit $rc, $(cat "$tmp/overlap-bad.err")"
# Without --kv-memory the KV budget is what the device has left beside the step memory
# (app/bench/kv_budget.h): on a small device, a smaller batch with shorter prompt steps.
PYRAMID_CUDA_EMULATION_MEMORY_MIB=64 "$bench" --shape tiny --device cuda --prompt-len 8 --gen-len 2 --max-batch \
  --policy pyramid --warmup 0 >"$tmp/budget.md" 2>"$tmp/budget.err" ||
  fail "--max-batch on a 64 MiB device: $(cat "$tmp/budget.err")"
grep -Eq '^KV budget [0-9.]+ MiB, with [0-9.]+ MiB kept for steps of up to [0-9]+ rows' "$tmp/budget.md" ||
  fail "no KV budget line: $(cat "$tmp/budget.md")"
grep -Eq '^\| pyramid \| [0-9]+ \(max; planned [0-9]+\) \| 8\+2 \|.*\| yes \|$' "$tmp/budget.md" ||
  fail "no largest batch that fits: $(cat "$tmp/budget.md")"
# A prompt step that alone needs more than the device has left is refused, with the numbers.
rc=0
PYRAMID_CUDA_EMULATION_MEMORY_MIB=48 "$bench" --shape tiny --device cuda --prompt-len 900 --gen-len 100 --max-batch \
  --warmup 0 >/dev/null 2>"$tmp/refused.err" || rc=$?
[ "$rc" = 2 ] && grep -q "MiB its steps of up to 1000 rows take; give the KV budget with --kv-memory" "$tmp/refused.err" ||
  fail "--max-batch on a small device: exit $rc, $(cat "$tmp/refused.err")"
echo "emulated tools: all checks passed"
