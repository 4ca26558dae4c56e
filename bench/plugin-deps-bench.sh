#!/bin/bash
# The rpm plugin's cost on a large transaction without kernel modules
# (issue 25): 1,000 packages, each requiring the one before it, installed
# into a fresh --root with the plugin and with `rpm -i --noplugins`, side by
# side in one run; the median of N installs each, then the ratio (goal: the
# plugin adds at most 5 %).  The baseline is checked to really run without
# the plugin: with --noplugins a package taintguard refuses installs.
# Not a test: numbers depend on the machine.  Root; needs rpmbuild.
#   make && bench/plugin-deps-bench.sh [N] [PACKAGES]
set -eu
cd "$(dirname "$0")/.."
REPO=$PWD
N=${1:-5}
COUNT=${2:-1000}
B=${B:-build}
. bench/lib.sh
. tests/lib/kernel.sh >/dev/null
K=$TG_KERNEL
W=$(mktemp -d /tmp/tg-depsbench.XXXXXX)
trap 'rm -rf "$W"' EXIT
[ -f "$B/taintguard.so" ] || { echo "bench: $B/taintguard.so not built (make)" >&2; exit 1; }

# one spec, COUNT subpackages with a file each and a chain of requirements
{
	printf 'Name: dep\nVersion: 1.0\nRelease: 1\nSummary: bench\nLicense: MIT\nBuildArch: noarch\n'
	printf '%%description\nbench\n%%install\n'
	printf 'for i in $(seq 1 %d); do mkdir -p %%{buildroot}/usr/share/dep-$i; echo $i >%%{buildroot}/usr/share/dep-$i/data; done\n' "$COUNT"
	for i in $(seq 1 "$COUNT"); do
		printf '%%package -n dep-%d\nSummary: d\n' "$i"
		[ "$i" -gt 1 ] && printf 'Requires: dep-%d\n' $((i - 1))
		printf '%%description -n dep-%d\nd\n%%files -n dep-%d\n/usr/share/dep-%d\n' "$i" "$i" "$i"
	done
} >"$W/dep.spec"
rpmbuild --quiet --define "_topdir $W/rb" -bb "$W/dep.spec" >"$W/build.log" 2>&1 ||
	{ cat "$W/build.log"; exit 1; }
PKGS=("$W"/rb/RPMS/noarch/dep-*.rpm)
[ "${#PKGS[@]}" = "$COUNT" ] || { echo "bench: built ${#PKGS[@]} packages, not $COUNT" >&2; exit 1; }

mkroot() {
	rm -rf "$W/root"
	mkdir -p "$W/root/var/lib/rpm" "$W/root/usr/src/linux-headers-$K"
	local f
	for f in Module.symvers .config; do	# a headers package may lack .config
		[ ! -f "/lib/modules/$K/build/$f" ] || cp "/lib/modules/$K/build/$f" "$W/root/usr/src/linux-headers-$K/"
	done
	rpmdb --root "$W/root" --dbpath /var/lib/rpm --initdb 2>/dev/null
}
rpmi() {	# with|without PACKAGES...
	local how=$1; shift
	local args=(--define "__plugindir $REPO/$B"
		--define "__transaction_taintguard %{__plugindir}/taintguard.so"
		--define "_taintguard_policy $REPO/policy/default.yaml")
	[ "$how" = without ] && args+=(--noplugins)
	rpm --root "$W/root" --dbpath /var/lib/rpm --nosignature "${args[@]}" -i "$@"
}
one() {	# with|without -> "wall cpu" in milliseconds (cpu: user + system of rpm)
	local t rc=0
	mkroot
	t=$( { TIMEFORMAT='%3R %3U %3S'; time rpmi "$1" "${PKGS[@]}" >"$W/out" 2>&1 || rc=$?; } 2>&1)
	[ $rc -eq 0 ] || { cat "$W/out" >&2; exit 1; }
	[ "$(rpm --root "$W/root" --dbpath /var/lib/rpm -qa | wc -l)" = "$COUNT" ] ||
		{ echo "bench: not all $COUNT packages installed" >&2; exit 1; }
	awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%d %d\n", a[1] * 1000, (a[2] + a[3]) * 1000 }'
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# the baseline really runs without the plugin: a refused package installs there
MODS=tests/modules/out
[ -f "$MODS/lve.ko" ] || tests/modules/build.sh "$MODS" >/dev/null
rpmbuild --quiet --define "_topdir $W/rb" --define "pkgname bench-lve" --define "pkgver 1.0" \
	--define "moddir $REPO/$MODS" --define "payload lve.ko:/lib/modules/$K/extra/lve.ko" \
	-bb tests/rpm/specs/tgtest.spec >>"$W/build.log" 2>&1 || { cat "$W/build.log"; exit 1; }
LVE=$W/rb/RPMS/noarch/bench-lve-1.0-1.noarch.rpm
for how in with without; do
	mkroot
	rpmi "$how" --nodeps --noscripts "$LVE" >/dev/null 2>&1 || true	# the root has no shell
	rpm --root "$W/root" --dbpath /var/lib/rpm -q bench-lve >/dev/null 2>&1 && got=installed || got=refused
	echo "check: a package with the lve module, $how the plugin: $got"
	case $how$got in withrefused | withoutinstalled) ;; *) echo "bench: baseline is not what it says" >&2; exit 1 ;; esac
done

one with >/dev/null	# warm the page cache once
one without >/dev/null
a=() b=()
for _ in $(seq "$N"); do	# alternate, so that drift hits both alike
	a+=("$(one without)")
	b+=("$(one with)")
done
col() { printf '%s\n' "${@:2}" | awk -v c="$1" '{ print $c }'; }
ma=$(col 1 "${a[@]}" | median) ca=$(col 2 "${a[@]}" | median)
mb=$(col 1 "${b[@]}" | median) cb=$(col 2 "${b[@]}" | median)
echo "runs without (wall ms): $(col 1 "${a[@]}" | xargs); cpu ms: $(col 2 "${a[@]}" | xargs)"
echo "runs with    (wall ms): $(col 1 "${b[@]}" | xargs); cpu ms: $(col 2 "${b[@]}" | xargs)"
awk -v a="$ma" -v b="$mb" -v ca="$ca" -v cb="$cb" -v n="$N" -v c="$COUNT" 'BEGIN {
	printf "%d packages, no kernel modules, median of %d: rpm -i --noplugins %.2f s, with taintguard %.2f s: ratio %.3f (%+.1f %%; goal <= 5 %%)\n",
		c, n, a / 1000, b / 1000, b / a, (b - a) * 100 / a
	printf "CPU time (user + system), median: %.2f s and %.2f s: ratio %.3f (%+.1f %%)\n",
		ca / 1000, cb / 1000, cb / ca, (cb - ca) * 100 / ca }'
# each pair ran back to back: the median of their ratios minds a busy machine's drift least
pairs() { paste -d' ' <(col "$1" "${a[@]}") <(col "$1" "${b[@]}") | awk '{ printf "%.4f\n", $2 / $1 }' | median; }
pw=$(pairs 1) pc=$(pairs 2)
awk -v w="$pw" -v c="$pc" -v n="$N" 'BEGIN {
	printf "median of the %d pairs, each ratio: wall %.3f (%+.1f %%), CPU %.3f (%+.1f %%)\n",
		n, w, (w - 1) * 100, c, (c - 1) * 100 }'
r=$(awk -v a="$ma" -v b="$mb" 'BEGIN { printf "%.3f", b / a }')
bench_row "rpm -i, $COUNT packages without modules (plugin)" "$(awk -v b="$mb" 'BEGIN { printf "%.2f s", b / 1000 }')" \
	"$(awk -v a="$ma" 'BEGIN { printf "%.2f s --noplugins", a / 1000 }')" "$r" "<= 1.05" "$(bench_met "$r" le 1.05)"
# rpm's time waits on fdatasync() per package: on a shared disk CPU time says more
r=$(awk -v a="$ca" -v b="$cb" 'BEGIN { printf "%.3f", b / a }')
bench_row "rpm -i, $COUNT packages without modules (plugin), CPU" "$(awk -v b="$cb" 'BEGIN { printf "%.2f s", b / 1000 }')" \
	"$(awk -v a="$ca" 'BEGIN { printf "%.2f s --noplugins", a / 1000 }')" "$r" "<= 1.05" "$(bench_met "$r" le 1.05)"
