#!/bin/bash
# Install time with and without the taintguard rpm plugin (issue 3), side by
# side in one run: a typical kmod package (three test modules, .ko.xz, as
# kbuild compresses them) and a package without modules.  Each install goes
# into a fresh --root; the median of N runs is reported, then the ratios.
# Not a test: numbers depend on the machine.  Root; needs rpmbuild, xz.
#   make && bench/rpm-bench.sh [N]
set -eu
cd "$(dirname "$0")/.."
REPO=$PWD
N=${1:-15}
B=${B:-build}
K=$(ls -1 /lib/modules | sort -V | tail -n 1)
MODS=tests/modules/out
W=$(mktemp -d /tmp/tg-rpmbench.XXXXXX)
trap 'rm -rf "$W"' EXIT
tests/modules/build.sh "$MODS" >/dev/null
mkdir -p "$W/m"
for m in gplok exporter nsok; do xz --check=crc32 --lzma2=dict=1MiB -c "$MODS/$m.ko" >"$W/m/$m.ko.xz"; done
MD=/lib/modules/$K/extra
build() {	# NAME PAYLOAD
	rpmbuild --quiet --define "_topdir $W/rb" --define "pkgname $1" --define "pkgver 1.0" \
		--define "moddir $W/m" --define "payload $2" -bb tests/rpm/specs/tgtest.spec >/dev/null 2>&1
}
build kmod-bench "gplok.ko.xz:$MD/gplok.ko.xz exporter.ko.xz:$MD/exporter.ko.xz nsok.ko.xz:$MD/nsok.ko.xz"
echo "documentation" >"$W/m/README"
build plain-bench "README:/usr/share/doc/plain-bench/README"
KMOD=$W/rb/RPMS/noarch/kmod-bench-1.0-1.noarch.rpm
PLAIN=$W/rb/RPMS/noarch/plain-bench-1.0-1.noarch.rpm

mkroot() {
	rm -rf "$W/root"
	mkdir -p "$W/root/bin" "$W/root/var/tmp" "$W/root/usr/src/linux-headers-$K" "$W/root/usr/bin"
	cp /bin/dash "$W/root/bin/sh"
	cp "$(command -v kmod)" "$W/root/usr/bin/"
	cp "/lib/modules/$K/build/Module.symvers" "/lib/modules/$K/build/.config" "$W/root/usr/src/linux-headers-$K/"
	rpm --root "$W/root" --dbpath /var/lib/rpm --initdb 2>/dev/null
}
one() {	# PLUGIN(0/1) RPM -> seconds
	local s e
	mkroot
	s=$(date +%s%N)
	if [ "$1" = 1 ]; then
		rpm --root "$W/root" --dbpath /var/lib/rpm --nodeps --define "__plugindir $REPO/$B" \
			--define "__transaction_taintguard %{__plugindir}/taintguard.so" \
			--define "_taintguard_policy $REPO/policy/default.yaml" -i "$2" >/dev/null 2>&1
	else
		rpm --root "$W/root" --dbpath /var/lib/rpm --nodeps --noplugins -i "$2" >/dev/null 2>&1
	fi
	e=$(date +%s%N)
	echo $(((e - s) / 1000))
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() {	# PLUGIN RPM
	for _ in $(seq "$N"); do one "$1" "$2"; done | median
}
printf '%-34s %10s %10s %8s\n' package "without" "with" ratio
for p in "$KMOD" "$PLAIN"; do
	# interleave nothing: warm up once, then the two series
	one 0 "$p" >/dev/null
	one 1 "$p" >/dev/null
	a=$(measure 0 "$p")
	b=$(measure 1 "$p")
	awk -v n="$(basename "$p")" -v a="$a" -v b="$b" \
		'BEGIN { printf "%-34s %8.1fms %8.1fms %8.3f\n", n, a / 1000, b / 1000, b / a }'
done
echo "(median of $N installs into a fresh --root each; goal: < 1.05 for the kmod package, ~1.00 without modules)"
