#!/usr/bin/env bash
# pyramid-kernel-bench as developers run it: every type's int8 product agrees with the exact
# one within the int8 rounding, the JSON holds what the table shows, refusals name the problem.
#   kernel_bench_test.sh PYRAMID_KERNEL_BENCH PYTHON
set -euo pipefail
bench=$1 python=$2
source "$(dirname "$0")/../support/tool_checks.sh"

if ! grep -qw avx2 /proc/cpuinfo; then
  echo "this CPU lacks AVX2: the int8 kernels cannot run"
  exit 77
fi

"$bench" --rows 40 --cols 512 --tokens 1,5 --repeats 1 --json "$tmp/k.json" >"$tmp/table.md"
grep -q '| q4_K | 4.50 | 5 |' "$tmp/table.md" || fail "no q4_k row in the table: $(cat "$tmp/table.md")"
"$python" - "$tmp/k.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["results"]
quantized = {r["type"] for r in rows if "int8_ms" in r}
expected = {"q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_K", "q3_K", "q4_K", "q5_K", "q6_K"}
assert quantized == expected, f"int8 rows for {sorted(quantized)}, expected {sorted(expected)}"
assert len(rows) == 2 * 12, f"{len(rows)} rows, expected 12 types x 2 token counts"
for r in rows:
    assert r["exact_ms"] > 0, r
    if "int8_ms" in r:
        # The activations are rounded to 8 bits per block of 32: a difference, but a small one.
        d = r["int8_relative_difference"]
        assert 0 < d < 0.05, f"{r['type']} x {r['tokens']} tokens: int8 differs from exact by {d}"
    else:
        assert r["type"] in ("f16", "f32"), r
PY

expect 2 "is a mix of types" "$bench" --types q4_k_m
expect 2 "is not a multiple of q2_k's block of 256 values" "$bench" --cols 576
expect 2 "is not a multiple of q8_0's block of 32 values" "$bench" --cols 300 --types q8_0
# A small model's row width (SmolLM2's 576) for the 32-value block types.
"$bench" --rows 24 --cols 576 --tokens 1 --types q4_1,q8_0,f16 --repeats 1 >"$tmp/narrow.md"
grep -q '| q4_1 | 5.00 | 1 |' "$tmp/narrow.md" || fail "no q4_1 row at 576 columns: $(cat "$tmp/narrow.md")"
PYRAMID_CPU_KERNELS=generic expect 3 "the generic kernels were chosen (PYRAMID_CPU_KERNELS)" "$bench" --rows 40 --cols 512
echo "kernel bench: all checks passed"
