#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench`: run the named benchmarks (default: all of bench/*-bench.sh),
# each one's output kept in bench/out/NAME.log, then print one table of what
# they measured: job, now, floor, ratio, goal, met.  A benchmark that writes
# no row (bench_row, bench/lib.sh) is listed as such.  Not a test: see
# bench/README.md for what the numbers mean on a shared machine.
#
#   bench/run.sh [audit rpm kernel-update repo tree ...]
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=$PWD/bench/out
mkdir -p "$OUT"
export BENCH_TABLE=$OUT/table.tsv
: >"$BENCH_TABLE"
names=${*:-$(ls bench/*-bench.sh | sed 's|bench/||; s|-bench\.sh$||')}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
failed=""
for n in $names; do
	echo "== bench/$n-bench.sh (log: bench/out/$n.log)"
	before=$(wc -l <"$BENCH_TABLE")
	if ! "bench/$n-bench.sh" 2>&1 | tee "$OUT/$n.log"; then
		failed="$failed $n"
	fi
	[ "$(wc -l <"$BENCH_TABLE")" -gt "$before" ] ||
		printf '%s\t-\t-\t-\t-\t(no row: see bench/out/%s.log)\n' "$n" "$n" >>"$BENCH_TABLE"
done
echo
echo "== make bench: $(nproc) CPUs; load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
{
	printf 'job\tnow\tfloor\tratio\tgoal\tmet\n'
	cut -f1-6 "$BENCH_TABLE"
} | column -t -s "$(printf '\t')"
# for each goal not met: what the time above the floor is, as the benchmark measured it
awk -F '\t' '$6 == "no" && $7 != "" { if (!n++) print "\nwhere a goal is not met, what is left:"; print "- " $1 ": " $7 }' "$BENCH_TABLE"
[ -z "$failed" ] || { echo "failed:$failed"; exit 1; }
