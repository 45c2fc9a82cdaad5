#!/bin/bash
# Short libFuzzer runs of every fuzz target (default 60 s each), or of the
# targets named after the time (fuzz_trace_struct ...), seeded from
# tests/fuzz/corpus/<target>/.  New inputs go to build-fuzz/corpus/<target>/;
# a crash leaves its input in build-fuzz/ and fails the script.
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH="${1:-60}"
shift || true
TARGETS=("$@")
if ((${#TARGETS[@]} == 0)); then
  for src in tests/fuzz/fuzz_*.c; do TARGETS+=("$(basename "$src" .c)"); done
fi
bash scripts/setup.sh
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
# Guest memory (134 MiB touched by fills), lavapipe and ASan shadow memory and
# quarantine exceed libFuzzer's default 2 GiB RSS limit without any leak.
export ASAN_OPTIONS="detect_leaks=0:quarantine_size_mb=64"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DPVK_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"$(nproc)"
status=0
for t in "${TARGETS[@]}"; do
  mkdir -p "build-fuzz/corpus/$t"
  echo "== $t: ${SECONDS_EACH}s =="
  # fuzz_vs_paths compiles new programs for every input (lavapipe took up to
  # 31 s for a geometry pre-pass on a loaded machine): a longer timeout
  timeout=20; [ "$t" = fuzz_vs_paths ] && timeout=90
  (cd build-fuzz && "./tests/$t" -max_total_time="$SECONDS_EACH" -max_len=65536 -timeout="$timeout" -rss_limit_mb=6144 -malloc_limit_mb=2048 \
      "corpus/$t" "../tests/fuzz/corpus/$t") || status=1
done
exit $status
