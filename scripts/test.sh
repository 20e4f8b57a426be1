#!/usr/bin/env bash
# Sets up (see setup.sh), builds and runs every test: the CTest suite, then the core again
# under AddressSanitizer + UBSan (sanitize.sh), then each fuzz target for a bounded time
# (fuzz.sh). Arguments are passed to the main ctest run.
#   PYRAMID_TEST_STAGES   which stages run (default "ctest sanitize fuzz")
#   PYRAMID_FUZZ_SECONDS  seconds per fuzz target (default 30)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-"$root/build"}
stages=${PYRAMID_TEST_STAGES:-"ctest sanitize fuzz"}

"$root/scripts/setup.sh" "$build"
status=0
for stage in $stages; do
  echo "=== test stage: $stage"
  case "$stage" in
    ctest) (cd "$build" && QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen} ctest --output-on-failure -j "$(nproc)" "$@") || status=1 ;;
    sanitize) "$root/scripts/sanitize.sh" || status=1 ;;
    fuzz) "$root/scripts/fuzz.sh" "${PYRAMID_FUZZ_SECONDS:-30}" || status=1 ;;
    *) echo "unknown test stage '$stage'"; status=1 ;;
  esac
done
exit $status
