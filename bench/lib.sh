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

# bench_verify MODULE -> "ALG MS": the algorithm MODULE (.ko, .ko.xz, .ko.zst,
# .ko.gz) is signed with (rsa4096, ecdsap384, ...), and what one verification
# of such a signature costs on this machine, in ms, done as libtaintguard does
# it (bench/verify-speed.c, built by make bench), measured now.  Every
# module's signature must be checked (issue 28): N modules cost at least N
# times this, which no decompression floor contains.  Nothing for an
# unsigned module or without openssl (which reads the signature).
bench_verify() {
	local m=$1 dec=cat alg
	command -v openssl >/dev/null || return 0
	case $m in *.xz) dec="xz -dc" ;; *.zst) dec="zstd -dcq" ;; *.gz) dec="gzip -dc" ;; esac
	# the PKCS#7 blob before struct module_signature (12 bytes, sig_len last,
	# big-endian) and the kernel's trailer; its signature algorithm and the
	# length of the signature itself (the SignerInfo's last OCTET STRING)
	alg=$($dec "$m" | python3 -c '
import struct, sys
d = sys.stdin.buffer.read(); t = b"~Module signature appended~\n"
if not d.endswith(t): sys.exit(0)
n = struct.unpack(">I", d[-len(t) - 4:-len(t)])[0]
sys.stdout.buffer.write(d[-len(t) - 12 - n:-len(t) - 12])' |
		openssl asn1parse -inform DER 2>/dev/null | awk '
		/:rsaEncryption/ { t = "rsa" } /:ecdsa-with/ { t = "ec" }
		/OCTET STRING/ { if (match($0, / l= *[0-9]+/)) l = substr($0, RSTART + 3, RLENGTH - 3) + 0 }
		END { if (t == "rsa") print "rsa" l * 8
		      else if (t == "ec") print (l <= 73 ? "ecdsap256" : l <= 105 ? "ecdsap384" : "ecdsap521") }')
	[ -n "$alg" ] || return 0
	[ -x "${B:-build}/bench/verify-speed" ] || make -s B="${B:-build}" "${B:-build}/bench/verify-speed" >&2
	"${B:-build}/bench/verify-speed" "$alg"
}

# bench_with_verify NOW FLOOR N MS CPUS -> "SECONDS RATIO": the floor plus the
# verification of N signatures at MS each spread over CPUS, and NOW against it
bench_with_verify() {
	awk -v now="$1" -v f="$2" -v n="$3" -v ms="$4" -v c="$5" 'BEGIN {
		g = f + n * ms / 1000 / c; printf "%.2f %.2f\n", g, now / g }'
}

# bench_verify_row NOW FLOOR N CPUS LIMIT ALG MS: the row of a job against its
# floor plus N signature checks at MS each over CPUS (goal: ratio <= LIMIT);
# NOW and FLOOR in seconds
bench_verify_row() {
	local vf vr
	read -r vf vr <<<"$(bench_with_verify "$1" "$2" "$3" "$7" "$4")"
	bench_row "  + signature checks ($3 x $7 ms $6)" "$(printf '%.2f s' "$1")" "$vf s, $4 CPUs" "$vr" \
		"<= $5" "$(bench_met "$vr" le "$5")" \
		"$(awk -v a="$1" -v b="$vf" 'BEGIN { printf "%.2f s beyond the floor and the signature checks: see the row above", a - b }')"
}

# bench_share_sum SPLIT OBJ...: the objects' percentages in a bench_split line, added
bench_share_sum() {
	local s=$1 o t=0
	shift
	for o; do t=$(awk -v t="$t" -v p="$(bench_share "$s" "$o")" 'BEGIN { print t + p }'); done
	echo "$t"
}

# bench_verify_left N CPUS ALG MS GOAL -> what a LEFT field says of the
# signature checks: the floor verifies none, the issue requires all N
bench_verify_left() {
	awk -v n="$1" -v c="$2" -v a="$3" -v ms="$4" -v g="$5" 'BEGIN {
		printf "the floor verifies no signature; the %d the issue requires cost at least %d x %.3f ms (%s as taintguard verifies it, measured in this run) = %.2f s over %d CPU(s): against the floor plus that, see the row \"+ signature checks\" (goal %s)",
			n, n, ms, a, n * ms / 1000 / c, c, g }'
}
