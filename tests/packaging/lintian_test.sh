#!/usr/bin/env bash
# Runs lintian on every .deb in a folder; any error or warning fails.
# Usage: lintian_test.sh DEB_DIR
set -euo pipefail
shopt -s nullglob
debs=("$1"/*.deb)
((${#debs[@]})) || { echo "FAIL: no .deb in $1"; exit 1; }
command -v lintian > /dev/null || { echo "FAIL: lintian is not installed (scripts/setup.sh installs it)"; exit 1; }
lintian --version
log="$1/lintian.log"
status=0
# Informational tags are listed too, for the record.
lintian --fail-on error,warning --display-info "${debs[@]}" > "$log" 2>&1 || status=$?
grep -v 'running with root privileges' "$log" || true
if [ "$status" -ne 0 ]; then
  echo "FAIL: lintian found errors or warnings (exit $status)"
  exit 1
fi
echo "lintian: no errors or warnings in ${#debs[@]} package(s)"
