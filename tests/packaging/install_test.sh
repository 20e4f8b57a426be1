#!/usr/bin/env bash
# Installs the built .deb packages with dpkg into a scratch root, runs the installed programs
# from there (they use this system's libraries), and removes the packages again: nothing of
# them may stay behind. The main package's dependencies are checked against this system.
#
# Usage: install_test.sh DEB_DIR SCRATCH_DIR VERSION REFERENCE_CLI
#   VERSION        the project version pyramidchat --version must print
#   REFERENCE_CLI  pyramid-cli of the build tree, whose generation the installed one must match
# Env: PYRAMID_SHARED_DIR, the shared data with models/stories260K.gguf; exit 77 (skipped)
# without it.
set -euo pipefail
debs=$1 root=$2 version=$3 reference_cli=$4
model="${PYRAMID_SHARED_DIR:-}/models/stories260K.gguf"
if [ ! -f "$model" ]; then
  echo "SKIP: $model not found (set PYRAMID_SHARED_DIR)"
  exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }

shopt -s nullglob
packages=("$debs"/*.deb)
((${#packages[@]})) || fail "no .deb in $debs"
main_deb=$(ls "$debs"/pyramidchat_*.deb)

# True when this system has an installed package for the relation "name" or
# "name (op version)", or one that provides "name".
installed() {
  local relation=$1 name op want have
  name=${relation%% *}
  have=$(dpkg-query -W -f='${db:Status-Abbrev} ${Version}\n' "$name" 2>/dev/null | awk '/^ii/ {print $2; exit}')
  if [ -z "$have" ]; then
    dpkg-query -W -f='${db:Status-Abbrev}|${Provides}\n' | awk -F'|' -v name="$name" '
      /^ii/ { n = split($2, provided, /, */); for (i = 1; i <= n; i++) { sub(/ .*/, "", provided[i]); if (provided[i] == name) found = 1 } }
      END { exit !found }'
    return
  fi
  if [[ $relation =~ \((\<\<|\<=|=|\>=|\>\>)\ ([^\)]+)\) ]]; then
    op=${BASH_REMATCH[1]} want=${BASH_REMATCH[2]}
    case $op in '<<') op=lt ;; '<=') op=le ;; '=') op=eq ;; '>=') op=ge ;; '>>') op=gt ;; esac
    dpkg --compare-versions "$have" "$op" "$want" || return 1
  fi
}
echo "== dependencies of $(basename "$main_deb") on this system"
IFS=',' read -ra clauses <<< "$(dpkg-deb -f "$main_deb" Depends)"
for clause in "${clauses[@]}"; do
  ok=0
  IFS='|' read -ra alternatives <<< "$clause"
  for alternative in "${alternatives[@]}"; do
    alternative=$(echo "$alternative" | xargs)
    installed "$alternative" && ok=1 && break
  done
  ((ok)) || fail "dependency not installed here: $(echo "$clause" | xargs)"
done
echo "all ${#clauses[@]} satisfied"

# dpkg needs root; fakeroot stands in for it elsewhere.
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v fakeroot > /dev/null || { echo "SKIP: not root and no fakeroot"; exit 77; }
  as_root=(fakeroot)
fi
# The scratch root has an empty dpkg database, so the dependencies (checked above) are forced.
dpkg_root=("${as_root[@]}" dpkg "--root=$root" --log=/dev/null --force-depends)
rm -rf "$root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"

echo "== install ${packages[*]##*/}"
# dpkg lists every forced dependency on stderr: shown only when it fails.
"${dpkg_root[@]}" -i "${packages[@]}" 2> "$root.dpkg.log" || { cat "$root.dpkg.log"; fail "dpkg -i"; }
for deb in "${packages[@]}"; do
  name=$(dpkg-deb -f "$deb" Package)
  status=$(dpkg-query "--admindir=$root/var/lib/dpkg" -W -f='${db:Status-Abbrev}' "$name")
  [[ $status == ii* ]] || fail "$name is '$status' after dpkg -i, not installed"
done

echo "== every library of the installed programs resolves"
while IFS= read -r -d '' file; do
  missing=$(ldd "$file" | grep 'not found' || true)
  [ -z "$missing" ] || fail "$file: $missing"
done < <(find "$root/usr/bin" "$root/usr/lib" -type f \( -path '*/bin/*' -o -name '*.so' \) -print0 2>/dev/null)

# The programs write logs under the data folder: keep them out of the real one.
scratch_home="$root.home"
rm -rf "$scratch_home"
mkdir -p "$scratch_home"
export HOME=$scratch_home XDG_DATA_HOME=$scratch_home/data XDG_CONFIG_HOME=$scratch_home/config
plugin=$(find "$root/usr/lib" -name libpyramid_cuda.so -print -quit 2>/dev/null || true)
if [ -n "$plugin" ]; then
  # This tree's programs look for the backend under its own install prefix; point them at
  # the installed one, so a generation loads it (and falls back to the CPU without a GPU).
  export PYRAMID_BACKEND_DIR=${plugin%/*}
fi

if [ -x "$root/usr/bin/pyramidchat" ]; then
  echo "== desktop entry, icon and AppStream metainfo of the installed tree"
  appstreamcli validate-tree --no-net "$root" || fail "appstreamcli validate-tree"
  echo "== pyramidchat --version"
  out=$("$root/usr/bin/pyramidchat" --version)
  echo "$out"
  [ "$out" = "pyramidchat $version" ] || fail "pyramidchat --version printed '$out', not 'pyramidchat $version'"
fi

echo "== pyramid-cli --help"
help=$("$root/usr/bin/pyramid-cli" --help)
grep -q -- '--prompt' <<< "$help" || fail "pyramid-cli --help does not list --prompt"
echo "${help%%$'\n'*}"

echo "== pyramid-cli generation with stories260K"
args=(-m "$model" --raw -p "Once upon a time" -n 32 --temperature 0 --policy pyramid)
installed_text=$("$root/usr/bin/pyramid-cli" "${args[@]}" 2> "$scratch_home/cli.err") ||
  { cat "$scratch_home/cli.err"; fail "the installed pyramid-cli failed"; }
grep '^\[model\]' "$scratch_home/cli.err" || true
reference_text=$(env -u PYRAMID_BACKEND_DIR "$reference_cli" "${args[@]}" 2> /dev/null)
echo "$installed_text"
[ -n "$(echo "$installed_text" | tr -d '[:space:]')" ] || fail "the installed pyramid-cli generated no text"
[ "$installed_text" = "$reference_text" ] ||
  fail "the installed pyramid-cli generated other text than the build tree's: '$reference_text'"

echo "== pyramid-server --version"
out=$("$root/usr/bin/pyramid-server" --version)
[ "$out" = "pyramid-server $version" ] || fail "pyramid-server --version printed '$out', not 'pyramid-server $version'"

echo "== pyramid-cli uses the first model in the user's models folder"
mkdir -p "$XDG_DATA_HOME/pyramidchat/models"
ln -s "${model%/*}/stories260K-hf" "$XDG_DATA_HOME/pyramidchat/models/my-model"
env -u PYRAMID_MODEL "$root/usr/bin/pyramid-cli" --raw -p "Once" -n 4 2> "$scratch_home/found.err" > /dev/null ||
  { cat "$scratch_home/found.err"; fail "pyramid-cli failed with a model in the user's folder"; }
grep '^\[model\]' "$scratch_home/found.err"
grep -q '^\[model\] .*(safetensors' "$scratch_home/found.err" || fail "pyramid-cli did not use the user's model"

echo "== remove"
names=()
for deb in "${packages[@]}"; do names+=("$(dpkg-deb -f "$deb" Package)"); done
"${dpkg_root[@]}" --purge "${names[@]}" 2> "$root.dpkg.log" || { cat "$root.dpkg.log"; fail "dpkg --purge"; }
leftovers=$(cd "$root" && find . -mindepth 1 -not -path './var' -not -path './var/lib' -not -path './var/lib/dpkg' \
              -not -path './var/lib/dpkg/*')
[ -z "$leftovers" ] || fail "left behind after dpkg --purge: $leftovers"
remaining=$(dpkg-query "--admindir=$root/var/lib/dpkg" -W -f='${binary:Package} ${db:Status-Abbrev}\n' 2>/dev/null |
              grep -v ' n' || true)
[ -z "$remaining" ] || fail "still known to dpkg after --purge: $remaining"
rm -rf "$root" "$scratch_home" "$root.dpkg.log"
echo "installed, ran and removed ${#packages[@]} package(s) cleanly"
