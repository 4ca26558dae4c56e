#!/bin/bash
# Prepare another Debian kernel for the real-kernel harness without installing
# it on the host: its image, module tree and headers are fetched with
# `apt-get download` into a private apt state and unpacked with `dpkg-deb -x`
# into one root directory, which tests/kernel/run.sh --target uses (TG_KROOT).
#
# Usage: tests/kernel/target.sh KVER|SERIES    print "ROOT KVER CHROOT" (cached)
#   KVER e.g. 6.12.95+deb12-amd64; SERIES e.g. 6.12, 7.3 or 7: the newest such
#   kernel bookworm-backports (6.12) or trixie-backports (7.x) offers today (the
#   archive moves on: a pinned KVER would stop downloading one day); 7.2:
#   unstable's (not in any suite: used to place a rule between 6.12 and 7.3).
#   6.1-arm64, 6.1-s390x, 6.1-ppc64el (or 6.1.0-N-FLAVOUR): Debian 12's kernel of
#   that architecture (tests/kernel/arch.sh), the ABI of the
#   host's installed 6.1 headers (the newest linux-headers-6.1.0-N-amd64, whatever
#   linux-headers-amd64 points at) when bookworm still has it, else the newest; with the
#   amd64 linux-kbuild-6.1 of the same version (its tools run on the host: the
#   modules are cross-built) and what the guest runs (static busybox,
#   kmod and its libraries).  Both architectures live only in this private
#   apt state: the host's dpkg never learns of arm64, s390x or ppc64el.
#   5.10 (or 5.10.0-N-amd64): Debian 11's kernel, the newest bullseye or
#   bullseye-security has, with its linux-kbuild-5.10 of the same version;
#   built in the bullseye-kbuild chroot (its headers want gcc 10).
#   CHROOT: the tests/lib/chroot.sh chroot whose gcc and glibc its kbuild
#   needs ("-": the host's will do).
# Env:   TG_KERNELS_DIR (default /var/tmp/taintguard-kernels)
#
# The headers' absolute links (/lib/modules/KVER/build -> /usr/src/...) become
# relative and the Makefile's absolute include points inside the root, so
# kbuild runs there as on a host that installed the packages.
set -euo pipefail

SPEC=${1:?usage: target.sh KVER|SERIES}
TOPDIR=${TG_KERNELS_DIR:-/var/tmp/taintguard-kernels}
die() { echo "target.sh: error: $*" >&2; exit 1; }

ARCH=amd64 FLAVOUR=amd64 IMAGE=vmlinuz
case $SPEC in
6.12 | 6.12.*+deb12-amd64) suite=bookworm-backports tag=deb12 CHROOT=- ;;
6.1-arm64 | 6.1.0-*-arm64 | 6.1-s390x | 6.1.0-*-s390x | 6.1-ppc64el | 6.1.0-*-powerpc64le)
	suite=bookworm tag=deb12 CHROOT=- ARCH=foreign ;;
5.10 | 5.10.0-*-amd64) suite=bullseye tag=deb11 CHROOT=bullseye-kbuild ;;
# unstable's 7.2 (no MODVERSIONS, like trixie-backports' 7.3): its headers want gcc 16
7.2 | 7.2.*+deb14-amd64) suite=unstable tag=deb14 CHROOT=sid-kbuild ;;
# 7.x kbuild binaries need trixie's glibc, its headers a newer gcc than bookworm's
7 | 7.* ) suite=trixie-backports tag=deb13 CHROOT=trixie-kbuild ;;
*) die "no package source known for $SPEC" ;;
esac
if [ "$ARCH" = foreign ]; then
	. "$(dirname "$0")/arch.sh"
	tg_arch_by debarch "${SPEC#6.1-}" || tg_arch_by flavour "${SPEC##*-}" || die "no architecture for $SPEC"
	ARCH=$TGA_DEBARCH FLAVOUR=$TGA_FLAVOUR IMAGE=$TGA_IMAGE
fi
SRC="deb http://deb.debian.org/debian $suite main"
APTD=$TOPDIR/apt-$suite
if [ "$ARCH" != amd64 ]; then
	# bookworm's kernel moves with its point releases and security updates
	SRC="$SRC
deb http://deb.debian.org/debian $suite-updates main
deb http://deb.debian.org/debian-security $suite-security main"
	APTD=$TOPDIR/apt-$suite-$ARCH
fi
# Debian 11 (LTS) gets its new kernels through the security archive only
[ "$tag" != deb11 ] || SRC="$SRC
deb http://deb.debian.org/debian-security $suite-security main"
mkdir -p "$TOPDIR"
exec 9>"$TOPDIR/.lock"
flock 9

# One private apt state per archive suite (never the host's sources).
mkdir -p "$APTD/lists/partial" "$APTD/cache/archives/partial"
: >>"$APTD/status"
echo "$SRC" >"$APTD/sources.list"
{
	echo "Dir::Etc::SourceList \"$APTD/sources.list\";"
	echo "Dir::Etc::SourceParts \"/nonexistent\";"
	echo "Dir::State::Lists \"$APTD/lists\";"
	# not the host's dpkg status: a kernel installed on the host (another
	# 6.12) would be offered by apt-cache but not downloadable from here
	echo "Dir::State::status \"$APTD/status\";"
	echo "Dir::Cache \"$APTD/cache\";"
	echo "Acquire::Check-Valid-Until \"false\";"
	echo "APT::Sandbox::User \"root\";"
	if [ "$ARCH" != amd64 ]; then
		# the target first (unqualified names), amd64 for the kbuild tools
		echo "APT::Architecture \"$ARCH\";"
		echo "APT::Architectures { \"$ARCH\"; \"amd64\"; };"
	fi
} >"$APTD/apt.conf"
export APT_CONFIG=$APTD/apt.conf
if [ -z "$(find "$APTD/lists" -name '*Packages*' -mmin -720 2>/dev/null | head -n 1)" ]; then
	# A failed update (a mirror caught mid-sync, e.g. -security's Packages.xz
	# older than its InRelease) still serves the suite's lists it did get, with
	# a warning; they are marked stale, so the next run updates again.
	if ! apt-get -qq update >"$APTD/update.log" 2>&1; then
		[ -n "$(find "$APTD/lists" -name "*_dists_${suite}_main_*Packages*" | head -n 1)" ] ||
			die "apt-get update failed ($APTD/update.log)"
		echo "target.sh: warning: apt-get update failed in part, the newest kernel may be missing ($(grep -m1 '^E:' "$APTD/update.log"))" >&2
		find "$APTD/lists" -name '*Packages*' -exec touch -d '2 days ago' {} +
	fi
fi
case $SPEC in
6.1-arm64 | 6.1-s390x | 6.1-ppc64el)
	# the host's 6.1 ABI (its headers and kbuild are what CI installs), if
	# the archive still has it for this architecture; else its newest 6.1 kernel.
	# The installed 6.1 headers, not linux-headers-amd64's dependency: that
	# names the default kernel, 6.12 on a host with bookworm-backports'.
	KVER=
	h=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 'linux-headers-6.1.0-*-amd64' 2>/dev/null |
		awk '$1 == "ii" { sub(/^linux-headers-/, "", $2); print $2 }' | sort -V | tail -n 1)
	if [ -n "$h" ] && apt-cache show "linux-image-${h%-amd64}-$FLAVOUR" >/dev/null 2>&1; then KVER=${h%-amd64}-$FLAVOUR; fi
	[ -n "$KVER" ] || KVER=$(apt-cache pkgnames linux-image-6.1.0- | grep -E "^linux-image-6\.1\.0-[0-9]+-$FLAVOUR\$" |
		sed 's/^linux-image-//' | sort -V | tail -n 1)
	[ -n "$KVER" ] || die "no linux-image-6.1.0-*-$FLAVOUR in $SRC" ;;
5.10)	KVER=$(apt-cache pkgnames linux-image-5.10.0- | grep -E '^linux-image-5\.10\.0-[0-9]+-amd64$' |
		sed 's/^linux-image-//' | sort -V | tail -n 1)
	[ -n "$KVER" ] || die "no linux-image-5.10.0-*-amd64 in $SRC" ;;
*-*) KVER=$SPEC ;;
*)	pat=${SPEC//./\\.}\.[0-9]+            # 6.12 -> 6.12.N
	[[ $SPEC == *.* ]] || pat=$pat\.[0-9]+     # 7 -> 7.N.M
	KVER=$(apt-cache pkgnames "linux-image-$SPEC." | grep -E "^linux-image-$pat\+$tag-amd64$" |
		sed 's/^linux-image-//' | sort -V | tail -n 1)
	[ -n "$KVER" ] || die "no linux-image-$SPEC.*-amd64 in $SRC" ;;
esac
ver=${KVER%-"$FLAVOUR"}       # 6.12.95+deb12, 6.1.0-57
PKGS="linux-image-$KVER linux-headers-$KVER linux-headers-$ver-common linux-kbuild-$ver"
if [ "$ARCH" != amd64 ]; then
	# Debian 12 names kbuild by series (linux-kbuild-6.1): the amd64 one of
	# the image's version.  The guest's userspace: busybox, kmod (as on the
	# amd64 harness) and the libraries kmod links.
	v=$(apt-cache show "linux-image-$KVER" | sed -n 's/^Version: //p' | sort -V | tail -n 1)
	PKGS="linux-image-$KVER=$v linux-headers-$KVER=$v linux-headers-$ver-common=$v linux-kbuild-6.1:amd64=$v"
	PKGS="$PKGS busybox-static kmod libc6 libzstd1 liblzma5 libssl3"
fi
if [ "$tag" = deb11 ]; then
	# Debian 11 names kbuild by series too (linux-kbuild-5.10): the image's version
	v=$(apt-cache show "linux-image-$KVER" | sed -n 's/^Version: //p' | sort -V | tail -n 1)
	PKGS="linux-image-$KVER=$v linux-headers-$KVER=$v linux-headers-$ver-common=$v linux-kbuild-5.10=$v"
fi
# Debian 13's 7.x splits the image package: the kernel, its modules, the rest.
[ "$tag" = deb12 ] || [ "$tag" = deb11 ] || PKGS="$PKGS linux-binary-$KVER linux-modules-$KVER linux-base-$KVER"

D=$TOPDIR/$KVER
R=$D/root
if [ -f "$D/.done" ] && [ "$(cat "$D/.done")" = "$PKGS" ]; then echo "$R $KVER $CHROOT"; exit 0; fi

[ -n "$KVER" ] && [ "$D" != / ] || die "bad kernel release"
rm -rf "$D"
mkdir -p "$D/debs" "$R"
(cd "$D/debs" && apt-get -qq download $PKGS) >"$D/apt.log" 2>&1 ||
	die "apt-get download $PKGS failed ($D/apt.log)"
for f in "$D"/debs/*.deb; do dpkg-deb -x "$f" "$R"; done

# Absolute links and includes -> inside the root.
find "$R" -type l -lname '/*' | while read -r l; do
	t=$(readlink "$l")
	ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$R$t")" "$l"
done
sed -i "s#^include /usr/src/#include $R/usr/src/#; s#^KBUILD_OUTPUT=/usr/src/#KBUILD_OUTPUT=$R/usr/src/#" "$R/usr/src/linux-headers-$KVER/Makefile"
# Merged /usr (Debian 13 packages ship /usr/lib/modules only; the image,
# .config and System.map may live beside the modules, as Fedora's do).
[ -e "$R/lib" ] || ln -s usr/lib "$R/lib"
mkdir -p "$R/boot"
for f in vmlinuz config System.map; do
	[ -e "$R/boot/$f-$KVER" ] || [ ! -e "$R/usr/lib/modules/$KVER/$f" ] ||
		ln -s "../usr/lib/modules/$KVER/$f" "$R/boot/$f-$KVER"
done
[ -r "$R/boot/$IMAGE-$KVER" ] || die "no $R/boot/$IMAGE-$KVER"
[ -d "$R/lib/modules/$KVER" ] || die "no $R/lib/modules/$KVER"
# modules.dep: the package leaves it to depmod at install time.
depmod -b "$R" "$KVER" || die "depmod -b $R $KVER failed"
rm -rf "$D/debs"
echo "$PKGS" >"$D/.done"
echo "$R $KVER $CHROOT"
