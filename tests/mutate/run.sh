#!/bin/bash
# Mutation test of the reader over every test module (tests/mutate/mutate.c).
set -eu
cd "$(dirname "$0")/../.."
B=${B:-build}
OUT=${TG_MODULES_OUT:-tests/modules/out}
. tests/lib/kernel.sh
K=$TG_KERNEL
tests/modules/build.sh "$OUT" >/dev/null
mapfile -t files < <(find "$OUT" -path "$OUT/.*" -prune -o -type f \( -name '*.ko' -o -name '*.ko.*' \) -print | sort)
exec "$B/tests/mutate" "$K" policy/default.yaml "${files[@]}"
