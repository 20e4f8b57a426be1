#!/usr/bin/env bash
# Builds the CUDA backend and its tests without Qt and runs them on a machine with a GPU that
# cannot install packages, such as the device machines this project borrows (nothing can be
# fetched there, and their time is scarce). Two ways:
#
# Staged (preferred: the device only runs, it builds nothing):
#   scripts/gpu-run.sh stage   Here (Debian 12 with the build dependencies and nvcc): builds the
#                              CUDA library, the GPU tests, pyramid-bench and
#                              pyramid-gpu-kernel-bench for
#                              $PYRAMID_GPU_ARCH (default 90: H100/H200) into .gpu-build/, and
#                              puts them, the runtime libraries they need from this machine and
#                              the test data (stories260K.gguf, golden/*.json, the kquants files)
#                              into .gpu-run/ (ignored by git; it travels as a carried path).
#   scripts/gpu-run.sh staged-run | staged-bench | staged-all | staged-sanitize
#                              On the GPU machine, from the repository root: runs the staged
#                              GPU tests, then (bench, all) the paper's benchmark below;
#                              sanitize: the kernel tests under compute-sanitizer (memcheck,
#                              racecheck, synccheck), up to 3 minutes a tool (the three fit one call).
#
# Built there (when the staged binaries do not run on that machine):
#   scripts/gpu-run.sh fetch   Here: downloads the .deb files below into .gpu-run/debs and copies
#                              the test data into .gpu-run/shared.
#   scripts/gpu-run.sh run     There: unpacks the .debs with dpkg -x into a private prefix,
#                              configures with -DPYRAMID_BUILD_APP=OFF -DPYRAMID_CUDA=ON, builds
#                              the CUDA library, the GPU tests, pyramid-bench and
#                              pyramid-gpu-kernel-bench, and runs ctest -L gpu.
#   scripts/gpu-run.sh bench   The same build, then the benchmarks: the projection kernels per
#                              weight type (pyramid-gpu-kernel-bench, seconds); the 7B shape in generated
#                              Q4_K_M weights, 3840+256 tokens, batch 1 (about a minute); then
#                              the paper's: bench/paper_table.py runs pyramid-bench and the
#                              Hugging Face baseline on the LLaMA-2-7B shape, 512+256, batches
#                              1, 8, 32 and the largest that fits, policies full and pyramid
#                              (tables and JSON).
#   scripts/gpu-run.sh all     run, then bench.
#
# Logs, tables and JSON go to $OUT when set. Environment: PYRAMID_GPU_BUILD (build folder of
# run/bench, default /tmp/pyramid-gpu-build), PYRAMID_GPU_ARCH (CUDA architectures; run/bench
# default to the first GPU's).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
stash="$root/.gpu-run"

# What the configure step needs that a bare CUDA image lacks: spdlog (+ fmt), sentencepiece,
# nlohmann-json and CLI11 headers, and pkg-config (to find sentencepiece). The runtime
# libraries of spdlog, fmt and sentencepiece come along for the tests.
packages=(
  libspdlog-dev libspdlog1.10 libfmt-dev libfmt9
  libsentencepiece-dev libsentencepiece0
  nlohmann-json3-dev libcli11-dev
  pkgconf pkgconf-bin libpkgconf3
  libssl-dev libssl3
)

# Keeps a folder of this script's out of git's view in this checkout only (a checkout may have
# no .git/info yet).
ignore_locally() {
  local exclude
  exclude=$(git -C "$root" rev-parse --git-path info/exclude)
  [[ $exclude = /* ]] || exclude="$root/$exclude"
  mkdir -p "$(dirname "$exclude")"
  grep -qx "$1" "$exclude" 2>/dev/null || echo "$1" >>"$exclude"
}
# Test data the GPU tests read, into .gpu-run/shared.
copy_shared() {
  local shared=${PYRAMID_SHARED_DIR:-"$root/../shared"}
  ignore_locally /.gpu-run/
  rm -rf "$stash"
  mkdir -p "$stash/shared/models/kquants" "$stash/shared/golden"
  cp "$shared/models/stories260K.gguf" "$stash/shared/models/"
  cp "$shared"/golden/*.json "$stash/shared/golden/"
  cp "$shared"/models/kquants/synthetic-llama-{q4_k_m,mixed}.gguf "$stash/shared/models/kquants/"
}

fetch() {
  copy_shared
  mkdir -p "$stash/debs"
  (cd "$stash/debs" && apt-get download "${packages[@]}")
  du -sh "$stash"
  echo "Now, on the GPU machine, from the repository root: scripts/gpu-run.sh run (carry .gpu-run)"
}

staged_targets=(kernels/libpyramid_cuda.so tests/gpu/test_gpu_kernels tests/gpu/test_gpu_model app/bench/pyramid-bench
                kernels/tools/pyramid-gpu-kernel-bench)

stage() {
  local build_dir="$root/.gpu-build"
  ignore_locally /.gpu-build/
  copy_shared
  cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPYRAMID_BUILD_APP=OFF -DPYRAMID_CUDA=ON \
    -DPYRAMID_CUDA_EMULATION=OFF -DCMAKE_CUDA_ARCHITECTURES="${PYRAMID_GPU_ARCH:-90}" >/dev/null
  cmake --build "$build_dir" --target pyramid_cuda test_gpu_kernels test_gpu_model pyramid-bench \
    pyramid-gpu-kernel-bench
  local staged="$stash/staged"
  mkdir -p "$staged/lib"
  local target
  for target in "${staged_targets[@]}"; do
    mkdir -p "$staged/$(dirname "$target")"
    cp "$build_dir/$target" "$staged/$target"
  done
  # The non-system libraries they link that a bare CUDA image lacks (CUDA's own are there).
  local lib
  for lib in $(for target in "${staged_targets[@]}"; do ldd "$build_dir/$target"; done |
               awk '/=> \// { print $3 }' | grep -E 'libspdlog|libfmt|libgomp|libsentencepiece|libprotobuf' | sort -u); do
    cp -L "$lib" "$staged/lib/"
  done
  du -sh "$stash"
  echo "Now, on the GPU machine, from the repository root: scripts/gpu-run.sh staged-all (carry .gpu-run)"
}

# The folder holding the first file called $1 under $2 (a CMake package's config file).
config_dir() {
  local file
  file=$(find "$2" -name "$1" -print -quit)
  [ -n "$file" ] || { echo "gpu-run: $1 not found in the unpacked packages" >&2; exit 1; }
  dirname "$file"
}

build=${PYRAMID_GPU_BUILD:-/tmp/pyramid-gpu-build}
logs=${OUT:-$build}

build() {
  [ -d "$stash/debs" ] || { echo "gpu-run: no $stash/debs; run 'scripts/gpu-run.sh fetch' first and carry .gpu-run" >&2; exit 1; }
  local prefix=/tmp/pyramid-gpu-deps
  rm -rf "$prefix"
  mkdir -p "$prefix" "$logs"
  for deb in "$stash"/debs/*.deb; do
    dpkg -x "$deb" "$prefix"
  done
  local libdir="$prefix/usr/lib/x86_64-linux-gnu"
  export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # The .pc files say prefix=/usr: the sysroot maps that into the private prefix.
  export PKG_CONFIG_LIBDIR="$libdir/pkgconfig:$prefix/usr/share/pkgconfig"
  export PKG_CONFIG_SYSROOT_DIR="$prefix"

  local nvcc
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  [ -x "$nvcc" ] || { echo "gpu-run: nvcc not found" >&2; exit 1; }
  local arch=${PYRAMID_GPU_ARCH:-}
  if [ -z "$arch" ]; then
    arch=$({ nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null || true; } | head -1 | tr -d ' .')
    arch=${arch:-90}
  fi
  echo "gpu-run: nvcc $nvcc, architectures $arch, build $build"
  nvidia-smi || true

  if ! echo 'int main() { return 0; }' | c++ -fopenmp -x c++ - -o /tmp/pyramid-omp-check 2>/dev/null; then
    echo "gpu-run: the host C++ compiler has no OpenMP (core needs it)" >&2
    exit 1
  fi

  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPYRAMID_BUILD_APP=OFF -DPYRAMID_CUDA=ON -DPYRAMID_CUDA_EMULATION=OFF \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="$arch" \
    -DPYRAMID_SHARED_DIR="$stash/shared" \
    -DPKG_CONFIG_EXECUTABLE="$prefix/usr/bin/pkgconf" \
    -Dspdlog_DIR="$(config_dir spdlogConfig.cmake "$prefix")" \
    -Dfmt_DIR="$(config_dir fmt-config.cmake "$prefix")" \
    -Dnlohmann_json_DIR="$(config_dir nlohmann_jsonConfig.cmake "$prefix")" \
    -DCLI11_DIR="$(config_dir CLI11Config.cmake "$prefix")" \
    -DOPENSSL_ROOT_DIR="$prefix/usr" \
    2>&1 | tee "$logs/configure.log"
  local start=$SECONDS
  cmake --build "$build" -j "$(nproc)" --target pyramid_cuda test_gpu_kernels test_gpu_model pyramid-bench \
    pyramid-gpu-kernel-bench 2>&1 | tee "$logs/build.log"
  echo "gpu-run: built in $((SECONDS - start)) s"
}

run() {
  ctest --test-dir "$build" -L gpu --output-on-failure 2>&1 | tee "$logs/ctest.log"
}

# The staged programs, run as ctest would: exit 77 is a skip, anything but 0 a failure.
staged_env() {
  local staged="$stash/staged"
  [ -x "$staged/tests/gpu/test_gpu_kernels" ] || { echo "gpu-run: nothing staged; run 'scripts/gpu-run.sh stage' here first and carry .gpu-run" >&2; exit 1; }
  logs=${OUT:-/tmp/pyramid-gpu-logs}
  mkdir -p "$logs"
  export LD_LIBRARY_PATH="$staged/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PYRAMID_SHARED_DIR="$stash/shared" PYRAMID_BACKEND_DIR="$staged/kernels" OMP_WAIT_POLICY=PASSIVE
  bench_exe="$staged/app/bench/pyramid-bench"
  kernel_bench_exe="$staged/kernels/tools/pyramid-gpu-kernel-bench"
  nvidia-smi || true
}

staged_run() {
  local test rc start
  for test in test_gpu_kernels test_gpu_model; do
    start=$SECONDS
    set +e
    timeout 900 "$stash/staged/tests/gpu/$test" >"$logs/$test.log" 2>&1
    rc=$?
    set -e
    tail -40 "$logs/$test.log"
    case $rc in
      0) echo "gpu-run: $test passed in $((SECONDS - start)) s" ;;
      77) echo "gpu-run: $test skipped (no CUDA device)" ;;
      *) echo "gpu-run: $test FAILED (exit $rc) after $((SECONDS - start)) s" ;;
    esac
  done | tee "$logs/staged-run.log"
  ! grep -q FAILED "$logs/staged-run.log"
}

# compute-sanitizer over the kernel tests: memcheck (out-of-bounds and misaligned accesses,
# device-side faults) on every test but those that fill the device on purpose or time large
# batches, racecheck and synccheck (shared-memory hazards, barriers) on the tests of the kernels
# that share memory within a block. Each tool is bounded so a slow one cannot take the lease.
sanitize() {
  local sanitizer
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  [ -x "$sanitizer" ] || { echo "gpu-run: compute-sanitizer not found" >&2; exit 1; }
  local kernels="$stash/staged/tests/gpu/test_gpu_kernels"
  local everything shared_memory name
  # Not under memcheck: the tests that fill the device on purpose or count its free memory (the
  # tool's own allocations change both), that make the runtime fail on purpose (the tool would
  # report it), that time large batches, or that run host code only.
  local not_memchecked=(pool_uses_the_last_memory out_of_memory_is_an_error hidden_pool_keeps_one_buffer
    unused_chunks_go_back a_broken_recording_is_reported top_logits_match_host top_logits_large_batches
    graph_choice_keeps_the_faster_way)
  local listed
  listed=$("$kernels" --list)
  mapfile -t everything < <(grep -vxF -f <(printf '%s\n' "${not_memchecked[@]}") <<<"$listed")
  shared_memory=(rms_norm_matches attention_and_probe_match probe_without_rows_is_zero projection_matches
    quantized_projection_matches top_logits_put_nan_lowest int8_rounding_matches_cpu)
  for name in "${shared_memory[@]}"; do
    grep -qx "$name" <<<"$listed" || { echo "gpu-run: no kernel test named $name" >&2; exit 1; }
  done
  local tool names
  for tool in memcheck racecheck synccheck; do
    case $tool in
      memcheck) names=("${everything[@]}") ;;
      *) names=("${shared_memory[@]}") ;;
    esac
    set +e
    timeout 180 "$sanitizer" --tool "$tool" --error-exitcode 3 "$kernels" "${names[@]}" >"$logs/sanitize-$tool.log" 2>&1
    local rc=$?
    set -e
    tail -5 "$logs/sanitize-$tool.log"
    case $rc in
      0) echo "gpu-run: compute-sanitizer $tool: clean" ;;
      124) echo "gpu-run: compute-sanitizer $tool: stopped after 180 s (no verdict)" ;;
      *) echo "gpu-run: compute-sanitizer $tool FAILED (exit $rc; $logs/sanitize-$tool.log)" ;;
    esac
  done | tee "$logs/sanitize.log"
  ! grep -q FAILED "$logs/sanitize.log"
}

bench() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$logs/device.txt"
  date -u +%Y-%m-%dT%H:%M:%SZ >>"$logs/device.txt"
  # First the projection kernels per weight type (seconds): their bandwidth against the copy
  # bandwidth says which matvec holds decoding back.
  "$kernel_bench_exe" --json "$logs/gpu-kernels.json" 2>&1 | tee "$logs/gpu-kernels.md"
  # Then the short run (about two minutes): LLaMA-2-7B-Chat as most users download it (Q4_K_M)
  # with a 4096-token cache, decode steps as CUDA graphs and without, side by side; the peak
  # device memory column says whether it fits in 6 GB (docs/gpu.md). Then the paper's table,
  # whose largest-batch searches take longest.
  PYRAMID_CUDA_GRAPHS=on "$bench_exe" --shape llama2-7b --weight-type q4_k_m --prompt-len 3840 --gen-len 256 \
    --batch 1 --policy full,pyramid --step-graphs both --device cuda --warmup 1 --json "$logs/llama2-7b-q4_k_m.json" \
    2>&1 | tee "$logs/llama2-7b-q4_k_m.md"
  python3 "$root/bench/paper_table.py" --pyramid-bench "$bench_exe" \
    --shape llama2-7b --prompt-len 512 --gen-len 256 --batch 1,8,32 --max-batch \
    --policy full,pyramid --device cuda --dtype float16 --warmup 1 --repetitions 1 --seed 1 \
    --out "$logs/llama2-7b.json" 2>&1 | tee "$logs/llama2-7b.md"
}

# pyramid-bench loads the CUDA library from the build folder.
built_bench() {
  export PYRAMID_BACKEND_DIR="$build/kernels"
  bench_exe="$build/app/bench/pyramid-bench"
  kernel_bench_exe="$build/kernels/tools/pyramid-gpu-kernel-bench"
}

case ${1:-} in
  fetch) fetch ;;
  stage) stage ;;
  run) build; run ;;
  bench) build; built_bench; bench ;;
  all) build; run; built_bench; bench ;;
  staged-run) staged_env; staged_run ;;
  staged-bench) staged_env; bench ;;
  staged-all) staged_env; staged_run || true; bench ;;
  staged-sanitize) staged_env; sanitize ;;
  *) echo "usage: scripts/gpu-run.sh fetch|stage|run|bench|all|staged-run|staged-bench|staged-all|staged-sanitize" >&2
     exit 2 ;;
esac
