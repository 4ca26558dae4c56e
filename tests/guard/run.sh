#!/bin/bash
# The guard (issue 15): nobody switches taintguard off through a package.
# Real parts only: packages built with rpmbuild, installed with the real rpm;
# "taintguard status" run against what rpm and dkms really read.
#
#   1. guard/'s macro file reader against the real rpm: tricky files, the
#      names each defines
#   2. the plugin in a throw-away --root (as tests/rpm/run.sh): each kind of
#      tampering package refused by plain "rpm -i" with its reason, the
#      harmless look-alikes installed, exceptions, warn mode, upgrades,
#      taintguard's own packages
#   3. the real / of a disposable system (an overlay of this host's / in a
#      private mount namespace, chrooted): the plugin installed where rpm
#      finds it, a tampering package refused; the same package let in with
#      --noplugins really switches the plugin off (the lve package installs
#      next); "taintguard status" names the file and its package and exits 4,
#      0 once it is gone; a macro file placed by hand; the policy; the DKMS
#      hook's framework files, and a DKMS package whose dkms.conf drops our
#      PRE_INSTALL, with the real dkms
# Needs root.  Prints "ok - ..."/"not ok - ..." and "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 2
REPO=$PWD
B=${B:-build}
case $B in /*) ;; *) B=$REPO/$B ;; esac
PLUGDIR=$B
MODS=${TG_MODULES_OUT:-$REPO/tests/modules/out}
. tests/lib/kernel.sh
K=$TG_KERNEL
KBUILD=/lib/modules/$K/build
POLICY=$REPO/policy/default.yaml
SPEC=$REPO/tests/guard/specs/tgguard.spec
TGSPEC=$REPO/tests/rpm/specs/tgtest.spec

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
nok() { fail=$((fail + 1)); echo "not ok - $*"; }
check() {	# check "description" [!] command...
	local d=$1 neg=0 r=0; shift
	if [ "$1" = "!" ]; then neg=1; shift; fi
	"$@" >/dev/null 2>&1 || r=1
	if [ $r -eq $neg ]; then ok "$d"; else nok "$d"; fi
}
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }
bail() { nok "$*"; finish; }
show() { sed 's/^/#   /' <<<"$OUT"; }

[ "$(id -u)" = 0 ] || bail "needs root (rpm --root chroots)"
for t in rpm rpmbuild dash unshare chroot; do
	command -v $t >/dev/null || bail "missing tool $t"
done
for f in taintguard.so taintguard taintguard-dkms tests/guard-macrodefs; do
	[ -x "$B/$f" ] || [ -f "$B/$f" ] || bail "$B/$f not built (make all unit)"
done
if ldd "$B/taintguard.so" 2>/dev/null | grep -q libasan; then
	echo "# $B/taintguard.so is built with ASan, which rpm cannot load: suite skipped"
	echo "0 passed, 0 failed"
	exit 0
fi
if [ ! -f "$MODS/lve.ko" ] || [ ! -f "$MODS/gplok.ko" ]; then
	tests/modules/build.sh "$MODS" >/dev/null 2>&1 || true
fi
[ -f "$MODS/lve.ko" ] || bail "test module $MODS/lve.ko missing (tests/modules/build.sh)"

W=$(mktemp -d /tmp/tg-guard.XXXXXX)
trap 'rm -rf "$W"' EXIT
TOP=$W/rpmbuild
RPMS=$TOP/RPMS/noarch
P() { echo "$RPMS/$1-${2:-1.0}-1.noarch.rpm"; }

# ------------------------------------------------------------ 1. the macro reader against rpm
# Each file is loaded as rpm's whole macro path (rpm --macros FILE, where a
# line rpm rejects does not stop the rest); the names are the _tg_* ones.
M=$W/macros
mkdir -p "$M"
long=$(head -c 16382 /dev/zero | tr '\0' x)
printf '#%s%%_tg_split 1\n' "$long" >"$M/split"		# rpm's 16 KiB line buffer splits it
printf '%%_tg_a 1 \\\n%%_tg_b 2\n%%_tg_c 3\n' >"$M/continued"
printf '%%_tg_d %%{lua:\n%%_tg_e 1\n}\n%%_tg_f 1\n' >"$M/braces"
printf '%%_tg_g 1\0%%_tg_h 2\n%%_tg_i 3\n' >"$M/nul"
printf '  %%  _tg_j 1\n\t%%_tg_k(x:) 2\n%%_tg_l text\n' >"$M/blanks"
printf '%%_tg_q 1\r\n%%_tg_r 2 \\\r\n%%_tg_s 3\r\n' >"$M/crlf"
printf 'text \\\n%%_tg_t 1\n%%{_tg_u} 2\n%%%%_tg_v 3\n# %%_tg_w 4\n' >"$M/notdefs"
names="split a b c d e f g h i j k l q r s t u v w"
evals=()
for n in $names; do evals+=(--eval "%{?_tg_$n:_tg_$n}"); done
for f in split continued braces nul blanks crlf notdefs; do
	ours=$("$B/tests/guard-macrodefs" "$M/$f" | grep '^_tg_' | sort | tr '\n' ' ')
	theirs=$(rpm --macros "$M/$f" "${evals[@]}" 2>/dev/null | grep '^_tg_' | sort | tr '\n' ' ')
	check "macro reader agrees with rpm on '$f': [$ours] = [$theirs]" test "$ours" = "$theirs"
done
# rpm's own macro files: every name rpm defines from one of them (and does not
# without it), guard/ reads as defined
defined_by() {	# FILE NAME...: the names rpm defines with FILE as its macro path
	local f=$1 n args=(); shift
	for n in "$@"; do args+=(--eval "%{?$n:$n}"); done
	rpm --macros "$f" "${args[@]}" 2>/dev/null | grep -E '^[A-Za-z_]' | sort -u
}
for f in /usr/lib/rpm/macros /usr/lib/rpm/platform/x86_64-linux/macros; do
	[ -f "$f" ] || continue
	cand=$(grep -oE '^[[:blank:]]*%[[:blank:]]*[A-Za-z_][A-Za-z0-9_]*' "$f" | tr -d '%[:blank:]' | sort -u)
	# shellcheck disable=SC2086
	want=$(comm -23 <(defined_by "$f" $cand) <(defined_by /dev/null $cand))
	ours=$("$B/tests/guard-macrodefs" "$f" | sort -u)
	missed=$(comm -23 <(echo "$want") <(echo "$ours") | tr '\n' ' ')
	check "macro reader finds every name rpm defines from $f ($(wc -l <<<"$want") names; missed: $missed)" \
		test -z "$missed"
	extra=$(comm -13 <(echo "$cand") <(echo "$ours") | tr '\n' ' ')
	check "macro reader reads no name that is not at a line start of $f (extra: $extra)" test -z "$extra"
done

# ------------------------------------------------------------ packages
# mk NAME VERSION: a package whose payload the script on stdin lays down in "$1".
mk() {
	local name=$1 ver=$2
	mkdir -p "$W/c"
	cat >"$W/c/$name-$ver.sh"
	rpmbuild --quiet --define "_topdir $TOP" --define "pkgname $name" --define "pkgver $ver" \
		--define "content $W/c/$name-$ver.sh" -bb "$SPEC" >"$W/build-$name-$ver.log" 2>&1 ||
		{ cat "$W/build-$name-$ver.log"; bail "rpmbuild $name-$ver"; }
}
# the issue's package: one file that switches the plugin off
mk innocent-tuning 1.0 <<'EOF'
mkdir -p "$1/etc/rpm" && printf '%%__transaction_taintguard %%{nil}\n' >"$1/etc/rpm/macros.zz-tuning"
EOF
mk tg-mode 1.0 <<'EOF'
mkdir -p "$1/usr/lib/rpm/macros.d" && printf '%%_taintguard_mode warn\n' >"$1/usr/lib/rpm/macros.d/macros.zz-mode"
EOF
mk tg-pluginmacro 1.0 <<'EOF'
mkdir -p "$1/etc/rpm" && printf '%%__plugindir /usr/lib/nowhere\n' >"$1/etc/rpm/macros.zz"
EOF
mk tg-libdir 1.0 <<'EOF'
mkdir -p "$1/etc/rpm" && printf '# a "tuning" that moves %%__plugindir\n%%_libdir /opt/lib\n' >"$1/etc/rpm/macros.zz-lib"
EOF
mk tg-libdir-same 1.0 <<'EOF'
mkdir -p "$1/etc/rpm" && printf '%%_libdir\t\t%%{_prefix}/lib64\n' >"$1/etc/rpm/macros.zz-lib"
EOF
mk tg-bindir 1.0 <<'EOF'
mkdir -p "$1/etc/rpm" && printf '%%_bindir /opt/bin\n%%_smp_ncpus_max 4\n' >"$1/etc/rpm/macros.zz-bin"
EOF
mk tg-continued 1.0 <<'EOF'
# the definition hides behind rpm's 16 KiB line buffer
mkdir -p "$1/etc/rpm"
{ printf '#'; head -c 16382 /dev/zero | tr '\0' x; printf '%%__transaction_taintguard %%{nil}\n'; } >"$1/etc/rpm/macros.zz-long"
EOF
mk tg-rpmrc 1.0 <<'EOF'
mkdir -p "$1/etc" && printf 'buildarchtranslate: x86_64: i686\narch_canon: i686: i686 1\n' >"$1/etc/rpmrc"
EOF
mk tg-optflags 1.0 <<'EOF'
mkdir -p "$1/etc" && printf '# site flags\noptflags: x86_64 -O1 -g\n' >"$1/etc/rpmrc"
EOF
mk tg-shadow 1.0 <<'EOF'
mkdir -p "$1/etc/rpm" && printf '# nothing in it\n' >"$1/etc/rpm/macros.transaction_taintguard"
EOF
mk tg-link 1.0 <<'EOF'
mkdir -p "$1/etc/rpm" && ln -s /usr/share/tg-link/README "$1/etc/rpm/macros.zz-link"
EOF
mk tg-fwsign 1.0 <<'EOF'
mkdir -p "$1/etc/dkms/framework.conf.d" && printf 'sign_file=/bin/true\n' >"$1/etc/dkms/framework.conf.d/zzz-sign.conf"
EOF
mk tg-fwmok 1.0 <<'EOF'
mkdir -p "$1/etc/dkms/framework.conf.d"
printf '# sign_file="/path/to/sign-file"\nmok_signing_key=/root/mok.key\nmok_certificate=/root/mok.der\n' >"$1/etc/dkms/framework.conf.d/aa-mok.conf"
EOF
mk tg-dkmsconf 1.0 <<'EOF'
mkdir -p "$1/usr/src/tg-dk-1.0"
printf 'PACKAGE_NAME=tg-dk\nPACKAGE_VERSION=1.0\nBUILT_MODULE_NAME[0]=tgdk\nunset DKMS_DIRECTIVE_TG\n' >"$1/usr/src/tg-dk-1.0/dkms.conf"
EOF
mk tg-dkmsconf-plain 1.0 <<'EOF'
mkdir -p "$1/usr/src/tg-dk-1.0"
printf 'PACKAGE_NAME=tg-dk\nPACKAGE_VERSION=1.0\nBUILT_MODULE_NAME[0]=tgdk\nPRE_INSTALL="fix.sh"\n' >"$1/usr/src/tg-dk-1.0/dkms.conf"
EOF
mk tg-policy 1.0 <<'EOF'
mkdir -p "$1/etc/taintguard" && printf 'taintguard-policy: 1\ndefault: allow\nrules: []\n' >"$1/etc/taintguard/policy.yaml"
EOF
mk tg-plugin 1.0 <<EOF
mkdir -p "\$1$PLUGDIR" && echo not-a-plugin >"\$1$PLUGDIR/taintguard.so"
EOF
mk tg-plain 1.0 </dev/null
# an upgrade: 1.0 leaves the mode as it is (a later file says enforce); 2.0 drops that file
mk tg-up 1.0 <<'EOF'
mkdir -p "$1/etc/rpm"
printf '%%_taintguard_mode warn\n' >"$1/etc/rpm/macros.a"
printf '%%_taintguard_mode enforce\n' >"$1/etc/rpm/macros.b"
EOF
mk tg-up 2.0 <<'EOF'
mkdir -p "$1/etc/rpm" && printf '%%_taintguard_mode warn\n' >"$1/etc/rpm/macros.a"
EOF
# taintguard's own names: ours only for its own files, and only while no package owns them
mk taintguard-rpm-plugin 1.0 <<EOF
mkdir -p "\$1$PLUGDIR" "\$1/etc/taintguard" "\$1/usr/lib/rpm/macros.d"
echo plugin >"\$1$PLUGDIR/taintguard.so"
printf '%%_taintguard_mode enforce\n' >"\$1/usr/lib/rpm/macros.d/macros.transaction_taintguard"
cp "$POLICY" "\$1/etc/taintguard/policy.yaml"
EOF
mk taintguard-rpm-plugin 2.0 <<EOF
mkdir -p "\$1$PLUGDIR" "\$1/etc/taintguard" "\$1/usr/lib/rpm/macros.d"
echo plugin2 >"\$1$PLUGDIR/taintguard.so"
printf '%%_taintguard_mode enforce\n' >"\$1/usr/lib/rpm/macros.d/macros.transaction_taintguard"
cp "$POLICY" "\$1/etc/taintguard/policy.yaml"
EOF
mk taintguard 9.9 <<'EOF'
mkdir -p "$1/etc/rpm" && printf '%%__transaction_taintguard %%{nil}\n' >"$1/etc/rpm/macros.zz-tuning"
EOF
mk taintguard-evil 1.0 <<'EOF'
mkdir -p "$1/etc/taintguard" && echo x >"$1/etc/taintguard/extra.yaml"
EOF
rpmbuild --quiet --define "_topdir $TOP" --define "pkgname tg-lve" --define "pkgver 1.0" \
	--define "moddir $MODS" --define "payload lve.ko:/lib/modules/$K/extra/lve.ko" -bb "$TGSPEC" \
	>"$W/build-lve.log" 2>&1 || { cat "$W/build-lve.log"; bail "rpmbuild tg-lve"; }

# ------------------------------------------------------------ 2. the plugin, --root
# mkroot [rpmconf]: /bin/sh for scriptlets, an rpmdb; rpmconf: rpm's own macro
# files as this host has them (so %__plugindir is "%{_libdir}/rpm-plugins").
mkroot() {
	R=$W/root
	rm -rf "$R"
	mkdir -p "$R/var/lib/rpm" "$R/var/tmp" "$R/bin" "$R/tmp"
	cp "$(command -v dash)" "$R/bin/sh"
	local lib
	for lib in $(ldd "$(command -v dash)" | grep -o '/[^ ]*'); do
		mkdir -p "$R$(dirname "$lib")"
		cp -L "$lib" "$R$lib"
	done
	if [ "${1:-}" = rpmconf ]; then
		mkdir -p "$R/usr/lib/rpm/platform/x86_64-linux" "$R/usr/lib/rpm/macros.d"
		cp /usr/lib/rpm/macros "$R/usr/lib/rpm/"
		cp /usr/lib/rpm/platform/x86_64-linux/macros "$R/usr/lib/rpm/platform/x86_64-linux/"
		# the plugin's macro file, placed by hand (a make install)
		cp rpm-plugin/macros.transaction_taintguard "$R/usr/lib/rpm/macros.d/"
	fi
	rpmdb --root "$R" --dbpath /var/lib/rpm --initdb 2>/dev/null
}
rpmx() {
	rpm --root "$R" --dbpath /var/lib/rpm --nodeps --define "__plugindir $PLUGDIR" \
		--define "__transaction_taintguard %{__plugindir}/taintguard.so" \
		--define "_taintguard_policy ${POL:-$POLICY}" "$@" >"$W/out" 2>&1
	RC=$?
	OUT=$(grep -v 'RPM should not be used directly\|assuming you know what' "$W/out")
}
installed() { rpm --root "$R" --dbpath /var/lib/rpm -q "$1" >/dev/null 2>&1; }
has() { grep -q -- "$1" <<<"$OUT"; }
ran() { grep -q "^pre $1\$" "$R/var/tmp/tgguard-scriptlets.log" 2>/dev/null; }
# refused NAME FILE WHY: rpm -i of NAME fails, nothing of it is there, the reason is named
refused() {
	local name=$1 file=$2 why=$3
	mkroot "${ROOTKIND:-}"
	rpmx -i "$(P "$name")"
	check "$name: refused (rpm exit $RC)" test "$RC" = 1
	check "$name: not installed, $file absent, %pre not run" \
		bash -c "! rpm --root '$R' --dbpath /var/lib/rpm -q '$name' && test ! -e '$R$file' -a ! -L '$R$file' && ! grep -q '^pre $name' '$R/var/tmp/tgguard-scriptlets.log' 2>/dev/null"
	check "$name: the error names $file, the reason ($why) and the rule" \
		grep -qE "error: taintguard: $name-1.0-1.noarch: $file: refused: .*$why.*\[policy rule guard\]" <<<"$OUT"
	check "$name: the error says how to let it in" \
		grep -q "add an exception (package: \"$name\", file: \"$file\", action: allow" <<<"$OUT"
	[ "$fail" -eq 0 ] || show
}
# allowed NAME: rpm -i of NAME installs, without a word from taintguard
allowed() {
	mkroot "${ROOTKIND:-}"
	rpmx -i "$(P "$1")"
	check "$1: installs, taintguard says nothing ($2; exit $RC)" \
		bash -c "test $RC = 0 && rpm --root '$R' --dbpath /var/lib/rpm -q '$1' >/dev/null && ! grep -q taintguard <<<\"\$0\"" "$OUT"
}

refused innocent-tuning /etc/rpm/macros.zz-tuning '%__transaction_taintguard, the plugin rpm loads as taintguard'
check "innocent-tuning: the error quotes what the file would set" grep -q "'%{nil}'" <<<"$OUT"
refused tg-mode /usr/lib/rpm/macros.d/macros.zz-mode '%_taintguard_mode, a setting of the taintguard plugin'
refused tg-pluginmacro /etc/rpm/macros.zz "%__plugindir, rpm's plugin directory"
refused tg-continued /etc/rpm/macros.zz-long '%__transaction_taintguard'
refused tg-rpmrc /etc/rpmrc 'an rpmrc file that changes more than optflags'
refused tg-shadow /etc/rpm/macros.transaction_taintguard "named like taintguard's macro file"
refused tg-link /etc/rpm/macros.zz-link 'a symbolic link'
refused tg-fwsign /etc/dkms/framework.conf.d/zzz-sign.conf 'it sets sign_file'
refused tg-dkmsconf /usr/src/tg-dk-1.0/dkms.conf 'it touches DKMS_DIRECTIVE_'
refused tg-policy /etc/taintguard/policy.yaml "taintguard's own directories"
refused tg-plugin "$PLUGDIR/taintguard.so" "named like the taintguard plugin"
allowed tg-optflags "an rpmrc with optflags only"
allowed tg-fwmok "a framework file with MOK settings only"
allowed tg-dkmsconf-plain "a dkms.conf with its own PRE_INSTALL"
allowed tg-bindir "a macro file that touches nothing the plugin depends on"
# with rpm's own macro files in the root, %__plugindir is built from %_libdir
ROOTKIND=rpmconf
refused tg-libdir /etc/rpm/macros.zz-lib '%_libdir, a macro the plugin.s path is built from'
allowed tg-libdir-same "a definition equal to the one rpm uses now"
allowed tg-bindir "rpm's macro files in the root; a macro outside the plugin's"
ROOTKIND=

# a mixed transaction: only the tampering package is refused
mkroot
rpmx -i "$(P innocent-tuning)" "$(P tg-plain)"
check "mixed: tg-plain installed, innocent-tuning refused (exit $RC)" \
	bash -c "test $RC != 0 && rpm --root '$R' --dbpath /var/lib/rpm -q tg-plain && ! rpm --root '$R' --dbpath /var/lib/rpm -q innocent-tuning"
# --test: said, nothing refused
mkroot
rpmx -i --test "$(P innocent-tuning)"
check "--test: 'would be refused' (exit $RC)" has "macros.zz-tuning: would be refused"
# warn mode installs, saying so
mkroot
rpmx -i --define '_taintguard_mode warn' "$(P innocent-tuning)"
check "warn mode: installed with a warning (exit $RC)" \
	bash -c "test $RC = 0 && grep -q 'warning: taintguard: innocent-tuning-1.0-1.noarch: /etc/rpm/macros.zz-tuning: would be refused (warn mode' <<<\"\$0\"" "$OUT"
# off: not looked at
mkroot
rpmx -i --define '_taintguard_mode off' "$(P innocent-tuning)"
check "mode off: installed, nothing said (exit $RC)" bash -c "test $RC = 0 && ! grep -q taintguard <<<\"\$0\"" "$OUT"
# the policy: an exception naming the file lets it in; one for the package's modules does not
{ cat "$POLICY" | sed '/^exceptions: \[\]$/d'; cat <<'EOF'
exceptions:
  - package: "innocent-tuning"
    module: "*"
    action: allow
    justification: "for its modules: must not cover its files"
  - package: "tg-fwsign"
    file: "/etc/dkms/framework.conf.d/zzz-sign.conf"
    action: allow
    justification: "the site's signer"
EOF
} >"$W/exc.yaml"
POL=$W/exc.yaml
refused innocent-tuning /etc/rpm/macros.zz-tuning '%__transaction_taintguard'
allowed tg-fwsign "an exception with file: for it"
sed 's/^  action: deny$/  action: mark/' "$POLICY" >"$W/mark.yaml"
grep -q '^guard:' "$W/mark.yaml" || nok "default.yaml has no guard section"
POL=$W/mark.yaml
mkroot
rpmx -i "$(P innocent-tuning)"
check "guard: {action: mark}: installed with 'marked' (exit $RC)" \
	bash -c "test $RC = 0 && grep -q 'warning: taintguard: innocent-tuning-1.0-1.noarch: /etc/rpm/macros.zz-tuning: marked' <<<\"\$0\"" "$OUT"
POL=

# an upgrade is judged by what rpm would have afterwards
mkroot rpmconf
rpmx -i "$(P tg-up 1.0)"
check "upgrade: 1.0 installs (its warn is overridden by its own later enforce; exit $RC)" \
	bash -c "test $RC = 0 && rpm --root '$R' --dbpath /var/lib/rpm -q tg-up"
rpmx -U "$(P tg-up 2.0)"
check "upgrade: 2.0, which drops the later file, is refused (exit $RC)" \
	bash -c "test $RC != 0 && grep -q 'tg-up-2.0-1.noarch: /etc/rpm/macros.a: refused: .*%_taintguard_mode' <<<\"\$0\"" "$OUT"
check "upgrade: 1.0 is still installed, intact" bash -c "rpm --root '$R' --dbpath /var/lib/rpm -q tg-up-1.0 && rpm --root '$R' --dbpath /var/lib/rpm -V tg-up"

# taintguard's own packages
mkroot
rpmx -i "$(P taintguard 9.9)"
check "a package named taintguard is not ours for other files (a name alone; exit $RC)" \
	bash -c "test $RC = 1 && grep -q 'taintguard-9.9-1.noarch: /etc/rpm/macros.zz-tuning: refused' <<<\"\$0\"" "$OUT"
rpmx -i "$(P taintguard-rpm-plugin 1.0)"
check "nothing owns taintguard's files yet: taintguard-rpm-plugin installs them (exit $RC)" \
	bash -c "test $RC = 0 && rpm --root '$R' --dbpath /var/lib/rpm -q taintguard-rpm-plugin" 
rpmx -i "$(P taintguard-evil)"
check "now taintguard-rpm-plugin owns them: taintguard-evil is refused (exit $RC)" \
	bash -c "test $RC = 1 && grep -q 'taintguard-evil-1.0-1.noarch: /etc/taintguard/extra.yaml: refused' <<<\"\$0\"" "$OUT"
rpmx -U "$(P taintguard-rpm-plugin 2.0)"
check "the owner's upgrade is ours (exit $RC)" \
	bash -c "test $RC = 0 && rpm --root '$R' --dbpath /var/lib/rpm -q taintguard-rpm-plugin-2.0"

# ------------------------------------------------------------ 3. the real / of a disposable system
# An overlay of this host's / (the root file system; nothing else is mounted
# in it), writable, in a private mount namespace that vanishes with the
# script: rpm, dkms and taintguard run chrooted in it as on a real system.
cat >"$W/inside.sh" <<'INSIDE'
set -u
REPO=$1; B=$2; RPMS=$3; K=$4; W=$5
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - real /: $*"; }
nok() { fail=$((fail + 1)); echo "not ok - real /: $*"; }
check() {
	local d=$1 neg=0 r=0; shift
	if [ "$1" = "!" ]; then neg=1; shift; fi
	"$@" >/dev/null 2>&1 || r=1
	if [ $r -eq $neg ]; then ok "$d"; else nok "$d"; fi
}
show() { sed 's/^/#   /' "$W/o"; }
TG=$B/taintguard
st() { "$TG" status "$@" >"$W/o" 2>&1; SRC=$?; }
r() { rpm --nodeps "$@" >"$W/o" 2>&1; RC=$?; }

# taintguard as make install lays it down (Debian's rpm: %__plugindir is /usr/lib64/rpm-plugins)
PD=$(rpm --eval '%{__plugindir}')
MD=$(rpm --eval '%{_rpmmacrodir}')
mkdir -p "$PD" "$MD" /etc/taintguard
install -m 755 "$B/taintguard.so" "$PD/taintguard.so"
install -m 644 "$REPO/rpm-plugin/macros.transaction_taintguard" "$MD/"
install -m 644 "$REPO/policy/default.yaml" /etc/taintguard/policy.yaml
rm -rf /root/.rpmdb /var/lib/taintguard; rpm --initdb
check "the plugin is enabled: rpm --eval %__transaction_taintguard is $PD/taintguard.so" \
	test "$(rpm --eval '%{__transaction_taintguard}')" = "$PD/taintguard.so"
r -i "$RPMS/tg-lve-1.0-1.noarch.rpm"
check "plain rpm -i: the lve package is refused (exit $RC)" \
	bash -c "test $RC = 1 && grep -q 'refused tg-lve-1.0-1.noarch: module lve: ' '$W/o' && test ! -e /lib/modules/$K/extra/lve.ko"
"$TG" status --accept >"$W/o" 2>&1
check "status --accept records the state (exit $?)" grep -q 'recorded in /var/lib/taintguard/guard.conf' "$W/o"
st --check guard
check "status: the guard is up, exit $SRC = 0" bash -c "test $SRC = 0 && grep -q '^guard: up' '$W/o' && grep -q 'plugin: up: rpm loads $PD/taintguard.so' '$W/o'"
[ "$SRC" = 0 ] || show

# the issue's package: refused by plain rpm -i
r -i "$RPMS/innocent-tuning-1.0-1.noarch.rpm"
check "innocent-tuning: refused by plain rpm -i (exit $RC), the file is not there" \
	bash -c "test $RC = 1 && grep -q 'macros.zz-tuning: refused' '$W/o' && test ! -e /etc/rpm/macros.zz-tuning"
st --check guard
check "status after the refusal: still up (exit $SRC)" test "$SRC" = 0
# what it would have done: let in with --noplugins (a mistake, a scriptlet ...)
r -i --noplugins "$RPMS/innocent-tuning-1.0-1.noarch.rpm"
check "innocent-tuning let in with --noplugins (exit $RC)" test -e /etc/rpm/macros.zz-tuning
check "now rpm --eval %__transaction_taintguard is empty" test -z "$(rpm --eval '%{__transaction_taintguard}')"
r -i "$RPMS/tg-lve-1.0-1.noarch.rpm"
check "the next plain rpm -i installs the lve package without a word (exit $RC): the plugin is off" \
	bash -c "test $RC = 0 && test -e /lib/modules/$K/extra/lve.ko && ! grep -q taintguard '$W/o'"
st
check "status: the guard is down, exit $SRC = 4" test "$SRC" = 4
check "status names the file, its line and its package" \
	grep -q 'file /etc/rpm/macros.zz-tuning (line 1), package innocent-tuning-1.0-1.noarch' "$W/o"
check "status says why: %__transaction_taintguard is empty" grep -q 'plugin: down: %__transaction_taintguard is empty' "$W/o"
st --format json
check "status --format json: a guard entry for the plugin, down, with file and owner (exit $SRC)" python3 -c "
import json,sys; d=json.load(open('$W/o')); g={e['check']: e for e in d if e['source']=='guard'}
p=g['plugin']; assert p['state']=='down' and p['file']=='/etc/rpm/macros.zz-tuning' and p['owner']=='innocent-tuning-1.0-1.noarch' and p['line']==1 and p['owned'] is True, p
assert g['policy']['state']=='up' and g['mode']['state']=='up', g
assert sys.argv[1]=='4'" "$SRC"
st --skip plugin,mode
# the guard checks skipped, what was let in while the plugin was off is still
# found: tg-lve has no record, judged now (exit 5, which guard-down's 4 beats)
check "status --skip plugin,mode: the guard no longer down; tg-lve, let in while it was, unrecorded (exit $SRC = 5)" \
	bash -c "test $SRC = 5 && grep -q '^tg-lve-1.0-1.noarch (rpm): .*\[unrecorded: judged now\]' '$W/o'"
rpm -e --nodeps --noplugins tg-lve innocent-tuning >/dev/null 2>&1
st --check guard
check "status: up once the package is gone (exit $SRC)" test "$SRC" = 0

# a macro file placed by hand
mkdir -p /etc/rpm && printf '# quiet, please\n%%_taintguard_mode warn\n' >/etc/rpm/macros.hand
st --check guard
check "a macro file placed by hand: down, exit $SRC = 4" test "$SRC" = 4
check "status names it: mode warn, file /etc/rpm/macros.hand line 2, owned by no package" \
	bash -c "grep -q \"mode: down: %_taintguard_mode is 'warn', accepted: 'enforce'\" '$W/o' && grep -q 'file /etc/rpm/macros.hand (line 2), not owned by any package' '$W/o'"
[ "$SRC" = 4 ] || show
r -i "$RPMS/tg-lve-1.0-1.noarch.rpm"
check "(and rpm really runs in warn mode: lve installs with a warning; exit $RC)" \
	bash -c "test $RC = 0 && grep -q 'warn mode, installed although denied: tg-lve-1.0-1.noarch: module lve: ' '$W/o'"
rpm -e --nodeps tg-lve >/dev/null 2>&1
"$TG" status --accept >/dev/null 2>&1
st --check mode
check "the admin accepts warn (status --accept): up (exit $SRC)" test "$SRC" = 0
rm -f /etc/rpm/macros.hand
st --check mode
check "mode back to enforce while warn was accepted: down (exit $SRC)" test "$SRC" = 4
"$TG" status --accept >/dev/null 2>&1

# the plugin moved away, or replaced
mv "$PD/taintguard.so" "$W/so"
st --check plugin
check "taintguard.so gone from %__plugindir: down (exit $SRC)" \
	bash -c "test $SRC = 4 && grep -q \"which has no taintguard.so\" '$W/o'"
mv "$W/so" "$PD/taintguard.so"
echo >>"$PD/taintguard.so"
st --check plugin
check "taintguard.so changed since accepted: down, named (exit $SRC)" \
	bash -c "test $SRC = 4 && grep -q '$PD/taintguard.so changed since it was accepted' '$W/o'"
install -m 755 "$B/taintguard.so" "$PD/taintguard.so"

# the policy
echo "# edited" >>/etc/taintguard/policy.yaml
st --check policy
check "policy edited after it was accepted: down (exit $SRC)" \
	bash -c "test $SRC = 4 && grep -q 'policy: down: the policy changed since it was accepted' '$W/o'"
"$TG" status --accept >/dev/null 2>&1
st --check policy
check "accepted again: up (exit $SRC)" test "$SRC" = 0
chmod 666 /etc/taintguard/policy.yaml
st --check policy
check "policy writable by others (the plugin would fall back): down (exit $SRC)" test "$SRC" = 4
chmod 644 /etc/taintguard/policy.yaml

# the DKMS hook, installed by hooks/install.sh (it diverts /usr/sbin/dkms here)
if command -v dkms >/dev/null; then
	(cd "$REPO" && PREFIX=/usr/local B="$B" hooks/install.sh) >"$W/o" 2>&1 || { nok "hooks/install.sh"; show; }
	"$TG" status --accept >/dev/null 2>&1
	st --check dkms
	check "dkms: up after hooks/install.sh (exit $SRC)" \
		bash -c "test $SRC = 0 && grep -q 'dkms: up: dkms calls /usr/local/libexec/taintguard/taintguard-dkms-sign' '$W/o'"
	[ "$SRC" = 0 ] || show
	printf 'sign_file="/bin/true"\n' >/etc/dkms/framework.conf.d/zzz-sign.conf
	st --check dkms
	check "dkms: a framework file after ours sets sign_file: down, named (exit $SRC)" \
		bash -c "test $SRC = 4 && grep -q 'file /etc/dkms/framework.conf.d/zzz-sign.conf, not owned by any package' '$W/o'"
	mv /etc/dkms/framework.conf.d/zzz-sign.conf /etc/dkms/framework.conf.d/aaa-sign.conf
	st --check dkms
	check "dkms: the same before ours is chained: up (exit $SRC)" test "$SRC" = 0
	rm -f /etc/dkms/framework.conf.d/aaa-sign.conf
	cp /usr/sbin/dkms.distrib "$W/real-dkms" && cp /usr/sbin/dkms "$W/wrapper" && cp "$W/real-dkms" /usr/sbin/dkms
	st --check dkms
	check "dkms: the wrapper replaced by the real dkms: down (exit $SRC)" \
		bash -c "test $SRC = 4 && grep -q 'no longer taintguard.s wrapper' '$W/o'"
	cp "$W/wrapper" /usr/sbin/dkms

	# with the wrapper, every package gets our PRE_INSTALL: tg-lve is refused there
	rm -rf /usr/src/tg-lve-1.0 && cp -r "$REPO/tests/dkms/pkgs/tg-lve-1.0" /usr/src/
	dkms add tg-lve/1.0 >/dev/null 2>&1
	dkms install tg-lve/1.0 -k "$K" >"$W/o" 2>&1; rc=$?
	check "dkms: a plain package runs our pre_install and is refused there (dkms exit $rc = 101)" \
		bash -c "test $rc = 101 && grep -q 'Running the pre_install script' '$W/o'"
	dkms remove tg-lve/1.0 --all >/dev/null 2>&1

	# a DKMS package whose dkms.conf drops the wrapper's PRE_INSTALL
	# (1.0: the clean module, which the policy allows; 2.0: lve, which it denies)
	for v in 1.0 2.0; do
		src=/usr/src/tg-bypass-$v
		from=tg-clean-1.0
		[ "$v" = 2.0 ] && from=tg-lve-1.0
		rm -rf "$src" && cp -r "$REPO/tests/dkms/pkgs/$from" "$src"
		sed -i "s/^PACKAGE_NAME=.*/PACKAGE_NAME=\"tg-bypass\"/; s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$v\"/" "$src/dkms.conf"
		echo 'unset DKMS_DIRECTIVE_TG' >>"$src/dkms.conf"
	done
	dkms add tg-bypass/1.0 >/dev/null 2>&1
	dkms install tg-bypass/1.0 -k "$K" >"$W/o" 2>&1; rc=$?
	check "dkms: tg-bypass/1.0 (dkms.conf unsets DKMS_DIRECTIVE_TG), a clean module: not installed (dkms exit $rc)" \
		bash -c "! ls /lib/modules/$K/updates/dkms/tgclean.ko* >/dev/null 2>&1 && grep -q 'refused tg-bypass/1.0: module tgclean: the package.s /var/lib/dkms/tg-bypass/1.0/source/dkms.conf' '$W/o'"
	check "dkms: the denial names the package's dkms.conf, the reason and the rule guard" \
		bash -c "grep -q 'reason: the package.s /var/lib/dkms/tg-bypass/1.0/source/dkms.conf could switch taintguard.s check off: it touches DKMS_DIRECTIVE_' '$W/o' && grep -q \"policy: rule 'guard'\" '$W/o'"
	[ "$fail" -eq 0 ] || show
	dkms remove tg-bypass/1.0 --all >/dev/null 2>&1
	# the bypass is real: with an exception for that file, our PRE_INSTALL never runs
	cat >>/etc/taintguard/policy.yaml <<'EOF'
EOF
	sed -i 's/^exceptions: \[\]$//' /etc/taintguard/policy.yaml
	cat >>/etc/taintguard/policy.yaml <<'EOF'
exceptions:
  - file: "*/tg-bypass/2.0/source/dkms.conf"
    action: allow
    justification: "test: show what the file does"
EOF
	dkms add tg-bypass/2.0 >/dev/null 2>&1
	dkms install tg-bypass/2.0 -k "$K" >"$W/o" 2>&1; rc=$?
	check "dkms: with an exception for that file, dkms runs no pre_install for tg-bypass/2.0 and installs lve" \
		bash -c "! grep -q 'Running the pre_install script' '$W/o' && grep -q 'outcome: it was installed for $K' '$W/o'"
	check "dkms: ... and only the audit after dkms takes it out again" \
		bash -c "grep -q 'taintguard uninstalls tg-bypass/2.0' '$W/o' && ! ls /lib/modules/$K/updates/dkms/lve.ko* >/dev/null 2>&1"
	[ "$fail" -eq 0 ] || show
else
	echo "# no dkms here: DKMS part skipped"
fi
echo "$pass passed, $fail failed"
INSIDE

unshare --mount --propagation private -- bash -c '
	set -e
	W=$1; shift
	mkdir -p "$W/ov"
	mount -t tmpfs tmpfs "$W/ov"
	mkdir -p "$W/ov/upper" "$W/ov/work" "$W/ov/root"
	mount -t overlay overlay -o "lowerdir=/,upperdir=$W/ov/upper,workdir=$W/ov/work" "$W/ov/root"
	mount --rbind /dev "$W/ov/root/dev"
	mount -t proc proc "$W/ov/root/proc"
	mount -t tmpfs tmpfs "$W/ov/root/run"
	exec chroot "$W/ov/root" /bin/bash "$W/inside.sh" "$@"
' _ "$W" "$REPO" "$B" "$RPMS" "$K" "$W" >"$W/inside.out" 2>&1
grep -E '^(ok|not ok|#)' "$W/inside.out"
ip=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$W/inside.out" | tail -n 1)
if [ -z "$ip" ]; then
	tail -n 20 "$W/inside.out"
	nok "the real-/ part did not finish"
else
	pass=$((pass + ${ip% *}))
	fail=$((fail + ${ip#* }))
fi
finish
