#!/usr/bin/env bash
# Builds packages of this build tree with CPack into a fresh folder.
# Usage: build_packages.sh CPACK_CONFIG GENERATORS OUT_DIR   (GENERATORS: e.g. "DEB" or "RPM;TGZ")
set -euo pipefail
config=$1 generators=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
if ! cpack --config "$config" -G "$generators" -B "$out" > "$out/cpack.log" 2>&1; then
  cat "$out/cpack.log"
  echo "FAIL: cpack -G '$generators' (are all programs built? ninja builds them)"
  exit 1
fi
grep 'package: .* generated' "$out/cpack.log"
