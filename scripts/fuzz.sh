#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (the core instrumented for coverage, ASan and UBSan)
# and runs each for a bounded time, seeded with the committed corpus and the shared models.
# Fails on any crash, leak, timeout or oversized allocation; the reproducer is left in
# build-fuzz/artifacts/ (copy it to tests/fuzz/regressions/<target>/ once fixed).
# Usage: scripts/fuzz.sh [seconds per target, default 60] [--merge: minimise new inputs into the corpus]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
merge=${2:-}
build="$root/build-fuzz"
shared=$(cd "$root/../shared" 2>/dev/null && pwd || true)

flags="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -g -Wno-pass-failed"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPYRAMID_BUILD_APP=OFF -DPYRAMID_BUILD_TESTS=ON -DPYRAMID_FUZZ=ON -DPYRAMID_CUDA=OFF \
  -DCMAKE_CXX_FLAGS="$flags" >/dev/null
cmake --build "$build" --target fuzz_gguf fuzz_hf_folder fuzz_json_config fuzz_json_schema fuzz_completion_request \
  fuzz_tokenizer \
  -j "$(nproc)"

seeds="$build/seeds"
rm -rf "$seeds" && mkdir -p "$seeds/fuzz_gguf" "$seeds/fuzz_hf_folder" "$seeds/fuzz_json_config" "$seeds/fuzz_json_schema" \
  "$seeds/fuzz_completion_request" "$seeds/fuzz_tokenizer" "$build/artifacts"
# The tokenizers fuzz_tokenizer runs text through: LLaMA-2's SentencePiece vocabulary,
# stories260K's 512 pieces (mostly byte fallback) and the default model's byte-level BPE, those
# that are here.
vocabs=()
default_model=${XDG_DATA_HOME:-$HOME/.local/share}/pyramidchat/models/SmolLM2-135M-Instruct.Q4_1.gguf
for vocab in "$shared/models/ggml-vocab-llama-spm.gguf" "$shared/models/stories260K.gguf" "$default_model"; do
  if [ -f "$vocab" ]; then vocabs+=("$vocab"); fi
done
export PYRAMID_FUZZ_VOCABS
PYRAMID_FUZZ_VOCABS=$(IFS=:; echo "${vocabs[*]}")
if [ -n "$shared" ]; then
  cp "$shared"/models/*.gguf "$seeds/fuzz_gguf/" 2>/dev/null || true
  for folder in "$shared"/models/stories260K-hf "$shared"/models/stories260K-hf-f16; do
    [ -d "$folder" ] || continue
    { cat "$folder/config.json"; printf '\0'; cat "$folder/model.safetensors"; } >"$seeds/fuzz_hf_folder/$(basename "$folder")"
  done
  # Texts llama.cpp's tokenizer was checked on (ggml-vocab-llama-spm.gguf.inp), one a file.
  if [ -f "$shared/data/ggml-vocab-llama-spm.gguf.inp" ]; then
    awk -v dir="$seeds/fuzz_tokenizer" 'BEGIN { RS = "\n__ggml_vocab_test__\n" } { printf "%s", $0 > (dir "/" NR) }' \
      "$shared/data/ggml-vocab-llama-spm.gguf.inp"
  fi
else
  echo "fuzz: ../shared not found; seeding from the committed corpus only"
fi

status=0
for target in fuzz_gguf fuzz_hf_folder fuzz_json_config fuzz_json_schema fuzz_completion_request fuzz_tokenizer; do
  if [ "$target" = fuzz_tokenizer ] && [ ${#vocabs[@]} -eq 0 ]; then
    echo "== $target: skipped, no vocabulary here (../shared, or the default model from setup.sh)"
    continue
  fi
  corpus="$root/tests/fuzz/corpus/$target"
  dict=()
  case $target in fuzz_hf_folder | fuzz_json_config | fuzz_json_schema | fuzz_completion_request) dict=(-dict="$root/tests/fuzz/json.dict") ;; esac
  work="$build/work/$target"
  rm -rf "$work" && mkdir -p "$work" "$corpus"
  echo "== $target: ${seconds}s"
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  "$build/tests/fuzz/$target" "$work" "$corpus" "$seeds/$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=16384 \
    "${dict[@]}" -artifact_prefix="$build/artifacts/$target-" -print_final_stats=1 2>"$build/$target.log" || status=1
  tail -n 12 "$build/$target.log"
  if [ "$merge" = "--merge" ]; then
    "$build/tests/fuzz/$target" -merge=1 -max_len=16384 "$corpus" "$work" >/dev/null 2>&1 || true
  fi
done
exit $status
