#!/usr/bin/env bash
# Builds the installer packages: DEB, RPM and TGZ of pyramidchat, plus pyramidchat-cuda where
# the CUDA backend builds (nvcc found). They land in <build-dir>/packages.
# Usage: scripts/package.sh [build-dir]   (default: build-package)
#
# Installs what the build needs (scripts/setup.sh), then makes a release build for /usr with
# Debian's hardening flags and without the tests, and runs cpack. Extra CMake arguments go in
# PYRAMID_CMAKE_ARGS, as for setup.sh (e.g. -DPYRAMID_CUDA=OFF).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build-package"}

# Hardening (stack protector, fortified libc calls, full RELRO) as Debian builds its packages;
# no -g: the packages are stripped. The build type's -O3 still comes last and wins.
if command -v dpkg-buildflags > /dev/null; then
  flags() { DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get "$1" | sed 's/\(^\| \)-g\( \|$\)/ /'; }
  export CFLAGS="$(flags CFLAGS) $(flags CPPFLAGS)"
  export CXXFLAGS="$(flags CXXFLAGS) $(flags CPPFLAGS)"
  export LDFLAGS="$(flags LDFLAGS)"
fi

# The programs look for the CUDA backend under the install prefix, and for models in
# <shared>/models besides the user's own folder: /usr/share/pyramidchat/models when packaged.
PYRAMID_CMAKE_ARGS="-DCMAKE_INSTALL_PREFIX=/usr -DPYRAMID_BUILD_TESTS=OFF \
-DPYRAMID_SHARED_DIR=/usr/share/pyramidchat ${PYRAMID_CMAKE_ARGS:-}" "$root/scripts/setup.sh" "$build"

rm -rf "$build/packages"
cpack --config "$build/CPackConfig.cmake" -B "$build/packages"
echo "Packages in $build/packages:"
ls -1 "$build/packages"/*.deb "$build/packages"/*.rpm "$build/packages"/*.tar.gz 2> /dev/null
