#!/bin/bash
# Installs the build in BUILD_DIR into BUILD_DIR/consumer/prefix, then builds
# the out-of-tree program tests/consumer against that prefix twice, with CMake
# (find_package(picavk CONFIG)) and with a plain pkg-config compile line, and
# runs both (a headless context on the default device, e.g. lavapipe).  Works
# for a static and a PICAVK_SHARED build.  Usage: scripts/consumer.sh BUILD_DIR
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

# pkg-config
if [ $kind = shared ]; then
  libs="$(pkg-config --libs picavk) -Wl,-rpath,$libdir"
else
  libs="$(pkg-config --static --libs picavk)"
fi
# shellcheck disable=SC2046
cc -std=c17 -Wall -Wextra -Werror $(pkg-config --cflags picavk) tests/consumer/main.c -o "$work/consumer-pc" $libs
"$work/consumer-pc"

if [ $kind = shared ]; then
  for exe in "$work/cmake/consumer" "$work/consumer-pc" "$prefix/bin/picavk"; do
    loaded="$(ldd "$exe" | awk '$1 == "libpicavk.so.0" {print $3}')"
    [ -n "$loaded" ] && [ "$(realpath "$loaded")" = "$(realpath "$libdir/libpicavk.so.0")" ] ||
      { echo "consumer: $exe loads '$loaded', not $libdir/libpicavk.so.0"; exit 1; }
  done
fi
"$prefix/bin/picavk" info >/dev/null
echo "consumer: $kind package ok (find_package, pkg-config, installed CLI)"
