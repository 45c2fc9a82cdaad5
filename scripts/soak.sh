#!/bin/bash
# Soak test (not part of scripts/test.sh or CI): the random hostile-host
# workload of tests/fuzz/soak.c (fills, texture copies, draws, host writes,
# flushes checked against a CPU model, VBlanks, teardown with work in flight)
# for MINUTES in each guest-memory mode (imported, then mirrored with
# PVK_DEBUG=no-host-import), in the ASan+UBSan build with the validation layer
# on.  Prints resident memory every 10 s and any call over 2 s (SOAK_SLOW_MS);
# fails on a sanitizer report, a validation message, a logged error, lost
# data, a slow call or a crash.  Logs go to build-asan/soak-<mode>.log.
#
#   bash scripts/soak.sh [MINUTES per mode, default 10] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES="${1:-10}"
SEED="${2:-$(date +%s)}"
bash scripts/setup.sh asan >/dev/null
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
export PVK_VALIDATION=1
# ASan's default 256 MiB quarantine of freed memory (lavapipe and the
# validation layer free a lot) grows the resident size to several GiB and
# would hide picavk's own growth; 16 MiB still catches recent use-after-free.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:quarantine_size_mb=16"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
for mode in imported mirrored; do
  log="build-asan/soak-$mode.log"
  echo "== soak: $mode guest memory, $MINUTES min, seed $SEED =="
  if [ "$mode" = mirrored ]; then export PVK_DEBUG=no-host-import; else unset PVK_DEBUG; fi
  if ! build-asan/tests/soak "$((MINUTES * 60))" "$SEED" 2>&1 | tee "$log"; then
    status=1
  fi
  # sanitizer reports that did not stop the run still fail it
  if grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$log"; then
    echo "soak: sanitizer report in $log"
    status=1
  fi
done
[ $status = 0 ] && echo "soak: PASS" || echo "soak: FAIL"
exit $status
