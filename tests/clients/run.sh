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
[ -n "${TG_KEEP:-}" ] || trap 'rm -rf "$W"' EXIT
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
# mkpkg NAME VERSION MODULE DEST: a kmod package carrying MODULE.ko as DEST
mkpkg() {
	local spec=$TOP/SPECS/$1-$2.spec
	printf '%s\n' "Name: $1" "Version: $2" "Release: 1" "Summary: taintguard client test $1" \
		"License: GPL-2.0-only" "BuildArch: noarch" '%global debug_package %{nil}' \
		'%global __os_install_post %{nil}' '%description' 'client test package' '%install' \
		"mkdir -p %{buildroot}$(dirname "$4")" "cp $MODS/$3.ko %{buildroot}$4" \
		'%files' "$4" >"$spec"
	rpmbuild -bb --quiet --define "_topdir $TOP" --define "_build_id_links none" "$spec" \
		>"$W/rpmbuild.log" 2>&1 || bail "rpmbuild $1 $2: $(tail -n 3 "$W/rpmbuild.log")"
}
mkpkg kmod-tgok 0.9 gplok "$MD/tgok.ko"
mkpkg kmod-tgok 1.0 gplok "$MD/tgok.ko"
mkpkg kmod-tgok 2.0 lve "$MD/tgok.ko"		# an upgrade that ships lve
mkpkg kmod-tgprop 1.0 propplain "$MD/tgprop.ko"
mkpkg kmod-tglve 1.0 lve "$MD/tglve.ko"
REPODIR=$W/repo
mkdir -p "$REPODIR"
cp "$TOP"/RPMS/noarch/*.rpm "$REPODIR/"
createrepo_c -q "$REPODIR" >"$W/createrepo.log" 2>&1 || bail "createrepo_c: $(tail -n 3 "$W/createrepo.log")"
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
client_dnf() {
	HOME=$W/home dnf -y --installroot="$R" --releasever=1 --setopt=reposdir="$W/repos.d" \
		--setopt=cachedir="$W/cache" --setopt=install_weak_deps=0 --nogpgcheck "$@"
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
client_dnf5() {
	in_sid env HOME="$W/home" dnf5 -y --installroot="$R" --releasever=1 --setopt=reposdir="$W/repos.d" \
		--setopt=cachedir="$W/cache" --setopt=install_weak_deps=0 --no-gpgchecks "$@"
}
rpmq_dnf5() { in_sid rpm --root "$R" --dbpath /var/lib/rpm -qa --qf '%{NEVRA}\n' | sort | tr '\n' ' '; }

setup_dnf() {
	macros "$REPO/$B"
	mkdir -p "$W/repos.d"
	printf '[tg]\nname=tg client test\nbaseurl=file://%s\nenabled=1\ngpgcheck=0\nmetadata_expire=0\n' \
		"$REPODIR" >"$W/repos.d/tg.repo"
}
setup_zypper() {
	macros "$REPO/$B"
	HOME=$W/home zypper --root "$R" --non-interactive addrepo --no-gpgcheck "$REPODIR" tg \
		>"$W/zypper-ar.log" 2>&1 || return 1
}
setup_dnf5() {
	local BV=build-clients-sid
	in_sid make -s -C "$REPO" -j2 B="$BV" "$BV/taintguard.so" >"$W/build-sid.log" 2>&1 ||
		{ echo "# $(grep -m 3 -E 'error|Error' "$W/build-sid.log")"; return 1; }
	in_sid dnf5 --version >"$W/dnf5-version" 2>&1 || { echo "# no dnf5 in the sid chroot"; return 1; }
	macros "$REPO/$BV"
	setup_dnf
	macros "$REPO/$BV"
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
		echo "$C install: exit $RC" >>"$W/exits"
		check "$C install: the transaction fails, exit $(refused_rc) ($RC), although two packages went in" \
			exits "$(refused_rc)"
		check "$C install: the reason printed (refused kmod-tglve ... module lve: the kernel would refuse it)" \
			says "refused kmod-tglve-1.0-1.noarch: module lve (tglve.ko): the kernel would refuse it: GPL-only symbols denied"
		check "$C install: the override printed (policy exception, _taintguard_mode)" \
			says 'to install kmod-tglve-1.0-1.noarch anyway, add an exception (package: "kmod-tglve", module: "lve", action: mark'
	fi
	check "$C install: the allowed and the marked package installed, the denied not ($(rpmq_$C))" \
		installed_is "kmod-tgok-1.0-1.noarch kmod-tgprop-1.0-1.noarch "
	check "$C install: nothing of kmod-tglve on disk" not_on_disk "$MD/tglve.ko"
	check "$C install: the mark printed" says "marked kmod-tgprop-1.0-1.noarch: module propplain (tgprop.ko): taints P"
	check "$C install: the marked package has its record" \
		test -f "$R/var/lib/taintguard/marks/kmod-tgprop-1.0-1.noarch.json"
	# 2. upgrade of the allowed package to a denied version: 1.0 stays whole
	run_client upgrade $(verb $C upgrade) kmod-tgok-2.0
	check "$C upgrade to a denied version: 1.0 kept ($(rpmq_$C))" \
		installed_is "kmod-tgok-1.0-1.noarch kmod-tgprop-1.0-1.noarch "
	check "$C upgrade: 1.0's module file unchanged" cmp -s "$R$MD/tgok.ko" "$MODS/gplok.ko"
	check "$C upgrade: the reason printed" says "refused kmod-tgok-2.0-1.noarch: module lve (tgok.ko): the kernel would refuse it"
	check "$C upgrade: the override printed" says "to install kmod-tgok-2.0-1.noarch anyway, add an exception"
	check "$C upgrade to a denied version: refused, exit $(refused_rc) ($RC)" exits "$(refused_rc)"
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
	echo "# $C: $((SECONDS - t1)) s"
done
[ -f "$W/exits" ] && sed 's/^/# exit codes: /' "$W/exits"
echo "# clients: $((SECONDS - t0)) s"
finish
