#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The clients people install kmod packages with: dnf 4 (this host), zypper
# (this host, which runs the rpm command) and dnf5 (Debian unstable chroot,
# rpm 6.1, the plugin built there), each installing from a local repository
# (createrepo_c) into an empty --installroot:
#
#   1. one transaction of an allowed (kmod-tgok), a marked (kmod-tgprop) and a
#      denied (kmod-tglve) package
#   2. an upgrade of the allowed package to a denied version (2.0 ships lve)
#   3. a downgrade (0.9, allowed), 4. a reinstall of the marked package,
#   5. an erase
#   6. the five packages of issue 25 (a refusal and its dependents)
#   7. a kernel update: the host's other kernel as a package, installed into a
#      root with a module that kernel will refuse: the rpm plugin's warning
#      line, said once by the dnf plugin before rpm runs; the kernel installs,
#      unless %_taintguard_kernel_update is deny
#
# After each: exactly the expected packages in the rpmdb, nothing on disk of
# what was refused, the old version whole, and the reason and the way to
# override it in what the client PRINTED (stdout + stderr), not in a log.
# Each client's exit code is recorded ("# client step: exit N") and checked:
# 0 where everything asked for went in (or out), and where the plugin refused
# a package the client's code for a failed transaction: dnf 4 and dnf5 1
# ("Error: Transaction failed", "Transaction failed: Rpm transaction
# failed."), zypper --non-interactive 8 (it aborts at the refused package).
# Needs root.
#
#   tests/clients/run.sh [dnf|zypper|dnf5]...    (default: all three)
#   TG_DUMP=FILE  every client command and its output appended there
set -u
cd "$(dirname "$0")/../.."
REPO=$PWD
B=${B:-build}
. tests/lib/kernel.sh
K=$TG_KERNEL
KBUILD=/lib/modules/$K/build
MODS=${TG_MODULES_OUT:-$REPO/tests/modules/out}
MD=/lib/modules/$K/extra
CLIENTS=${*:-dnf zypper dnf5}
pass=0 fail=0
check() {
	local what=$1; shift
	if "$@"; then echo "ok - $what"; pass=$((pass + 1)); else echo "not ok - $what"; fail=$((fail + 1)); fi
}
bail() { echo "not ok - clients: $*"; echo "$pass passed, $((fail + 1)) failed"; exit 1; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }
[ "$(id -u)" = 0 ] || bail "needs root"
W=$(mktemp -d /tmp/tg-clients.XXXXXX)
HTTP_PID=
trap '[ -z "$HTTP_PID" ] || kill "$HTTP_PID" 2>/dev/null; [ -n "${TG_KEEP:-}" ] || rm -rf "$W"' EXIT
t0=$SECONDS

# --- packages and the repository --------------------------------------------------------
make -s -j2 B="$B" "$B/taintguard.so" "$B/taintguard" >"$W/build.log" 2>&1 ||
	bail "build failed: $(grep -m 3 error "$W/build.log")"
for m in gplok lve propplain; do
	[ -f "$MODS/$m.ko" ] && continue
	tests/modules/build.sh "$MODS" >"$W/kbuild.log" 2>&1 || bail "test modules: $(tail -n 3 "$W/kbuild.log")"
	break
done
TOP=$W/rpmbuild
mkdir -p "$TOP/SPECS"
# mkpkg NAME VERSION MODULE DEST [REQUIRES]: a kmod package carrying MODULE.ko as
# DEST; MODULE "-": a plain package (DEST a text file) that requires REQUIRES
mkpkg() {
	local spec=$TOP/SPECS/$1-$2.spec src=$MODS/$3.ko
	[ "$3" != - ] || src=$TOP/SPECS/$1-$2.spec
	printf '%s\n' "Name: $1" "Version: $2" "Release: 1" "Summary: taintguard client test $1" \
		"License: GPL-2.0-only" "BuildArch: noarch" ${5:+"Requires: $5"} '%global debug_package %{nil}' \
		'%global __os_install_post %{nil}' '%description' 'client test package' '%install' \
		"mkdir -p %{buildroot}$(dirname "$4")" "cp $src %{buildroot}$4" \
		'%files' "$4" >"$spec"
	rpmbuild -bb --quiet --define "_topdir $TOP" --define "_build_id_links none" "$spec" \
		>"$W/rpmbuild.log" 2>&1 || bail "rpmbuild $1 $2: $(tail -n 3 "$W/rpmbuild.log")"
}
mkpkg kmod-tgok 0.9 gplok "$MD/tgok.ko"
mkpkg kmod-tgok 1.0 gplok "$MD/tgok.ko"
mkpkg kmod-tgok 2.0 lve "$MD/tgok.ko"		# an upgrade that ships lve
mkpkg kmod-tgprop 1.0 propplain "$MD/tgprop.ko"
mkpkg kmod-tglve 1.0 lve "$MD/tglve.ko"
# the five packages of issue 25: kmod-lve refused, two packages that need it
# (one through the other), and an innocent pair that must still install
mkpkg kmod-lve 1.0 lve "$MD/lve.ko"
mkpkg lve-utils 1.0 - /usr/share/lve-utils/spec kmod-lve
mkpkg lve-tools 1.0 - /usr/share/lve-tools/spec lve-utils
mkpkg kmod-good 1.0 gplok "$MD/good.ko"
mkpkg good-utils 1.0 - /usr/share/good-utils/spec kmod-good
# a second kernel (K2: the host's other one, or one unpacked) as a kernel package: image, .config, export
# table and one in-tree module (the judgement needs no more: tests/kupdate)
. tests/lib/second_kernel.sh
if tg_second_kernel "$K"; then
	KS=$TOP/SPECS/kernel
	mkdir -p "$KS"
	cp "$K2R/boot/vmlinuz-$K2" "$KS/vmlinuz" && cp "$K2R/boot/config-$K2" "$KS/config"
	gzip -c "$K2R/usr/src/linux-headers-$K2/Module.symvers" >"$KS/symvers.gz"
	DUMMY=$(cd "$K2R/lib/modules/$K2/kernel/drivers/net" && ls dummy.ko*)
	cp "$K2R/lib/modules/$K2/kernel/drivers/net/$DUMMY" "$KS/"
	printf '%s\n' "Name: tgkernel" "Version: 2" "Release: 1" "Summary: taintguard client test kernel $K2" \
		"License: GPL-2.0-only" "BuildArch: noarch" '%global debug_package %{nil}' \
		'%global __os_install_post %{nil}' '%define _build_id_links none' '%description' 'client test kernel' \
		'%install' "mkdir -p %{buildroot}/boot %{buildroot}/lib/modules/$K2/kernel/drivers/net" \
		"cp $KS/vmlinuz %{buildroot}/boot/vmlinuz-$K2" "cp $KS/config %{buildroot}/boot/config-$K2" \
		"cp $KS/symvers.gz %{buildroot}/lib/modules/$K2/symvers.gz" \
		"cp $KS/$DUMMY %{buildroot}/lib/modules/$K2/kernel/drivers/net/$DUMMY" '%files' "/boot/vmlinuz-$K2" \
		"/boot/config-$K2" "/lib/modules/$K2/symvers.gz" "/lib/modules/$K2/kernel/drivers/net/$DUMMY" \
		>"$TOP/SPECS/tgkernel.spec"
	rpmbuild -bb --quiet --define "_topdir $TOP" --define '_binary_payload w1.gzdio' "$TOP/SPECS/tgkernel.spec" \
		>"$W/rpmbuild.log" 2>&1 || bail "rpmbuild tgkernel: $(tail -n 3 "$W/rpmbuild.log")"
fi
REPODIR=$W/repo
mkdir -p "$REPODIR"
cp "$TOP"/RPMS/noarch/*.rpm "$REPODIR/"
createrepo_c -q "$REPODIR" >"$W/createrepo.log" 2>&1 || bail "createrepo_c: $(tail -n 3 "$W/createrepo.log")"
# dnf and dnf5 read it by URL (python3's http.server on 127.0.0.1), so that
# packages are downloaded into their cache as from any remote repository
python3 -u -m http.server --bind 127.0.0.1 0 --directory "$REPODIR" >"$W/http.out" 2>"$W/http.log" &
HTTP_PID=$!
for _ in $(seq 50); do grep -q ' port ' "$W/http.out" 2>/dev/null && break; sleep 0.1; done
PORT=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$W/http.out")
[ -n "$PORT" ] || bail "python3 -m http.server did not start: $(tail -n 2 "$W/http.log")"
POLICY=$REPO/policy/default.yaml
echo "# packages and repository in $((SECONDS - t0)) s"

# The plugin reaches the clients' rpm through ~/.rpmmacros (HOME is ours): no
# file of the host's /etc/rpm changes.  PLUGDIR: where taintguard.so is.
macros() {
	mkdir -p "$W/home"
	printf '%s\n' "%__plugindir $1" '%__transaction_taintguard %{__plugindir}/taintguard.so' \
		"%_taintguard_policy $POLICY" '%_dbpath /var/lib/rpm' >"$W/home/.rpmmacros"
}
# An empty installroot but for the target kernel's facts (as a system with
# kernel-headers has them), so that kmod-tgok is allowed, not "not fully checked".
mkroot() {
	R=$W/root
	rm -rf "$R"
	mkdir -p "$R/usr/src/linux-headers-$K" "$R/lib/modules/$K" "$R/etc"
	cp "$KBUILD/Module.symvers" "$KBUILD/.config" "$R/usr/src/linux-headers-$K/"
	ln -s "/usr/src/linux-headers-$K" "$R/lib/modules/$K/build"
}

# --- the clients --------------------------------------------------------------------------
# run_client STEP ARGS...: the client's command; what it printed in $OUT, its status in $RC
run_client() {
	local step=$1; shift
	if [ "$C" = zypper_ignoring ]; then zypper_ignoring "$@"; else "client_$C" "$@"; fi >"$W/out" 2>&1 </dev/null
	RC=$?
	OUT=$(cat "$W/out")
	echo "# $C $step: exit $RC"
	[ -z "${TG_DUMP:-}" ] || { echo "### $C $step: $* (exit $RC)"; echo "$OUT"; } >>"$TG_DUMP"
}
# dnf 4 with taintguard's dnf plugin from the tree (client-plugins/dnf4)
client_dnf() {
	HOME=$W/home PYTHONDONTWRITEBYTECODE=1 dnf -y --installroot="$R" --releasever=1 \
		--setopt=reposdir="$W/repos.d" --setopt=cachedir="$W/cache" --setopt=install_weak_deps=0 \
		--setopt=pluginpath="$REPO/client-plugins/dnf4" --setopt=pluginconfpath="$W/dnf-plugins" \
		--nogpgcheck "$@"
}
rpmq_dnf() { rpm --root "$R" --dbpath /var/lib/rpm -qa --qf '%{NEVRA}\n' | sort | tr '\n' ' '; }
client_zypper() {
	HOME=$W/home zypper --root "$R" --non-interactive --no-gpg-checks "$@"
}
# zypper asks "Abort, retry, ignore?" after a refused package and reads the
# answer from a terminal only: a person typing "i" (tests/clients/answer.py).
zypper_ignoring() {
	HOME=$W/home "$REPO/tests/clients/answer.py" "Continue?=y" "Abort, retry, ignore?=i" -- \
		zypper --root "$R" --no-gpg-checks "$@"
}
rpmq_zypper() { rpmq_dnf; }
in_sid() {
	tests/lib/chroot.sh run sid --bind "$REPO" --bind "$W" --bind "/lib/modules/$K" \
		--bind "/usr/src/linux-headers-$K" -- "$@"
}
# dnf5 with taintguard's dnf5 plugin built in the chroot (client-plugins/dnf5)
client_dnf5() {
	in_sid env HOME="$W/home" dnf5 -y --installroot="$R" --releasever=1 --setopt=reposdir="$W/repos.d" \
		--setopt=cachedir="$W/cache" --setopt=install_weak_deps=0 --setopt=pluginpath="$REPO/$BV/dnf5" \
		--setopt=pluginconfpath="$W/dnf5-plugins" --no-gpgchecks "$@"
}
rpmq_dnf5() { in_sid rpm --root "$R" --dbpath /var/lib/rpm -qa --qf '%{NEVRA}\n' | sort | tr '\n' ' '; }

setup_dnf() {
	macros "$REPO/$B"
	mkdir -p "$W/dnf-plugins"
	printf '[main]\nenabled = 1\ncommand = %s\ncache = %s\n' "$REPO/$B/taintguard" "$W/tgcache-dnf" \
		>"$W/dnf-plugins/taintguard.conf"
	mkdir -p "$W/repos.d"
	printf '[tg]\nname=tg client test\nbaseurl=http://127.0.0.1:%s/\nenabled=1\ngpgcheck=0\nmetadata_expire=0\n' \
		"$PORT" >"$W/repos.d/tg.repo"
}
setup_zypper() {
	macros "$REPO/$B"
	HOME=$W/home zypper --root "$R" --non-interactive addrepo --no-gpgcheck "$REPODIR" tg \
		>"$W/zypper-ar.log" 2>&1 || return 1
}
BV=build-clients-sid
# The dnf5 plugin runs the taintguard command built in the chroot.  There, as on
# Debian 12 (.ci/deps.sh), libcreaterepo-c-dev cannot be installed beside
# librepo-dev (libdnf5-dev's): they need conflicting libcurl -dev packages.  The
# library (libcreaterepo-c1) is installed; the headers of the same version are
# unpacked once from its -dev package (downloaded by apt) into the directory the
# Makefile knows.
CRC=/opt/taintguard-build/createrepo_c
sid_createrepo_c() {
	in_sid bash -euc 'test -f '$CRC'/include/createrepo_c/xml_parser.h && exit
		v=$(dpkg-query -W -f="\${Version}" libcreaterepo-c1); t=$(mktemp -d); cd "$t"
		apt-get -qq update && apt-get download -qq "libcreaterepo-c-dev=$v" && dpkg-deb -x libcreaterepo-c-dev_*.deb x
		mkdir -p '$CRC' && cp -r x/usr/include '$CRC'/include && rm -rf "$t"'
}
setup_dnf5() {
	sid_createrepo_c >"$W/build-sid.log" 2>&1 || { echo "# createrepo_c's headers: $(tail -n 2 "$W/build-sid.log")"; return 1; }
	in_sid make -s -C "$REPO" -j2 B="$BV" CRC_LIBS=-l:libcreaterepo_c.so.1 "$BV/taintguard.so" "$BV/taintguard" \
		"$BV/taintguard-audit" "$BV/dnf5/taintguard.so" >"$W/build-sid.log" 2>&1 ||
		{ echo "# $(grep -m 3 -E 'error|Error' "$W/build-sid.log")"; return 1; }
	in_sid dnf5 --version >"$W/dnf5-version" 2>&1 || { echo "# no dnf5 in the sid chroot"; return 1; }
	macros "$REPO/$BV"
	setup_dnf
	macros "$REPO/$BV"
	mkdir -p "$W/dnf5-plugins"
	printf '[main]\nname = taintguard\nenabled = 1\ncommand = %s\ncache = %s\n' "$REPO/$BV/taintguard" \
		"$W/tgcache-dnf5" >"$W/dnf5-plugins/taintguard.conf"
}

# verb CLIENT STEP: the client's command for install, upgrade, downgrade, reinstall, erase
verb() {
	case $1:$2 in
	zypper:upgrade) echo install ;;
	zypper:downgrade) echo "install --oldpackage" ;;
	zypper:reinstall) echo "install --force" ;;
	*:erase) echo remove ;;
	*) echo "$2" ;;
	esac
}
installed_is() { [ "$(rpmq_$C)" = "$1" ]; }
noplugin() { case $C in dnf) echo --disableplugin=taintguard ;; dnf5) echo --disable-plugin=taintguard ;; esac; }
says_once() { [ "$(grep -c -F -- "$1" <<<"$OUT")" = 1 ]; }
short_lines() { ! awk 'length > 160 { print "# line of " length ": " $0; bad = 1 } END { exit !bad }' <<<"$OUT"; }
# what rpm -Va --nofiles says of the root: nothing when every requirement is met
unmet() { if [ $C = dnf5 ]; then in_sid rpm -Va --nofiles --root "$R" --dbpath /var/lib/rpm; else
	rpm -Va --nofiles --root "$R" --dbpath /var/lib/rpm; fi 2>&1; }
# run_rest STEP: run the command line the dnf plugin printed after "to install the rest:"
run_rest() {
	local cmd
	cmd=$(sed -n '/taintguard: to install the rest:/,$p' <<<"$OUT" | sed '1d; /^[^ ]/,$d')
	[ -n "$cmd" ] || { RC=-1; OUT="no command line printed"; return; }
	echo "# $C $1: $(tr -d '\\\n' <<<"$cmd" | tr -s ' ')"
	if [ $C = dnf5 ]; then in_sid env HOME="$W/home" bash -c "$cmd"; else
		HOME=$W/home PYTHONDONTWRITEBYTECODE=1 bash -c "$cmd"; fi >"$W/out" 2>&1 </dev/null
	RC=$?
	OUT=$(cat "$W/out")
	[ -z "${TG_DUMP:-}" ] || { echo "### $C $1: $cmd (exit $RC)"; echo "$OUT"; } >>"$TG_DUMP"
}
# 6. the five packages of issue 25 in a fresh root: `install lve-tools good-utils`
five() {
	mkroot
	[ $C != zypper ] || setup_zypper
	if [ $C = zypper ]; then
		# one rpm call per package: non-interactively zypper aborts at kmod-lve
		# and installs nothing after it
		run_client five install lve-tools good-utils
		echo "$C five (non-interactive): exit $RC" >>"$W/exits"
		check "zypper five, non-interactive: kmod-lve refused, exit 8 ($RC), its reason printed" \
			bash -c "test $RC = 8 && grep -q 'refused kmod-lve-1.0-1.noarch: module lve: the kernel would refuse it' <<<\"\$0\"" "$OUT"
		check "zypper five, non-interactive: no installed package with an unmet requirement ($(rpmq_$C); $(unmet | head -n 1))" \
			test -z "$(unmet)"
		{ echo "### zypper --non-interactive install lve-tools good-utils (exit $RC)"; echo "$OUT"; } >>"$W/five.txt"
		# answering ignore, in a fresh root: the rest goes on, package by package;
		# the end state must leave no requirement unmet
		mkroot
		setup_zypper
		C=zypper_ignoring run_client five install lve-tools good-utils
		echo "$C five (answering ignore): exit $RC" >>"$W/exits"
		FIVE_OUT=$OUT
		check "zypper five: kmod-lve refused, its reason printed" \
			says "refused kmod-lve-1.0-1.noarch: module lve: the kernel would refuse it"
		check "zypper five: kmod-lve not installed, the innocent pair installed ($(rpmq_$C))" \
			bash -c "rpmq=\$0; [[ \$rpmq != *kmod-lve* && \$rpmq == *good-utils-1.0-1.noarch*kmod-good-1.0-1.noarch* ]]" "$(rpmq_$C)"
		check "zypper five: lve-utils and lve-tools named as left out" \
			bash -c "grep -q 'lve-utils[^ ]*: not installed: needs kmod-lve' <<<\"\$0\" && grep -q 'lve-tools[^ ]*: not installed: needs lve-utils' <<<\"\$0\"" "$OUT"
		check "zypper five: no installed package with an unmet requirement ($(unmet | head -n 1))" test -z "$(unmet)"
		{ echo "### zypper install lve-tools good-utils, answering ignore (exit $RC)"; echo "$FIVE_OUT"; } >>"$W/five.txt"
		return
	fi
	run_client five install lve-tools good-utils
	FIVE_OUT=$OUT
	echo "$C five: exit $RC" >>"$W/exits"
	check "$C five: stopped before rpm ran, exit 1 ($RC), nothing installed ($(rpmq_$C))" \
		bash -c "test $RC = 1 && test -z '$(rpmq_$C)' && test ! -e '$R$MD/lve.ko' && test ! -e '$R$MD/good.ko'"
	check "$C five: kmod-lve with its reason, once" \
		says_once "taintguard: refused kmod-lve-1.0-1.noarch: module lve: the kernel would refuse it: GPL-only symbols denied"
	check "$C five: lve-utils named as needing it, once" \
		says_once "taintguard: lve-utils-1.0-1.noarch: not installed: needs kmod-lve, which taintguard refused"
	check "$C five: lve-tools named as needing lve-utils, once" \
		says_once "taintguard: lve-tools-1.0-1.noarch: not installed: needs lve-utils, which is left out too (it needs kmod-lve)"
	check "$C five: the innocent pair not named as left out" bash -c "! grep -q 'good.*not installed' <<<\"\$0\"" "$OUT"
	check "$C five: rpm's plugin did not run (no psm_pre refusal)" bash -c "! grep -q 'refusing to install' <<<\"\$0\"" "$OUT"
	check "$C five: every line at most 160 characters" short_lines
	check "$C five: a command line with --exclude=kmod-lve,lve-tools,lve-utils printed" \
		says "--exclude=kmod-lve,lve-tools,lve-utils"
	# the same again: the packages are in the client's cache since the first run,
	# so the refusal is known before the confirmation prompt and the download
	run_client five-again install lve-tools good-utils
	FIVE_AGAIN=$OUT
	check "$C five again: stopped before the prompt, from the earlier download, exit 1 ($RC)" \
		bash -c "test $RC = 1 && grep -q 'taintguard, before downloading (verdicts already known)' <<<\"\$0\" &&
			! grep -q -E 'Is this ok|Downloading Packages|Running transaction' <<<\"\$0\"" "$OUT"
	check "$C five again: kmod-lve and its two dependents said once" \
		bash -c "OUT=\$0; [ \$(grep -c 'refused kmod-lve-1.0-1.noarch' <<<\"\$OUT\") = 1 ] && [ \$(grep -c 'lve-utils-1.0-1.noarch: not installed' <<<\"\$OUT\") = 1 ] && [ \$(grep -c 'lve-tools-1.0-1.noarch: not installed' <<<\"\$OUT\") = 1 ]" "$OUT"
	# not downloaded, but audited before: taintguard's audit cache knows the
	# packages by their repository checksum
	find "$W/cache" -name '*.rpm' -delete
	if [ $C = dnf5 ]; then in_sid "$REPO/$BV/taintguard" audit -q --cache "$W/tgcache-$C" "http://127.0.0.1:$PORT/"
	else "$REPO/$B/taintguard" audit -q --cache "$W/tgcache-$C" "http://127.0.0.1:$PORT/"; fi >"$W/audit.log" 2>&1
	run_client five-audited install lve-tools good-utils
	FIVE_AUDITED=$OUT
	check "$C five, audited before: stopped before the prompt and any download, exit 1 ($RC)" \
		bash -c "test $RC = 1 && grep -q 'taintguard, before downloading (verdicts already known)' <<<\"\$0\" &&
			! grep -q -E 'Is this ok|Downloading Packages|Running transaction|\[1/5\]' <<<\"\$0\"" "$OUT"
	check "$C five, audited before: kmod-lve with its reason and its two dependents, once each" \
		bash -c "OUT=\$0; [ \$(grep -c 'refused kmod-lve-1.0-1.noarch: module lve' <<<\"\$OUT\") = 1 ] && [ \$(grep -c 'lve-utils-1.0-1.noarch: not installed' <<<\"\$OUT\") = 1 ] && [ \$(grep -c 'lve-tools-1.0-1.noarch: not installed' <<<\"\$OUT\") = 1 ]" "$OUT"
	run_rest five-rest
	FIVE_REST=$OUT
	check "$C five: the printed command installs the innocent pair, exit 0 ($RC; $(rpmq_$C))" \
		bash -c "test $RC = 0 && test '$(rpmq_$C)' = 'good-utils-1.0-1.noarch kmod-good-1.0-1.noarch '"
	check "$C five: no installed package with an unmet requirement ($(unmet | head -n 1))" test -z "$(unmet)"
	{ echo "### $C install lve-tools good-utils"; echo "$FIVE_OUT"
	  echo "### $C install lve-tools good-utils again (the packages in the cache)"; echo "$FIVE_AGAIN"
	  echo "### $C install lve-tools good-utils, nothing downloaded, audited before (taintguard audit URL)"; echo "$FIVE_AUDITED"
	  echo "### $C, the printed command line"; echo "$FIVE_REST"; } >>"$W/five.txt"
}
# 7. a kernel update (dnf 4, dnf5): tgkernel ships K2; the root has a module
# built for K in K2's extra/, which K2 will refuse.  The line must be the rpm
# plugin's own (rpm -i --test with the plugin, in the same root), printed
# once: by the dnf plugin, before rpm runs, and not again by rpm's plugin.
# $OUT with the dnf plugins' continuation lines ("taintguard:   ...", a line
# cut at 160 characters) joined back to the line they continue
joined() { awk '/^taintguard:   / { sub(/^taintguard:   /, ""); j = j " " $0; next }
	{ if (NR > 1) print j; j = $0 } END { print j }' <<<"$OUT"; }
kernel() {
	local line
	mkroot
	mkdir -p "$R/lib/modules/$K2/extra" "$R/var/lib/rpm"
	cp "$MODS/gplok.ko" "$R/lib/modules/$K2/extra/tgkup.ko"
	rpmdb --root "$R" --dbpath /var/lib/rpm --initdb
	line=$(rpm --root "$R" --dbpath /var/lib/rpm -i --test --nodeps --define "__plugindir $REPO/$B" \
		--define '__transaction_taintguard %{__plugindir}/taintguard.so' --define "_taintguard_policy $POLICY" \
		"$REPODIR/tgkernel-2-1.noarch.rpm" 2>&1 | sed -n 's/^warning: \(taintguard: kernel [^ ]*: (no package): module .*\)/\1/p')
	check "$C kernel: rpm's plugin warns of the module in K2's extra/ ($line)" \
		bash -c "[[ \$0 == *'(/lib/modules/$K2/extra/tgkup.ko): the kernel would refuse it: '* ]]" "$line"
	run_client kernel install tgkernel
	KERNEL_OUT=$OUT
	echo "$C kernel: exit $RC" >>"$W/exits"
	check "$C kernel: the kernel installed, exit 0 ($RC; $(rpmq_$C))" \
		bash -c "test $RC = 0 && test '$(rpmq_$C)' = 'tgkernel-2-1.noarch '"
	check "$C kernel: the rpm plugin's line, said once" bash -c "[ \$(grep -c -F -- \"\$0\" <<<\"\$1\") = 1 ]" "$line" "$(joined)"
	check "$C kernel: the count, said once" \
		says_once "taintguard: kernel $K2 (tgkernel-2-1.noarch): 1 installed module will not load cleanly under it"
	check "$C kernel: said before rpm ran" bash -c "l=\$(grep -n -F -m 1 -- \"\$1\" <<<\"\$0\" | cut -d: -f1)
		r=\$(grep -n -E -m 1 'Preparing +:|Installing +:|Prepare transaction' <<<\"\$0\" | cut -d: -f1)
		[ -n \"\$l\" ] && [ -n \"\$r\" ] && [ \$l -lt \$r ]" "$(joined)" "$line"
	check "$C kernel: every line at most 160 characters" short_lines
	# %_taintguard_kernel_update deny: the dnf plugin stops the kernel before rpm runs
	mkroot
	mkdir -p "$R/lib/modules/$K2/extra"
	cp "$MODS/gplok.ko" "$R/lib/modules/$K2/extra/tgkup.ko"
	echo '%_taintguard_kernel_update deny' >>"$W/home/.rpmmacros"
	run_client kernel-deny install tgkernel
	sed -i '/_taintguard_kernel_update/d' "$W/home/.rpmmacros"
	echo "$C kernel, deny: exit $RC" >>"$W/exits"
	check "$C kernel, deny: stopped before rpm ran, exit 1 ($RC), nothing installed ($(rpmq_$C))" \
		bash -c "test $RC = 1 && test -z '$(rpmq_$C)' && ! grep -q -E 'Preparing +:|Installing +:|Prepare transaction' <<<\"\$0\"" "$OUT"
	check "$C kernel, deny: the line and the refusal, once each" bash -c "[ \$(grep -c -F -- \"\$1\" <<<\"\$0\") = 1 ] &&
		[ \$(grep -c 'refusing to install tgkernel-2-1.noarch: 1 installed module would not load cleanly under kernel $K2' <<<\"\$0\") = 1 ]" \
		"$(joined)" "$line"
	{ echo "### $C install tgkernel"; echo "$KERNEL_OUT"; echo "### $C install tgkernel, deny"; echo "$OUT"; } >>"$W/kernel.txt"
}
# the client's exit status when the plugin refused a package of the transaction
refused_rc() { case $C in zypper) echo 8 ;; *) echo 1 ;; esac; }
exits() { [ "$RC" = "$1" ]; }
says() { grep -q -- "$1" <<<"$OUT"; }
not_on_disk() { [ ! -e "$R$1" ]; }

for C in $CLIENTS; do
	t1=$SECONDS
	mkroot
	"setup_$C" || { check "$C: set up" false; continue; }
	# 1. allowed + marked + denied in one transaction
	run_client install $(verb $C install) kmod-tgok-1.0 kmod-tgprop kmod-tglve
	if [ $C = zypper ]; then
		# one rpm call per package, kmod-tglve first: non-interactively zypper
		# answers "a" (abort) and installs nothing after it
		check "zypper install: aborts at the refused package, exit 8 ($RC), nothing installed ($(rpmq_$C))" \
			bash -c "test $RC = 8 && test -z '$(rpmq_$C)' && grep -q 'Abort, retry, ignore? \[a/r/i\] (a): a' <<<\"\$0\"" "$OUT"
		echo "$C install (non-interactive): exit $RC" >>"$W/exits"
		check "$C install: the reason printed (refused kmod-tglve ... module lve: the kernel would refuse it)" \
			says "refused kmod-tglve-1.0-1.noarch: module lve (tglve.ko): the kernel would refuse it: GPL-only symbols denied"
		check "$C install: the override printed (policy exception, _taintguard_mode)" \
			says 'to install kmod-tglve-1.0-1.noarch anyway, add an exception (package: "kmod-tglve", module: "lve", action: mark'
		# the way to keep going: answer "i" (ignore) at the terminal
		C=zypper_ignoring run_client install-ignore install kmod-tgok-1.0 kmod-tgprop kmod-tglve
		RC_IGN=$RC
		echo "$C install (answering ignore): exit $RC" >>"$W/exits"
		check "zypper install, answering ignore: the others installed, exit 0 ($RC_IGN) although one failed" \
			bash -c "test $RC_IGN = 0 && grep -q 'Abort, retry, ignore?' <<<\"\$0\"" "$OUT"
	else
		# the dnf plugin stops the transaction before rpm runs and prints the
		# command line without kmod-tglve, which then installs the other two
		echo "$C install: exit $RC" >>"$W/exits"
		check "$C install: stopped before rpm, exit 1 ($RC), nothing installed ($(rpmq_$C))" \
			bash -c "test $RC = 1 && test -z '$(rpmq_$C)'"
		check "$C install: the reason printed once (refused kmod-tglve ... module lve: the kernel would refuse it)" \
			says_once "refused kmod-tglve-1.0-1.noarch: module lve (tglve.ko): the kernel would refuse it: GPL-only symbols denied"
		check "$C install: the override printed (policy exception, _taintguard_mode)" \
			says 'to install kmod-tglve-1.0-1.noarch anyway, add an exception (package: "kmod-tglve", module: "lve", action: mark'
		check "$C install: every line at most 160 characters" short_lines
		run_rest install-rest
		check "$C install: the printed command line runs, exit 0 ($RC)" exits 0
	fi
	check "$C install: the allowed and the marked package installed, the denied not ($(rpmq_$C))" \
		installed_is "kmod-tgok-1.0-1.noarch kmod-tgprop-1.0-1.noarch "
	check "$C install: nothing of kmod-tglve on disk" not_on_disk "$MD/tglve.ko"
	check "$C install: the mark printed" says "marked kmod-tgprop-1.0-1.noarch: module propplain (tgprop.ko): taints P"
	check "$C install: the marked package has its record" \
		test -f "$R/var/lib/taintguard/marks/kmod-tgprop-1.0-1.noarch.json"
	# 2. upgrade of the allowed package to a denied version: 1.0 stays whole.
	# dnf 4 and dnf5 without their plugin first: rpm's plugin is the backstop
	if [ $C != zypper ]; then
		run_client upgrade-backstop $(verb $C upgrade) "$(noplugin)" kmod-tgok-2.0
		check "$C upgrade, dnf plugin disabled: rpm's plugin refuses, exit 1 ($RC), 1.0 kept ($(rpmq_$C))" \
			bash -c "test $RC = 1 && test '$(rpmq_$C)' = 'kmod-tgok-1.0-1.noarch kmod-tgprop-1.0-1.noarch '"
		check "$C upgrade, dnf plugin disabled: rpm's plugin says why" \
			says "taintguard: refused kmod-tgok-2.0-1.noarch: module lve (tgok.ko): the kernel would refuse it"
		check "$C upgrade, dnf plugin disabled: the dnf plugin said nothing" bash -c "! grep -q 'before rpm ran' <<<\"\$0\"" "$OUT"
		echo "$C upgrade (dnf plugin disabled): exit $RC" >>"$W/exits"
	fi
	run_client upgrade $(verb $C upgrade) kmod-tgok-2.0
	check "$C upgrade to a denied version: 1.0 kept ($(rpmq_$C))" \
		installed_is "kmod-tgok-1.0-1.noarch kmod-tgprop-1.0-1.noarch "
	check "$C upgrade: 1.0's module file unchanged" cmp -s "$R$MD/tgok.ko" "$MODS/gplok.ko"
	check "$C upgrade: the reason printed" says "refused kmod-tgok-2.0-1.noarch: module lve (tgok.ko): the kernel would refuse it"
	check "$C upgrade: the override printed" says "to install kmod-tgok-2.0-1.noarch anyway, add an exception"
	check "$C upgrade to a denied version: refused, exit $(refused_rc) ($RC)" exits "$(refused_rc)"
	[ $C = zypper ] || check "$C upgrade: stopped before rpm ran, said once" says_once "refused kmod-tgok-2.0-1.noarch"
	echo "$C upgrade: exit $RC" >>"$W/exits"
	# 3. downgrade to an allowed version
	run_client downgrade $(verb $C downgrade) kmod-tgok-0.9
	check "$C downgrade: 0.9 installed ($(rpmq_$C), exit $RC)" \
		installed_is "kmod-tgok-0.9-1.noarch kmod-tgprop-1.0-1.noarch "
	check "$C downgrade: nothing said of an allowed package" bash -c "! grep -q 'taintguard:' <<<\"\$0\"" "$OUT"
	check "$C downgrade: exit 0 ($RC)" exits 0
	echo "$C downgrade: exit $RC" >>"$W/exits"
	# 4. reinstall of the marked package: marked again, record kept
	run_client reinstall $(verb $C reinstall) kmod-tgprop
	check "$C reinstall: still installed, marked again ($(rpmq_$C), exit $RC)" \
		bash -c "test '$(rpmq_$C)' = 'kmod-tgok-0.9-1.noarch kmod-tgprop-1.0-1.noarch ' && grep -q 'marked kmod-tgprop-1.0-1.noarch: module propplain (tgprop.ko)' <<<\"\$0\" && test -f '$R/var/lib/taintguard/marks/kmod-tgprop-1.0-1.noarch.json'" "$OUT"
	check "$C reinstall: exit 0 ($RC)" exits 0
	echo "$C reinstall: exit $RC" >>"$W/exits"
	# 5. erase: the record goes with the package
	run_client erase $(verb $C erase) kmod-tgprop
	check "$C erase: removed, its record too ($(rpmq_$C), exit $RC)" \
		bash -c "test '$(rpmq_$C)' = 'kmod-tgok-0.9-1.noarch ' && test ! -e '$R/var/lib/taintguard/marks/kmod-tgprop-1.0-1.noarch.json' && test ! -e '$R$MD/tgprop.ko'"
	check "$C erase: exit 0 ($RC)" exits 0
	echo "$C erase: exit $RC" >>"$W/exits"
	five
	if [ $C != zypper ] && [ -n "$K2" ]; then
		t2=$SECONDS
		kernel
		echo "# $C kernel: $((SECONDS - t2)) s"
	elif [ $C != zypper ]; then
		check "$C kernel: a second kernel, installed or unpacked by tests/kernel/target.sh (only $K here, and none could be fetched)" false
	fi
	echo "# $C: $((SECONDS - t1)) s"
done
[ -f "$W/exits" ] && sed 's/^/# exit codes: /' "$W/exits"
[ -z "${TG_FIVE:-}" ] || [ ! -f "$W/five.txt" ] || cp "$W/five.txt" "$TG_FIVE"
[ -z "${TG_KERNEL_OUT:-}" ] || [ ! -f "$W/kernel.txt" ] || cp "$W/kernel.txt" "$TG_KERNEL_OUT"
echo "# clients: $((SECONDS - t0)) s"
finish
