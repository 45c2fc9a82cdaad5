#!/bin/bash
# The whole test suite: a normal build, an ASan+UBSan build and a Release
# (-O3, shared library) build, each run by ctest on lavapipe with the Khronos
# validation layer (any validation message fails a test), and the compile
# threads' test under ThreadSanitizer; then the packaging:
# the shared library exports only the API, and the installed static and shared
# packages build and run an out-of-tree program (find_package and pkg-config).
# The example viewer is built too and tested under Xvfb.  The 20 devkitPro GPU
# examples run at 1x and 4x where ../shared/realclient is (scripts/realclient.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
PICAVK_VIEWER=ON bash scripts/setup.sh asan release
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
export PVK_VALIDATION=1
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
echo "== normal build =="
(cd build && ctest --output-on-failure -j2) || status=1
echo "== ThreadSanitizer: the compile threads (tests/test_compile.c) =="
cmake -S . -B build-tsan -DPVK_WERROR=ON -DPVK_TSAN=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-tsan -j"$(nproc)" --target test_compile >/dev/null
TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp:ignore_noninstrumented_modules=1:halt_on_error=1" \
  build-tsan/tests/test_compile || status=1
echo "== ASan+UBSan build =="
(cd build-asan && ctest --output-on-failure -j2) || status=1
echo "== Release build (-O3, shared library) =="
(cd build-release && ctest --output-on-failure -j2) || status=1
echo "== real programs (../shared/realclient, skipped where absent) =="
bash scripts/realclient.sh build || status=1
echo "== packaging =="
bash scripts/check-exports.sh build-release/libpicavk.so || status=1
bash scripts/check-layers.sh build || status=1
bash scripts/consumer.sh build || status=1
bash scripts/consumer.sh build-release || status=1
exit $status
