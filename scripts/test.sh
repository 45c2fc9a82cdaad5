#!/bin/bash
# The test command (README, CI's .ci/run).  What each part adds and why it is
# there: docs/testing.md#the-test-command.
#
#   bash scripts/test.sh           everything, before a commit that lands
#                                  (about 24 minutes on 2 cores)
#   bash scripts/test.sh --quick   the loop while working: the ASan+UBSan
#                                  build and the tests labelled quick
#                                  (about 5 minutes once built)
#
# Everything: an ASan+UBSan build (Debug) runs every test and variant on
# lavapipe with the Khronos validation layer (any validation message fails a
# test); a Release build (-O3, NDEBUG, shared library) runs the tests whose
# C code -O3 can change; the compile threads' test runs under
# ThreadSanitizer; the 20 devkitPro GPU examples run at 1x and 4x against a
# static build (scripts/realclient.sh, skipped where ../shared/realclient is
# absent); then the packaging: the shared library exports only the API, the
# folders call only downwards, and the installed static and shared packages
# build and run an out-of-tree program (find_package and pkg-config).  Each
# phase's time and the 10 slowest tests are printed at the end; past 45
# minutes the command fails, so that a slow suite is seen the day it gets slow.
set -uo pipefail
cd "$(dirname "$0")/.."
QUICK=0
case "${1:-}" in
  --quick) QUICK=1 ;;
  "") ;;
  *) echo "usage: bash scripts/test.sh [--quick]"; exit 2 ;;
esac
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
export PVK_VALIDATION=1
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
LIMIT_S=$((45 * 60))
LOGS="$(mktemp -d)"
trap 'rm -rf "$LOGS"' EXIT
status=0
phases=()
T0=$(date +%s)

# phase NAME COMMAND...: runs it, records its time and whether it passed.
phase() {
  local name="$1" t=$(date +%s) rc=0
  shift
  echo "== $name =="
  "$@" || rc=$?
  [ $rc = 0 ] || status=1
  phases+=("$(printf '%-44s %5d s  %s' "$name" $(($(date +%s) - t)) "$([ $rc = 0 ] && echo ok || echo FAILED)")")
}

# ctest in DIR with the remaining arguments; its per-test times go to the log.
run_ctest() {
  local dir="$1"
  shift
  (cd "$dir" && ctest --output-on-failure -j2 "$@") 2>&1 | tee "$LOGS/$(basename "$dir").ctest"
  return "${PIPESTATUS[0]}"
}

build_dir() { # DIR, cmake arguments...
  cmake -S . -B "$1" -DPVK_WERROR=ON -DPICAVK_VIEWER=ON "${@:2}" >/dev/null && cmake --build "$1" -j"$(nproc)"
}

phase "setup (packages missing, if any)" bash scripts/setup.sh --packages-only
if [ $QUICK = 1 ]; then
  phase "build: build-asan (ASan+UBSan, Debug)" build_dir build-asan -DPVK_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
  phase "ctest build-asan -L quick" run_ctest build-asan -L quick
else
  # Release first: it fills the shader caches (picavk's and Mesa's, on disk)
  # at native speed; lavapipe's LLVM under ASan's malloc is several times
  # slower at building the same pipelines (test_vs_gpu: 297 s cold, 49 s warm)
  phase "build: build-release (-O3, shared library)" build_dir build-release -DCMAKE_BUILD_TYPE=Release -DPICAVK_SHARED=ON
  phase "ctest build-release -L release" run_ctest build-release -L release
  phase "build: build-asan (ASan+UBSan, Debug)" build_dir build-asan -DPVK_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
  phase "ctest build-asan (every test and variant)" run_ctest build-asan
  # the real programs need the static library; they run one process at a
  # time, so they go beside the ThreadSanitizer phase
  phase "build: build (static library, CLI)" bash -c '
    cmake -S . -B build -DPVK_WERROR=ON >/dev/null &&
    cmake --build build -j"$(nproc)" --target picavk picavk-cli scale_judge'
  bash scripts/realclient.sh build > "$LOGS/realclient.log" 2>&1 &
  realclient=$!
  phase "build + run: ThreadSanitizer, tests/test_compile.c" bash -c '
    cmake -S . -B build-tsan -DPVK_WERROR=ON -DPVK_TSAN=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null &&
    cmake --build build-tsan -j"$(nproc)" --target test_compile >/dev/null &&
    TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp:ignore_noninstrumented_modules=1:halt_on_error=1" \
      build-tsan/tests/test_compile'
  wait_realclient() { local rc=0; wait "$realclient" || rc=$?; cat "$LOGS/realclient.log"; return $rc; }
  phase "real programs (scripts/realclient.sh; the rest of their time)" wait_realclient
  phase "packaging: exports, layers, installed packages" bash -c '
    s=0
    bash scripts/check-exports.sh build-release/libpicavk.so || s=1
    bash scripts/check-layers.sh build-release || s=1
    bash scripts/consumer.sh build || s=1
    bash scripts/consumer.sh build-release || s=1
    exit $s'
fi

total=$(($(date +%s) - T0))
echo
echo "== times =="
printf '%s\n' "${phases[@]}"
printf '%-44s %5d s (%d min %02d s)\n' "total" $total $((total / 60)) $((total % 60))
echo "slowest tests:"
for f in "$LOGS"/*.ctest; do
  [ -e "$f" ] || continue
  sed -n "s/^ *[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) .* \([0-9.]*\) sec\$/\2 \1 ($(basename "$f" .ctest))/p" "$f"
done | sort -rn | head -10 | while read -r s n b; do
  printf '  %8.1f s  %s %s\n' "$s" "$n" "$b"
done
if [ $total -gt $LIMIT_S ]; then
  echo "test.sh: FAILED: the suite took $((total / 60)) minutes, over the 45-minute limit; make it faster (docs/testing.md)"
  status=1
fi
[ $status = 0 ] && echo "test.sh: PASS" || echo "test.sh: FAIL"
exit $status
