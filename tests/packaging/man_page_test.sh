#!/usr/bin/env bash
# A program's man page renders without groff warnings and documents every long option that
# the program's --help lists (and its subcommands' --help); --version prints "NAME X.Y.Z".
# Usage: man_page_test.sh PROGRAM MAN_PAGE
set -euo pipefail
program=$1 page=$2
fail() { echo "FAIL: $*"; exit 1; }

warnings=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 > /dev/null)
[ -z "$warnings" ] || fail "$page: groff warnings:"$'\n'"$warnings"

name=$(basename "$program")
version=$("$program" --version)
[[ $version =~ ^$name\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "$name --version printed '$version'"

help=$("$program" --help)
# CLI11 lists subcommands under "Subcommands:", two spaces in.
subcommands=$(awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}' <<< "$help")
for sub in $subcommands; do
  help+=$'\n'$("$program" "$sub" --help)
done
options=$(grep -oE -- '--[a-z][a-z0-9-]*' <<< "$help" | sort -u)
# roff writes the option's hyphens as \-.
documented=$(sed 's/\\-/-/g' "$page")
missing=()
for option in $options; do
  grep -qE -- "${option}([^a-z0-9-]|$)" <<< "$documented" || missing+=("$option")
done
((${#missing[@]} == 0)) || fail "$page does not document: ${missing[*]}"
echo "$page: renders cleanly and documents all $(wc -w <<< "$options") options of $(basename "$program")${subcommands:+ and its subcommands}"
