#!/usr/bin/env bash
# The RPM and TGZ packages hold the same files as the .deb packages, package by package, and
# the RPMs declare the CUDA runtime and cuBLAS where there is a CUDA package.
# Usage: formats_test.sh CPACK_CONFIG DEB_DIR OUT_DIR   (the RPM and TGZ packages go to OUT_DIR)
set -euo pipefail
config=$1 debs=$2 out=$3
fail() { echo "FAIL: $*"; exit 1; }
shopt -s nullglob
packages=("$debs"/*.deb)
((${#packages[@]})) || fail "no .deb in $debs"
have_rpm=0
generators=TGZ
if command -v rpmbuild > /dev/null; then
  have_rpm=1
  generators="RPM;TGZ"
fi
"$(dirname "$0")/build_packages.sh" "$config" "$generators" "$out"

files_of_deb() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./|/|' | sort; }
files_of_tgz() { tar -tvzf "$1" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\.\{0,1\}/\{0,1\}|/|' | sort; }
files_of_rpm() { rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$1" 2> /dev/null | awk '$1 !~ /^d/ {print $2}' | sort; }

for deb in "${packages[@]}"; do
  name=$(dpkg-deb -f "$deb" Package)
  expected=$(files_of_deb "$deb")
  tgz=$(ls "$out/$name"-[0-9]*.tar.gz)
  diff <(echo "$expected") <(files_of_tgz "$tgz") || fail "$tgz holds other files than $deb"
  echo "$name: TGZ and DEB hold the same $(echo "$expected" | wc -l) files"
  if ((have_rpm)); then
    rpm_file=$(ls "$out/$name"-[0-9]*.rpm)
    diff <(echo "$expected") <(files_of_rpm "$rpm_file") || fail "$rpm_file holds other files than $deb"
    echo "$name: RPM and DEB hold the same files"
    if [ "$name" = pyramidchat-cuda ]; then
      requires=$(rpm -qpR "$rpm_file" 2> /dev/null)
      for lib in libcudart libcublas; do
        grep -q "^$lib" <<< "$requires" || fail "$rpm_file does not require $lib"
      done
      grep -q '^pyramidchat = ' <<< "$requires" || fail "$rpm_file does not require the same pyramidchat"
    fi
  fi
done
((have_rpm)) || echo "rpmbuild is not installed: no RPM packages checked"
