# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the benchmarks: rows of the table `make bench` prints (bench/run.sh).

# bench_row JOB NOW FLOOR RATIO GOAL MET [LEFT]: one row, when run by
# bench/run.sh (BENCH_TABLE names its file); MET is yes or no; LEFT, for a
# goal not met, says what the time above the floor is (measured, not guessed).
# Tabs separate the fields.
bench_row() {
	[ -n "${BENCH_TABLE:-}" ] || return 0
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "${7:-}" >>"$BENCH_TABLE"
}

# bench_profile DATA CMD...: CMD's CPU (its children's included) by shared
# object, from `perf record` into the scratch file DATA: "PERCENT OBJECT"
# lines (OBJECT without ".so..."); nothing without perf.
bench_profile() {
	local data=$1
	shift
	command -v perf >/dev/null || return 0
	perf record -q -o "$data" -- "$@" >/dev/null 2>&1 || { rm -f "$data"; return 0; }
	perf report -i "$data" --stdio --sort dso -g none 2>/dev/null |
		awk '/^ *[0-9.]+%/ { p = $1 + 0; d = $2; sub(/\.so.*/, "", d); v[d] += p }
			END { for (k in v) printf "%.2f %s\n", v[k], k }'
	rm -f "$data"
}

# bench_split DATA FLOOR CMD...: where CMD's CPU (its children's included)
# goes, by shared object, from `perf record` into the scratch file DATA:
# prints "REST OBJ1 P1% OBJ2 P2% ..." with REST the percentage outside the
# objects matching FLOOR (lzma, zstd: the decompressor, the floor's own work)
# and the five largest objects of it; nothing without perf.
bench_split() {
	local data=$1 floor=$2
	shift 2
	bench_profile "$data" "$@" | awk -v floor="$floor" '
		{ if ($2 ~ floor) lz += $1; else { rest += $1; v[$2] += $1 } }
		END { if (lz + rest == 0) exit
			printf "%.0f\n", rest
			for (k in v) printf "%.1f %s\n", v[k], k }' |
		{ read -r rest || return 0; echo "$rest$(sort -rn | head -n 5 | awk '{printf " %s %.0f%%", $2, $1}')"; }
}

# bench_share SPLIT OBJ: OBJ's percentage in a bench_split line (0 when absent)
bench_share() {
	echo "$1" | awk -v o="$2" '{ for (i = 2; i < NF; i += 2) if ($i == o) { sub(/%/, "", $(i + 1)); print $(i + 1); exit } print 0 }'
}

# bench_met VALUE OP LIMIT -> yes|no (OP: le lt ge gt)
bench_met() {
	awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
		m = op == "le" ? v <= l : op == "lt" ? v < l : op == "ge" ? v >= l : v > l
		print m ? "yes" : "no" }'
}
