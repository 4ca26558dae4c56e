#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark (not a test): `taintguard check --root` over a whole kernel's
# in-tree module tree, against the floor of merely decompressing the same
# files on all CPUs (`xz -dc`, one process per CPU).  The kernel is one
# tests/kernel/target.sh unpacks (default 7: trixie-backports' newest 7.x,
# every module a .ko.xz under /usr/lib/modules); median of REPS runs each:
#
#   check    taintguard check --root ROOT --kernel KVER --format json TREE
#            (read, decompress, verify each signature with the image's keys,
#            predict, apply the default policy), --jobs = CPUs
#   floor    xz -dc of every module, xargs -P CPUs
#
#   bench/tree-bench.sh [KVER|SERIES]          REPS=3 B=build
# Needs what tests/kernel/target.sh needs (network on the first run).
set -eu
cd "$(dirname "$0")/.."
B=${B:-build}
. bench/lib.sh
REPS=${REPS:-3}
SPEC=${1:-7}
CPUS=$(nproc)
[ -x "$B/taintguard" ] || make -s
read -r ROOT K _ <<<"$(tests/kernel/target.sh "$SPEC")"
TREE=$ROOT/lib/modules/$K/kernel
W=$(mktemp -d /tmp/tg-treebench.XXXXXX)
trap 'rm -rf "$W"' EXIT
n=$(find "$TREE" -name '*.ko*' | wc -l)
mb=$(du -smL "$TREE" | cut -f1)
timed() { # cmd... -> seconds on stdout
	local t0 t1
	t0=$(date +%s.%N)
	"$@"
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}
check() { "$B/taintguard" check --root "$ROOT" --kernel "$K" --format json -j "$CPUS" "$TREE" >"$W/check.json"; }
floor() { find "$TREE" -name '*.ko.xz' -print0 | xargs -0 -P"$CPUS" -n 64 xz -dc >/dev/null; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
floor # warm the page cache
for i in $(seq "$REPS"); do timed check; done | median >"$W/check"
for i in $(seq "$REPS"); do timed floor; done | median >"$W/floor"
c=$(cat "$W/check") f=$(cat "$W/floor")
echo "== kernel $K: $n modules, $mb MB of .ko.xz, $CPUS CPUs, median of $REPS runs"
printf 'taintguard check --root   %6.2f s\n' "$c"
printf 'xz -dc floor (%d CPUs)     %6.2f s\n' "$CPUS" "$f"
r=$(echo "scale=4; $c / $f" | bc)
printf 'ratio check/floor         %6.2f\n' "$r"
# where the time above the floor goes: a profile of one check, by shared object
split=$(bench_split "$W/perf.data" lzma "$B/taintguard" check --root "$ROOT" --kernel "$K" --format json -j "$CPUS" "$TREE")
cpu=$( { TIMEFORMAT='%3U %3S'; time check; } 2>&1 | awk '{ print $1 + $2 }')
left=""
if [ -n "$split" ]; then
	left=$(awk -v s="$split" -v n="$n" -v c="$cpu" -v cr="$(bench_share_sum "$split" libcrypto libhogweed libgmp)" 'BEGIN {
		split(s, v, " ")
		printf "%s%% of the check'"'"'s %.2f s CPU is outside liblzma (%s); libcrypto, libhogweed and libgmp (nettle'"'"'s P-384 arithmetic), %.2f s or %.2f ms a module, are every module'"'"'s SHA-256 and its signature checked against the key in the kernel image (%d modules), which the floor does not do",
			v[1], c, substr(s, length(v[1]) + 2), c * cr / 100, c * cr / 100 / n * 1000, n }')
	echo "where the time above the floor goes: $left"
fi
# the signature checks: required of every module, not in the floor
read -r valg vms _ <<<"$(bench_verify "$(find "$TREE" -name '*.ko*' | head -n 1)")" || true
if [ -n "${vms:-}" ]; then
	left="$left; $(bench_verify_left "$n" "$CPUS" "$valg" "$vms" "<= 1.05")"
fi
bench_row "check of $K's tree ($n modules)" "$(printf '%.2f s' "$c")" \
	"$(printf '%.2f s xz -dc, %d CPUs' "$f" "$CPUS")" "$(printf '%.2f' "$r")" "<= 1.05" "$(bench_met "$r" le 1.05)" "$left"
[ -z "${vms:-}" ] || bench_verify_row "$c" "$f" "$n" "$CPUS" 1.05 "$valg" "$vms"
python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print("# verdicts: %d, allowed: %d, refused: %d, with P: %d" % (len(v), sum(x.get("action") == "allow" for x in v), sum(not x.get("loads") for x in v), sum("P" in (x.get("taint") or "") for x in v)))' "$W/check.json"
