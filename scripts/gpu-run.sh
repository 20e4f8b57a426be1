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
#                              puts them, the runtime libraries they need from this machine, the
#                              test data (stories260K.gguf, golden/*.json, the kquants files) and
#                              STAMP (the commit) into .gpu-run/ (ignored by git; its archives
#                              travel as carried paths: programs.tar.xz and STAMP always, and what
#                              the command runs besides, below). Run it again after every change,
#                              before the device.
#   Then, on the GPU machine, from the repository root, one device call each (in this order of
#   worth; each stays within a call's 10 minutes):
#   scripts/gpu-run.sh staged-run       the GPU tests (label gpu; carry test_gpu_kernels.tar.xz,
#                                       test_gpu_model.tar.xz and data.tar.xz)
#   scripts/gpu-run.sh staged-bench     the projection kernels per weight type; a 3840-token Q4_K_M
#                                       prompt in 512-row chunks and in as many rows as memory allows,
#                                       in turns; then the 7B shape in
#                                       generated Q4_K_M weights, 3840+256 tokens, batch 1; the fp16
#                                       7B shape at batch 32 with the host's time per step; and the
#                                       Q4_K_M run with only 6 GiB of the device free (the 6 GB question;
#                                       carry pyramid-gpu-kernel-bench.tar.xz)
#   scripts/gpu-run.sh staged-paper     the paper's table: bench/paper_table.py runs pyramid-bench and
#                                       the Hugging Face baseline on the LLaMA-2-7B shape, 512+256,
#                                       batches 1, 8, 32 and the largest that fits (full, pyramid)
#   scripts/gpu-run.sh staged-sanitize  the kernel tests under compute-sanitizer (memcheck in two
#                                       halves, racecheck, synccheck; carry test_gpu_kernels.tar.xz and
#                                       data.tar.xz)
#   scripts/gpu-run.sh staged-kv        the kernel tests when carried (test_gpu_kernels.tar.xz), then
#                                       the KV cache in f16, q8 and q4 (issue 36): the LLaMA-2-7B shape,
#                                       512+256, batch 1 and the largest batch that fits, full and
#                                       pyramid, one KV type per process; then Q4_K_M 3840+256 with a
#                                       full q8 cache in 6 GiB
#   scripts/gpu-run.sh staged-profile   one decode step's kernels under Nsight Compute (issue 35): the
#                                       LLaMA-2-7B shape in Q4_K_M and F16 after a 512-token prompt,
#                                       batch 1, decode steps only (NVTX "decode step"), summed per
#                                       kernel by bench/ncu_step.py
#   scripts/gpu-run.sh staged-peer      the kernel tests (no test data needed), then beside llama.cpp
#                                       (issue 35): bench/gpu_llamacpp.py writes the
#                                       LLaMA-2-7B shape's generated weights as Q4_K_M and F16 GGUF files
#                                       on the device's disk and runs llama-bench (flash attention off
#                                       and on) and pyramid-bench (full, pyramid; launches overlapped
#                                       and not) on them in turns, batch 1, prompts of 512 and 3840
#                                       tokens, Q4_K_M first; needs stage-peer here (carry
#                                       test_gpu_kernels.tar.xz, llamacpp-peer.tar.xz and PEER_STAMP);
#                                       PYRAMID_PEER_TYPES (default q4_k_m,f16) and
#                                       PYRAMID_PEER_OVERLAP (default off,on) narrow it
#
# The peer, staged once per llama.cpp build (it changes only with the peer):
#   scripts/gpu-run.sh stage-peer DIR   Here: DIR is the bin folder of a CUDA build of llama.cpp
#                                       (../shared/tools/llamacpp-peer.sh cuda prints it; its CPU part
#                                       must run on the device's processor, so x86-64-v3 flags are the
#                                       safe ones). Packs llama-bench and the libraries it loads from
#                                       the build into .gpu-run/llamacpp-peer.tar.xz with PEER_STAMP.
#
# Built there (when the staged binaries do not run on that machine):
#   scripts/gpu-run.sh fetch   Here: downloads the .deb files below into .gpu-run/debs and copies
#                              the test data into .gpu-run/shared (the staged programs stay).
#   scripts/gpu-run.sh run     There: unpacks the .debs with dpkg -x into a private prefix,
#                              configures with -DPYRAMID_BUILD_APP=OFF -DPYRAMID_CUDA=ON, builds
#                              the CUDA library, the GPU tests, pyramid-bench and
#                              pyramid-gpu-kernel-bench, and runs ctest -L gpu.
#   scripts/gpu-run.sh bench   The same build, then staged-bench's and staged-paper's benchmarks.
#
# The device returns at most 8 files: everything goes to a results folder, and $OUT (when set)
# gets two files, gpu-run.log (all the console says) and results.tar.gz (every log, table and
# JSON), packed again after each step so a call cut short still returns what finished. Each
# call keeps within PYRAMID_GPU_BUDGET seconds (default 570); a step that fails is reported and
# the next runs. Environment: PYRAMID_GPU_BUILD (build folder of run/bench, default
# /tmp/pyramid-gpu-build), PYRAMID_GPU_ARCH (CUDA architectures; run/bench default to the first
# GPU's).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
stash="$root/.gpu-run"

# What the configure step needs that a bare CUDA image lacks: spdlog (+ fmt), sentencepiece,
# PCRE2, SLEEF, nlohmann-json and CLI11 headers, and pkg-config (to find sentencepiece, PCRE2 and
# SLEEF). The runtime libraries of spdlog, fmt, sentencepiece, PCRE2 and SLEEF come along for the
# tests.
packages=(
  libspdlog-dev libspdlog1.10 libfmt-dev libfmt9
  libsentencepiece-dev libsentencepiece0
  libpcre2-dev libpcre2-8-0
  libsleef-dev libsleef3
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
# Test data the GPU tests read, into $1 (default .gpu-run/shared).
copy_shared() {
  local shared=${PYRAMID_SHARED_DIR:-"$root/../shared"} dest=${1:-"$stash/shared"}
  ignore_locally /.gpu-run/
  rm -rf "$dest" "$stash/debs"
  mkdir -p "$dest/models/kquants" "$dest/golden"
  cp "$shared/models/stories260K.gguf" "$dest/models/"
  cp "$shared"/golden/*.json "$dest/golden/"
  cp "$shared"/models/kquants/synthetic-llama-{q4_k_m,mixed}.gguf "$dest/models/kquants/"
}

fetch() {
  copy_shared
  mkdir -p "$stash/debs"
  (cd "$stash/debs" && apt-get download "${packages[@]}")
  du -sh "$stash"
  echo "Now, on the GPU machine, from the repository root: scripts/gpu-run.sh run (carry .gpu-run)"
}

# The staged programs travel as archives a call carries apart (64 MiB in all; each program holds
# every kernel, about 9 MiB of xz): programs.tar.xz (staged/: pyramid-bench, the CUDA library and
# the libraries all the programs need; shared/models/ggml-vocab-llama-spm.gguf, the vocabulary
# the benchmarks write model files with), one archive for each of the other programs
# (test_gpu_kernels.tar.xz, test_gpu_model.tar.xz, pyramid-gpu-kernel-bench.tar.xz: what a
# command runs, it needs carried) and data.tar.xz (shared/: the tests' data).
staged_targets=(kernels/libpyramid_cuda.so app/bench/pyramid-bench)
staged_alone=(tests/gpu/test_gpu_kernels tests/gpu/test_gpu_model kernels/tools/pyramid-gpu-kernel-bench)
stage() {
  local build_dir="$root/.gpu-build"
  ignore_locally /.gpu-build/
  ignore_locally /.gpu-run/
  # Without hwloc (the CPU's default thread count, core/backend/cpu_cores.h): these programs run
  # on the GPU, and the device need not have the library.
  cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPYRAMID_BUILD_APP=OFF -DPYRAMID_CUDA=ON \
    -DPYRAMID_CUDA_EMULATION=OFF -DPYRAMID_HWLOC=OFF -DCMAKE_CUDA_ARCHITECTURES="${PYRAMID_GPU_ARCH:-90}" >/dev/null
  cmake --build "$build_dir" --target pyramid_cuda test_gpu_kernels test_gpu_model pyramid-bench \
    pyramid-gpu-kernel-bench
  mkdir -p "$stash"
  rm -rf "$stash/staged" "$stash/shared"  # an older stage's unpacked layout
  local pack
  pack=$(mktemp -d)
  local staged="$pack/staged"
  mkdir -p "$staged/lib" "$pack/shared/models"
  local target
  for target in "${staged_targets[@]}" "${staged_alone[@]}"; do
    mkdir -p "$staged/$(dirname "$target")"
    cp "$build_dir/$target" "$staged/$target"
  done
  # The non-system libraries they link that a bare CUDA image lacks (CUDA's own are there).
  local lib
  for lib in $(for target in "${staged_targets[@]}" "${staged_alone[@]}"; do ldd "$build_dir/$target"; done |
               awk '/=> \// { print $3 }' | grep -E 'libspdlog|libfmt|libgomp|libsentencepiece|libprotobuf|libpcre2|libsleef' | sort -u); do
    cp -L "$lib" "$staged/lib/"
  done
  cp "${PYRAMID_SHARED_DIR:-"$root/../shared"}/models/ggml-vocab-llama-spm.gguf" "$pack/shared/models/"
  for target in "${staged_alone[@]}"; do
    tar -C "$pack" -cf - "staged/$target" | xz -T0 -6 >"$stash/$(basename "$target").tar.xz"
    rm "$staged/$target"
  done
  tar -C "$pack" -cf - staged shared | xz -T0 -6 >"$stash/programs.tar.xz"
  rm -rf "$pack/staged" "$pack/shared"
  copy_shared "$pack/shared"
  tar -C "$pack" -cf - shared | xz -T0 -6 >"$stash/data.tar.xz"
  rm -rf "$pack"
  { git -C "$root" describe --always --dirty 2>/dev/null || echo unknown; date -u +%Y-%m-%dT%H:%M:%SZ; } >"$stash/STAMP"
  ls -l "$stash"
  du -sh "$stash"
  echo "Now, on the GPU machine, from the repository root: scripts/gpu-run.sh staged-run, carrying" \
       ".gpu-run/programs.tar.xz, .gpu-run/STAMP, and the archives the command needs (this script's first lines)"
}

# llama-bench and the libraries of its build that it loads (libllama, libggml*), compressed: the
# CUDA library alone is tens of MiB, and a call carries 64 MiB in all.
stage_peer() {
  local bin=${1:?usage: scripts/gpu-run.sh stage-peer LLAMA_CPP_BIN_DIR}
  [ -x "$bin/llama-bench" ] || { echo "gpu-run: no llama-bench in $bin" >&2; exit 1; }
  ignore_locally /.gpu-run/
  mkdir -p "$stash"
  local pack
  pack=$(mktemp -d)
  mkdir -p "$pack/bin"
  cp "$bin/llama-bench" "$pack/bin/"
  local lib libs
  # Read once: under pipefail, `ldd | grep -q` fails when grep stops reading early (SIGPIPE).
  libs=$(ldd "$bin/llama-bench")
  for lib in $(awk '/=> \// { print $3 }' <<<"$libs" | grep -E '/lib(llama|ggml)[^/]*\.so'); do
    cp -L "$lib" "$pack/bin/"
  done
  # A GGML_BACKEND_DL build would load its backends with dlopen, past ldd's view.
  if grep -q 'libggml.so' <<<"$libs" && ! grep -q 'libggml-cpu' <<<"$libs"; then
    echo "gpu-run: $bin/llama-bench loads its ggml backends at run time (GGML_BACKEND_DL); build without it" >&2
    exit 1
  fi
  strip --strip-unneeded "$pack"/bin/* 2>/dev/null || true
  tar -C "$pack" -cJf "$stash/llamacpp-peer.tar.xz" bin
  { "$bin/llama-bench" --version 2>/dev/null | head -2 ||
      echo "llama-bench from $bin (a CUDA build: its --version needs the driver, which this machine lacks)"
    date -u +%Y-%m-%dT%H:%M:%SZ; } >"$stash/PEER_STAMP"
  rm -rf "$pack"
  ls -l "$stash/llamacpp-peer.tar.xz"
  du -sh "$stash"
}

# The folder holding the first file called $1 under $2 (a CMake package's config file).
config_dir() {
  local file
  file=$(find "$2" -name "$1" -print -quit)
  [ -n "$file" ] || { echo "gpu-run: $1 not found in the unpacked packages" >&2; exit 1; }
  dirname "$file"
}

build=${PYRAMID_GPU_BUILD:-/tmp/pyramid-gpu-build}
results=${PYRAMID_GPU_RESULTS:-/tmp/pyramid-gpu-results}
deadline=$((SECONDS + ${PYRAMID_GPU_BUDGET:-570}))
failed=0

# The console goes to $OUT/gpu-run.log too; every file a step writes goes to $results.
start_outputs() {
  mkdir -p "$results"
  if [ -n "${OUT:-}" ]; then
    exec > >(tee -a "$OUT/gpu-run.log") 2>&1
  fi
}

# $results packed into $OUT/results.tar.gz (replaced whole, so a cut-off call leaves the last).
pack() {
  [ -n "${OUT:-}" ] || return 0
  tar -czf "$OUT/results.tmp" -C "$results" . && mv "$OUT/results.tmp" "$OUT/results.tar.gz"
}

# step NAME SECONDS LOG COMMAND...: runs COMMAND for at most SECONDS and what is left of the
# call, its output on the console and in $results/LOG; reports how it ended and packs the
# results. A failure is remembered, not fatal: the next step runs. Exit 77 (no CUDA device)
# is a failure here: this is the machine with the GPU.
step() {
  local name=$1 cap=$2 log=$3 rc
  shift 3
  local budget=$((deadline - SECONDS - 15))
  [ "$cap" -lt "$budget" ] && budget=$cap
  if [ "$budget" -lt 20 ]; then
    echo "gpu-run: $name SKIPPED: the call's time is spent"
    failed=1
    return 0
  fi
  echo "gpu-run: $name (at most $budget s)"
  local start=$SECONDS
  set +e
  timeout -k 10 "$budget" "$@" 2>&1 | tee "$results/$log"
  rc=${PIPESTATUS[0]}
  set -e
  case $rc in
    0) echo "gpu-run: $name passed in $((SECONDS - start)) s" ;;
    124 | 137) echo "gpu-run: $name TIMED OUT after $budget s"; failed=1 ;;
    77) echo "gpu-run: $name FAILED: no CUDA device visible (exit 77)"; failed=1 ;;
    *) echo "gpu-run: $name FAILED (exit $rc) after $((SECONDS - start)) s"; failed=1 ;;
  esac
  pack
}

finish() {
  pack
  [ "$failed" = 0 ] || { echo "gpu-run: some steps failed (see above)"; exit 1; }
  echo "gpu-run: all steps passed"
}

build() {
  [ -d "$stash/debs" ] || { echo "gpu-run: no $stash/debs; run 'scripts/gpu-run.sh fetch' first and carry .gpu-run" >&2; exit 1; }
  local prefix=/tmp/pyramid-gpu-deps
  rm -rf "$prefix"
  mkdir -p "$prefix"
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
    -DPYRAMID_BUILD_APP=OFF -DPYRAMID_CUDA=ON -DPYRAMID_CUDA_EMULATION=OFF -DPYRAMID_HWLOC=OFF \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="$arch" \
    -DPYRAMID_SHARED_DIR="$stash/shared" \
    -DPKG_CONFIG_EXECUTABLE="$prefix/usr/bin/pkgconf" \
    -Dspdlog_DIR="$(config_dir spdlogConfig.cmake "$prefix")" \
    -Dfmt_DIR="$(config_dir fmt-config.cmake "$prefix")" \
    -Dnlohmann_json_DIR="$(config_dir nlohmann_jsonConfig.cmake "$prefix")" \
    -DCLI11_DIR="$(config_dir CLI11Config.cmake "$prefix")" \
    -DOPENSSL_ROOT_DIR="$prefix/usr" \
    2>&1 | tee "$results/configure.log"
  local start=$SECONDS
  cmake --build "$build" -j "$(nproc)" --target pyramid_cuda test_gpu_kernels test_gpu_model pyramid-bench \
    pyramid-gpu-kernel-bench 2>&1 | tee "$results/build.log"
  echo "gpu-run: built in $((SECONDS - start)) s"
  pack
}

run() {
  step "ctest -L gpu" 540 ctest.log ctest --test-dir "$build" -L gpu --output-on-failure
}

# unpack ARCHIVE DIR: .tar.xz with tar where xz is installed, else with Python's tarfile (the
# device image's python3 always has it).
unpack() {
  if command -v xz >/dev/null; then
    tar -C "$2" -xJf "$1"
  else
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2], filter="tar")' "$1" "$2"
  fi
}

# The staged archives are unpacked into $unpacked; the programs run through wrappers that set
# their library path, so nothing else (the device's PyTorch) sees this machine's libraries.
unpacked=${PYRAMID_GPU_UNPACKED:-/tmp/pyramid-staged}
staged_env() {
  [ -f "$stash/programs.tar.xz" ] || { echo "gpu-run: nothing staged; run 'scripts/gpu-run.sh stage' here first and carry .gpu-run (or .gpu-run/programs.tar.xz)" >&2; exit 1; }
  echo "gpu-run: staged from $(tr '\n' ' ' <"$stash/STAMP" 2>/dev/null || echo 'an unknown commit')"
  rm -rf "$unpacked" && mkdir -p "$unpacked"
  local archive
  for archive in programs data "${staged_alone[@]##*/}"; do
    if [ -f "$stash/$archive.tar.xz" ]; then unpack "$stash/$archive.tar.xz" "$unpacked"; fi
  done
  local staged="$unpacked/staged"
  local nvcc cuda_lib
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  cuda_lib=$(dirname "$(readlink -f "$nvcc")")/../lib64
  cuda_path="/usr/local/cuda/lib64:$cuda_lib:/usr/local/cuda/targets/x86_64-linux/lib"
  local path="$staged/lib:$cuda_path"
  mkdir -p "$staged/bin"
  local exe missing=""
  for exe in app/bench/pyramid-bench "${staged_alone[@]}"; do
    [ -f "$staged/$exe" ] || continue  # its archive was not carried: need_program says so
    printf '#!/usr/bin/env bash\nexport LD_LIBRARY_PATH=%q\nexec %q "$@"\n' "$path" "$staged/$exe" \
      >"$staged/bin/$(basename "$exe")"
    chmod +x "$staged/bin/$(basename "$exe")"
    missing+=$(LD_LIBRARY_PATH=$path ldd "$staged/$exe" | grep 'not found' || true)
  done
  missing+=$(LD_LIBRARY_PATH=$path ldd "$staged/kernels/libpyramid_cuda.so" | grep 'not found' || true)
  if [ -n "$missing" ]; then
    echo "gpu-run: the staged programs do not run here; build there instead (fetch, then run):"
    echo "$missing" | sort -u
    grep -E '^(PRETTY_NAME|VERSION_ID)=' /etc/os-release || true
    exit 1
  fi
  export PYRAMID_SHARED_DIR="$unpacked/shared" PYRAMID_BACKEND_DIR="$staged/kernels" OMP_WAIT_POLICY=PASSIVE
  bench_exe="$staged/bin/pyramid-bench"
  kernel_bench_exe="$staged/bin/pyramid-gpu-kernel-bench"
  tests_dir="$staged/bin"
  nvidia-smi || true
}

# Stops when the staged program $1 (test_gpu_kernels, ...) was not carried.
need_program() {
  [ -x "$tests_dir/$1" ] || { echo "gpu-run: $1 was not carried (.gpu-run/$1.tar.xz, with programs.tar.xz)" >&2; exit 1; }
}

# The tests skip what they find no data for: without data.tar.xz they would pass checking less.
need_test_data() {
  [ -d "$PYRAMID_SHARED_DIR/golden" ] ||
    { echo "gpu-run: no test data (data.tar.xz was not carried); the GPU tests need it" >&2; exit 1; }
}

staged_run() {
  step test_gpu_kernels 270 test_gpu_kernels.log "$tests_dir/test_gpu_kernels"
  step test_gpu_model 270 test_gpu_model.log "$tests_dir/test_gpu_model"
}

# compute-sanitizer over the kernel tests: memcheck (out-of-bounds and misaligned accesses,
# device-side faults) on every test but those that fill the device on purpose or time large
# batches, in two halves, then racecheck and synccheck (shared-memory hazards, barriers) on the
# tests of the kernels that share memory within a block. 130 s a run, so the four fit a call.
sanitize() {
  local sanitizer
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  [ -x "$sanitizer" ] || { echo "gpu-run: compute-sanitizer not found" >&2; exit 1; }
  local kernels="$tests_dir/test_gpu_kernels"
  local everything shared_memory name
  # Not under memcheck: the tests that fill the device on purpose or count its free memory (the
  # tool's own allocations change both), that make the runtime fail on purpose (the tool would
  # report it), that time large batches, or that run host code only.
  local not_memchecked=(pool_uses_the_last_memory out_of_memory_is_an_error hidden_pool_keeps_one_buffer
    unused_chunks_go_back a_broken_recording_is_reported top_logits_match_host top_logits_large_batches
    graph_choice_keeps_the_faster_way)
  local listed
  listed=$("$kernels" --list) || { echo "gpu-run: $kernels --list failed (staged before --list existed?)" >&2; exit 1; }
  mapfile -t everything < <(grep -vxF -f <(printf '%s\n' "${not_memchecked[@]}") <<<"$listed")
  shared_memory=(rms_norm_matches attention_and_probe_match probe_without_rows_is_zero projection_matches
    quantized_projection_matches top_logits_put_nan_lowest int8_rounding_matches_cpu)
  for name in "${shared_memory[@]}"; do
    grep -qx "$name" <<<"$listed" || { echo "gpu-run: no kernel test named $name" >&2; exit 1; }
  done
  local half=$(((${#everything[@]} + 1) / 2))
  step "memcheck 1/2" 130 sanitize-memcheck-1.log "$sanitizer" --tool memcheck --error-exitcode 3 "$kernels" \
    "${everything[@]:0:$half}"
  if grep -qiE 'device not supported|error 999|unable to|not supported on this' "$results/sanitize-memcheck-1.log"; then
    echo "gpu-run: compute-sanitizer cannot run on this device; the other runs are skipped"
    return 0
  fi
  step "memcheck 2/2" 130 sanitize-memcheck-2.log "$sanitizer" --tool memcheck --error-exitcode 3 "$kernels" \
    "${everything[@]:$half}"
  step racecheck 130 sanitize-racecheck.log "$sanitizer" --tool racecheck --error-exitcode 3 "$kernels" \
    "${shared_memory[@]}"
  step synccheck 130 sanitize-synccheck.log "$sanitizer" --tool synccheck --error-exitcode 3 "$kernels" \
    "${shared_memory[@]}"
}

device_record() {
  { nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
    date -u +%Y-%m-%dT%H:%M:%SZ; cat "$stash/STAMP" 2>/dev/null || true; } | tee "$results/device.txt"
}

# The projection kernels per weight type (seconds): their bandwidth against the copy bandwidth
# says which matvec holds decoding back. Then LLaMA-2-7B-Chat as most users download it
# (Q4_K_M) with a 4096-token cache, decode steps as CUDA graphs and without, side by side; the
# peak device memory column says whether it fits in 6 GB (docs/gpu.md).
bench_short() {
  device_record
  step "kernel bench" 120 gpu-kernels.md "$kernel_bench_exe" --json "$results/gpu-kernels.json"
  # Rows a layer runs at once (docs/perf/gpu-llama-cpp.md, the eighth change): a 3840-token
  # Q4_K_M prompt in 512-row chunks against as many as the memory allows, in turns.
  local round rows
  for round in 1 2; do
    for rows in 512 auto; do
      step "7B Q4_K_M prefill 3840, chunk rows $rows, round $round" 60 "llama2-7b-q4_k_m-chunks-$rows-$round.md" \
        env PYRAMID_CUDA_CHUNK_ROWS=$rows "$bench_exe" --shape llama2-7b --weight-type q4_k_m --prompt-len 3840 \
        --gen-len 4 --batch 1 --policy full,pyramid --device cuda --warmup 1 \
        --json "$results/llama2-7b-q4_k_m-chunks-$rows-$round.json"
    done
  done
  step "7B Q4_K_M, 3840+256" 420 llama2-7b-q4_k_m.md env PYRAMID_CUDA_GRAPHS=on "$bench_exe" --shape llama2-7b \
    --weight-type q4_k_m --prompt-len 3840 --gen-len 256 --batch 1 --policy full,pyramid --step-graphs both \
    --device cuda --warmup 1 --json "$results/llama2-7b-q4_k_m.json"
  # Why PyramidInfer's decode steps at batch 32 are slower than the full cache's (docs/perf/gpu-h100.md):
  # the host's time around a step (queue ms, select ms) with graphs and without, side by side.
  step "7B fp16 batch 32, 512+256" 120 llama2-7b-batch32.md "$bench_exe" --shape llama2-7b --prompt-len 512 \
    --gen-len 256 --batch 32 --policy full,pyramid --step-graphs both --device cuda --warmup 1 \
    --json "$results/llama2-7b-batch32.json"
  # The 6 GB question itself: the same run with only 6 GiB of the device free for the program,
  # its CUDA context included (bench/with_free_memory.py holds the rest).
  step "7B Q4_K_M, 3840+256, in 6 GiB" 150 llama2-7b-q4_k_m-6gib.md python3 "$root/bench/with_free_memory.py" 6 \
    "$bench_exe" --shape llama2-7b --weight-type q4_k_m --prompt-len 3840 --gen-len 256 --batch 1 --policy pyramid \
    --device cuda --warmup 0 --json "$results/llama2-7b-q4_k_m-6gib.json"
}

# The paper's table, after a seconds-long check that the device's transformers runs the baseline.
bench_paper() {
  device_record
  export PYTHONUNBUFFERED=1
  step "HF baseline check" 90 hf-check.log python3 "$root/bench/hf_baseline.py" --shape tiny --device cuda \
    --batch 1 --prompt-len 8 --gen-len 4 --warmup 0 --repetitions 1
  step "paper table" 480 llama2-7b.md python3 "$root/bench/paper_table.py" --pyramid-bench "$bench_exe" \
    --shape llama2-7b --prompt-len 512 --gen-len 256 --batch 1,8,32 --max-batch --max-batch-limit 256 \
    --max-batch-within 8 --policy full,pyramid --device cuda --dtype float16 --warmup 1 --repetitions 1 --seed 1 \
    --out "$results/llama2-7b.json"
}

# pyramid-bench loads the CUDA library from the build folder.
built_bench() {
  export PYRAMID_BACKEND_DIR="$build/kernels"
  bench_exe="$build/app/bench/pyramid-bench"
  kernel_bench_exe="$build/kernels/tools/pyramid-gpu-kernel-bench"
}

# The quantized KV cache's memory and speed (docs/perf/gpu-kv-types.md): per type, batch-1 decode
# and the largest batch whose cache fits with its throughput, full cache and PyramidInfer side by
# side. The larger the batch a type fits, the longer its run, hence the growing limits.
# The kernels on this hardware before a table (a few seconds; they need no test data): if one of
# them is wrong here, the table would time something wrong, and this names it. Issue 36 also
# asks for its q8 and q4 kernels' tests on a GPU, which a session with one call gets this way.
kernel_tests_first() {
  if [ -x "$tests_dir/test_gpu_kernels" ]; then
    step test_gpu_kernels 60 test_gpu_kernels.log "$tests_dir/test_gpu_kernels"
  else
    echo "gpu-run: test_gpu_kernels was not carried (.gpu-run/test_gpu_kernels.tar.xz): the kernels go unchecked"
  fi
}

bench_kv() {
  device_record
  kernel_tests_first
  local type cap
  for type in f16 q8 q4; do
    case $type in f16) cap=150 ;; q8) cap=170 ;; q4) cap=220 ;; esac
    step "7B KV $type, 512+256, batch 1 and largest" $cap "llama2-7b-kv-$type.md" "$bench_exe" --shape llama2-7b \
      --device cuda --kv-type $type --prompt-len 512 --gen-len 256 --batch 1 --max-batch --max-batch-limit 2048 \
      --policy full,pyramid --warmup 0 --repetitions 1 --json "$results/llama2-7b-kv-$type.json"
  done
  # How long a conversation 6 GiB holds (gpu-kv-types.md): 3840+256 tokens of LLaMA-2-7B Q4_K_M
  # with the full cache did not fit in fp16 (gpu-h100.md); in q8 it is counted to fit with room.
  step "7B Q4_K_M, 3840+256, full q8 cache, in 6 GiB" 100 llama2-7b-q4_k_m-6gib-kv-q8.md \
    python3 "$root/bench/with_free_memory.py" 6 "$bench_exe" --shape llama2-7b --weight-type q4_k_m \
    --kv-type q8 --prompt-len 3840 --gen-len 256 --batch 1 --policy full --device cuda --warmup 0 \
    --json "$results/llama2-7b-q4_k_m-6gib-kv-q8.json"
}

# Where a decode step's time goes on the device, kernel by kernel: ncu profiles only the kernels
# inside the backend's "decode step" ranges (kernels/step_range.h), at the device's own clocks,
# with metrics that take one pass (no replay, so no device memory is saved and restored per
# kernel); 4 tokens make 3 decode steps, of which bench/ncu_step.py sums a whole one.
# The same workload's pyramid-bench row (its step time, queue ms) comes first, unprofiled, so
# the kernels' sum can be set against the step they make up.
bench_profile() {
  device_record
  local ncu
  ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1 || true)
  [ -x "$ncu" ] || { echo "gpu-run: ncu not found"; failed=1; return 0; }
  local type workload
  for type in q4_k_m f16; do
    workload=(--shape llama2-7b --weight-type $type --device cuda --prompt-len 512 --batch 1 --policy full
              --warmup 0 --repetitions 1)
    step "7B $type decode steps, unprofiled" 60 "llama2-7b-$type-steps.md" "$bench_exe" "${workload[@]}" \
      --gen-len 64 --json "$results/llama2-7b-$type-steps.json"
    step "ncu: 7B $type decode steps" 180 "ncu-7b-$type.log" "$ncu" --nvtx --nvtx-include "decode step/" \
      --clock-control none --print-kernel-base function --print-units base --csv --page raw \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
      --log-file "$results/ncu-7b-$type.csv" "$bench_exe" "${workload[@]}" --gen-len 4
    step "ncu: 7B $type, one step per kernel" 30 "ncu-7b-$type.md" python3 "$root/bench/ncu_step.py" \
      "$results/ncu-7b-$type.csv" --json "$results/ncu-7b-$type.json"
  done
}

# Both engines side by side on the same files (bench/gpu_llamacpp.py); the files are written on
# the device's disk, 17 GB for the two.
bench_peer() {
  device_record
  kernel_tests_first
  [ -f "$stash/llamacpp-peer.tar.xz" ] || { echo "gpu-run: no llamacpp-peer.tar.xz; run 'scripts/gpu-run.sh stage-peer DIR' here first" >&2; exit 1; }
  local peer=/tmp/llamacpp-peer
  rm -rf "$peer" && mkdir -p "$peer" && unpack "$stash/llamacpp-peer.tar.xz" "$peer"
  cat "$stash/PEER_STAMP" 2>/dev/null || true
  local path="$peer/bin:$cuda_path"
  if LD_LIBRARY_PATH=$path ldd "$peer/bin/llama-bench" | grep 'not found'; then
    echo "gpu-run: llama-bench does not run here (libraries above)"; failed=1; return 0
  fi
  export PYTHONUNBUFFERED=1
  # Both files with the overlapped launches beside them may not fit the step's 8 minutes (not yet
  # timed on a device): a later call measures what a first one did not reach
  # (PYRAMID_PEER_TYPES=f16) or leaves the experiment out (PYRAMID_PEER_OVERLAP=off).
  local types=${PYRAMID_PEER_TYPES:-q4_k_m,f16} overlap=${PYRAMID_PEER_OVERLAP:-off,on}
  step "beside llama.cpp, 7B $types, batch 1" 480 llama2-7b-llamacpp.log env LD_LIBRARY_PATH="$path" \
    python3 "$root/bench/gpu_llamacpp.py" --llama-bin "$peer/bin" --pyramid-bench "$bench_exe" \
    --vocab "$PYRAMID_SHARED_DIR/models/ggml-vocab-llama-spm.gguf" --dir /tmp/pyramid-models --shape llama2-7b \
    --types "$types" --overlap "$overlap" --device cuda --commit "$(head -1 "$stash/STAMP")" \
    --json "$results/llama2-7b-llamacpp.json" --md "$results/llama2-7b-llamacpp.md"
}

case ${1:-} in
  fetch) fetch ;;
  stage) stage ;;
  stage-peer) stage_peer "${2:-}" ;;
  run) start_outputs; build; run; finish ;;
  bench) start_outputs; build; built_bench; bench_short; bench_paper; finish ;;
  staged-run) start_outputs; staged_env; need_test_data; need_program test_gpu_kernels; need_program test_gpu_model
              staged_run; finish ;;
  staged-bench) start_outputs; staged_env; need_program pyramid-gpu-kernel-bench; bench_short; finish ;;
  staged-paper) start_outputs; staged_env; bench_paper; finish ;;
  staged-sanitize) start_outputs; staged_env; need_test_data; need_program test_gpu_kernels; sanitize; finish ;;
  staged-kv) start_outputs; staged_env; bench_kv; finish ;;
  staged-profile) start_outputs; staged_env; bench_profile; finish ;;
  staged-peer) start_outputs; staged_env; bench_peer; finish ;;
  *) echo "usage: scripts/gpu-run.sh fetch|stage|stage-peer DIR|run|bench|staged-run|staged-bench|staged-paper|staged-sanitize|staged-kv|staged-profile|staged-peer" >&2
     exit 2 ;;
esac
