#!/usr/bin/env bash
# Hostile input through the three tools as a user would give it, each case under GNU time:
# a clean error with the documented exit code, in under 2 seconds and 100 MB of memory.
# Cases: a config.json and a safetensors header nested 65,000 levels deep, a GGUF that claims
# 2^31-1 layers, /dev/zero and a FIFO as model, config and text, a compression config whose
# integers would wrap, a misspelt setting.
#   hostile_input_test.sh PYRAMID_CLI PYRAMID_INSPECT PYRAMID_EVAL MODEL.gguf
set -euo pipefail
cli=$1 inspect=$2 eval=$3 model=$4
source "$(dirname "$0")/../support/tool_checks.sh"
[ -f "$model" ] || { echo "SKIP: $model not found"; exit 77; }
[ -x /usr/bin/time ] || { echo "SKIP: GNU time (/usr/bin/time) is missing"; exit 77; }

# bounded CODE TEXT command...: as expect, and within 2 s and 100 MB.
bounded() {
  local code=$1 text=$2
  shift 2
  expect "$code" "$text" /usr/bin/time -f "%e %M" -o "$tmp/usage" timeout 20 "$@"
  read -r seconds kib < <(tail -n 1 "$tmp/usage")
  awk -v s="$seconds" 'BEGIN { exit !(s < 2.0) }' || fail "$* took $seconds s"
  [ "$kib" -lt 102400 ] || fail "$* reached $((kib / 1024)) MB"
}

deep=$(python3 -c 'print("[" * 65000 + "]" * 65000)')
mkdir -p "$tmp/deep-config" "$tmp/deep-header"
printf '{"hidden_act": %s}' "$deep" >"$tmp/deep-config/config.json"
: >"$tmp/deep-config/model.safetensors"
cp "$(dirname "$model")/stories260K-hf/config.json" "$tmp/deep-header/" 2>/dev/null ||
  printf '{"model_type": "llama"}' >"$tmp/deep-header/config.json"
python3 - "$tmp/deep-header/model.safetensors" "$deep" <<'PY'
import struct, sys
header = ('{"a": {"dtype": "F32", "shape": %s, "data_offsets": [0, 4]}}' % sys.argv[2]).encode()
open(sys.argv[1], "wb").write(struct.pack("<Q", len(header)) + header + b"\0" * 4)
PY
for tool in "$cli -p hi -m" "$inspect" "$eval ppl --text $model --model"; do
  # shellcheck disable=SC2086
  bounded 3 "nested deeper than 64 levels" $tool "$tmp/deep-config"
  # shellcheck disable=SC2086
  bounded 3 "nested deeper than 64 levels" $tool "$tmp/deep-header"
done

# stories260K with llama.block_count = 2^31-1: refused before anything is sized by it.
python3 - "$model" "$tmp/layers.gguf" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
key = b"llama.block_count"
at = data.find(struct.pack("<Q", len(key)) + key) + 8 + len(key)
assert struct.unpack_from("<I", data, at)[0] == 4, "block_count is not a uint32"
struct.pack_into("<I", data, at + 4, 2**31 - 1)
open(sys.argv[2], "wb").write(data)
PY
bounded 3 "missing tensor 'blk.5." "$inspect" "$tmp/layers.gguf"
bounded 3 "missing tensor 'blk.5." "$cli" -m "$tmp/layers.gguf" -p hi

mkfifo "$tmp/fifo"
bounded 3 "not a regular file" "$cli" -m "$tmp/fifo" -p hi
bounded 3 "not a regular file" "$inspect" "$tmp/fifo"
bounded 3 "not a regular file" "$cli" -m /dev/zero -p hi
bounded 2 "is not a regular file" "$cli" -m "$model" --config /dev/zero -p hi
bounded 2 "is not a regular file" "$cli" -m "$model" --config "$tmp/fifo" -p hi
bounded 2 "is not a regular file" "$eval" ppl -m "$model" --text /dev/zero
bounded 2 "is not a regular file" "$eval" ppl -m "$model" --text "$tmp/fifo"

printf '{"policy": "local", "layer_budgets": [4294967297, 4, 4, 4, 4]}' >"$tmp/wrap.json"
bounded 2 "layer_budgets\[0\] = 4294967297 is out of range" "$cli" -m "$model" --config "$tmp/wrap.json" -p hi
printf '{"sink_tokens": 1e30}' >"$tmp/huge.json"
bounded 2 "sink_tokens = 1e+30 is out of range" "$cli" -m "$model" --config "$tmp/huge.json" -p hi
printf '{"recent_ratoi": 0.3}' >"$tmp/typo.json"
bounded 2 'did you mean "recent_ratio"' "$cli" -m "$model" --config "$tmp/typo.json" -p hi
echo "hostile input: all cases refused cleanly, each under 2 s and 100 MB"
