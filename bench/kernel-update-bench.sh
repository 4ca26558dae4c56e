#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark (not a test): the time the taintguard rpm plugin adds to
# installing a kernel RPM, against the floor of merely decompressing that
# kernel's modules on all CPUs (`xz -dc`, one process per CPU).  The kernel
# RPM is bookworm-backports' 6.12 as tests/kernel/target.sh unpacks it (image,
# .config, System.map, symvers.gz and its whole module tree of .ko.xz),
# installed with the real rpm into a scratch --root that also holds a 6.1
# kernel and the test kmods (so the kernel-update check has work); median of
# REPS runs each:
#
#   off      rpm -i without the plugin
#   on       rpm -i with the plugin (every module of the kernel judged, and the
#            installed kmods judged against it)
#   floor    xz -dc of every module, xargs -P CPUs
#
#   bench/kernel-update-bench.sh          REPS=3 B=build TG_KERNELS_DIR=...
# Needs root; the first run builds the RPM (cached in bench/out/).
set -eu
cd "$(dirname "$0")/.."
TOP=$PWD
B=${B:-build}
. bench/lib.sh
REPS=${REPS:-3}
OUT=$TOP/bench/out
CPUS=$(nproc)
mkdir -p "$OUT"
[ -f "$TOP/$B/taintguard.so" ] || make -s
# the kernel's packages fetched once and unpacked (network on the first run)
read -r X K2 _ < <(tests/kernel/target.sh 6.12) || { echo "cannot fetch 6.12 (tests/kernel/target.sh 6.12)" >&2; exit 1; }
RPM=$OUT/kernel-$K2.rpm
if [ ! -f "$RPM" ]; then
	echo "# building $RPM (once; cached)" >&2
	st=$OUT/kstage
	rm -rf "$st" "$OUT/krpmbuild"
	mkdir -p "$st/boot" "$st/lib/modules/$K2"
	cp "$X/boot/vmlinuz-$K2" "$X/boot/config-$K2" "$X/boot/System.map-$K2" "$st/boot/"
	gzip -c "$X/usr/src/linux-headers-$K2/Module.symvers" >"$st/lib/modules/$K2/symvers.gz"
	cp -a "$X/lib/modules/$K2/kernel" "$st/lib/modules/$K2/"
	cat >"$OUT/kernel-bench.spec" <<EOS
Name: kernel-bench
Version: 6.12
Release: 1
Summary: bookworm-backports' $K2 as an rpm (taintguard benchmark)
License: GPL-2.0-only
BuildArch: noarch
%global debug_package %{nil}
%global __os_install_post %{nil}
%define _build_id_links none
%description
Benchmark package.
%install
cp -a $st/. %{buildroot}/
%files
/boot/*
/lib/modules/$K2
EOS
	rpmbuild --quiet --define "_topdir $OUT/krpmbuild" --define '_binary_payload w1.gzdio' \
		-bb "$OUT/kernel-bench.spec" >"$OUT/krpmbuild.log" 2>&1 ||
		{ tail -20 "$OUT/krpmbuild.log"; exit 1; }
	mv "$OUT"/krpmbuild/RPMS/noarch/kernel-bench-6.12-1.noarch.rpm "$RPM"
fi
NMOD=$(rpm -qlp "$RPM" 2>/dev/null | grep -c '\.ko')
echo "# $RPM: $NMOD modules, $(du -m "$RPM" | cut -f1) MB; $CPUS CPUs"

W=$(mktemp -d /tmp/tg-kbench.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkroot() {
	R=$W/root
	rm -rf "$R"
	mkdir -p "$R/var/lib/rpm" "$R/bin" "$R/tmp" "$R/usr/sbin" "$R/lib/modules/6.1.0-bench/extra"
	cp "$(command -v dash)" "$R/bin/sh"
	for lib in $(ldd "$(command -v dash)" | grep -o '/[^ ]*'); do
		mkdir -p "$R$(dirname "$lib")"; cp -L "$lib" "$R$lib"
	done
	rpmdb --root "$R" --dbpath /var/lib/rpm --initdb 2>/dev/null
	# installed kmods of an older kernel that weak-modules considers
	touch "$R/usr/sbin/weak-modules"
	ls "$TOP"/tests/modules/out/*.ko >/dev/null 2>&1 &&
		cp "$TOP"/tests/modules/out/gplok.ko "$TOP"/tests/modules/out/lve.ko "$R/lib/modules/6.1.0-bench/extra/"
	return 0
}
# the install's rpm command, on|off: "off" undefines taintguard's hook for
# real (on a host where taintguard is installed, the installed plugin would
# otherwise judge every module too)
install_cmd() {
	local plug=(--define "__transaction_taintguard %{nil}")
	[ "$1" = on ] && plug=(--define "__plugindir $TOP/$B"
		--define "__transaction_taintguard %{__plugindir}/taintguard.so"
		--define "_taintguard_policy $TOP/policy/default.yaml")
	INSTALL=(rpm --root "$R" --dbpath /var/lib/rpm --nodeps --nosignature --noscripts
		"${plug[@]}" -i "$RPM")
}
once() {	# once on|off -> seconds
	mkroot
	install_cmd "$1"
	sync
	local t rc=0
	t=$( { TIMEFORMAT='%3R %3U %3S'; time "${INSTALL[@]}" >"$W/out.$1" 2>&1 || rc=$?; } 2>&1)
	[ $rc -eq 0 ] || { cat "$W/out.$1"; exit 1; }
	echo "$t" | awk '{ print $1, $2 + $3 }'	# wall, CPU (user + system) seconds
}
# The baseline really runs without taintguard: rpm's debug log names every
# plugin whose hooks it calls (the one installed on the host included).
mkroot
rpm -vv --test --root "$R" --dbpath /var/lib/rpm --nodeps --nosignature --noscripts \
	--define "__transaction_taintguard %{nil}" -i "$RPM" >"$W/vv" 2>&1 || true
if grep -q 'calling hook .* in taintguard plugin' "$W/vv"; then
	echo "bench: the baseline still loads a taintguard plugin" >&2
	exit 1
fi
echo "check: the baseline loads no taintguard plugin (rpm -vv: $(grep -c 'Plugin %__transaction_taintguard not configured' "$W/vv") 'not configured' line)"
floor() {
	local t0 t1
	t0=$(date +%s.%N)
	find "$X/lib/modules/$K2/kernel" -name '*.ko.xz' -print0 | xargs -0 -P"$CPUS" -n 64 xz -dc >/dev/null
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for i in $(seq "$REPS"); do once off; done >"$W/offs"
for i in $(seq "$REPS"); do once on; done >"$W/ons"
for i in $(seq "$REPS"); do floor; done | median >"$W/floor"
off=$(cut -d' ' -f1 "$W/offs" | median) on=$(cut -d' ' -f1 "$W/ons" | median) fl=$(cat "$W/floor")
offc=$(cut -d' ' -f2 "$W/offs" | median) onc=$(cut -d' ' -f2 "$W/ons" | median)
added=$(echo "$on - $off" | bc)
printf 'rpm -i without plugin  %6.2f s   (CPU %6.2f s)\n' "$off" "$offc"
printf 'rpm -i with plugin     %6.2f s   (CPU %6.2f s)\n' "$on" "$onc"
printf 'added by the plugin    %6.2f s   (CPU %6.2f s)\n' "$added" "$(echo "$onc - $offc" | bc)"
printf 'xz -dc floor (%d CPUs)  %6.2f s\n' "$CPUS" "$fl"
r=$(echo "scale=4; $added / $fl" | bc)
printf 'ratio added/floor      %6.2f\n' "$r"
# where the added CPU goes: both installs profiled, each object's CPU seconds
# with the plugin minus without (rpm's own file writing cancels out)
prof() {	# on|off -> "PERCENT OBJECT" lines of one install
	mkroot
	install_cmd "$1"
	bench_profile "$W/perf.data" "${INSTALL[@]}"
}
prof off >"$W/prof.off"
prof on >"$W/prof.on"
left=""
if [ -s "$W/prof.on" ] && [ -s "$W/prof.off" ]; then
	awk -v con="$onc" -v coff="$offc" 'FNR == NR { off[$2] = $1 * coff / 100; next }
		{ printf "%.3f %s\n", $1 * con / 100 - off[$2], $2 }' "$W/prof.off" "$W/prof.on" |
		sort -rn >"$W/prof.delta"
	left=$(awk -v n="$NMOD" '
		{ d[$2] = $1; t += $1; if ($2 !~ /lzma/ && $1 > 0.05 && m < 5) top = top sprintf(" %s %.2f s", $2, $1) (++m ? "" : "") }
		END {
			printf "the plugin added %.2f s CPU (profiles with and without it, per object):%s", t, top
			printf "; liblzma %.2f s (the floor: decompressing the modules)", d["liblzma"]
			cr = d["libcrypto"] + d["libhogweed"] + d["libnettle"] + d["libgmp"]
			if (cr > 0)
				printf "; libcrypto, libhogweed and libgmp (nettle'"'"'s P-384 arithmetic) are %.2f ms for each of the %d modules: its SHA-256 and its signature checked against the key in the kernel image (every one, as the issue requires)", cr / n * 1000, n
			if (d["libz"] > 0)
				printf "; libz: the payload inflated a second time (the verdict must exist before rpm writes a file)"
		}' "$W/prof.delta")
	echo "where the added CPU goes: $left"
fi
# the signature checks: required of every module, not in the floor
read -r valg vms _ <<<"$(bench_verify "$(find "$X/lib/modules/$K2/kernel" -name '*.ko*' | head -n 1)")" || true
if [ -n "${vms:-}" ]; then
	left="$left; $(bench_verify_left "$NMOD" "$CPUS" "$valg" "$vms" "<= 1.2")"
fi
bench_row "kernel package through the plugin (added)" "$(printf '%.2f s' "$added")" \
	"$(printf '%.2f s xz -dc, %d CPUs' "$fl" "$CPUS")" "$(printf '%.2f' "$r")" "<= 1.2" "$(bench_met "$r" le 1.2)" "$left"
[ -z "${vms:-}" ] || bench_verify_row "$added" "$fl" "$NMOD" "$CPUS" 1.2 "$valg" "$vms"
grep -h 'taintguard:' "$W/out.on" | sed 's/^/# /' | head -5
