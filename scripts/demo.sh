#!/bin/bash
# Builds picavk and runs its demo: writes demo-out/top.png and demo-out/bottom.png.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
./build/picavk demo -o "${1:-demo-out}"
