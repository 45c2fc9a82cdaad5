#!/bin/bash
# Checks what a shared libpicavk exports: every defined dynamic symbol is a
# pvk_ function declared in include/picavk/picavk.h, every function declared
# there is exported, and the soname is versioned.
# Usage: scripts/check-exports.sh path/to/libpicavk.so [picavk.h]
set -euo pipefail
cd "$(dirname "$0")/.."
lib="$1"
header="${2:-include/picavk/picavk.h}"
status=0
exported="$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)"
# declarations start in column 0 (continuation lines are indented); not typedefs
declared="$(grep -E '^[A-Za-z]' "$header" | grep -v '^typedef' |
  grep -oE '\bpvk_[a-z0-9_]+\(' | tr -d '(' | sort -u)"
[ -n "$declared" ] || { echo "check-exports: no functions found in $header"; exit 1; }
while read -r s; do
  [ -n "$s" ] || continue
  case "$s" in
    pvk_*) grep -qx "$s" <<<"$declared" || { echo "check-exports: $s is exported but not declared in $header"; status=1; } ;;
    *) echo "check-exports: $s is exported (only pvk_ symbols may be)"; status=1 ;;
  esac
done <<<"$exported"
while read -r f; do
  grep -qx "$f" <<<"$exported" || { echo "check-exports: $f (in $header) is not exported: PVK_API missing?"; status=1; }
done <<<"$declared"
soname="$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
[[ "$soname" =~ ^libpicavk\.so\.[0-9]+$ ]] || { echo "check-exports: soname '$soname' is not libpicavk.so.N"; status=1; }
n_decl=$(grep -c . <<<"$declared")
if ((status == 0)); then
  echo "check-exports: $lib ($soname) exports exactly the $n_decl functions of $header"
fi
exit $status
