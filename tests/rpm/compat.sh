#!/bin/bash
# The rpm plugin against an older rpm: Debian 11's rpm 4.16.1.2 (the rpm of
# EL9 is 4.16.1.3; 4.16 is the last hook table without the fsm fd and without
# rpmPluginSetData, the variant plugin_abi.h selects by version).  Downloads
# Debian 11's rpm packages with apt into a private state directory (signatures
# checked against debian-archive-keyring; nothing is installed), unpacks them
# under tests/out/rpm-compat/, builds the plugin against those headers
# (B=build-rpm416) and runs the whole of tests/rpm/run.sh with that rpm
# (TG_RPM_PREFIX): every rpm command of the suite is rpm 4.16 with its own
# rpmrc and macros (its default rpmdb backend is bdb).  Packages are still
# built by the system's rpmbuild.
#
# Usage: tests/rpm/compat.sh        (root; network access to deb.debian.org)
set -eu
cd "$(dirname "$0")/../.."
REPO=$PWD
VER=4.16.1.2+dfsg1-3
SUITE=bullseye
OUT=$REPO/tests/out/rpm-compat
PREFIX=$OUT/rpm-$VER
B416=build-rpm416

bail() { echo "not ok - rpm $VER: $*"; echo "0 passed, 1 failed"; exit 1; }

if [ ! -x "$PREFIX/usr/bin/rpm" ]; then
	apt=$OUT/apt
	rm -rf "$apt" "$PREFIX"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs" "$PREFIX"
	echo "deb http://deb.debian.org/debian $SUITE main" >"$apt/sources.list"
	A="-o Dir::Etc::sourcelist=$apt/sources.list -o Dir::Etc::sourceparts=- \
	   -o Dir::State::Lists=$apt/lists -o Dir::Cache=$apt/cache -o Debug::NoLocking=1"
	# shellcheck disable=SC2086
	apt-get $A -qq update >"$apt/update.log" 2>&1 || bail "apt-get update for $SUITE failed: $(tail -n 2 "$apt/update.log")"
	for p in rpm rpm-common librpm9 librpmio9 librpmbuild9 librpmsign9 librpm-dev; do
		# shellcheck disable=SC2086
		(cd "$apt/debs" && apt-get $A -qq download "$p=$VER") >>"$apt/download.log" 2>&1 ||
			bail "cannot download $p $VER: $(tail -n 2 "$apt/download.log")"
	done
	for d in "$apt"/debs/*.deb; do dpkg-deb -x "$d" "$PREFIX"; done
fi
LIBDIR=$PREFIX/usr/lib/$(gcc -print-multiarch)
LD_LIBRARY_PATH=$LIBDIR "$PREFIX/usr/bin/rpm" --version >/dev/null 2>&1 ||
	bail "$PREFIX/usr/bin/rpm does not run: $(LD_LIBRARY_PATH=$LIBDIR "$PREFIX/usr/bin/rpm" --version 2>&1 | head -n 2)"

# The plugin for this rpm: same sources, its headers, its version number.
make -s B=$B416 RPM_CFLAGS="-I$PREFIX/usr/include" RPM_LIBS="-L$LIBDIR -lrpm -lrpmio" \
	RPM_VERSION="${VER%%+*}" "$B416/taintguard.so" >"$OUT/build.log" 2>&1 ||
	bail "building the plugin against rpm $VER failed: $(grep -m 3 error "$OUT/build.log")"

TG_RPM_PREFIX=$PREFIX TG_PLUGDIR=$REPO/$B416 tests/rpm/run.sh
