#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The ~2,000 small packages without kernel modules that the repository tests
# and bench/repo-bench.sh put beside the kmod packages: built with rpmbuild
# (20 spec files of 100 subpackages each: one rpmbuild run per spec is what
# makes 2,000 packages affordable), once, and kept in
# /var/tmp/taintguard-fillers/<hash of this script> (flock-protected, remade
# when this script changes), like tests/lib/chroot.sh's chroots.
#
#   tests/repos/fillers.sh [COUNT]    prints the directory holding the .rpm files
#
# Each package has a small text file and, for one in ten, a file below
# /usr/lib/modules-load.d or /etc/modprobe.d: names near a module directory
# that are not module candidates (the audit must not download them).
set -eu
N=${1:-2000}
PER=100
self=$(readlink -f "$0")
hash=$( (cat "$self"; echo "$N") | sha256sum | cut -c1-16)
BASE=${TG_FILLERS_DIR:-/var/tmp/taintguard-fillers}
OUT=$BASE/$hash
mkdir -p "$BASE"
exec 9>"$BASE/.lock"
flock 9
if [ -f "$OUT/.done" ]; then
	echo "$OUT"
	exit 0
fi
rm -rf "$OUT" "$OUT.tmp"
T=$OUT.tmp
mkdir -p "$T"/{SPECS,RPMS,BUILD,SOURCES,SRPMS,BUILDROOT}
python3 - "$T/SPECS" "$N" "$PER" <<'EOF'
import sys
out, n, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for s in range(0, n, per):
    first = s
    with open("%s/fill%04d.spec" % (out, s), "w") as f:
        f.write("""Name: tg-filler-%04d
Version: 1.0
Release: 1
Summary: taintguard filler package %d
License: MIT
BuildArch: noarch
AutoReqProv: no
%%global debug_package %%{nil}
%%global __spec_install_post %%{nil}
%%global __os_install_post %%{nil}
%%global _build_id_links none
%%description
A package without kernel modules.
%%install
""" % (first, first))
        for i in range(s, min(s + per, n)):
            f.write("mkdir -p %%{buildroot}/usr/share/doc/tg-filler-%04d\n" % i)
            f.write("printf 'filler %d\\n%%0200d\\n' 0 > %%{buildroot}/usr/share/doc/tg-filler-%04d/README\n" % (i, i))
            if i % 10 == 3:
                f.write("mkdir -p %{buildroot}/usr/lib/modules-load.d\n")
                f.write("echo tg_filler_%04d > %%{buildroot}/usr/lib/modules-load.d/tg-filler-%04d.conf\n" % (i, i))
            if i % 10 == 7:
                f.write("mkdir -p %{buildroot}/etc/modprobe.d\n")
                f.write("echo 'options tg_filler_%04d x=1' > %%{buildroot}/etc/modprobe.d/tg-filler-%04d.conf\n" % (i, i))
        def files(i):
            r = "/usr/share/doc/tg-filler-%04d/README\n" % i
            if i % 10 == 3:
                r += "/usr/lib/modules-load.d/tg-filler-%04d.conf\n" % i
            if i % 10 == 7:
                r += "%%config /etc/modprobe.d/tg-filler-%04d.conf\n" % i
            return r
        f.write("%files\n" + files(first))
        for i in range(s + 1, min(s + per, n)):
            f.write("""%%package -n tg-filler-%04d
Summary: taintguard filler package %d
AutoReqProv: no
%%description -n tg-filler-%04d
A package without kernel modules.
%%files -n tg-filler-%04d
%s""" % (i, i, i, i, files(i)))
EOF
# two rpmbuild runs at a time (the machine's cores are shared)
ls "$T"/SPECS/*.spec | xargs -P 2 -I{} rpmbuild -bb --quiet --define "_topdir $T" \
	--define "_binary_payload w6.gzdio" {} >"$T/build.log" 2>&1 || {
	echo "fillers.sh: rpmbuild failed:" >&2
	tail -20 "$T/build.log" >&2
	exit 1
}
mkdir -p "$OUT"
mv "$T"/RPMS/noarch/*.rpm "$OUT/"
rm -rf "$T"
got=$(ls "$OUT" | wc -l)
if [ "$got" -ne "$N" ]; then
	echo "fillers.sh: $got packages built, not $N" >&2
	exit 1
fi
touch "$OUT/.done"
echo "$OUT"
