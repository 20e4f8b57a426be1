#!/usr/bin/env bash
# Builds the core and its tests with AddressSanitizer and UndefinedBehaviorSanitizer and runs
# them (CTest label `core`). Any finding fails the run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build-sanitize"}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPYRAMID_SANITIZE=ON -DPYRAMID_CUDA=OFF
cmake --build "$build" --target core_tests -j "$(nproc)"
cd "$build"
# Leaks are checked too; Qt's test harness keeps a few process-lifetime allocations.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/scripts/lsan.supp}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest -L core --output-on-failure -j "$(nproc)"
