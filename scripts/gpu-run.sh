#!/usr/bin/env bash
# Builds the CUDA backend and its tests without Qt and runs them (ctest -L gpu) on a machine
# with a GPU that cannot install packages, such as the device machines this project borrows
# (nothing can be fetched there). Two steps:
#
#   scripts/gpu-run.sh fetch   On a Debian 12 machine with apt (the developer machine):
#                              downloads the .deb files below into .gpu-run/debs and copies the
#                              test data the GPU tests read (stories260K.gguf, golden/*.json)
#                              into .gpu-run/shared. .gpu-run/ is ignored by git (added to
#                              .git/info/exclude): it only travels with the working tree.
#   scripts/gpu-run.sh run     On the GPU machine, from the repository root: unpacks the .debs
#                              with dpkg -x into a private prefix, configures with
#                              -DPYRAMID_BUILD_APP=OFF -DPYRAMID_CUDA=ON, builds the CUDA library,
#                              the GPU tests and pyramid-bench, and runs ctest -L gpu. Logs go to
#                              $OUT when set.
#   scripts/gpu-run.sh bench   The same build, then the paper's benchmark: bench/paper_table.py
#                              runs pyramid-bench and the Hugging Face baseline on the LLaMA-2-7B
#                              shape, 512+256, batches 1, 8, 32 and the largest that fits,
#                              policies full and pyramid (tables and JSON to $OUT).
#   scripts/gpu-run.sh all     run, then bench.
#
# Environment for `run`: PYRAMID_GPU_BUILD (build folder, default /tmp/pyramid-gpu-build),
# PYRAMID_GPU_ARCH (CUDA architectures, default: the first GPU's, e.g. 90 on H100/H200).
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

fetch() {
  local shared=${PYRAMID_SHARED_DIR:-"$root/../shared"}
  grep -qx '/.gpu-run/' "$root/.git/info/exclude" 2>/dev/null || echo '/.gpu-run/' >>"$root/.git/info/exclude"
  rm -rf "$stash"
  mkdir -p "$stash/debs" "$stash/shared/models/kquants" "$stash/shared/golden"
  (cd "$stash/debs" && apt-get download "${packages[@]}")
  cp "$shared/models/stories260K.gguf" "$stash/shared/models/"
  cp "$shared"/golden/*.json "$stash/shared/golden/"
  cp "$shared"/models/kquants/synthetic-llama-{q4_k_m,mixed}.gguf "$stash/shared/models/kquants/"
  du -sh "$stash"
  echo "Now, on the GPU machine, from the repository root: scripts/gpu-run.sh run (carry .gpu-run)"
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
    -DPYRAMID_BUILD_APP=OFF -DPYRAMID_CUDA=ON \
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
    2>&1 | tee "$logs/build.log"
  echo "gpu-run: built in $((SECONDS - start)) s"
}

run() {
  ctest --test-dir "$build" -L gpu --output-on-failure 2>&1 | tee "$logs/ctest.log"
}

bench() {
  # pyramid-bench loads the CUDA library from the build folder.
  export PYRAMID_BACKEND_DIR="$build/kernels"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$logs/device.txt"
  date -u +%Y-%m-%dT%H:%M:%SZ >>"$logs/device.txt"
  python3 "$root/bench/paper_table.py" --pyramid-bench "$build/app/bench/pyramid-bench" \
    --shape llama2-7b --prompt-len 512 --gen-len 256 --batch 1,8,32 --max-batch \
    --policy full,pyramid --device cuda --dtype float16 --warmup 1 --repetitions 1 --seed 1 \
    --out "$logs/llama2-7b.json" 2>&1 | tee "$logs/llama2-7b.md"
}

case ${1:-} in
  fetch) fetch ;;
  run) build; run ;;
  bench) build; bench ;;
  all) build; run; bench ;;
  *) echo "usage: scripts/gpu-run.sh fetch|run|bench|all" >&2; exit 2 ;;
esac
