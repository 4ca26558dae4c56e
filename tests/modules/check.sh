#!/bin/bash
# Build the test modules (kbuild, against the installed linux-headers) and
# compare taintguard's predictions with cases.tsv, the real kernel's verified
# behaviour (tests/kernel/ re-proves it under QEMU).
set -eu
cd "$(dirname "$0")/../.."
B=${B:-build}
OUT=${TG_MODULES_OUT:-tests/modules/out}
. tests/lib/kernel.sh
K=$TG_KERNEL
tests/modules/build.sh "$OUT" >/dev/null
mkdir -p tests/out
exec python3 tests/modules/compare.py "$B/taintguard" "$OUT" tests/modules/cases.tsv "$K"
