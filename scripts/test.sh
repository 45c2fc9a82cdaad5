#!/bin/bash
# The whole test suite: a normal build and an ASan+UBSan build, each run by
# ctest on lavapipe with the Khronos validation layer (any validation message
# fails a test).  The example viewer is built too and tested under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
PICAVK_VIEWER=ON bash scripts/setup.sh asan
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
export PVK_VALIDATION=1
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
echo "== normal build =="
(cd build && ctest --output-on-failure -j2) || status=1
echo "== ASan+UBSan build =="
(cd build-asan && ctest --output-on-failure -j2) || status=1
exit $status
