#!/bin/bash
# The rpm plugin on the rpm releases kmod packages are installed with: the
# project built against that rpm and the whole rpm suite (tests/rpm/run.sh)
# run with it: every rpm, rpmdb, rpmkeys (and, in a chroot, rpmbuild) of the
# suite is that release's, with its own default macros.
#
#   4.16  Debian 11's rpm 4.16.1.2 (EL9 has 4.16.1.3): its packages downloaded
#         with apt into a private state directory (signatures checked against
#         debian-archive-keyring; nothing installed) and unpacked under
#         tests/out/rpm-matrix/4.16/; only the plugin is built, against those
#         headers, with this system's compiler and libraries; the suite runs on
#         this system with that rpm (TG_RPM_PREFIX), its rpmrc and macros;
#         packages are built by this system's rpmbuild.
#   4.18  this system's rpm (Debian 12): the same as the "rpm" suite.
#   4.20  Debian 13's rpm, 6.1 Debian unstable's: in the chroots of
#         tests/lib/chroot.sh (trixie, sid), the project built there with that
#         release's compiler and librpm, the suite run there with the checkout,
#         the target kernel's Module.symvers and the test modules (built on this
#         system by tests/modules/build.sh: data for the suite) mounted at the
#         same paths.
#
# Each version builds into its own directory (build-rpm-VERSION).  A release
# whose rpm is not VERSION (Debian moved on) fails, as does a build the
# plugin's ABI check refuses (rpm-plugin/plugin_abi.h).
#
# Usage: tests/rpm/matrix.sh VERSION     (root; network for the chroots / 4.16)
set -eu
cd "$(dirname "$0")/../.."
REPO=$PWD
V=${1:-}
OUT=$REPO/tests/out/rpm-matrix/$V
BV=build-rpm-$V
K=${TG_KERNEL:-$(ls -1 /lib/modules | sort -V | tail -n 1)}

bail() { echo "not ok - rpm $V: $*"; echo "0 passed, 1 failed"; exit 1; }
t0=$SECONDS
elapsed() { echo "# rpm $V: $1 in $((SECONDS - t0)) s"; t0=$SECONDS; }

case $V in
4.16) where=unpack; DEBVER=4.16.1.2+dfsg1-3; SUITE=bullseye ;;
4.18) where=host ;;
4.20) where=chroot; CHROOT=trixie ;;
# Debian patches rpm 6's %_pkgverify_level back to "digest"; the suite runs
# with upstream's "all" (rpm >= 6.0), which needs every package signed.
6.1) where=chroot; CHROOT=sid; LEVEL=all ;;
*) echo "usage: tests/rpm/matrix.sh 4.16|4.18|4.20|6.1" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || bail "needs root"
mkdir -p "$OUT"

# The suite's test modules are built here, against this system's kernel.
for m in lve propplain gplok propgpl; do
	if [ ! -f "tests/modules/out/$m.ko" ]; then
		tests/modules/build.sh tests/modules/out >"$OUT/modules.log" 2>&1 ||
			bail "building the test modules failed: $(tail -n 3 "$OUT/modules.log")"
		break
	fi
done

# "RPM version 4.20.1" -> ok when it is $V or $V.N
is_version() {
	case $1 in "RPM version $V" | "RPM version $V".*) return 0 ;; esac
	return 1
}

case $where in
host)
	have=$(rpm --version)
	is_version "$have" || bail "this system's rpm is '$have'"
	exec tests/rpm/run.sh
	;;
unpack)
	PREFIX=$OUT/rpm-$DEBVER
	if [ ! -x "$PREFIX/usr/bin/rpm" ]; then
		apt=$OUT/apt
		rm -rf "$apt" "$PREFIX"
		mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs" "$PREFIX"
		echo "deb http://deb.debian.org/debian $SUITE main" >"$apt/sources.list"
		A="-o Dir::Etc::sourcelist=$apt/sources.list -o Dir::Etc::sourceparts=- \
		   -o Dir::State::Lists=$apt/lists -o Dir::Cache=$apt/cache -o Debug::NoLocking=1"
		# shellcheck disable=SC2086
		apt-get $A -qq update >"$apt/update.log" 2>&1 ||
			bail "apt-get update for $SUITE failed: $(tail -n 2 "$apt/update.log")"
		for p in rpm rpm-common librpm9 librpmio9 librpmbuild9 librpmsign9 librpm-dev; do
			# shellcheck disable=SC2086
			(cd "$apt/debs" && apt-get $A -qq download "$p=$DEBVER") >>"$apt/download.log" 2>&1 ||
				bail "cannot download $p $DEBVER: $(tail -n 2 "$apt/download.log")"
		done
		for d in "$apt"/debs/*.deb; do dpkg-deb -x "$d" "$PREFIX"; done
		elapsed "rpm $DEBVER downloaded"
	fi
	LIBDIR=$PREFIX/usr/lib/$(gcc -print-multiarch)
	have=$(LD_LIBRARY_PATH=$LIBDIR "$PREFIX/usr/bin/rpm" --version 2>&1 | head -n 2) ||
		bail "$PREFIX/usr/bin/rpm does not run: $have"
	is_version "$have" || bail "$PREFIX/usr/bin/rpm is '$have'"
	# The plugin for this rpm: same sources, its headers, its version number.
	make -s B="$BV" RPM_CFLAGS="-I$PREFIX/usr/include" RPM_LIBS="-L$LIBDIR -lrpm -lrpmio" \
		RPM_VERSION="${DEBVER%%+*}" "$BV/taintguard.so" >"$OUT/build.log" 2>&1 ||
		bail "building the plugin against rpm $DEBVER failed: $(grep -m 3 error "$OUT/build.log")"
	elapsed "plugin built"
	# This system's build (rpm >= 4.18 hook table) loads into 4.16's librpm.so.9
	# too: the suite checks that it notices (run.sh 12b).
	B=${B:-build}
	[ -f "$B/taintguard.so" ] || make -s B="$B" "$B/taintguard.so" >>"$OUT/build.log" 2>&1 ||
		bail "building $B/taintguard.so failed: $(grep -m 3 error "$OUT/build.log")"
	TG_RPM_PREFIX=$PREFIX TG_PLUGDIR=$REPO/$BV TG_OTHER_PLUGDIR=$REPO/$B tests/rpm/run.sh
	;;
chroot)
	dir=$(tests/lib/chroot.sh path "$CHROOT" 2>"$OUT/chroot.log") ||
		bail "chroot $CHROOT: $(tail -n 3 "$OUT/chroot.log")"
	elapsed "chroot $CHROOT ready"
	# the target kernel's facts the suite copies into its roots: its module
	# tree, headers (Module.symvers) and /boot (config, the image whose
	# certificates verify signatures)
	in_chroot() {
		tests/lib/chroot.sh run "$CHROOT" --bind "$REPO" --bind "/lib/modules/$K" \
			--bind "/usr/src/linux-headers-$K" --bind /boot -- "$@"
	}
	have=$(in_chroot rpm --version 2>&1) || bail "rpm does not run in $CHROOT: $have"
	is_version "$have" || bail "$CHROOT's rpm is '$have'"
	# A remade chroot may have another rpm and toolchain: build afresh.
	stamp="$(cat "$dir.stamp") $have"
	[ "$(cat "$BV/matrix.stamp" 2>/dev/null)" = "$stamp" ] || rm -rf "$BV"
	mkdir -p "$BV" && echo "$stamp" >"$BV/matrix.stamp"
	# what the rpm suite runs: the plugin and the command (audit's repository
	# libraries are not needed here)
	in_chroot make -s -C "$REPO" -j2 B="$BV" "$BV/taintguard.so" "$BV/taintguard" \
		>"$OUT/build.log" 2>&1 ||
		bail "building against $CHROOT's rpm failed: $(grep -m 3 -E 'error|Error' "$OUT/build.log")"
	elapsed "built in $CHROOT"
	in_chroot env B="$BV" TG_KERNEL="$K" TG_PKGVERIFY_LEVEL="${LEVEL:-}" "$REPO/tests/rpm/run.sh"
	;;
esac
