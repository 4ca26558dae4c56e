#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark (not a test): auditing a repository where it lives against
# mirroring it first.  The repository is tests/repos/mkrepo.sh's (the kmod
# test packages, a kernel-devel, 2,000 packages without modules), served by
# python3's http.server on 127.0.0.1.  Side by side, median of REPS runs:
#
#   url        taintguard audit URL, empty cache
#   mirror     wget -r the repository, then taintguard audit the copy (--no-cache)
#   cached     taintguard audit URL again, the cache of the first run
#
# Bytes read are counted from the server's log (the sizes of the files
# requested).  See bench/README.md.
#
# BIG=1 adds bench/audit-bench.sh's package of every module of the installed
# kernel (4,023 modules in a 104 MB rpm, zstd; built once, cached in
# bench/out/): a repository with a kernel-sized package, where the cache
# saves the most.
#
#   bench/repo-bench.sh          REPS=3 B=build BIG=1
set -eu
cd "$(dirname "$0")/.."
TOP=$PWD
B=${B:-build}
TG=$TOP/$B/taintguard
REPS=${REPS:-3}
POLICY=$TOP/policy/default.yaml
command -v wget >/dev/null || { echo "need wget (apt-get install wget)"; exit 1; }
[ -x "$TG" ] || make -s

T=$(mktemp -d /tmp/tg-repo-bench.XXXXXX)
SRV=
trap '[ -z "$SRV" ] || kill $SRV 2>/dev/null; rm -rf "$T"' EXIT
echo "# building the repository (tests/repos/mkrepo.sh; the fillers are cached)" >&2
tests/repos/mkrepo.sh "$T" >&2
W=$T/www
R=$W/repo
if [ -n "${BIG:-}" ]; then
	[ -z "${KVER:-}" ] || TG_KERNEL=$KVER
	. tests/lib/kernel.sh
	KVER=$TG_KERNEL
	big=$TOP/bench/out/kmods-$KVER-zst.rpm
	[ -f "$big" ] || BUILD_ONLY=1 bench/audit-bench.sh zst >&2
	cp "$big" "$R/Packages/k/"
	createrepo_c -q --update --workers 2 "$R" >&2
fi
python3 -u -m http.server --bind 127.0.0.1 0 --directory "$W" >"$T/http.out" 2>"$T/http.log" &
SRV=$!
for _ in $(seq 50); do grep -q ' port ' "$T/http.out" 2>/dev/null && break; sleep 0.1; done
PORT=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$T/http.out")
URL=http://127.0.0.1:$PORT/repo/
REPO_BYTES=$(du -sb "$R" | cut -f1)
NPKG=$(ls "$R"/Packages/*/*.rpm | wc -l)

now() { date +%s.%N; }
# bytes of the files requested since log line $1
bytes_since() {
	tail -n +"$(($1 + 1))" "$T/http.log" | sed -n 's/.*"GET \/\([^ ]*\) HTTP.*/\1/p' |
		(cd "$W" && xargs -r stat -c %s 2>/dev/null) | awk '{ s += $1 } END { print s + 0 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A TIMES BYTES CPU
for rep in $(seq "$REPS"); do
	rm -rf "$T/cache" "$T/mirror"
	m=$(wc -l <"$T/http.log")
	s=$(now)
	/usr/bin/time -f "%U %S" -o "$T/cpu" "$TG" audit -q --policy "$POLICY" --cache "$T/cache" --format json "$URL" >"$T/url.json" 2>/dev/null || true
	TIMES[url]+="$(awk -v s="$s" -v e="$(now)" 'BEGIN { print e - s }') "
	CPU[url]+="$(awk 'END { print $1 + $2 }' "$T/cpu") "
	BYTES[url]=$(bytes_since "$m")

	m=$(wc -l <"$T/http.log")
	s=$(now)
	/usr/bin/time -f "%U %S" -o "$T/cpu" "$TG" audit -q --policy "$POLICY" --cache "$T/cache" --format json "$URL" >"$T/cached.json" 2>/dev/null || true
	TIMES[cached]+="$(awk -v s="$s" -v e="$(now)" 'BEGIN { print e - s }') "
	CPU[cached]+="$(awk 'END { print $1 + $2 }' "$T/cpu") "
	BYTES[cached]=$(bytes_since "$m")

	m=$(wc -l <"$T/http.log")
	s=$(now)
	wget -q -r -np -nH --reject 'index.html*' -P "$T/mirror" "$URL"
	/usr/bin/time -f "%U %S" -o "$T/cpu" "$TG" audit -q --policy "$POLICY" --no-cache --format json "$T/mirror/repo" >"$T/mirror.json" 2>/dev/null || true
	TIMES[mirror]+="$(awk -v s="$s" -v e="$(now)" 'BEGIN { print e - s }') "
	CPU[mirror]+="$(awk 'END { print $1 + $2 }' "$T/cpu") "
	BYTES[mirror]=$(bytes_since "$m")
done
declare -A MED MCPU
for k in url cached mirror; do
	MED[$k]=$(echo "${TIMES[$k]}" | tr ' ' '\n' | grep . | median)
	MCPU[$k]=$(echo "${CPU[$k]}" | tr ' ' '\n' | grep . | median)
done
same=no
python3 - "$T/url.json" "$T/mirror.json" "$T/cached.json" <<'EOF' && same=yes
import json, sys
def v(f):
    d = json.load(open(f))
    return [(p["package"], p["status"]) for p in d["packages"]], d["summary"]
a, b, c = (v(f) for f in sys.argv[1:])
sys.exit(0 if a == b == c else 1)
EOF

printf '== repository: %d packages, %d bytes, served by python3 -m http.server on 127.0.0.1; %s CPUs; load %s; median of %d runs\n' \
	"$NPKG" "$REPO_BYTES" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$REPS"
printf '%-42s %7s %14s %13s\n' "" "wall" "taintguard CPU" "bytes read"
printf '%-42s %7.2f s %12.2f s %13d (%5.1f %% of the repository)\n' "taintguard audit URL (empty cache)" \
	"${MED[url]}" "${MCPU[url]}" "${BYTES[url]}" "$(awk -v a="${BYTES[url]}" -v b="$REPO_BYTES" 'BEGIN { print 100 * a / b }')"
printf '%-42s %7.2f s %12.2f s %13d (%5.1f %%)\n' "wget -r, then taintguard audit the copy" \
	"${MED[mirror]}" "${MCPU[mirror]}" "${BYTES[mirror]}" "$(awk -v a="${BYTES[mirror]}" -v b="$REPO_BYTES" 'BEGIN { print 100 * a / b }')"
printf '%-42s %7.2f s %12.2f s %13d (%5.1f %%)\n' "taintguard audit URL again (cached)" \
	"${MED[cached]}" "${MCPU[cached]}" "${BYTES[cached]}" "$(awk -v a="${BYTES[cached]}" -v b="$REPO_BYTES" 'BEGIN { print 100 * a / b }')"
awk -v u="${MED[url]}" -v m="${MED[mirror]}" -v c="${MED[cached]}" -v bu="${BYTES[url]}" -v bm="${BYTES[mirror]}" \
	-v r="$REPO_BYTES" 'BEGIN {
	printf "mirror+audit / URL audit   = %.1fx time, %.1fx bytes\n", m / u, bm / bu
	printf "URL audit reads            = %.1f %% of the repository (goal < 10 %%)\n", 100 * bu / r
	printf "cached re-audit            = %.2f s (goal < 1 s), %.1fx faster than the first\n", c, u / c }'
echo "same verdicts in all three: $same"
