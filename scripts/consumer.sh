#!/bin/bash
# Installs the build in BUILD_DIR into BUILD_DIR/consumer/prefix, then builds
# the out-of-tree programs tests/consumer and examples/headless against that
# prefix twice each, with CMake (find_package(picavk CONFIG)) and with a plain
# pkg-config compile line, and runs them (headless contexts on the default
# device, e.g. lavapipe).  examples/headless draws a lit, textured triangle
# through one command list and checks the top screen's pixels itself; its
# pictures go to BUILD_DIR/consumer/headless-{cmake,pc}.png.  Works for a
# static and a PICAVK_SHARED build.  Usage: scripts/consumer.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build="$(realpath "$1")"
work="$build/consumer"
prefix="$work/prefix"
rm -rf "$work"
cmake --install "$build" --prefix "$prefix" >/dev/null
pc="$(find "$prefix" -name picavk.pc)"
export PKG_CONFIG_PATH="$(dirname "$pc")"
libdir="$(realpath "$(pkg-config --variable=libdir picavk)")"
if [ -e "$libdir/libpicavk.so" ]; then kind=shared; else kind=static; fi
echo "consumer: picavk $(pkg-config --modversion picavk), $kind, installed in $prefix"

# CMake
cmake -S tests/consumer -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
found="$(sed -n 's/^picavk_DIR:PATH=//p' "$work/cmake/CMakeCache.txt")"
[[ "$found" == "$prefix"/* ]] || { echo "consumer: find_package found picavk in '$found', not in $prefix"; exit 1; }
cmake --build "$work/cmake" >/dev/null
"$work/cmake/consumer"
cmake -S examples/headless -B "$work/headless-cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >/dev/null
cmake --build "$work/headless-cmake" >/dev/null
"$work/headless-cmake/headless" "$work/headless-cmake.png"

# pkg-config
if [ $kind = shared ]; then
  libs="$(pkg-config --libs picavk) -Wl,-rpath,$libdir"
else
  libs="$(pkg-config --static --libs picavk)"
fi
# shellcheck disable=SC2046
cc -std=c17 -Wall -Wextra -Werror $(pkg-config --cflags picavk) tests/consumer/main.c -o "$work/consumer-pc" $libs
"$work/consumer-pc"
# shellcheck disable=SC2046
cc -std=c17 -Wall -Wextra -Werror $(pkg-config --cflags picavk) examples/headless/headless.c -o "$work/headless-pc" \
  $libs -lm
"$work/headless-pc" "$work/headless-pc.png"

if [ $kind = shared ]; then
  for exe in "$work/cmake/consumer" "$work/consumer-pc" "$work/headless-cmake/headless" "$work/headless-pc" \
    "$prefix/bin/picavk"; do
    loaded="$(ldd "$exe" | awk '$1 == "libpicavk.so.0" {print $3}')"
    [ -n "$loaded" ] && [ "$(realpath "$loaded")" = "$(realpath "$libdir/libpicavk.so.0")" ] ||
      { echo "consumer: $exe loads '$loaded', not $libdir/libpicavk.so.0"; exit 1; }
  done
fi
"$prefix/bin/picavk" info >/dev/null
echo "consumer: $kind package ok (find_package, pkg-config, examples/headless, installed CLI)"
