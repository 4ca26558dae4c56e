# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the benchmarks: rows of the table `make bench` prints (bench/run.sh).

# bench_row JOB NOW FLOOR RATIO GOAL MET: one row, when run by bench/run.sh
# (BENCH_TABLE names its file); MET is yes or no.  Tabs separate the fields.
bench_row() {
	[ -n "${BENCH_TABLE:-}" ] || return 0
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$BENCH_TABLE"
}

# bench_met VALUE OP LIMIT -> yes|no (OP: le lt ge gt)
bench_met() {
	awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
		m = op == "le" ? v <= l : op == "lt" ? v < l : op == "ge" ? v >= l : v > l
		print m ? "yes" : "no" }'
}
