#!/bin/bash
# taintguard as a Debian package: build the .deb from debian/ with
# dpkg-buildpackage in a copy of the tree, inside a Debian 12 root that has
# exactly debian/control's Build-Depends (chroot bookworm-debbuild); lintian
# on the .deb and the .changes (no error, no warning: each is fixed or
# overridden with its reason in debian/*.lintian-overrides); then, on a
# fresh Debian 12 DKMS host (chroot bookworm-deb, kernels 6.1 and 6.12, under
# a scratch layer: nothing it does is kept), install it with apt-get, refuse
# the lve-like DKMS package with the installed hook, build the real
# broadcom-sta-dkms (wl: builds for 6.1, fails for 6.12), check what
# "taintguard audit --installed" says, purge the package and check that
# nothing of it is left and dkms runs unhooked (tests/deb/inroot.sh).
# Nothing is installed on this host; the chroots are kept under
# $TG_CHROOT_DIR (tests/lib/chroot.sh), broadcom-sta-dkms's .deb beside them.
# Environment: TG_DEB_AUDIT_OUT=FILE keeps the default audit output.
set -u
cd "$(dirname "$0")/../.." || exit 2
REPO=$PWD
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
nok() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }

[ "$(id -u)" = 0 ] || { nok "needs root (chroots)"; finish; }
command -v mmdebstrap >/dev/null || { nok "mmdebstrap is not installed (make deps)"; finish; }
CRC=${CREATEREPO_C_DIR:-/opt/taintguard-build/createrepo_c}
[ -f "$CRC/include/createrepo_c/xml_parser.h" ] ||
	{ nok "createrepo_c's headers are not in $CRC (make deps)"; finish; }
CACHE=${TG_CHROOT_DIR:-/var/tmp/taintguard-chroots}
W=$(mktemp -d /tmp/tg-deb.XXXXXX)
trap 'rm -rf "$W"' EXIT
VER=$(sed -n 's/^#define TG_VERSION_STRING "\(.*\)"/\1/p' lib/taintguard.h)
t0=$SECONDS

# ------------------------------------------------------------ build
# the tree as git has it (untracked files too, not ignored ones), never its build/
S=$W/src/taintguard-$VER
mkdir -p "$S"
git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - | tar -xf - -C "$S"
tests/lib/chroot.sh run bookworm-debbuild --scratch --bind "$W" --bind "$CRC" -- \
	env CREATEREPO_C_DIR="$CRC" DEB_BUILD_OPTIONS="parallel=$(nproc)" \
	sh -c "cd '$S' && dpkg-buildpackage -us -uc -b" >"$W/build.log" 2>&1
rc=$?
DEB=$(ls "$W"/src/taintguard_"$VER"_*.deb 2>/dev/null | head -n 1)
CHANGES=$(ls "$W"/src/taintguard_"$VER"_*.changes 2>/dev/null | head -n 1)
check "dpkg-buildpackage -us -uc -b in Debian 12 with the Build-Depends (exit $rc): ${DEB##*/}" \
	test "$rc" = 0 -a -n "$DEB" -a -n "$CHANGES"
[ -n "$DEB" ] || { tail -n 30 "$W/build.log" | sed 's/^/#   /'; finish; }
echo "# built in $((SECONDS - t0)) s"

# ------------------------------------------------------------ lintian
tests/lib/chroot.sh run bookworm-debbuild --scratch --bind "$W" -- \
	lintian --fail-on error,warning "$CHANGES" >"$W/lintian.txt" 2>&1
rc=$?
sed 's/^/#   lintian: /' "$W/lintian.txt"
check "lintian on the .deb and the .changes: no error, no warning (exit $rc)" \
	bash -c "[ $rc = 0 ] && ! grep -q '^[EW]: ' '$W/lintian.txt'"
# (--show-overrides would count the overridden warnings as failures)
echo "# lintian: $(grep -c '^E: ' "$W/lintian.txt") errors, $(grep -c '^W: ' "$W/lintian.txt") warnings, $(grep -c '^I: ' "$W/lintian.txt") info; $(grep -c '^taintguard: ' debian/taintguard.lintian-overrides) overrides in debian/taintguard.lintian-overrides"

# ------------------------------------------------------------ the fresh root
# broadcom-sta-dkms from Debian's non-free archive, fetched once
BSTA=$CACHE/bookworm-deb.debs
if ! ls "$BSTA"/broadcom-sta-dkms_*.deb >/dev/null 2>&1; then
	mkdir -p "$BSTA"
	tests/lib/chroot.sh run bookworm-deb --scratch --bind "$BSTA" -- \
		sh -c "apt-get update -qq && cd '$BSTA' && apt-get download -qq broadcom-sta-dkms" \
		>"$W/bsta.log" 2>&1 || sed 's/^/#   /' "$W/bsta.log"
fi
mkdir -p "$W/in"
cp "$DEB" "$BSTA"/broadcom-sta-dkms_*.deb tests/deb/inroot.sh "$W/in/" 2>/dev/null
cp -r tests/dkms/pkgs/tg-lve-1.0 "$W/in/"
t1=$SECONDS
tests/lib/chroot.sh run bookworm-deb --scratch --bind "$W" -- \
	bash "$W/in/inroot.sh" "$W/in" >"$W/inroot.log" 2>&1
rc=$?
cat "$W/inroot.log"
p=$(grep -c '^ok - ' "$W/inroot.log")
f=$(grep -c '^not ok - ' "$W/inroot.log")
pass=$((pass + p)) fail=$((fail + f))
[ "$rc" = 0 ] || [ "$f" -gt 0 ] || nok "tests/deb/inroot.sh exited $rc"
[ $((p + f)) -gt 0 ] || nok "tests/deb/inroot.sh ran no check"
[ -z "${TG_DEB_AUDIT_OUT:-}" ] || cp "$W/in/audit.txt" "$TG_DEB_AUDIT_OUT"
echo "# in the fresh root: $((SECONDS - t1)) s; the whole suite: $((SECONDS - t0)) s"
finish
