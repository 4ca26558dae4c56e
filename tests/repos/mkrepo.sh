#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The repository tests/repos/run.sh and bench/repo-bench.sh audit: the
# project's kmod test packages (tests/modules, built with kbuild, packaged
# with rpmbuild as tests/audit/run.sh does), a kernel-devel package carrying
# the kernel's Module.symvers and .config, and ~2,000 small packages without
# modules (tests/repos/fillers.sh), with metadata by createrepo_c.
#
#   tests/repos/mkrepo.sh DIR
#     DIR/pkgs/*.rpm       every package built here (also kmod-{badsum,trunc,cut,missing},
#                          copies of gplok for the download failure tests)
#     DIR/www/repo/        Packages/k (kmods, kernel-devel), Packages/f (fillers), repodata/
set -eu
cd "$(dirname "$0")/../.."
D=$1
. tests/lib/kernel.sh
KVER=$TG_KERNEL
KBUILD=/lib/modules/$KVER/build
SYMVERS=$KBUILD/Module.symvers
OUT=${TG_MODULES_OUT:-tests/modules/out}
die() { echo "mkrepo.sh: $*" >&2; exit 1; }
[ -f "$SYMVERS" ] || die "no Module.symvers for $KVER"
mkdir -p "$D/mods" "$D/pkgs"
TG_KERNEL=$KVER tests/modules/build.sh "$OUT" >"$D/kbuild.log" 2>&1 || die "tests/modules/build.sh failed ($D/kbuild.log)"
for m in gplok lve propplain propexp gplimp; do
	cp "$OUT/$m.ko" "$D/mods/" || die "test module $m.ko missing"
done
xz --check=crc32 -k -c "$D/mods/lve.ko" >"$D/mods/lve.ko.xz"

TOPDIR=$D/rpmbuild
mkdir -p "$TOPDIR"/{SPECS,SOURCES,BUILD,RPMS,SRPMS}
EXTRA=/lib/modules/$KVER/extra
# mkpkg NAME LICENSE PAYLOAD "SRC:DEST ..."
mkpkg() {
	local name=$1 license=$2 payload=$3 files=$4 spec=$TOPDIR/SPECS/$1.spec f
	{
		printf 'Name: %s\nVersion: 1.0\nRelease: 1\nSummary: taintguard repository test package %s\n' "$name" "$name"
		printf 'License: %s\nBuildArch: noarch\n' "$license"
		printf '%%global debug_package %%{nil}\n%%global __os_install_post %%{nil}\n'
		printf '%%description\ntest package\n%%install\n'
		for f in $files; do
			echo "mkdir -p %{buildroot}$(dirname "${f#*:}")"
			echo "cp ${f%%:*} %{buildroot}${f#*:}"
		done
		echo "%files"
		for f in $files; do echo "${f#*:}"; done
	} >"$spec"
	rpmbuild -bb --quiet --define "_topdir $TOPDIR" --define "_binary_payload $payload" \
		--define "_build_id_links none" "$spec" >"$D/rpmbuild-$name.log" 2>&1 ||
		die "rpmbuild $name failed ($D/rpmbuild-$name.log)"
	cp "$TOPDIR/RPMS/noarch/$name-1.0-1.noarch.rpm" "$D/pkgs/"
}
M=$D/mods
mkpkg kmod-gplok "GPL-2.0-only" w9.gzdio "$M/gplok.ko:$EXTRA/gplok.ko"
mkpkg kmod-lve "GPL-2.0-only" w2.xzdio "$M/lve.ko.xz:$EXTRA/lve.ko.xz"
mkpkg kmod-prop "Proprietary" w9.bzdio "$M/propplain.ko:$EXTRA/propplain.ko"
mkpkg kmod-propexp "Proprietary" w19.zstdio "$M/propexp.ko:$EXTRA/propexp.ko"
mkpkg kmod-gplimp "GPL-2.0-only" w19.zstdio "$M/gplimp.ko:$EXTRA/gplimp.ko"
mkpkg kernel-devel-tg "GPL-2.0-only" w2.xzdio "$SYMVERS:/usr/src/kernels/$KVER/Module.symvers $KBUILD/.config:/usr/src/kernels/$KVER/.config"
for b in badsum trunc cut missing; do
	mkpkg "kmod-$b" "GPL-2.0-only" w9.gzdio "$M/gplok.ko:$EXTRA/$b/gplok.ko"
done
FILLERS=$(tests/repos/fillers.sh 2000) || die "filler packages"

R=$D/www/repo
rm -rf "$R"
mkdir -p "$R/Packages/k" "$R/Packages/f"
for n in gplok lve prop propexp gplimp; do cp "$D/pkgs/kmod-$n-1.0-1.noarch.rpm" "$R/Packages/k/"; done
cp "$D/pkgs/kernel-devel-tg-1.0-1.noarch.rpm" "$R/Packages/k/"
cp "$FILLERS"/*.rpm "$R/Packages/f/"
createrepo_c -q --workers 2 "$R" >"$D/createrepo.log" 2>&1 || die "createrepo_c failed ($D/createrepo.log)"
