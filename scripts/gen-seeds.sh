#!/bin/bash
# Regenerates the generated seeds in tests/fuzz/corpus/ (fuzz_trace_struct/*.bin
# and fuzz_citrace/*.ctf) from the demo and the scene scripts: each session is
# recorded as a picavk trace and converted by tests/fuzz/gen_seeds.c.  Needs
# build/ (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
cmake --build build --target gen_seeds picavk-cli -j"$(nproc)" >/dev/null
gen=build/tests/gen_seeds
out=tests/fuzz/corpus
mkdir -p "$out/fuzz_trace_struct" "$out/fuzz_citrace"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
./build/picavk demo -o "$tmp" --trace "$tmp/demo.pvt" >/dev/null
$gen "$out" demo "$tmp/demo.pvt"                                   # six frames, every LCD format, a 3D frame
$gen "$out" citro3d_frame tests/scenes/citro3d_frame.pvs           # fills, one command list of two draws, a display transfer
$gen "$out" shader_setup --setup tests/traces/setup.pvs tests/traces/frame.pvs  # shader state in the initial snapshot
$gen "$out" tev_blend tests/scenes/tev_blend.pvs                   # TEV stages and blending
$gen "$out" immediate tests/scenes/immediate_cmdlist.pvs           # immediate-mode vertices in a command list
$gen "$out" transfers tests/scenes/tiling.pvs tests/scenes/bad_transfer.pvs  # display transfer, a refused texture copy
