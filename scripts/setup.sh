#!/bin/bash
# Installs what picavk needs (only when something is missing), then
# configures and builds into build/ (normal, static library) and, with "asan",
# build-asan/ (ASan+UBSan, Debug), with "release", build-release/ (Release -O3,
# PICAVK_SHARED).  Every build treats warnings as errors.
# PICAVK_VIEWER=ON in the environment also builds examples/viewer.
# --packages-only: install what is missing, build nothing (scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(build-essential cmake pkg-config clang android-libetc1-dev  # the last two: tests only
  libvulkan-dev libvulkan-volk-dev glslang-dev glslang-tools libspirv-cross-c-shared-dev
  mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  libpng-dev libxxhash-dev libzstd-dev libcjson-dev
  libsdl2-dev xvfb x11-apps x11-utils imagemagick)  # the last line: examples/viewer and its test
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

[ "${1:-}" = --packages-only ] && exit 0
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
EXTRA=()
[ -n "${PICAVK_VIEWER:-}" ] && EXTRA+=(-DPICAVK_VIEWER="$PICAVK_VIEWER")
build() { # dir, extra cmake args
  cmake -S . -B "$1" -DPVK_WERROR=ON "${EXTRA[@]}" "${@:2}" >/dev/null
  cmake --build "$1" -j"$(nproc)"
}
build build
for a in "$@"; do
  case "$a" in
    asan) build build-asan -DPVK_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug ;;
    release) build build-release -DCMAKE_BUILD_TYPE=Release -DPICAVK_SHARED=ON ;;
    *) echo "setup: unknown build '$a'"; exit 1 ;;
  esac
done
