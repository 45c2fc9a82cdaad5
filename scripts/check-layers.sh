#!/bin/bash
# The library's folders read bottom-up: translator/ and shaders/, then gpu/
# (the Vulkan layer), vram/ (guest memory, surfaces, transfers), runtime/ (the
# context and the API).  A folder may include and call only the folders below
# it.  Checked two ways: the #include lines of each folder's sources, and the
# pvk_ symbols each folder's objects in BUILD take from the folders above
# (nm -u against nm --defined-only).
#   bash scripts/check-layers.sh [BUILD]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
OBJ="$BUILD/CMakeFiles/picavk_objects.dir"
LAYERS=(translator shaders gpu vram runtime)
# what each layer may include besides itself and the public header
declare -A BELOW=([translator]="" [shaders]="" [gpu]="shaders" [vram]="translator shaders gpu"
                  [runtime]="translator shaders gpu vram")
status=0
for l in "${LAYERS[@]}"; do
  for other in "${LAYERS[@]}"; do
    [[ $other == "$l" || " ${BELOW[$l]} " == *" $other "* ]] && continue
    if hits=$(grep -n "#include \"$other/" "$l"/*.[ch] 2>/dev/null); then
      echo "layers: $l/ includes $other/, which is not below it:"; echo "$hits"; status=1
    fi
  done
done
if [[ ! -d $OBJ ]]; then
  echo "layers: no objects in $OBJ (build first); includes checked only"
  exit $status
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
objects() { # the objects of the folder's current sources (a build dir may keep stale ones)
  for src in "$1"/*.c; do echo "$OBJ/$src.o"; done
}
for l in "${LAYERS[@]}"; do
  mapfile -t objs < <(objects "$l")
  nm -u "${objs[@]}" | awk '$1 == "U" && $2 ~ /^pvk_/ {print $2}' | sort -u >"$tmp/$l.u"
  nm --defined-only "${objs[@]}" | awk '$2 == "T" && $3 ~ /^pvk_/ {print $3}' | sort -u >"$tmp/$l.d"
done
for i in "${!LAYERS[@]}"; do
  for ((j = i + 1; j < ${#LAYERS[@]}; j++)); do
    lo=${LAYERS[$i]} hi=${LAYERS[$j]}
    [[ $lo == translator && $hi == shaders ]] && continue # side by side: neither calls the other
    if up=$(comm -12 "$tmp/$lo.u" "$tmp/$hi.d") && [[ -n $up ]]; then
      echo "layers: $lo/ calls up into $hi/: $(echo $up)"; status=1
    fi
  done
done
[[ $status == 0 ]] && echo "layers: ${LAYERS[*]}: every include and call goes down"
exit $status
