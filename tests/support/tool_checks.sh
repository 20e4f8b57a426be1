# Shell helpers for the tests that run the tools as users do; source after `set -euo pipefail`.
# Makes $tmp (removed on exit) and defines:
#   fail TEXT...               print FAIL: TEXT and exit 1
#   expect CODE TEXT command   run command; fail unless it exits CODE and its stderr holds TEXT
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {
  local code=$1 text=$2 rc=0
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [ "$rc" = "$code" ] || fail "$* exited $rc, expected $code: $(cat "$tmp/err")"
  grep -q -- "$text" "$tmp/err" || fail "$* did not say '$text': $(cat "$tmp/err")"
}
