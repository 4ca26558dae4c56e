#!/bin/bash
# taintguard DKMS integration tests: the real dkms (no mocks), as root, against
# the installed kernel headers.  Installs taintguard's DKMS integration
# (hooks/install.sh) into the system and removes it afterwards; adds, builds,
# installs our own DKMS packages from tests/dkms/pkgs/.  On a host where
# taintguard is installed (make install), all of it happens in a private mount
# namespace (see below): the build's integration is what is tested, the
# installed one is left alone.  The packages:
#   tg-lve   module "lve": MODULE_LICENSE("GPL") + ktime_get (EXPORT_SYMBOL_GPL).
#            "lve" is on the kernel's module_license_offenders[] (since 3.5):
#            the loader taints P, drops the module's GPL-only access and
#            refuses it ("Unknown symbol ktime_get")  -> deny
#   tg-prop  module "tgprop": MODULE_LICENSE("Proprietary"), EXPORT_SYMBOL only:
#            loads, taints P                            -> mark
#   tg-clean module "tgclean": GPL, EXPORT_SYMBOL only   -> allow
# Expected results come from those kernel facts (checked below against the
# target kernel's Module.symvers and the built modules), never from taintguard.
#
# Output: "ok - ..." / "not ok - ..." lines, last line "N passed, N failed".
# Environment: B (build dir, default build), TG_DKMS_KERNEL (default: the
# target kernel of every suite, TG_KERNEL, tests/lib/kernel.sh).
set -u
cd "$(dirname "$0")/../.." || exit 2
ROOT=$PWD
B=${B:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
PKGS=$ROOT/tests/dkms/pkgs
PREFIX=/usr/local
HOOKDIR=$PREFIX/libexec/taintguard
HOOK=$HOOKDIR/taintguard-dkms
SNIPPET=/etc/dkms/framework.conf.d/zz-taintguard.conf
KHOOK=/etc/kernel/postinst.d/dkms-taintguard
MARKS=/var/lib/taintguard/marks

# The DKMS integration is system-wide: one dkms wrapper, one framework.conf.d
# snippet, one kernel hook.  A host with taintguard installed has the
# installed copy's in place, and this suite must test the build's, not
# overwrite the admin's and then uninstall it.  So it runs itself again in a
# private mount namespace where the trees it writes (/etc, /usr/sbin,
# /usr/local, /usr/src, /usr/lib/modules, /var/lib) are overlays whose upper
# layers live in a tmpfs: there the installed integration is removed first
# (hooks/install.sh --uninstall), the suite starts from dkms as the
# distribution ships it, and everything it does vanishes with the namespace,
# even when it is killed.
installed_integration() { [ -e "$SNIPPET" ] || grep -q taintguard-dkms-wrapper /usr/sbin/dkms 2>/dev/null; }
if [ -z "${TG_DKMS_NS:-}" ] && [ "$(id -u)" = 0 ] && installed_integration; then
	echo "# taintguard's DKMS integration is installed on this host: testing the build's in a private mount namespace"
	ns=$(mktemp -d /tmp/tg-dkms-ns.XXXXXX)
	TG_DKMS_NS=$ns unshare --mount --propagation private bash "$ROOT/tests/dkms/run.sh" "$@"
	rc=$?
	rmdir "$ns"
	exit $rc
fi
if [ -n "${TG_DKMS_NS:-}" ]; then
	ns_fail() { echo "not ok - private mount namespace: $*"; echo "0 passed, 1 failed"; exit 1; }
	mount -t tmpfs tg-dkms "$TG_DKMS_NS" || ns_fail "tmpfs on $TG_DKMS_NS"
	for d in /etc /usr/sbin /usr/local /usr/src /usr/lib/modules /var/lib; do
		o=$TG_DKMS_NS/$(echo "$d" | tr / _)
		mkdir -p "$o/upper" "$o/work"
		mount -t overlay tg-dkms -o "lowerdir=$d,upperdir=$o/upper,workdir=$o/work" "$d" ||
			ns_fail "overlay on $d"
	done
	PREFIX=$PREFIX sh hooks/install.sh --uninstall >/dev/null 2>&1 ||
		ns_fail "hooks/install.sh --uninstall of the installed integration"
	# the admin's accepted state (status --accept) names the installed copy's
	# digests: against the build's files every guard check would be "changed"
	rm -f /var/lib/taintguard/guard.conf
	echo "# in the namespace: the installed integration and its accepted state removed (the host's are untouched)"
fi
ARCH=$(uname -m)
T=$(mktemp -d /tmp/tg-dkms-test.XXXXXX)
LOG=$T/log
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok - $*"; }
notok() { fail=$((fail + 1)); echo "not ok - $*"; }
# check DESCRIPTION COMMAND...: ok if COMMAND succeeds; on failure show the last dkms output.
check() {
	local d=$1; shift
	if "$@"; then ok "$d"; else notok "$d"; [ -s "$LOG" ] && sed 's/^/#   /' "$LOG" | tail -n 40; fi
}
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit $?
}

[ -z "${TG_DKMS_KERNEL:-}" ] || TG_KERNEL=$TG_DKMS_KERNEL
. tests/lib/kernel.sh
K=$TG_KERNEL
INST=/lib/modules/$K/updates/dkms
SYMVERS=/lib/modules/$K/build/Module.symvers

# ------------------------------------------------------------ prerequisites
if [ "$(id -u)" != 0 ]; then notok "must run as root (real dkms, system-wide hooks)"; finish; fi
if ! command -v dkms >/dev/null || ! dpkg-query -W -f='${Status}' dkms 2>/dev/null | grep -q 'ok installed'; then
	notok "dkms is not installed (apt-get install dkms)"; finish
fi
if [ -z "$K" ] || [ ! -e "/lib/modules/$K/build/include" ]; then notok "no kernel headers (linux-headers-amd64)"; finish; fi
if [ ! -x "$B/taintguard-dkms" ]; then notok "$B/taintguard-dkms is not built (make)"; finish; fi
if [ -e "$SNIPPET" ] || dpkg-divert --list /usr/sbin/dkms | grep -q .; then
	notok "taintguard's DKMS integration (or another dkms diversion) is already installed; remove it first"
	finish
fi
DKMS_VERSION=$(dkms --version 2>/dev/null | head -n 1)
echo "# $DKMS_VERSION, kernel $K, $ARCH"

# ------------------------------------------------------------ state and cleanup
snapshot() { # what "dkms exactly as before" means
	{
		echo "== /etc/dkms"; find /etc/dkms -printf '%p %y %m\n' | sort
		find /etc/dkms -type f -exec sha256sum {} + | sort
		echo "== dkms"; sha256sum /usr/sbin/dkms; ls -l /usr/sbin/dkms* | awk '{print $1, $NF}'
		echo "== diversions"; dpkg-divert --list | sort
		echo "== /etc/kernel"; find /etc/kernel -printf '%p %y %m\n' | sort
		echo "== /etc/modprobe.d"; ls -1 /etc/modprobe.d
		echo "== dkms status"; dkms status 2>&1 | sort
	}
}
snapshot > "$T/before"
had_policy=; [ -e /etc/taintguard/policy.yaml ] && had_policy=1 && cp -p /etc/taintguard/policy.yaml "$T/policy.orig"
had_conf=; [ -e /etc/taintguard/dkms.conf ] && had_conf=1 && cp -p /etc/taintguard/dkms.conf "$T/dkms.conf.orig"
had_tgdir=; [ -d /etc/taintguard ] && had_tgdir=1
had_mok=; [ -e /var/lib/dkms/mok.key ] && had_mok=1
had_libexec=; [ -d "$PREFIX/libexec" ] && had_libexec=1
had_state=; [ -d /var/lib/taintguard ] && had_state=1
had_marks=; [ -d "$MARKS" ] && had_marks=1

REAL_DKMS=/usr/sbin/dkms
real_dkms() { if [ -x /usr/sbin/dkms.distrib ] && grep -q taintguard-dkms-wrapper /usr/sbin/dkms 2>/dev/null; then /usr/sbin/dkms.distrib "$@"; else "$REAL_DKMS" "$@"; fi; }

remove_pkg() { # everything of one test package, whatever state it is in
	local p=$1 m=$2
	real_dkms remove "$p/1.0" --all >/dev/null 2>&1
	rm -rf "/var/lib/dkms/$p" "/usr/src/$p-1.0"
	rm -f "/etc/modprobe.d/taintguard-$m.conf" "$MARKS/dkms-$p-1.0-$K.json"
	if ls "$INST/$m".ko* >/dev/null 2>&1; then rm -f "$INST/$m".ko*; depmod -a "$K"; fi
}
cleanup() {
	type race_cleanup >/dev/null 2>&1 && race_cleanup
	remove_pkg tg-lve lve; remove_pkg tg-prop tgprop; remove_pkg tg-clean tgclean
	rm -f "$MARKS/dkms-tg-gone-1.0-$K.json" "$MARKS/dkms-tg-broken-1.0-$K.json"
	if [ -e "$SNIPPET" ] || grep -q taintguard-dkms-wrapper /usr/sbin/dkms 2>/dev/null; then
		PREFIX=$PREFIX B=$B sh "$ROOT/hooks/install.sh" --uninstall >/dev/null 2>&1
	fi
	if [ -n "$had_policy" ]; then cp -p "$T/policy.orig" /etc/taintguard/policy.yaml; else rm -f /etc/taintguard/policy.yaml; fi
	if [ -n "$had_conf" ]; then cp -p "$T/dkms.conf.orig" /etc/taintguard/dkms.conf; else rm -f /etc/taintguard/dkms.conf; fi
	[ -n "$had_tgdir" ] || rmdir /etc/taintguard 2>/dev/null
	[ -n "$had_mok" ] || rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
	rm -rf /run/tg-dkms-test
	rmdir "$INST" "/lib/modules/$K/updates" 2>/dev/null
	# directories the hooks or install.sh created
	[ -n "$had_marks" ] || rmdir "$MARKS" 2>/dev/null
	[ -n "$had_state" ] || rmdir /var/lib/taintguard 2>/dev/null
	[ -n "$had_libexec" ] || rmdir "$PREFIX/libexec" 2>/dev/null
}
on_exit() {
	cleanup
	rm -rf "$T"
}
trap on_exit EXIT
trap 'exit 130' INT TERM
cleanup

# ------------------------------------------------------------ helpers
# dk EXPECTED_RC ARGS...: run dkms (through whatever /usr/sbin/dkms is), log to $LOG.
dk() {
	local want=$1; shift
	dkms "$@" > "$LOG" 2>&1
	local rc=$?
	echo "# exit $rc" >> "$LOG"
	[ "$rc" = "$want" ]
}
add_pkg() { # copy tests/dkms/pkgs/P-1.0 to /usr/src and dkms add it
	rm -rf "/usr/src/$1-1.0"
	cp -r "$PKGS/$1-1.0" "/usr/src/$1-1.0"
	dkms add "$1/1.0" >/dev/null 2>&1
}
status_is() { # P STATE ("" = not known to dkms)
	local s
	s=$(dkms status "$1/1.0" -k "$K" 2>/dev/null | sed -n 's/.*: \([a-z]*\).*/\1/p' | head -n 1)
	[ "$s" = "$2" ]
}
installed() { ls "$INST/$1".ko* >/dev/null 2>&1; }
# The module file dkms left, DIR/NAME.ko or, where the kernel's configuration
# compresses modules (Debian's 6.12: xz), DIR/NAME.ko.xz (.zst, .gz).
ko() { ls "$1.ko" "$1.ko.xz" "$1.ko.zst" "$1.ko.gz" 2>/dev/null | head -n 1; }
# ...and an uncompressed copy of it in $T (nm reads no compressed module)
ko_plain() {
	local f c=$T/$(basename "$1").ko
	f=$(ko "$1")
	case $f in
	"") return 1 ;;
	*.xz) xz -dc "$f" ;;
	*.zst) zstd -dcq "$f" ;;
	*.gz) gzip -dc "$f" ;;
	*) cat "$f" ;;
	esac >"$c" && echo "$c"
}
not_installed() { ! installed "$1"; }
logged() { grep -q -- "$1" "$LOG"; }
not_logged() { ! grep -q -- "$1" "$LOG"; }
rule_file() { echo "/etc/modprobe.d/taintguard-$1.conf"; }
has_rule() { grep -qx "install $1 /bin/false" "$(rule_file "$1")" 2>/dev/null && grep -qx "blacklist $1" "$(rule_file "$1")"; }
no_rule() { [ ! -e "$(rule_file "$1")" ]; }
# modprobe (kmod) reads the rule: a load of NAME runs /bin/false.
modprobe_blocked() { modprobe -S "$K" -n -v "$1" 2>&1 | grep -q 'install /bin/false'; }
record() { echo "$MARKS/dkms-$1-1.0-$K.json"; }
policy_default() { mkdir -p /etc/taintguard; cp "$ROOT/policy/default.yaml" /etc/taintguard/policy.yaml; }
policy_except_lve() { # the documented way to allow it: a policy exception
	policy_default
	sed -i 's|^exceptions: \[\]$|exceptions:\n  - package: "tg-lve/*"\n    module: "lve"\n    action: mark\n    justification: "tests/dkms: accepted for the test"|' /etc/taintguard/policy.yaml
	grep -q 'module: "lve"' /etc/taintguard/policy.yaml
}
dkms_conf() { mkdir -p /etc/taintguard; printf '%s\n' "$@" > /etc/taintguard/dkms.conf; }

# ------------------------------------------------------------ kernel facts (independent of taintguard)
gpl_only() { awk -v s="$1" -F '\t' '$2 == s { print $4 }' "$SYMVERS" | grep -qx EXPORT_SYMBOL_GPL; }
gpl_imports() { # FILE: its imports the kernel exports GPL-only (fails when nm cannot read it)
	local u
	u=$(nm -u "$1" | awk '{print $2}' | sort -u) && [ -n "$u" ] || return 1
	comm -12 <(echo "$u") <(awk -F '\t' '$4 == "EXPORT_SYMBOL_GPL" {print $2}' "$SYMVERS" | sort -u)
}
no_gpl_imports() { local g; g=$(gpl_imports "$1") && [ -z "$g" ]; }
# a message names a module as "module NAME: " or, when its file is named
# otherwise (compressed), "module NAME (NAME.ko.xz): "
mod() { echo "module $1\( ([^)]*)\)\?: "; }
plain_export() { awk -v s="$1" -F '\t' '$2 == s { print $4 }' "$SYMVERS" | grep -qx EXPORT_SYMBOL; }
check "kernel fact: ktime_get is EXPORT_SYMBOL_GPL in $K's Module.symvers" gpl_only ktime_get
check "kernel fact: _printk is EXPORT_SYMBOL in $K's Module.symvers" plain_export _printk
check "kernel fact: $K is >= 3.5, so 'lve' is on module_license_offenders[]" \
	test "$(printf '%s\n' 3.5 "${K%%-*}" | sort -V | head -n 1)" = 3.5

# ------------------------------------------------------------ install
PREFIX=$PREFIX B=$B sh hooks/install.sh > "$LOG" 2>&1
check "hooks/install.sh installs" test $? = 0
check "framework.conf.d snippet sets sign_file to our signer" \
	grep -qx "sign_file=\"$HOOKDIR/taintguard-dkms-sign\"" "$SNIPPET"
check "framework.conf.d snippet is POSIX sh, assignments only (sh -n, sourced by sh -e)" \
	sh -ec ". '$SNIPPET'; test -n \"\$sign_file\""
check "dkms is diverted to dkms.distrib and wrapped" \
	bash -c 'dpkg-divert --list /usr/sbin/dkms | grep -q "to /usr/sbin/dkms.distrib" && grep -q taintguard-dkms-wrapper /usr/sbin/dkms'
check "kernel hook sorts after dkms and before initramfs-tools" \
	bash -c "run-parts --test --arg=$K /etc/kernel/postinst.d | grep -A1 -x /etc/kernel/postinst.d/dkms | grep -qx $KHOOK"
dk 0 --version; check "dkms --version works through the wrapper" logged "dkms-"
policy_default

# ------------------------------------------------------------ clean module: allowed, untouched
add_pkg tg-clean
dk 0 install tg-clean/1.0 -k "$K"
check "tg-clean: dkms install exits 0" test $? = 0
check "tg-clean: installed in $INST" installed tgclean
check "tg-clean: dkms status says installed" status_is tg-clean installed
check "tg-clean: no taintguard message" not_logged "by taintguard policy"
check "tg-clean: signed by the real signer (chained sign_file)" \
	bash -c "modinfo -F signer '$(ko "$INST/tgclean")' | grep -q ."
check "tg-clean: no record" test ! -e "$(record tg-clean)"
check "tg-clean: no modprobe rule" no_rule tgclean

# ------------------------------------------------------------ proprietary module: marked
mkdir -p /run/tg-dkms-test
add_pkg tg-prop
dk 0 install tg-prop/1.0 -k "$K"
check "tg-prop: dkms install exits 0" test $? = 0
check "tg-prop: kernel fact: license 'Proprietary' is not GPL-compatible (P)" \
	bash -c "modinfo -F license '$(ko "$INST/tgprop")' | grep -qx Proprietary"
check "tg-prop: kernel fact: imports no GPL-only symbol (loads)" no_gpl_imports "$(ko_plain "$INST/tgprop")"
check "tg-prop: installed" installed tgprop
check "tg-prop: dkms status says installed" status_is tg-prop installed
check "tg-prop: warning in dkms output names module and kernel" \
	bash -c "grep -q '^taintguard-dkms: marked tg-prop/1.0: $(mod tgprop)taints P[A-Z]*: license ' '$LOG' && grep -q 'kernel $K, taint ' '$LOG'"
check "tg-prop: taint flag P reported" bash -c "grep -q 'taint P[A-Z]*, file ' '$LOG'"
check "tg-prop: the package's own PRE_INSTALL still ran (with its arguments)" \
	grep -q "kernel=$K" /run/tg-dkms-test/tg-prop-pre-install
check "tg-prop: record written" test -s "$(record tg-prop)"
check "tg-prop: record names source dkms, package, kernel, arch, mode, policy, module (docs/records.md)" python3 -c "
import json; r=json.load(open('$(record tg-prop)'))
assert r['format']=='taintguard-mark/2' and r['source']=='dkms' and r['package']=='tg-prop/1.0', r
assert r['name']=='tg-prop' and r['version']=='1.0' and r['release'] is None and r['kernel']=='$K' and r['arch']=='$ARCH', r
assert r['action']=='mark' and r['mode']=='enforce' and r['policy']=='/etc/taintguard/policy.yaml', r
assert [m['module'] for m in r['modules']]==['tgprop'] and r['modules'][0]['action']=='mark', r"
check "tg-prop: the record staged before the install is final after it (the wrapper's after-dkms)" python3 -c "
import json; r=json.load(open('$(record tg-prop)')); assert r.get('state', 'final')=='final', r"
"$B/taintguard" status > "$LOG" 2>&1
check "tg-prop: listed by 'taintguard status'" bash -c "grep -q 'tg-prop/1.0 (dkms): mark' '$LOG'"
# records the hook wrote before (taintguard-mark/1, compact): listed by status, dropped by
# sync once their build is gone; a broken record is named, left alone by sync
cp "$(record tg-prop)" "$T/rec-v2.json"
v1() { printf '{"format":"taintguard-mark/1","source":"dkms","package":"%s/1.0","kernel":"%s","arch":"%s","action":"mark","recorded":"2026-12-03T10:00:00Z","modules":[\n {"path": "/x/%s.ko", "module": "%s", "taint": "P", "action": "mark", "reasons": ["old record"]}\n]}\n' "$1" "$K" "$ARCH" "$2" "$2"; }
v1 tg-prop tgprop > "$(record tg-prop)"
v1 tg-gone tggone > "$(record tg-gone)"
echo '{"format": "taintguard-mark/2", "source": "dkms",' > "$(record tg-broken)"
"$B/taintguard" status > "$LOG" 2>&1
rc=$?
check "status: taintguard-mark/1 records listed (installed build: not stale; gone: stale)" \
	bash -c "grep -qx 'tg-prop/1.0 (dkms): mark' '$LOG' && grep -q 'module tgprop, taint P: old record' '$LOG' && grep -q 'tg-gone/1.0 (dkms): mark \[stale' '$LOG'"
check "status: a broken record named (file and cause), exit 3 ($rc)" \
	bash -c "test $rc = 3 && grep -q '$(record tg-broken): broken mark record: truncated' '$LOG'"
"$HOOK" sync > "$LOG" 2>&1
check "sync: drops the taintguard-mark/1 record of a build that is gone" test ! -e "$(record tg-gone)"
check "sync: keeps the record of an installed build" test -e "$(record tg-prop)"
check "sync: leaves a broken record alone and says so" \
	bash -c "test -e '$(record tg-broken)' && grep -q '$(record tg-broken): broken mark record.*left alone' '$LOG'"
rm -f "$(record tg-broken)"
cp "$T/rec-v2.json" "$(record tg-prop)"
check "tg-prop: no modprobe rule" no_rule tgprop

# ------------------------------------------------------------ lve: denied
add_pkg tg-lve
dk 101 install tg-lve/1.0 -k "$K"
check "tg-lve: dkms install refused with dkms's pre_install error (rc 101)" test $? = 0
check "tg-lve: dkms says pre_install failed" logged "pre_install failed"
check "tg-lve: kernel fact: built lve.ko claims GPL" \
	bash -c "modinfo -F license '$(ko /var/lib/dkms/tg-lve/1.0/$K/$ARCH/module/lve)' | grep -qx GPL"
lveplain=$(ko_plain "/var/lib/dkms/tg-lve/1.0/$K/$ARCH/module/lve")
check "tg-lve: kernel fact: lve.ko imports GPL-only ktime_get" \
	test "$(gpl_imports "${lveplain:-/nonexistent}")" = ktime_get
check "tg-lve: not installed in $INST" not_installed lve
check "tg-lve: dkms status is truthful (built, not installed)" status_is tg-lve built
check "tg-lve: message names module, package and kernel" \
	bash -c "grep -q '^taintguard-dkms: refused tg-lve/1.0: $(mod lve)' '$LOG' && grep -q 'kernel $K, taint ' '$LOG'"
check "tg-lve: message gives taint flags" bash -c "grep -q 'taint P[A-Z]*, file ' '$LOG'"
check "tg-lve: message gives the reason (GPL-only symbol refused)" bash -c "grep -q 'refused tg-lve/1.0: $(mod lve)the kernel would refuse it: .*ktime_get' '$LOG'"
check "tg-lve: message says how to add a policy exception" \
	bash -c "grep -q 'exceptions:' '$LOG' && grep -q 'package: \"tg-lve/\*\"' '$LOG' && grep -q 'justification' '$LOG'"
check "tg-lve: modprobe.d rule written" has_rule lve
check "tg-lve: modprobe refuses to load lve (install /bin/false)" modprobe_blocked lve
check "tg-lve: no record (denied modules are not installed)" test ! -e "$(record tg-lve)"

# still recoverable: a policy exception, then a plain dkms install
policy_except_lve
dk 0 install tg-lve/1.0 -k "$K"
check "tg-lve: after a policy exception, dkms install succeeds" test $? = 0
check "tg-lve: installed after the exception" installed lve
check "tg-lve: modprobe.d rule gone after the exception" no_rule lve
check "tg-lve: recorded as marked after the exception" test -s "$(record tg-lve)"
policy_default
dk 0 remove tg-lve/1.0 --all
check "tg-lve: dkms remove works" test $? = 0
check "tg-lve: record dropped by dkms remove" test ! -e "$(record tg-lve)"

# denied again, then removed: the rule goes with it
add_pkg tg-lve
dk 101 install tg-lve/1.0 -k "$K"
check "tg-lve: denied again without the exception" has_rule lve
dk 0 remove tg-lve/1.0 --all
check "tg-lve: dkms remove of the denied build works" test $? = 0
check "tg-lve: dkms status empty after remove" status_is tg-lve ""
check "tg-lve: modprobe.d rule removed with the module" no_rule lve

# --force skips PRE_INSTALL; the wrapper's audit uninstalls it right after
add_pkg tg-lve
dk 0 install tg-lve/1.0 -k "$K" --force
check "tg-lve: dkms install --force exits 0" test $? = 0
check "tg-lve: --force install undone by the audit (not installed)" not_installed lve
check "tg-lve: --force: dkms status truthful (built)" status_is tg-lve built
check "tg-lve: --force: modprobe blocked" modprobe_blocked lve
remove_pkg tg-lve lve

# ------------------------------------------------------------ autoinstall (kernel upgrade path)
remove_pkg tg-clean tgclean
add_pkg tg-lve; add_pkg tg-clean
dk 0 autoinstall -k "$K"
check "autoinstall with a denied module exits 0 by default" test $? = 0
check "autoinstall: the allowed module is installed" installed tgclean
check "autoinstall: the denied module is not installed" not_installed lve
check "autoinstall: dkms status truthful for lve (built)" status_is tg-lve built
check "autoinstall: denial reported" logged "refused tg-lve/1.0: $(mod lve)"
check "autoinstall: modprobe blocked" modprobe_blocked lve
remove_pkg tg-lve lve; remove_pkg tg-clean tgclean

# /etc/kernel/postinst.d as linux-image's postinst runs it (without initramfs-tools)
mkdir -p "$T/postinst.d"
ln -s /etc/kernel/postinst.d/dkms "$T/postinst.d/dkms"
ln -s "$KHOOK" "$T/postinst.d/dkms-taintguard"
add_pkg tg-lve; add_pkg tg-clean
run-parts --report --exit-on-error --arg="$K" --arg="/boot/vmlinuz-$K" "$T/postinst.d" > "$LOG" 2>&1
check "kernel postinst.d (dkms + dkms-taintguard) with a denied module exits 0" test $? = 0
check "kernel postinst.d: allowed module installed, denied one not" bash -c "ls $INST/tgclean.ko* >/dev/null 2>&1 && ! ls $INST/lve.ko* >/dev/null 2>&1"
remove_pkg tg-lve lve; remove_pkg tg-clean tgclean

# the safety net alone: dkms run without the wrapper installs lve; our kernel hook removes it
add_pkg tg-lve
TAINTGUARD_DKMS_OFF=1 dkms autoinstall -k "$K" > "$LOG" 2>&1
check "safety net: without the wrapper, autoinstall installs lve (precondition)" installed lve
"$KHOOK" "$K" "/boot/vmlinuz-$K" > "$LOG" 2>&1
check "safety net: kernel hook exits 0 by default" test $? = 0
check "safety net: kernel hook uninstalled lve" not_installed lve
check "safety net: dkms status truthful (built)" status_is tg-lve built
check "safety net: reported" logged "refused tg-lve/1.0: $(mod lve)"
check "safety net: modprobe blocked" modprobe_blocked lve
remove_pkg tg-lve lve

# fail_kernel_upgrade=yes: the documented way to make kernel upgrades fail hard
dkms_conf "fail_kernel_upgrade=yes"
add_pkg tg-lve
run-parts --report --exit-on-error --arg="$K" --arg="/boot/vmlinuz-$K" "$T/postinst.d" > "$LOG" 2>&1
check "fail_kernel_upgrade=yes: kernel postinst.d fails" test $? != 0
check "fail_kernel_upgrade=yes: lve not installed" not_installed lve
remove_pkg tg-lve lve
rm -f /etc/taintguard/dkms.conf

# ------------------------------------------------------------ sign_file alone (no wrapper): dkms 3.0.x debris
add_pkg tg-lve
TAINTGUARD_DKMS_OFF=1 dkms install tg-lve/1.0 -k "$K" > "$LOG" 2>&1
check "sign_file only: lve not installed (module deleted in the build)" not_installed lve
check "sign_file only: denial reported" logged "refused tg-lve/1.0: $(mod lve)"
check "sign_file only: modprobe blocked" modprobe_blocked lve
check "sign_file only: dkms status truthful (added: nothing built or installed)" status_is tg-lve added
check "sign_file only: message says how to clean up dkms 3.0.x leftovers" logged "taintguard-dkms sync; dkms install tg-lve/1.0"
"$HOOK" sync > "$LOG" 2>&1
check "sign_file only: taintguard-dkms sync exits 0" test $? = 0
check "sign_file only: sync removed dkms's leftover build dir and dangling link" \
	bash -c "test ! -e /var/lib/dkms/tg-lve/1.0/$K && test ! -L /var/lib/dkms/tg-lve/kernel-$K-$ARCH"
check "sign_file only: modprobe.d rule removed with the build" no_rule lve
check "sign_file only: dkms status still added" status_is tg-lve added
dk 0 remove tg-lve/1.0 --all
check "sign_file only: then dkms remove works" test $? = 0
check "sign_file only: dkms remove cleans up the tree" test ! -e /var/lib/dkms/tg-lve/1.0
remove_pkg tg-lve lve

# ------------------------------------------------------------ pre-install on compressed modules (packager mode)
add_pkg tg-lve; add_pkg tg-clean
dkms build tg-lve/1.0 -k "$K" >/dev/null 2>&1
dkms build tg-clean/1.0 -k "$K" >/dev/null 2>&1
lvemod=$(ko_plain /var/lib/dkms/tg-lve/1.0/"$K"/"$ARCH"/module/lve)
cleanmod=$(ko_plain /var/lib/dkms/tg-clean/1.0/"$K"/"$ARCH"/module/tgclean)
check "packager mode: built modules to test with" test -n "$lvemod" -a -n "$cleanmod"
printf 'modprobe_dir=%s\nmarks_dir=%s\n' "$T/modprobe.d" "$T/marks" > "$T/dkms.conf"
# A .ko.gz loads only if kmod has zlib (or the kernel decompresses gzip itself);
# Debian 12's kmod is "-ZLIB", so the kernel gets gzip bytes and refuses them.
gz_clean=0
if kmod --version | grep -q -- '-ZLIB' && ! grep -q '^CONFIG_MODULE_COMPRESS_GZIP=y' "/lib/modules/$K/build/.config" 2>/dev/null; then
	gz_clean=1
fi
for comp in xz zst gz; do
	for pkg in tg-lve:lve:1 tg-clean:tgclean:0; do
		IFS=: read -r p m want <<< "$pkg"
		[ "$comp:$m" = gz:tgclean ] && want=$gz_clean
		src=$T/tree/$p/1.0/source
		rm -rf "$T/tree"; mkdir -p "$T/tree/$p/1.0/$K/$ARCH/module"
		ln -s "/usr/src/$p-1.0" "$src"
		case $comp in
		xz) xz -c "$([ "$m" = lve ] && echo "$lvemod" || echo "$cleanmod")" > "$T/tree/$p/1.0/$K/$ARCH/module/$m.ko.xz" ;;
		zst) zstd -q -c "$([ "$m" = lve ] && echo "$lvemod" || echo "$cleanmod")" > "$T/tree/$p/1.0/$K/$ARCH/module/$m.ko.zst" ;;
		gz) gzip -c "$([ "$m" = lve ] && echo "$lvemod" || echo "$cleanmod")" > "$T/tree/$p/1.0/$K/$ARCH/module/$m.ko.gz" ;;
		esac
		(cd "$src" && env kernelver="$K" arch="$ARCH" module="$p" module_version=1.0 \
			TAINTGUARD_DKMS_CONF="$T/dkms.conf" "$HOOKDIR/taintguard-dkms-pre-install") > "$LOG" 2>&1
		rc=$?
		check "pre-install: $m.ko.$comp -> exit $want" test "$rc" = "$want"
	done
done
check "pre-install: the rule went to the settings' modprobe_dir" grep -qx "install lve /bin/false" "$T/modprobe.d/taintguard-lve.conf"
# limits= in the settings: a clean module past a limit is an error verdict (deny);
# a malformed list is reported and ignored as a whole.
src=$T/tree/tg-clean/1.0/source
rm -rf "$T/tree"; mkdir -p "$T/tree/tg-clean/1.0/$K/$ARCH/module"
ln -s /usr/src/tg-clean-1.0 "$src"
xz -c "$cleanmod" > "$T/tree/tg-clean/1.0/$K/$ARCH/module/tgclean.ko.xz"
for lim in "sections=10:1:ELF sections exceed the limit of 10" "sections=10 bogus=1:0:unknown name"; do
	IFS=: read -r l want text <<< "$lim"
	printf 'modprobe_dir=%s\nmarks_dir=%s\nlimits=%s\n' "$T/modprobe.d" "$T/marks" "$l" > "$T/dkms-lim.conf"
	(cd "$src" && env kernelver="$K" arch="$ARCH" module=tg-clean module_version=1.0 \
		TAINTGUARD_DKMS_CONF="$T/dkms-lim.conf" "$HOOKDIR/taintguard-dkms-pre-install") > "$LOG" 2>&1
	rc=$?
	check "pre-install with limits='$l': exit $want, says '$text'" \
		bash -c "test $rc = $want && grep -q '$text' '$LOG'"
done
rm -f "$T/modprobe.d/taintguard-tgclean.conf"
remove_pkg tg-lve lve; remove_pkg tg-clean tgclean

# ------------------------------------------------------------ kill points (issue 26)
# dkms SIGKILLed (with its whole process group, as a power cut would) while
# it installs tg-prop, at two points where the package's own code waits on a
# hold file in /run/tg-dkms-test:
#   build    its MAKE: the module is being built, nothing judged, no record
#   install  its own PRE_INSTALL, which taintguard's pre-install hook runs
#            after it judged the module and staged its record: the module is
#            not copied into the kernel's tree yet (the wrapper's after-dkms
#            makes the record final once dkms has installed it)
# After each, "taintguard status" lists tg-prop as a mark only when dkms
# has it installed, and the same "dkms install" again converges.
dkms_kill_at() { # POINT HOLD TRACE: dkms install of tg-prop killed once TRACE exists
	local point=$1 hold=/run/tg-dkms-test/hold-$2 trace=$3 pid i
	remove_pkg tg-prop tgprop
	add_pkg tg-prop
	rm -f "$trace"
	touch "$hold"
	setsid dkms install tg-prop/1.0 -k "$K" >"$LOG" 2>&1 &
	pid=$!
	for i in $(seq 1200); do
		[ -e "$trace" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	[ -e "$trace" ] || { rm -f "$hold"; return 1; }
	kill -KILL -- -"$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rm -f "$hold"
	sleep 0.3	# the waiting loop, orphaned, ends
}
DKMS_KP="point    | tg-prop in tree | status after the kill       | after dkms install again"
mkdir -p /run/tg-dkms-test
for point in build install; do
	case $point in
	build) hold=build trace=/run/tg-dkms-test/building ;;
	install) hold=pre-install trace=/run/tg-dkms-test/tg-prop-pre-install ;;
	esac
	if ! dkms_kill_at "$point" "$hold" "$trace"; then
		notok "dkms kill point $point: dkms never got there"; continue
	fi
	"$B/taintguard" status --check records >"$T/st" 2>&1
	src=$?
	line=$(grep '^tg-prop/1.0 (dkms)' "$T/st" | head -n 1)
	if installed tgprop; then intree=yes; else intree=no; fi
	case $intree:$line in
	# installed: a mark (final, or staged if after-dkms never ran); not installed:
	# nothing, or the staged record status drops; never a mark, never "stale"
	yes:"tg-prop/1.0 (dkms): mark" | yes:"tg-prop/1.0 (dkms): mark [staged: installed, dkms did not finish]") good=1 ;;
	no:"" | no:"tg-prop/1.0 (dkms): mark [staged, never installed: dropped]") good=1 ;;
	*) good=0 ;;
	esac
	check "dkms kill point $point: status lists tg-prop as a mark only if installed (in tree: $intree, exit $src)" \
		test "$good" = 1 -a "$src" != 3
	said=${line#tg-prop/1.0 (dkms): }
	dk 0 install tg-prop/1.0 -k "$K"
	"$B/taintguard" status --check records >"$T/st2" 2>&1
	check "dkms kill point $point, dkms install again: installed, record, listed as a mark" \
		bash -c "ls '$INST'/tgprop.ko* >/dev/null && test -s '$(record tg-prop)' && grep -qx 'tg-prop/1.0 (dkms): mark' '$T/st2'"
	DKMS_KP="$DKMS_KP
$(printf '%-8s | %-15s | %-26s | %s' "$point" "$intree" "${said:--} (exit $src)" "$(installed tgprop && echo installed || echo absent), $(grep -o '^tg-prop/1.0 (dkms): mark.*' "$T/st2" | sed 's/^tg-prop\/1.0 (dkms): //')")"
done
echo "# dkms kill points:"
echo "$DKMS_KP" | sed 's/^/#   /'

# ------------------------------------------------------------ race with rpm (issue 26)
. tests/dkms/race.sh

# ------------------------------------------------------------ uninstall
remove_pkg tg-prop tgprop
PREFIX=$PREFIX B=$B sh hooks/install.sh --uninstall > "$LOG" 2>&1
check "hooks/install.sh --uninstall exits 0" test $? = 0
cleanup
snapshot > "$T/after"
diff -u "$T/before" "$T/after" > "$LOG" 2>&1
check "uninstall leaves dkms exactly as before (/etc/dkms, /usr/sbin/dkms, diversions, /etc/kernel, modprobe.d, dkms status)" test $? = 0
check "uninstall removes the hook program" test ! -e "$HOOK"

finish
