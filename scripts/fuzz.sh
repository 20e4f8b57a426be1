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
cmake --build "$build" --target fuzz_gguf fuzz_hf_folder fuzz_json_config fuzz_completion_request -j "$(nproc)"

seeds="$build/seeds"
rm -rf "$seeds" && mkdir -p "$seeds/fuzz_gguf" "$seeds/fuzz_hf_folder" "$seeds/fuzz_json_config" \
  "$seeds/fuzz_completion_request" "$build/artifacts"
if [ -n "$shared" ]; then
  cp "$shared"/models/*.gguf "$seeds/fuzz_gguf/" 2>/dev/null || true
  for folder in "$shared"/models/stories260K-hf "$shared"/models/stories260K-hf-f16; do
    [ -d "$folder" ] || continue
    { cat "$folder/config.json"; printf '\0'; cat "$folder/model.safetensors"; } >"$seeds/fuzz_hf_folder/$(basename "$folder")"
  done
else
  echo "fuzz: ../shared not found; seeding from the committed corpus only"
fi

status=0
for target in fuzz_gguf fuzz_hf_folder fuzz_json_config fuzz_completion_request; do
  corpus="$root/tests/fuzz/corpus/$target"
  dict=()
  [ "$target" = fuzz_gguf ] || dict=(-dict="$root/tests/fuzz/json.dict")
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
