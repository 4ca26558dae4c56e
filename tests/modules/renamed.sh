#!/bin/bash
# The installed Debian kernels' files under vendor-like release names (RHEL 9.5
# and 9.4 style, and the reverse namings) judged case by case as under their
# own names: the loader's rules come from the files (tests/modules/renamed.py).
set -eu
cd "$(dirname "$0")/../.."
B=${B:-build}
OUT=${TG_MODULES_OUT:-tests/modules/out}
. tests/lib/kernel.sh
tests/modules/build.sh "$OUT" >/dev/null
# the names exist only in this private mount namespace
[ "$(id -u)" = 0 ] || { echo "renamed: needs root (a private mount namespace)"; exit 77; }
TG_RENAMED_NS=1 exec unshare -m --propagation private python3 tests/modules/renamed.py "$B/taintguard" "$OUT" tests/modules/cases.tsv
