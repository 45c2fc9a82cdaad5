#!/bin/bash
# Real programs on picavk: the 20 devkitPro graphics/gpu examples (unmodified,
# with unmodified citro3d/citro2d; the harness lives in ../shared/realclient,
# outside this repository) built against build/, run at 1x and at SCALE x
# (default 4), every screen judged by tests/scale_judge.c: the N x screen is
# exactly N times the 1x one, its box average equals the 1x picture within
# the tolerance wherever that is flat, and every top screen has N x detail
# (N x N blocks that are not one colour) except stereoscopic_2d, whose
# sprites sit on the pixel grid and sample a nearest-filtered texture texel
# for pixel: at N x each texel is an N x N block, as on any N x renderer.
# Each example must exit 0 with no picavk log line and no bad input.
# Skips (exit 0) where ../shared/realclient is absent.
#
#   bash scripts/realclient.sh [BUILD_DIR, default build] [OUT, default BUILD_DIR/realclient]
set -euo pipefail
cd "$(dirname "$0")/.."
HARNESS="${REALCLIENT:-../shared/realclient}"
BUILD="${1:-build}"
OUT="${2:-$BUILD/realclient}"
SCALE="${SCALE:-4}"
if [ ! -x "$HARNESS/run-examples.sh" ]; then
  echo "realclient: $HARNESS not found; skipped"
  exit 0
fi
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
cmake --build "$BUILD" --target scale_judge picavk -j"$(nproc)" >/dev/null
rm -rf "$OUT"
PVK_SCALE=1 "$HARNESS/run-examples.sh" . "$BUILD" "$OUT/x1" >"$OUT.x1.log" 2>&1 || true
PVK_SCALE="$SCALE" "$HARNESS/run-examples.sh" . "$BUILD" "$OUT/x$SCALE" >"$OUT.x$SCALE.log" 2>&1 || true
status=0 examples=0
for dir in "$OUT/x1"/*/; do
  ex="$(basename "$dir")"
  examples=$((examples + 1))
  for s in 1 "$SCALE"; do
    d="$OUT/x$s/$ex"
    if [ "$(cat "$d/exit_code" 2>/dev/null)" != 0 ]; then
      echo "FAIL $ex at ${s}x: exit code $(cat "$d/exit_code" 2>/dev/null || echo none)"; status=1
    fi
    if grep -q "^\[picavk" "$d/stderr.log" 2>/dev/null || ! grep -q "stats: bad_input 0 out_of_range 0 unsupported 0 validation 0" "$d/stderr.log"; then
      echo "FAIL $ex at ${s}x: picavk logged or counted a problem (see $d/stderr.log)"; status=1
    fi
  done
  for png in "$dir"*.png; do
    screen="$(basename "$png")"
    detail=--no-detail
    [ "$screen" = top.png ] && [ "$ex" != stereoscopic_2d ] && detail=
    if ! line="$("$BUILD/tests/scale_judge" "$SCALE" "$png" "$OUT/x$SCALE/$ex/$screen" $detail)"; then
      status=1
    fi
    echo "$line" | sed "s|$OUT/x$SCALE/||"
  done
done
[ "$examples" -ge 20 ] || { echo "realclient: only $examples examples ran (see $OUT.x1.log)"; status=1; }
[ $status = 0 ] && echo "realclient: PASS ($examples examples at 1x and ${SCALE}x)" || echo "realclient: FAIL"
exit $status
