#!/usr/bin/env bash
# pyramid-gpu-kernel-bench on the CPU emulation of the device: it runs every type through
# every path and writes its table and JSON (the timings mean nothing there).
#   gpu_kernel_bench_test.sh PYRAMID_GPU_KERNEL_BENCH
set -euo pipefail
bench=$1
source "$(dirname "$0")/../support/tool_checks.sh"

# The emulated device holds 1 GiB unless told otherwise; the copy bandwidth test takes a quarter.
rc=0
"$bench" --rows 24 --cols 512 --decode-rows 1,3 --prompt-rows 12,20 --calls 1 --working-set-mib 1 \
  --attention-lens 20,70 --attention-kv-types f16,q8 --attention-heads 3 --attention-kv-heads 1 \
  --attention-head-dim 64 --attention-calls 1 \
  --json "$tmp/k.json" >"$tmp/table.md" 2>"$tmp/err" || rc=$?
[ "$rc" = 77 ] && { cat "$tmp/table.md"; exit 77; }
[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/err")"
row() { grep -q "^| $1 | $2 | $3 | " "$tmp/table.md" || fail "no $1 $2 row for $3 input rows: $(cat "$tmp/table.md")"; }
for type in q4_0 q4_1 q5_0 q5_1 q8_0 q2_K q3_K q4_K q5_K q6_K; do
  for n in 1 3; do
    row "$type" int8 "$n"
    row "$type" "int8 overlapped" "$n"
    row "$type" exact "$n"
  done
  row "$type" tiles 12
  row "$type" tiles 20
done
# The emulated device is sm_90, so the matvecs are also timed launched to overlap.
for n in 1 3; do row f16 matvec "$n"; row f16 "matvec overlapped" "$n"; done
for n in 1 3 12 20; do row f16 cublas "$n"; done
for kv in f16 q8; do
  for len in 20 70; do
    for kernel in "tensor cores" "CUDA cores"; do
      grep -q "^| $kv | $len | $kernel | " "$tmp/table.md" ||
        fail "no $kernel attention row for $len tokens of $kv entries: $(cat "$tmp/table.md")"
    done
  done
done
grep -q "^| q8 | 70 | CUDA cores | .* | 1.000x |$" "$tmp/table.md" || fail "the CUDA cores' row is not their own 1x"
for kv in f16 q8; do
  for len in 20 70; do
    grep -q "^| $kv | $len | [0-9.]* | [0-9]* | [0-9]*% |$" "$tmp/table.md" ||
      fail "no decode attention row for a cache of $len $kv entries: $(cat "$tmp/table.md")"
  done
done
[ "$(grep -c '"cache_entries"' "$tmp/k.json")" = 4 ] || fail "the JSON lacks decode attention rows: $(cat "$tmp/k.json")"
grep -q '"copy_gbps"' "$tmp/k.json" || fail "no copy bandwidth in the JSON"
[ "$(grep -c '"prompt_tokens"' "$tmp/k.json")" = 8 ] || fail "the JSON lacks attention rows: $(cat "$tmp/k.json")"
[ "$(grep -c '"input_rows"' "$tmp/k.json")" = 88 ] || fail "the JSON lacks rows: $(cat "$tmp/k.json")"

expect 2 "name one quantized type or f16" "$bench" --types q4_k_m
expect 2 "multiple of 256" "$bench" --cols 300
expect 2 "64 or 128" "$bench" --attention-head-dim 96
expect 2 "attention-kv-types" "$bench" --attention-kv-types f32
expect 2 "must divide" "$bench" --attention-heads 9 --attention-kv-heads 2
expect 2 "pyramid-gpu-kernel-bench: .*--rowz" "$bench" --rowz 3
version=$("$bench" --version) || fail "--version failed"
[[ "$version" =~ ^pyramid-gpu-kernel-bench\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "--version printed '$version'"
echo "gpu kernel bench: all checks passed"
