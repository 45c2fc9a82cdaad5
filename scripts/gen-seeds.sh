#!/bin/bash
# Regenerates the generated seeds in tests/fuzz/corpus/ (fuzz_trace_struct/*.bin,
# fuzz_citrace/*.ctf and the same sessions as fuzz_trace/*.pvt) from the demo
# and the scene scripts: each session is recorded as a picavk trace and
# converted by tests/fuzz/gen_seeds.c; the .pvt files are the traces
# fuzz_trace_struct builds from the .bin files.  Needs build/ (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
cmake --build build --target gen_seeds picavk-cli fuzz_trace_struct_corpus -j"$(nproc)" >/dev/null
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
for n in demo citro3d_frame shader_setup tev_blend immediate transfers; do
  PVK_FUZZ_DUMP="$out/fuzz_trace/$n.pvt" build/tests/fuzz_trace_struct_corpus "$out/fuzz_trace_struct/$n.bin" >/dev/null
done
