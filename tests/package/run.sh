#!/bin/bash
# taintguard as a distribution component: build its RPMs from taintguard.spec
# with the real rpmbuild, check the file lists against "make install", install
# them into a clean --root, and prove the installed plugin refuses the lve
# test package.  Also: every man page renders without warnings.
set -u
cd "$(dirname "$0")/../.."
REPO=$PWD
B=${B:-build}
. tests/lib/kernel.sh
K=$TG_KERNEL
KBUILD=/lib/modules/$K/build
MODS=${TG_MODULES_OUT:-tests/modules/out}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
nok() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }
W=$(mktemp -d /tmp/tg-package.XXXXXX)
trap 'rm -rf "$W"' EXIT

# ------------------------------------------------------------ man pages
for m in man/*.[1-8]; do
	warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$m" 2>&1 >/dev/null)
	check "man page $m renders without warnings${warn:+: $warn}" test -z "$warn"
done

# ------------------------------------------------------------ rpmbuild
[ "$(id -u)" = 0 ] || { nok "needs root (rpm --root)"; finish; }
VER=$(sed -n 's/^#define TG_VERSION_STRING "\(.*\)"/\1/p' lib/taintguard.h)
mkdir -p "$W/rpmbuild/SOURCES"
git ls-files | tar --transform "s|^|taintguard-$VER/|" -czf "$W/rpmbuild/SOURCES/taintguard-$VER.tar.gz" -T -
# Debian's rpm has no build dependencies in its (empty) rpmdb: --nodeps; no
# debuginfo tooling: no debug packages.
# --noclean keeps the build root for the second release below
rpmbuild -bb --nodeps --noclean --define "_topdir $W/rpmbuild" --define "debug_package %{nil}" \
	--define "_smp_mflags -j$(nproc)" taintguard.spec >"$W/rpmbuild.log" 2>&1
rc=$?
check "rpmbuild -bb taintguard.spec (exit $rc)" test $rc = 0
[ $rc = 0 ] || { tail -n 30 "$W/rpmbuild.log"; finish; }
mapfile -t RPMS < <(find "$W/rpmbuild/RPMS" -name '*.rpm' | sort)
names=$(for r in "${RPMS[@]}"; do rpm -qp --qf '%{NAME}\n' "$r" 2>/dev/null; done | sort | tr '\n' ' ')
# the dnf 4 plugin's package where python3-dnf is (this host), dnf5's where libdnf5's headers are
want="taintguard taintguard-devel taintguard-dkms taintguard-libs taintguard-rpm-plugin "
! /usr/bin/python3 -c 'import dnf' 2>/dev/null || want="taintguard taintguard-devel taintguard-dkms taintguard-dnf-plugin taintguard-libs taintguard-rpm-plugin "
! pkg-config --exists libdnf5 2>/dev/null || want="${want}taintguard-dnf5-plugin "
N=$(wc -w <<<"$want")
check "$N binary packages: $names" test "$names" = "$want"

# ------------------------------------------------------------ file lists
eval "dirs=\"$(rpm --eval 'PREFIX=%{_prefix} BINDIR=%{_bindir} LIBDIR=%{_libdir} LIBEXECDIR=%{_libexecdir} INCLUDEDIR=%{_includedir} DATADIR=%{_datadir} MANDIR=%{_mandir} SYSCONFDIR=%{_sysconfdir} RPM_PLUGINDIR=%{__plugindir} RPM_MACRODIR=%{_rpmmacrodir}')\""
# shellcheck disable=SC2086
make -s install DESTDIR="$W/inst" B="$W/b" $dirs >"$W/install.log" 2>&1
(cd "$W/inst" && find . \( -type f -o -type l \) | sed 's|^\.||; s|\.gz$||' | sort) >"$W/installed.txt"
for r in "${RPMS[@]}"; do rpm -qlp "$r" 2>/dev/null; done | sed 's|\.gz$||' | sort -u >"$W/packaged-all.txt"
comm -23 "$W/installed.txt" "$W/packaged-all.txt" >"$W/missing.txt"
check "every file make install lays down is in a package (missing: $(tr '\n' ' ' <"$W/missing.txt"))" \
	test ! -s "$W/missing.txt"
check "the policy is %config(noreplace)" \
	bash -c "rpm -qp --configfiles '$(printf '%s\n' "${RPMS[@]}" | grep '/taintguard-[0-9]')' 2>/dev/null | grep -qx /etc/taintguard/policy.yaml"
check "the main package carries the daily status service and timer" \
	bash -c "rpm -qlp '$(printf '%s\n' "${RPMS[@]}" | grep '/taintguard-[0-9]')' 2>/dev/null | grep -q 'systemd/system/taintguard-status.timer\$'"
check "the plugin package carries the plugin and its macros" \
	bash -c "rpm -qlp '$(printf '%s\n' "${RPMS[@]}" | grep rpm-plugin)' 2>/dev/null | grep -q 'rpm-plugins/taintguard.so' && rpm -qlp '$(printf '%s\n' "${RPMS[@]}" | grep rpm-plugin)' 2>/dev/null | grep -q macros.transaction_taintguard"

# ------------------------------------------------------------ install into a clean root
R=$W/root
mkdir -p "$R"
rpm --root "$R" --initdb 2>/dev/null
rpm --root "$R" --nodeps -i "${RPMS[@]}" >"$W/rpmi.log" 2>&1
rc=$?
check "the $N packages install into a clean --root (exit $rc)" test $rc = 0
check "all $N in the root's rpmdb" test "$(rpm --root "$R" -qa 2>/dev/null | grep -c '^taintguard')" = "$N"
MACROS=$R$(rpm --eval '%{_rpmmacrodir}')/macros.transaction_taintguard
PLUGINDIR=$R$(rpm --eval '%{__plugindir}')
check "the plugin is enabled after install (%__transaction_taintguard in the root's macros)" \
	grep -q '^%__transaction_taintguard %{__plugindir}/taintguard.so' "$MACROS"
check "the installed command runs" bash -c "LD_LIBRARY_PATH='$R$(rpm --eval %{_libdir})' '$R/usr/bin/taintguard' --version | grep -q '^taintguard $VER'"

# ------------------------------------------------------------ the installed plugin refuses lve
tests/modules/build.sh "$MODS" >/dev/null || nok "test modules"
MD=/lib/modules/$K/extra
rpmbuild --quiet --define "_topdir $W/tp" --define "pkgname tg-lve" --define "pkgver 1.0" \
	--define "moddir $REPO/$MODS" --define "payload lve.ko:$MD/lve.ko" -bb tests/rpm/specs/tgtest.spec \
	>"$W/lve-build.log" 2>&1 || nok "build the lve test package"
T=$W/target
mkdir -p "$T/bin" "$T/usr/bin" "$T/var/tmp" "$T/usr/src/linux-headers-$K" "$T/lib/modules/$K"
cp "$KBUILD/Module.symvers" "$KBUILD/.config" "$T/usr/src/linux-headers-$K/"
ln -s "/usr/src/linux-headers-$K" "$T/lib/modules/$K/build"
cp "$(command -v kmod)" "$T/usr/bin/"
rpm --root "$T" --initdb 2>/dev/null
# host rpm, but the plugin, its macro file and the policy all from the installed root
rpm --root "$T" --nodeps --load "$MACROS" --define "__plugindir $PLUGINDIR" \
	--define "_taintguard_policy $R/etc/taintguard/policy.yaml" \
	-i "$W"/tp/RPMS/noarch/tg-lve-1.0-1.noarch.rpm >"$W/lve.log" 2>&1
rc=$?
check "the installed plugin refuses the lve package (exit $rc)" \
	bash -c "test $rc = 1 && grep -q 'taintguard: refused tg-lve-1.0-1.noarch: module lve: ' '$W/lve.log'"
check "lve: nothing installed" bash -c "! rpm --root '$T' -q tg-lve >/dev/null 2>&1 && test ! -e '$T$MD/lve.ko'"

# ------------------------------------------------------------ our own upgrade, with our plugin on guard
# The same build packaged again as release 1.tg2 (rpmbuild --short-circuit: the
# files are the same, the release is higher; such packages need --nodeps).
BR1=$(find "$W/rpmbuild/BUILDROOT" -mindepth 1 -maxdepth 1 -type d | head -n 1)
rpmbuild -bb --nodeps --noclean --short-circuit --define "_topdir $W/rpmbuild" --define "buildroot $BR1" \
	--define "debug_package %{nil}" --define "dist .tg2" taintguard.spec >"$W/rpmbuild2.log" 2>&1 ||
	{ tail -n 20 "$W/rpmbuild2.log"; nok "rpmbuild the second release"; }
mapfile -t RPMS2 < <(find "$W/rpmbuild/RPMS" -name '*.tg2.*rpm' | sort)
# the host's rpm, with the plugin, its macro file and the policy from the root
rpmg() {
	rpm --root "$R" --nodeps --load "$MACROS" --define "__plugindir $PLUGINDIR" \
		--define "_taintguard_policy $R/etc/taintguard/policy.yaml" "$@" >"$W/g.log" 2>&1
}
rpmg -U "${RPMS2[@]}"
rc=$?
n2=$(rpm --root "$R" -qa --qf '%{NAME}-%{RELEASE}\n' 2>/dev/null | grep -c '^taintguard.*-1\.tg2$')
check "taintguard's own upgrade passes its installed plugin (${#RPMS2[@]} packages, $n2 upgraded, exit $rc)" \
	bash -c "test $rc = 0 && test $n2 = $N && ! grep -q 'taintguard:.*refused' '$W/g.log'"
[ $rc = 0 ] || sed 's/^/#   /' "$W/g.log"
# a package that is not ours, with a file in our directory: refused by the installed plugin
mkdir -p "$W/g" && printf 'mkdir -p "$1/etc/taintguard" && echo x >"$1/etc/taintguard/extra.yaml"\n' >"$W/g/evil.sh"
rpmbuild --quiet --define "_topdir $W/tg" --define "pkgname taintguard-extras" --define "pkgver 1.0" \
	--define "content $W/g/evil.sh" -bb tests/guard/specs/tgguard.spec >"$W/evil.log" 2>&1 || nok "build taintguard-extras"
rpmg -i "$W"/tg/RPMS/noarch/taintguard-extras-1.0-1.noarch.rpm
rc=$?
check "a package named like ours that does not own our files is refused (exit $rc)" \
	bash -c "test $rc = 1 && grep -q 'taintguard-extras-1.0-1.noarch: /etc/taintguard/extra.yaml: refused' '$W/g.log' && test ! -e '$R/etc/taintguard/extra.yaml'"
finish
