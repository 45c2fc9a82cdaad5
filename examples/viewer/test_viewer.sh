#!/bin/bash
# The viewer in a real X window: record `picavk demo`'s trace, replay it in
# picavk-viewer on a private Xvfb server, stop at frame N, take a screenshot of
# the window (xwd) and compare it pixel for pixel with what the viewer wrote
# from pvk_frame_read (--screenshot: black, each screen where it drew it).
# With the nearest filter and integer scales the two must be identical; any
# Vulkan validation message (PVK_VALIDATION=1) fails too.
#
# usage: test_viewer.sh VIEWER PICAVK OUTDIR
set -euo pipefail
viewer="$1" picavk="$2" out="$3"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}" PVK_VALIDATION="${PVK_VALIDATION:-1}"
for tool in Xvfb xwd xwininfo convert compare; do
  command -v "$tool" >/dev/null || { echo "test_viewer: $tool is missing (scripts/setup.sh installs it)"; exit 1; }
done
rm -rf "$out" && mkdir -p "$out"

# The CLI lets the loader unload lavapipe at exit, after which LeakSanitizer
# cannot attribute the driver's allocations (as for ctest's cli_replay): the
# library's leaks are checked by its own tests.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  "$picavk" demo -o "$out/demo" --trace "$out/demo.pvt" >/dev/null

# A private X server on a free display number (ctest runs tests in parallel).
Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp 3>"$out/display" 2>"$out/xvfb.log" &
xvfb=$!
viewer_pid=
cleanup() {
  [ -n "$viewer_pid" ] && kill "$viewer_pid" 2>/dev/null || true
  kill "$xvfb" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 100); do [ -s "$out/display" ] && break; sleep 0.1; done
[ -s "$out/display" ] || { echo "test_viewer: Xvfb did not start"; cat "$out/xvfb.log"; exit 1; }
export DISPLAY=":$(cat "$out/display")"

status=0
# name, frame to stop at, viewer options
check() {
  local name="$1" frame="$2"
  shift 2
  local ref="$out/$name-expected.png" shot="$out/$name-window.png" log="$out/$name.log"
  echo "== $name: frame $frame, $*"
  # Under ASan, no leak check for the viewer: libxcb (Mesa's X11 WSI) and
  # libdbus (SDL) keep allocations to exit, and their stacks do not unwind
  # far enough for tests/lsan.supp.  Vulkan objects the viewer forgets are
  # still reported, by the validation layer at vkDestroyDevice.
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    "$viewer" "$@" --frames "$frame" --screenshot "$ref" "$out/demo.pvt" >"$log" 2>&1 &
  viewer_pid=$!
  # The viewer writes the expected image once frame N is on screen.
  for _ in $(seq 600); do
    [ -f "$ref" ] && break
    kill -0 "$viewer_pid" 2>/dev/null || break
    sleep 0.2
  done
  if [ ! -f "$ref" ]; then
    echo "FAIL $name: no $ref"; cat "$log"; status=1
    kill "$viewer_pid" 2>/dev/null || true; wait "$viewer_pid" || true; viewer_pid=
    return
  fi
  # The window, by its title; retried in case presentation lags the file.
  local diff=unknown
  for _ in 1 2 3 4 5; do
    sleep 0.5
    local wid
    wid="$(xwininfo -root -tree | awk '/"picavk viewer/ {print $1; exit}')"
    [ -n "$wid" ] || continue
    xwd -silent -id "$wid" | convert xwd:- "$shot"
    # the window has no alpha: compare RGB; AE = the number of differing pixels
    diff="$(convert "$ref" -alpha off png24:- | compare -metric AE "$shot" - null: 2>&1)" || true
    [ "$diff" = 0 ] && break
  done
  # SIGTERM is a quit event to SDL: the viewer tears down and reports
  # validation messages in its exit status.
  kill -TERM "$viewer_pid"
  local rc=0
  wait "$viewer_pid" || rc=$?
  viewer_pid=
  if [ "$diff" != 0 ]; then
    echo "FAIL $name: the window differs from pvk_frame_read in $diff pixels ($shot vs $ref)"; status=1
  fi
  if [ "$rc" != 0 ] || grep -q "validation" "$log"; then
    echo "FAIL $name: viewer exit status $rc"; cat "$log"; status=1
  fi
  [ "$diff" = 0 ] && [ "$rc" = 0 ] && echo "ok $name: $(identify -format '%wx%h' "$shot") window == pvk_frame_read, exit 0"
  return 0
}

check stacked 3 --layout stacked --scale 1 --filter nearest
check side-by-side 6 --layout side-by-side --scale 1 --filter nearest
check stacked-2x 2 --layout stacked --scale 2 --filter nearest
exit $status
