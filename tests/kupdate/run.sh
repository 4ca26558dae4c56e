#!/bin/bash
# Kernel updates (docs/kernel-update.md), from an old kernel to a new one,
# both chosen here by what the test needs, never by what linux-image-amd64
# points at (a host may have 6.12 as its default kernel and 6.1 beside it):
#   old (K1): Debian 12's 6.1, the newest linux-image-6.1.0-N-amd64 installed
#             with its headers (TG_KUPDATE_OLD to name another installed 6.1);
#   new (K2): bookworm-backports' newest 6.12, its .debs fetched by
#             tests/kernel/target.sh into a private cache and unpacked with
#             dpkg-deb -x (whether or not the host has a 6.12 installed).
# Real parts: kernel RPMs built here from those two kernels, kmod RPMs built for 6.1 from
# tests/kupdate/src, and the real rpm installing them into a --root with the
# plugin from the build tree.
#
# The kernel RPMs are trimmed: image, .config, System.map, symvers.gz and one
# in-tree module (dummy) — the judgement needs no more (the export table is
# what the kmods import from; the in-tree module gives vermagic).
#
# The kmods, from tests/kupdate/src.  Debian keeps no kABI from 6.1 to 6.12
# (module_layout and _printk change CRC, struct module grows from 896 to 1280
# bytes), so no 6.1 build loads under 6.12; a kmod that stays fine ships a
# build for each kernel, as vendors do:
#   kupfine    builds for 6.1 and 6.12 (the 6.12 one against the unpacked
#              6.12 headers and kbuild) -> fine under both, nothing said
#   kupforced  the same under a name the test policy force-taints for kernels
#              ">= 6.12" -> fine under 6.1, forced taint P once 6.12 arrives
#   kupcrc     a 6.1 build only -> weak-modules will not link it (module_layout
#              CRC): missing under 6.12; copied where 6.12 loads it: refused
# The root has RHEL's weak-modules (a stand-in file: taintguard reproduces its
# check, it never runs it).  Last, the real 6.12 is booted under QEMU (TCG)
# and loads every build: what it does must equal taintguard's prediction.
#
# Env: TG_KUPDATE_OLD the old kernel (an installed 6.1.0-N-amd64); TG_KERNELS_DIR
# the cache of tests/kernel/target.sh, which fetches the 6.12 packages.
# Needs root, rpm, rpmbuild, apt-get, dpkg-deb, qemu-system-x86_64, a static
# busybox, network on the first run.
# Prints "ok - ..."/"not ok - ..." and "N passed, N failed".
set -eu
cd "$(dirname "$0")/../.."
REPO=$PWD
B=${B:-build}
PLUGDIR=${TG_PLUGDIR:-$REPO/$B}
TG=$REPO/$B/taintguard
# the old kernel: an installed 6.1 (the kmods below are written against its
# ABI), whatever target kernel the other suites were given
if [ -n "${TG_KUPDATE_OLD:-}" ]; then
	TG_KERNEL=$TG_KUPDATE_OLD TG_KERNEL_WHY="TG_KUPDATE_OLD set"
else
	unset TG_KERNEL TG_KVER TG_KERNEL_WHY
fi
TG_KERNEL_NEED='6.1.0-*-amd64'
. tests/lib/kernel.sh
K1=$TG_KERNEL
SPEC=$REPO/tests/rpm/specs/tgtest.spec

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
nok() { fail=$((fail + 1)); echo "not ok - $*"; }
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}
bail() { nok "$*"; finish; }
t() {	# t "description" command...: ok when the command succeeds
	local d=$1; shift
	if "$@" >/dev/null 2>&1; then ok "$d"; else nok "$d"; show; fi
}

[ "$(id -u)" = 0 ] || bail "needs root (rpm --root chroots)"
for x in rpm rpmbuild apt-get dpkg-deb gzip make cc; do
	command -v $x >/dev/null || bail "missing tool $x"
done
[ -f "$PLUGDIR/taintguard.so" ] && [ -x "$TG" ] || bail "not built (make)"
[ -n "$K1" ] || bail "no Debian 12 6.1 kernel installed with its headers (linux-image-6.1.0-N-amd64, linux-headers-6.1.0-N-amd64)"
case $K1 in 6.1.*) ;; *) bail "the old kernel must be a 6.1 (TG_KUPDATE_OLD=$K1)" ;; esac
KB=/lib/modules/$K1/build
[ -f "$KB/Module.symvers" ] || bail "no $KB/Module.symvers (linux-headers-$K1)"
[ -f "/boot/vmlinuz-$K1" ] && [ -f "/boot/config-$K1" ] || bail "no /boot/vmlinuz-$K1"

# --- Debian's 6.12 from bookworm-backports, unpacked, never installed --------
# tests/kernel/target.sh fetches it once (network) into a private apt state and
# caches it for the real-kernel harness too.
read -r X K2 _ < <(tests/kernel/target.sh 6.12) || bail "cannot fetch Debian's 6.12 (tests/kernel/target.sh 6.12)"
H2=$X/usr/src/linux-headers-$K2
[ -f "$H2/Module.symvers" ] || bail "no Module.symvers in $H2"
[ "$K1" != "$K2" ] || bail "old and new kernel are both $K1"
echo "# kernels: $K1 (installed, old) -> $K2 (bookworm-backports, unpacked in $X)"

W=$(mktemp -d /tmp/tg-kupdate.XXXXXX)
trap 'rm -rf "$W"' EXIT
TOP=$W/rpmbuild
RPMS=$TOP/RPMS/noarch
OUT=
show() { [ -n "$OUT" ] && echo "$OUT" | sed 's/^/#   /'; return 0; }

# --- the kmods, built for 6.1 -------------------------------------------------
M=$W/mods
M2=$W/mods612
mkdir -p "$M" "$M2"
cp tests/kupdate/src/* "$M/"
cp tests/kupdate/src/* "$M2/"
make -s -C "$KB" M="$M" modules >"$W/kbuild.log" 2>&1 || { cat "$W/kbuild.log"; bail "kbuild for $K1"; }
# no vmlinux in headers: no BTF (6.12's modfinal would still ask for pahole)
make -s -C "$H2" M="$M2" CONFIG_DEBUG_INFO_BTF_MODULES= modules >"$W/kbuild2.log" 2>&1 ||
	{ cat "$W/kbuild2.log"; bail "kbuild for $K2 (linux-kbuild-6.12 unpacked in $X?)"; }

# --- the kernel RPMs (trimmed trees) ------------------------------------------
# stage DIR KVER IMAGE CONFIG SYSMAP SYMVERS DUMMY
stage() {
	local d=$1 k=$2
	mkdir -p "$d"
	cp "$3" "$d/vmlinuz" && cp "$4" "$d/config" && cp "$5" "$d/System.map"
	gzip -c "$6" >"$d/symvers.gz"
	cp "$7" "$d/$(basename "$7")"
	PAYLOAD="vmlinuz:/boot/vmlinuz-$k config:/boot/config-$k System.map:/boot/System.map-$k"
	PAYLOAD="$PAYLOAD symvers.gz:/lib/modules/$k/symvers.gz"
	PAYLOAD="$PAYLOAD $(basename "$7"):/lib/modules/$k/kernel/drivers/net/$(basename "$7")"
}
# pkg NAME VERSION MODDIR "SRC:DEST ..."
pkg() {
	rpmbuild --quiet --define "_topdir $TOP" --define "pkgname $1" --define "pkgver $2" \
		--define "moddir $3" --define "payload $4" --define '_binary_payload w1.gzdio' \
		-bb "$SPEC" >"$W/build-$1.log" 2>&1 || { cat "$W/build-$1.log"; bail "rpmbuild $1"; }
}
P() { echo "$RPMS/$1-$2-1.noarch.rpm"; }
stage "$W/k1" "$K1" "/boot/vmlinuz-$K1" "/boot/config-$K1" "/boot/System.map-$K1" \
	"$KB/Module.symvers" "$(ls /lib/modules/"$K1"/kernel/drivers/net/dummy.ko*)"
pkg tgkernel 6.1 "$W/k1" "$PAYLOAD"
stage "$W/k2" "$K2" "$X/boot/vmlinuz-$K2" "$X/boot/config-$K2" "$X/boot/System.map-$K2" \
	"$H2/Module.symvers" "$(ls "$X"/lib/modules/"$K2"/kernel/drivers/net/dummy.ko*)"
pkg tgkernel 6.12 "$W/k2" "$PAYLOAD"
cp "$M2/kupfine.ko" "$M/kupfine-612.ko"
cp "$M2/kupforced.ko" "$M/kupforced-612.ko"
for m in kupfine kupforced; do
	pkg "kmod-$m" 1.0 "$M" "$m.ko:/lib/modules/$K1/extra/$m.ko $m-612.ko:/lib/modules/$K2/extra/$m.ko"
done
pkg kmod-kupcrc 1.0 "$M" "kupcrc.ko:/lib/modules/$K1/extra/kupcrc.ko"

# The struct module sizes, read here with readelf (the size of a module's
# .gnu.linkonce.this_module is the struct module it was built with): a 6.1
# build's (S1) and 6.12's own, from its in-tree dummy.ko (S2).  A kmod
# loadable under 6.12 with S1 != S2 is refused, both sizes in the reason.
tsize() {	# FILE (.ko, .ko.xz): the section's size in bytes
	local f=$1
	case $f in *.xz) xz -dc "$f" >"$W/tsize.ko"; f=$W/tsize.ko ;; esac
	local h
	h=$(readelf -S -W "$f" | sed -n 's/.*\.gnu\.linkonce\.this_module *PROGBITS *[0-9a-f]* [0-9a-f]* \([0-9a-f]*\) .*/\1/p')
	[ -n "$h" ] && echo $((16#$h))
}
S1=$(tsize "$M/kupfine.ko")
S2=$(tsize "$(ls "$X"/lib/modules/"$K2"/kernel/drivers/net/dummy.ko*)")
echo "# struct module: $S1 bytes in the 6.1 builds, $S2 in $K2"
[ -n "$S1" ] && [ -n "$S2" ] && [ "$S1" != "$S2" ] || bail "struct module sizes: '$S1' (6.1 build), '$S2' ($K2)"
SIZES="struct module is $S1 bytes in the module, $S2 in the kernel"

# the test policy: the default one with a forced-taint entry for kernels >= 6.12
POLICY=$W/policy.yaml
awk '{ print } /^  forced_taint:/ { print "    - name: kupforced\n      flag: P\n      scope: module\n      kernels: \">= 6.12\"\n      reason: \"kupforced is on the 6.12 list (taintguard test)\"" }' \
	policy/default.yaml >"$POLICY"

mkroot() {
	R=$W/root
	rm -rf "$R"
	mkdir -p "$R/var/lib/rpm" "$R/var/tmp" "$R/bin" "$R/tmp" "$R/usr/sbin"
	cp "$(command -v dash)" "$R/bin/sh"
	local lib
	for lib in $(ldd "$(command -v dash)" | grep -o '/[^ ]*'); do
		mkdir -p "$R$(dirname "$lib")"
		cp -L "$lib" "$R$lib"
	done
	rpmdb --root "$R" --dbpath /var/lib/rpm --initdb 2>/dev/null
}
rpmx() {
	set +e
	OUT=$(rpm --root "$R" --dbpath /var/lib/rpm --nodeps --nosignature \
		--define "__plugindir $PLUGDIR" \
		--define "__transaction_taintguard %{__plugindir}/taintguard.so" \
		--define "_taintguard_policy $POLICY" "$@" 2>&1 | grep -v 'RPM should not be used directly')
	set -e
}
installed() { rpm --root "$R" --dbpath /var/lib/rpm -q "$1" >/dev/null 2>&1; }
has() { grep -q -- "$1" <<<"$OUT"; }
lines() { grep -c -- "$1" <<<"$OUT" || true; }

# --- 1. rpm: 6.1 with the kmods, then 6.12 arrives -----------------------------
mkroot
printf '#!/bin/sh\n# stand-in for RHEL weak-modules: taintguard reproduces its check\nexit 0\n' \
	>"$R/usr/sbin/weak-modules"
chmod 755 "$R/usr/sbin/weak-modules"
rpmx -i "$(P tgkernel 6.1)"
t "the 6.1 kernel RPM installs, nothing said" eval 'installed tgkernel-6.1 && ! has "taintguard:"'
# The kmods are installed before the policy has the >= 6.12 entry (as lve's
# arrived with a later kernel); 6.12 is not installed, so their 6.12 builds
# are judged without its facts (marked: incomplete check) — said, not refused.
POLICY=$REPO/policy/default.yaml
rpmx -i "$(P kmod-kupfine 1.0)" "$(P kmod-kupforced 1.0)" "$(P kmod-kupcrc 1.0)"
t "the three kmods install; nothing is said of their 6.1 builds" \
	eval 'installed kmod-kupfine && installed kmod-kupforced && installed kmod-kupcrc && ! has "/lib/modules/$K1/"'
POLICY=$W/policy.yaml
OUT=$("$TG" check --policy "$POLICY" --kernel "$K1" --root "$R" "$M/kupforced.ko" 2>&1 || true)
t "with the >= 6.12 entry, kupforced's 6.1 build is still fine under 6.1" eval 'has "kupforced.ko: allow"'

start=$(date +%s%N)
rpmx -i "$(P tgkernel 6.12)"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "# installing the 6.12 kernel RPM: $ms ms"
show
t "6.12 is installed (a kernel is never refused by default)" installed tgkernel-6.12
t "kupforced: one line, forced taint P under $K2 from the >= 6.12 entry" \
	eval '[ "$(lines "kernel $K2: kmod-kupforced: module kupforced (/lib/modules/$K2/extra/kupforced.ko): taints POE: kupforced is on the kernel.s forced-taint list; policy: deny$")" = 1 ]'
t "kupcrc: one line, missing: weak-modules will not link it (a CRC differs)" \
	eval '[ "$(lines "kernel $K2: kmod-kupcrc: module kupcrc (/lib/modules/$K1/extra/kupcrc.ko): will be missing: weak-modules will not link it: symbol .* has CRC")" = 1 ]'
t "nothing for kupfine" eval '! has kupfine'
t "a summary line counts 2 modules" eval 'has "kernel $K2 (tgkernel-6.12-1.noarch): 2 installed modules"'
set +e
ST=$("$TG" status --root "$R" --dbpath /var/lib/rpm --check records 2>&1)
set -e
OUT=$ST
t "status shows the kernel's record with its kernel and the two modules" \
	eval 'has "^tgkernel-6.12-1.noarch (rpm): deny$" && has "  kernel $K2" && has "$K2/extra/kupforced.ko: module kupforced, taint POE" && has "weak-updates/kupcrc.ko: module kupcrc, taint none: refused" && ! grep -A3 "^tgkernel" <<<"$OUT" | grep -q kupfine'

# --- audit --installed: the module x installed-kernel table -------------------
aud() { set +e; OUT=$("$TG" audit --installed --root "$R" --dbpath /var/lib/rpm --policy "$POLICY" "$@" 2>&1); set -e; }
aud
show
t "audit --installed (text): a row per kernel, kupcrc missing under 6.12, kupforced deny POE" \
	eval 'has "^kernel $K1: 3 modules" && has "^kernel $K2: 2 modules, 1 missing$" && grep -A3 "^kernel $K2" <<<"$OUT" | grep -q "kupcrc .*kmod-kupcrc .*missing .*/lib/modules/$K2/weak-updates/kupcrc.ko: weak-modules will not link it: symbol .* has CRC" && grep -A3 "^kernel $K2" <<<"$OUT" | grep -q "kupforced .*kmod-kupforced .*deny POE .*6.12 list" && ! grep -A3 "^kernel $K2" <<<"$OUT" | grep "kupfine" | grep -qv "allow OE"'
t "audit --installed (text): under 6.1 every kmod is fine: not listed, counted" \
	eval 'grep -A1 "^kernel $K1" <<<"$OUT" | grep -q "^  (3 more load cleanly, allowed: not listed; --all lists them)$"'
aud --all
t "audit --installed --all (text): under 6.1 every kmod is fine (allow OE)" \
	eval '[ "$(grep -A3 "^kernel $K1" <<<"$OUT" | grep -c "allow OE")" = 3 ]'
aud --format json
t "audit --installed (json): kernels[] with outcomes per module" python3 -c '
import json, sys
d = json.loads(sys.argv[1]); k = {r["release"]: {m["module"]: m for m in r["modules"]} for r in d["kernels"]}
k1, k2 = k[sys.argv[2]], k[sys.argv[3]]
assert all(m["outcome"] == "allow OE" for m in k1.values()), k1
assert k2["kupcrc"]["outcome"] == "missing" and k2["kupcrc"]["place"] == "weak-not-linked" and "CRC" in k2["kupcrc"]["reason"]
assert k2["kupforced"]["action"] == "deny" and k2["kupforced"]["package"] == "kmod-kupforced"
assert k2["kupfine"]["outcome"] == "allow OE" and k2["kupfine"]["reason"] is None
' "$OUT" "$K1" "$K2"
aud --format junit
t "audit --installed (junit): a second suite, 6 cases, 2 failures" python3 -c '
import sys, xml.etree.ElementTree as E
s = [x for x in E.fromstring(sys.argv[1]).iter("testsuite") if x.get("name") == "taintguard installed kernels"][0]
assert s.get("tests") == "6" and s.get("failures") == "2", s.attrib
' "$OUT"
aud --kernel "$K2"
t "audit --installed --kernel: only that kernel's rows" eval 'has "^kernel $K2:" && ! has "^kernel $K1:"'

# --- 2. %_taintguard_kernel_update deny stops the transaction -------------------
rpmx -e tgkernel-6.12
t "erasing 6.12 removes its record" eval '[ ! -e "$R/var/lib/taintguard/marks/tgkernel-6.12-1.noarch.json" ]'
rpmx -i --define '_taintguard_kernel_update deny' "$(P tgkernel 6.12)"
t "deny: the kernel is refused, with an error naming the count and the macro" \
	eval '! installed tgkernel-6.12 && has "error: taintguard: refusing to install tgkernel-6.12-1.noarch: 2 installed modules.*_taintguard_kernel_update is deny"'

# --- 3. per-kernel policy without weak-modules: a module in 6.12's own extra/ ---
mkroot
rpmx -i "$(P tgkernel 6.1)"
mkdir -p "$R/lib/modules/$K2/extra"
cp "$M2/kupforced.ko" "$M2/kupfine.ko" "$R/lib/modules/$K2/extra/"
mkdir -p "$R/lib/modules/$K1/extra" "$R/lib/modules/$K2/updates/vendor"
cp "$M/kupcrc.ko" "$R/lib/modules/$K1/extra/"
# the 6.1 build of kupcrc copied where 6.12 loads it: the kernel refuses it
cp "$M/kupcrc.ko" "$R/lib/modules/$K2/updates/vendor/kupcrc6.ko"
rpmx -i "$(P tgkernel 6.12)"
show
t "no weak-modules: 6.1's extra/ is not considered; kupforced in 6.12's extra/ is flagged, unowned" \
	eval 'installed tgkernel-6.12 && ! has "/lib/modules/$K1/extra/kupcrc" && has "(no package): module kupforced (/lib/modules/$K2/extra/kupforced.ko): taints POE: " && ! has kupfine'
t "a 6.1 module in 6.12's updates/ (a subdirectory): will be refused, both struct module sizes said" \
	eval 'has "module kupcrc (/lib/modules/$K2/updates/vendor/kupcrc6.ko): the kernel would refuse it: $SIZES$" && [ "$(lines "taintguard: kernel $K2: .*: module ")" = 2 ]'
aud --kernel "$K2"
t "audit --installed: 6.12's row has the 6.1 build in updates/ refused, both sizes in the reason" \
	eval 'grep -A4 "^kernel $K2" <<<"$OUT" | grep -q "^  kupcrc .*(no package) .*refused .*/lib/modules/$K2/updates/vendor/kupcrc6.ko: $SIZES (.gnu.linkonce.this_module): built for another kernel$"'

# --- 3b. weak-modules links what the kernel then refuses ------------------------
# kupfine's 6.1 build imports only kfree, whose CRC 6.12 shares: weak-modules'
# check (depmod -E: the imports' CRCs) passes and links it, but 6.12 refuses
# it (struct module grew).  Said as refused, at its weak-updates/ path.
mkroot
printf '#!/bin/sh\nexit 0\n' >"$R/usr/sbin/weak-modules"
rpmx -i "$(P tgkernel 6.1)"
mkdir -p "$R/lib/modules/$K1/extra/vendor"
cp "$M/kupfine.ko" "$R/lib/modules/$K1/extra/vendor/kupweak.ko"
rpmx -i "$(P tgkernel 6.12)"
show
t "weak-modules would link kupfine's 6.1 build (same kfree CRC); 6.12 will refuse it there, both sizes said" \
	eval 'has "(no package): module kupfine (/lib/modules/$K2/weak-updates/vendor/kupweak.ko): the kernel would refuse it: $SIZES$" && [ "$(lines "taintguard: kernel $K2: .*: module ")" = 1 ]'
aud --kernel "$K2"
t "audit --installed: the weak-modules link is refused in 6.12's row, both sizes in the reason" \
	eval 'grep -A3 "^kernel $K2: 1 module$" <<<"$OUT" | grep -q "^  kupfine .*refused .*/lib/modules/$K2/weak-updates/vendor/kupweak.ko: $SIZES (.gnu.linkonce.this_module): built for another kernel$"'

# --- 4. the Debian kernel postinst.d hook --------------------------------------
# A Debian-style root with 6.12 unpacked as its .debs would lay it out; the
# hook (hooks/kernel-postinst.in, calling the built taintguard-dkms) judges the
# non-DKMS modules of 6.12's extra/ and updates/.
D=$W/deb
mkdir -p "$D/boot" "$D/usr/src/linux-headers-$K2" "$D/lib/modules/$K2/kernel/drivers/net" \
	"$D/lib/modules/$K2/extra" "$D/lib/modules/$K2/updates/vendor" "$D/var/lib/dkms"
cp "$X/boot/vmlinuz-$K2" "$X/boot/config-$K2" "$X/boot/System.map-$K2" "$D/boot/"
cp "$H2/Module.symvers" "$D/usr/src/linux-headers-$K2/"
ln -s "/usr/src/linux-headers-$K2" "$D/lib/modules/$K2/build"
cp "$X"/lib/modules/"$K2"/kernel/drivers/net/dummy.ko* "$D/lib/modules/$K2/kernel/drivers/net/"
cp "$M2/kupforced.ko" "$M2/kupfine.ko" "$D/lib/modules/$K2/extra/"
cp "$M/kupcrc.ko" "$D/lib/modules/$K2/updates/vendor/"
cat >"$W/dkms.conf" <<EOC
policy=$POLICY
root=$D
install_tree=$D/lib/modules
dkms_tree=$D/var/lib/dkms
marks_dir=$W/marks
modprobe_dir=$W/modprobe.d
framework_conf=$W/framework.conf
dkms=/bin/false
EOC
sed -e "s|@HOOK@|$REPO/$B/taintguard-dkms|g" -e "s|@SYSCONFDIR@|/etc|g" hooks/kernel-postinst.in \
	>"$W/dkms-taintguard"
set +e
OUT=$(TAINTGUARD_DKMS_CONF=$W/dkms.conf sh "$W/dkms-taintguard" "$K2" "/boot/vmlinuz-$K2" 2>&1)
hrc=$?
set -e
show
t "hook: exits 0 (the kernel upgrade goes on)" [ "$hrc" = 0 ]
t "hook: kupforced in extra/ will be force-tainted (>= 6.12 entry)" \
	eval 'has "kernel $K2: module kupforced ($D/lib/modules/$K2/extra/kupforced.ko, not from DKMS): taints POE: kupforced is on the kernel.s forced-taint list; policy: deny"'
t "hook: kupcrc in updates/vendor/ will be refused (struct module size)" \
	eval 'has "kernel $K2: module kupcrc (.*updates/vendor/kupcrc.ko, not from DKMS): the kernel would refuse it: $SIZES"'
t "hook: nothing for kupfine, one count line, the modules left in place" \
	eval '! has kupfine && has "2 module(s) not from DKMS will not load cleanly" && [ -f "$D/lib/modules/$K2/updates/vendor/kupcrc.ko" ]'
# taintguard check of the 6.1 builds against 6.12's files (the Debian-style
# root): refused, both struct module sizes in the reason
for m in kupfine kupcrc; do
	OUT=$("$TG" check --root "$D" --kernel "$K2" --policy policy/default.yaml "$M/$m.ko" 2>&1 || true)
	t "check: the 6.1 build of $m is refused by 6.12, both struct module sizes in a reason" \
		eval 'has "$m.ko: deny: the kernel would refuse to load it" && has "^  refused: $SIZES (.gnu.linkonce.this_module): built for another kernel$"'
done
# The hook as hooks/install.sh lays it down, among the hooks a Debian kernel
# upgrade runs: run-parts must run it, and before zz-update-grub makes the
# new kernel the default (a name it skips or sorts later fails here).
I=$W/inst
mkdir -p "$I/etc/kernel/postinst.d"
for h in dkms initramfs-tools zz-update-grub; do
	printf '#!/bin/sh\n' >"$I/etc/kernel/postinst.d/$h"
	chmod 755 "$I/etc/kernel/postinst.d/$h"
done
B=$B DKMS=/bin/false sh hooks/install.sh "$I" >"$W/install.log" 2>&1 || { cat "$W/install.log"; bail "hooks/install.sh $I"; }
OUT=$(run-parts --test "$I/etc/kernel/postinst.d" 2>&1)
KH=$(grep -l taintguard-dkms-kernel-hook "$I"/etc/kernel/postinst.d/* 2>/dev/null | head -n 1)
t "hook: hooks/install.sh's kernel hook ($(basename "${KH:-none}")) is run by run-parts before zz-update-grub" \
	eval '[ -n "$KH" ] && grep -qx "$KH" <<<"$OUT" && [ "$(grep -n -x -e "$KH" -e "$I/etc/kernel/postinst.d/zz-update-grub" <<<"$OUT" | head -n 1 | cut -d: -f2)" = "$KH" ]'
t "hooks/install.sh installs the hook as dkms-taintguard" [ "$KH" = "$I/etc/kernel/postinst.d/dkms-taintguard" ]

# --- 5. the real 6.12 under QEMU (TCG) confirms the predictions ----------------
# Every kmod build is loaded with insmod by 6.12 booted from the unpacked
# image (an initramfs of busybox and the modules); what it did is compared
# with `taintguard check` against 6.12's files in the Debian-style root $D
# (default policy: the >= 6.12 forced-taint entry is the test policy's, the
# real 6.12 has none, so kupforced only gets O and E there).
BB=$(command -v busybox || true)
if ! command -v qemu-system-x86_64 >/dev/null || [ -z "$BB" ] || ! file -L "$BB" | grep -q static; then
	nok "QEMU or a static busybox missing: 6.12 not booted"
	finish
fi
I=$W/initrd
mkdir -p "$I/bin" "$I/dev" "$I/proc" "$I/sys" "$I/tmp" "$I/m"
cp "$BB" "$I/bin/busybox"
for a in sh insmod rmmod cat echo mount poweroff basename; do ln -s busybox "$I/bin/$a"; done
for m in kupfine kupforced kupcrc; do
	cp "$M/$m.ko" "$I/m/$m-61.ko"
	cp "$M2/$m.ko" "$I/m/$m-612.ko"
done
cat >"$I/init" <<'EOI'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
for f in /m/*.ko; do
	b=$(basename "$f" .ko)
	n=${b%-*}
	if insmod "$f" >/tmp/err 2>&1; then
		echo "KUP $b loads $(cat /sys/module/$n/taint)"
		rmmod "$n" 2>/dev/null
	else
		echo "KUP $b refused"
	fi
done
poweroff -f
EOI
chmod 755 "$I/init"
(cd "$I" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$W/initrd.cpio"
set +e
timeout 300 qemu-system-x86_64 -m 512 -nographic -no-reboot -kernel "$X/boot/vmlinuz-$K2" \
	-initrd "$W/initrd.cpio" -append "console=ttyS0 quiet panic=-1" >"$W/qemu.log" 2>&1
set -e
tr -d '\r' <"$W/qemu.log" | grep -a '^KUP ' >"$W/real" || true
t "6.12 booted and tried all six builds" eval '[ "$(wc -l <"$W/real")" = 6 ]'
for m in kupfine kupforced kupcrc; do
	for v in 61 612; do
		f=$M/$m.ko
		[ "$v" = 612 ] && f=$M2/$m.ko
		real=$(awk -v b="$m-$v" '$2 == b { print $3, $4 }' "$W/real")
		pred=$("$TG" check --format json --root "$D" --kernel "$K2" --policy policy/default.yaml "$f" 2>/dev/null |
			python3 -c 'import json,sys; v=json.load(sys.stdin)[0]; print("loads " + v["module_taint"] if v["loads"] else "refused")')
		pred=${pred% }
		real=${real% }
		OUT="real: $real; predicted: $pred"
		t "6.12 and taintguard agree on the $v build of $m (${real:-nothing})" \
			eval '[ -n "$real" ] && [ "$real" = "$pred" ]'
	done
done

finish
