#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark (not a test): `taintguard audit` on one RPM holding every module of
# the installed kernel, against the pipeline an admin would write and against
# the floor of merely decompressing every module.  See bench/README.md.
#
#   bench/audit-bench.sh [xz|zst ...]      (default: xz zst)
#   KVER=... JOBS=2 B=build
set -eu
cd "$(dirname "$0")/.."
TOP=$PWD
B=${B:-build}
TG=$TOP/$B/taintguard
# the kernel linux-image-amd64 installed (never the host's uname -r)
[ -z "${KVER:-}" ] || TG_KERNEL=$KVER
. tests/lib/kernel.sh
KVER=$TG_KERNEL
SRC=/lib/modules/$KVER/kernel
JOBS=${JOBS:-2}
OUT=$TOP/bench/out
SYMVERS=/lib/modules/$KVER/build/Module.symvers
[ -f "$SYMVERS" ] || SYMVERS=/usr/src/linux-headers-$KVER/Module.symvers
mkdir -p "$OUT"
[ -x "$TG" ] || [ -n "${BUILD_ONLY:-}" ] || make -s
command -v /usr/bin/time >/dev/null || apt-get install -y -qq time >/dev/null
[ -x /usr/bin/time ] || { echo "need /usr/bin/time (apt-get install time)"; exit 1; }

# build_rpm xz|zst -> $OUT/kmods-$KVER-<c>.rpm and $OUT/stage-$KVER-<c> (the .ko.<c> files), cached.
# The kernel's tree may hold .ko (Debian's 6.1) or modules kbuild compressed
# already (.ko.xz, .ko.zst: Debian's 6.12); each is staged as .ko.<c>: copied
# when it is in that form already, else decompressed and compressed again.
build_rpm() {
	local c=$1 stage=$OUT/stage-$KVER-$1 rpm=$OUT/kmods-$KVER-$1.rpm top=$OUT/rpmbuild-$1
	if [ -f "$rpm" ] && [ -f "$stage/.done" ]; then return; fi
	echo "# building $rpm (once; cached)" >&2
	rm -rf "$stage" "$top"
	mkdir -p "$stage" "$top"/{SPECS,RPMS,BUILD,SOURCES,SRPMS}
	(cd "$SRC" && find . \( -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' \) -type f -print) |
		sed 's|^\./||' | sort >"$OUT/list"
	[ -s "$OUT/list" ] || { echo "no modules (.ko, .ko.xz, .ko.zst) under $SRC" >&2; exit 1; }
	sed 's|/[^/]*$||' "$OUT/list" | sort -u | (cd "$stage" && xargs mkdir -p)
	# as kbuild's CONFIG_MODULE_COMPRESS_XZ/ZSTD does (scripts/Makefile.modinst), one module per process
	(cd "$SRC" && xargs -a "$OUT/list" -P"$JOBS" -I{} sh -c '
		c=$1 src=$2 dst=$3/${2%.ko*}.ko.$1
		case $src in
		*.ko.$c) exec cp "$src" "$dst" ;;
		*.ko.xz) dec="xz -dc" ;;
		*.ko.zst) dec="zstd -q -dc" ;;
		*) dec=cat ;;
		esac
		if [ "$c" = xz ]; then
			$dec "$src" | xz --check=crc32 --lzma2=dict=1MiB -T1 -c >"$dst"
		else
			$dec "$src" | zstd -q -T1 -c >"$dst"
		fi' _ "$c" {} "$stage")
	cat >"$top/SPECS/kmods.spec" <<EOF
Name: kmods-$c
Version: 1.0
Release: 1
Summary: every module of $KVER as .ko.$c (taintguard benchmark)
License: GPL-2.0-only
BuildArch: noarch
AutoReqProv: no
%global debug_package %{nil}
%global __os_install_post %{nil}
%description
benchmark
%install
mkdir -p %{buildroot}/lib/modules/$KVER
cp -a $stage %{buildroot}/lib/modules/$KVER/kernel
%files
/lib/modules/$KVER/kernel
EOF
	rpmbuild -bb --quiet --define "_topdir $top" --define "_binary_payload w3.zstdio" \
		--define "_build_id_links none" "$top/SPECS/kmods.spec" >&2
	mv "$top/RPMS/noarch/kmods-$c-1.0-1.noarch.rpm" "$rpm"
	rm -rf "$top"
	touch "$stage/.done"
}

# measure NAME CMD... -> prints "NAME wall_s rss_kib": the median wall time and
# the largest RSS of $REPS runs (default 3); output of CMD discarded
REPS=${REPS:-3}
measure() {
	local name=$1 tf=$OUT/time.$$ walls="" rss=0 w r
	shift
	for _ in $(seq "$REPS"); do
		/usr/bin/time -v -o "$tf" "$@" >/dev/null 2>"$OUT/stderr.$$" || true
		w=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$tf")
		r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tf")
		walls="$walls $w"
		[ "$r" -gt "$rss" ] && rss=$r
	done
	w=$(echo $walls | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
	echo "$name $w $rss"
	rm -f "$tf" "$OUT/stderr.$$"
}

# The admin pipeline: extract, decompress (-P2), modinfo, nm -u joined with Module.symvers.
cat >"$OUT/admin.sh" <<'EOF'
#!/bin/bash
set -e
rpm=$1 c=$2 symvers=$3 jobs=$4
d=$(mktemp -d /tmp/tg-admin.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"
rpm2cpio "$rpm" | cpio -idm --quiet
if [ "$c" = xz ]; then
	find . -name '*.ko.xz' -print0 | xargs -0 -P"$jobs" -n 64 xz -d
else
	find . -name '*.ko.zst' -print0 | xargs -0 -P"$jobs" -n 64 zstd -q -d --rm
fi
find . -name '*.ko' -print0 | xargs -0 modinfo -F license >licenses.txt
# undefined symbols per module, joined with the kernel's GPL-only exports
find . -name '*.ko' -print0 | xargs -0 nm -u -A | awk '{sub(/:.*/, "", $1); print $1, $NF}' | sort -k2,2 >undef.txt
awk '$4 ~ /GPL/ {print $2}' "$symvers" | sort >gplonly.txt
join -1 2 -2 1 undef.txt gplonly.txt | awk '{n[$2]++} END {for (m in n) print m, n[m]}' | sort >gpl-users.txt
awk '{print $2}' undef.txt | sort -u | comm -23 - <(awk '{print $2}' "$symvers" | sort -u) >unresolved.txt
wc -l licenses.txt gpl-users.txt unresolved.txt
EOF
chmod +x "$OUT/admin.sh"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

for c in ${*:-xz zst}; do
	build_rpm "$c"
	[ -n "${BUILD_ONLY:-}" ] && continue
	rpm=$OUT/kmods-$KVER-$c.rpm
	n=$(find "$OUT/stage-$KVER-$c" -name "*.ko.$c" | wc -l)
	dec="xz -dc"
	[ "$c" = zst ] && dec="zstd -q -dc"
	# warm the page cache (stage files, rpm, binary)
	find "$OUT/stage-$KVER-$c" -name "*.ko.$c" -print0 | xargs -0 cat >/dev/null
	cat "$rpm" >/dev/null
	"$TG" audit -q --policy "$TOP/policy/default.yaml" --jobs "$JOBS" --format json "$rpm" >"$OUT/audit-$c.json" 2>"$OUT/audit-$c.err" || true

	floor=$(cd "$OUT/stage-$KVER-$c" && measure floor bash -c "find . -name '*.ko.$c' -print0 | xargs -0 $dec")
	audit=$(measure audit "$TG" audit -q --policy "$TOP/policy/default.yaml" --jobs "$JOBS" --format json "$rpm")
	audit1=$(measure audit1 "$TG" audit -q --policy "$TOP/policy/default.yaml" --jobs 1 --format json "$rpm")
	admin=$(measure admin "$OUT/admin.sh" "$rpm" "$c" "$SYMVERS" "$JOBS")
	fw=$(echo "$floor" | cut -d' ' -f2)
	aw=$(echo "$audit" | cut -d' ' -f2)
	a1w=$(echo "$audit1" | cut -d' ' -f2)
	arss=$(echo "$audit" | cut -d' ' -f3)
	mw=$(echo "$admin" | cut -d' ' -f2)
	{
		echo "== .ko.$c: $n modules, $(du -m "$rpm" | cut -f1) MB rpm (zstd payload), kernel $KVER, $(nproc) CPUs, median of $REPS runs"
		printf "%-44s %8s s  %8s MiB\n" "floor: one '$dec' over every module" "$fw" \
			"$(awk -v r="$(echo "$floor" | cut -d' ' -f3)" 'BEGIN{printf "%.1f", r/1024}')"
		printf "%-44s %8s s  %8s MiB\n" "taintguard audit --jobs $JOBS" "$aw" \
			"$(awk -v r="$arss" 'BEGIN{printf "%.1f", r/1024}')"
		printf "%-44s %8s s  %8s MiB\n" "taintguard audit --jobs 1" "$a1w" \
			"$(awk -v r="$(echo "$audit1" | cut -d' ' -f3)" 'BEGIN{printf "%.1f", r/1024}')"
		printf "%-44s %8s s\n" "admin pipeline (rpm2cpio|cpio, -P$JOBS, modinfo, nm)" "$mw"
		echo "audit / floor          = $(ratio "$aw" "$fw")   (goal <= 0.7)"
		echo "admin pipeline / audit = $(ratio "$mw" "$aw")   (goal >= 8)"
		echo "audit peak RSS         = $(awk -v r="$arss" 'BEGIN{printf "%.1f", r/1024}') MiB (goal < 64)"
		python3 - "$OUT/audit-$c.json" <<'PY' 2>/dev/null || true
import json, sys
d = json.load(open(sys.argv[1]))
p = d["packages"][0]
print("audit verdict: %s; %d modules; %s" % (p["status"], len(p["modules"]), d["summary"]))
PY
		echo
	} | tee "$OUT/result-$c.txt"
done
