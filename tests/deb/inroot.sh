#!/bin/bash
# Runs inside the fresh Debian 12 root of tests/deb/run.sh (chroot
# bookworm-deb under a scratch layer), as root: DIR holds taintguard's .deb,
# broadcom-sta-dkms's .deb and the DKMS suite's tg-lve-1.0.  Prints
# "ok"/"not ok" lines; the audit's default output is left in DIR/audit.txt.
set -u
D=$1
export DEBIAN_FRONTEND=noninteractive
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
nok() { fail=$((fail + 1)); echo "not ok - $*"; }
LOG=$D/step.log
# check DESCRIPTION COMMAND...: on failure the last step's output is shown
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; sed 's/^/#   /' "$LOG" | tail -n 25; fi; }
K1=$(ls /lib/modules | grep '^6\.1\.' | head -n 1)
K2=$(ls /lib/modules | grep '^6\.12\.' | head -n 1)
ARCH=$(uname -m)
DKMS=/usr/sbin/dkms
WL=broadcom-sta/6.30.223.271
check "the root has kernels 6.1 and 6.12 with headers ($K1, $K2)" \
	test -n "$K1" -a -n "$K2" -a -e "/lib/modules/$K1/build/include" -a -e "/lib/modules/$K2/build/include"
dkms_sum=$(sha256sum <"$DKMS")
check "dkms as Debian ships it: no diversion, no framework snippet" \
	bash -c "[ -z \"\$(dpkg-divert --listpackage $DKMS)\" ] && dpkg -S $DKMS | grep -q '^dkms:' &&
		 ! ls /etc/dkms/framework.conf.d/*taintguard* >/dev/null 2>&1"

# ------------------------------------------------------------ install
cd "$D" || exit 2
apt-get install -y ./taintguard_*.deb >"$LOG" 2>&1
rc=$?
check "apt-get install ./$(basename "$D"/taintguard_*.deb) (exit $rc)" test $rc = 0
check "dpkg: taintguard installed" bash -c "dpkg-query -W -f='\${Status}' taintguard | grep -qx 'install ok installed'"
check "the command runs from /usr/bin" bash -c "taintguard --version >'$LOG' 2>&1 && [ \"\$(command -v taintguard)\" = /usr/bin/taintguard ]"
check "$DKMS is taintguard's wrapper over a diversion by the package; dkms's own is $DKMS.distrib" \
	bash -c "[ \"\$(dpkg-divert --listpackage $DKMS)\" = taintguard ] && grep -q taintguard-dkms-wrapper $DKMS &&
		 [ \"\$(sha256sum <$DKMS.distrib)\" = '$dkms_sum' ]"
check "the framework snippet makes the hook dkms's signer" \
	grep -q '^sign_file="/usr/libexec/taintguard/taintguard-dkms-sign"$' /etc/dkms/framework.conf.d/zz-taintguard.conf
check "the Debian kernel postinst.d hook is installed" grep -q taintguard-dkms-kernel-hook /etc/kernel/postinst.d/dkms-taintguard
check "the default policy is a conffile, /etc/taintguard/policy.yaml" \
	bash -c "dpkg-query -W -f='\${Conffiles}' taintguard | grep -q '^ /etc/taintguard/policy.yaml ' &&
		 cmp -s /etc/taintguard/policy.yaml /usr/share/taintguard/default.yaml"
# (this root's dpkg leaves out /usr/share/man: tests/lib/chroot.sh)
check "man pages in the package, completion installed" \
	bash -c "dpkg -L taintguard | grep -qx /usr/share/man/man1/taintguard.1.gz && dpkg -L taintguard | grep -qx /usr/share/man/man8/taintguard-dkms.8.gz &&
		 test -e /usr/share/bash-completion/completions/taintguard"
check "the rpm plugin's macro names the plugin by its path, which is there" \
	bash -c "f=\$(sed -n 's/^%__transaction_taintguard //p' /usr/lib/rpm/macros.d/macros.transaction_taintguard) && test -f \"\$f\""
taintguard status >"$LOG" 2>&1
rc=$?
check "the postinst accepted the installed state: taintguard status exits 0 (exit $rc)" test $rc = 0

# ------------------------------------------------------------ lve: refused by the installed hook
cp -r "$D/tg-lve-1.0" /usr/src/
dkms add tg-lve/1.0 >"$LOG" 2>&1
dkms install tg-lve/1.0 -k "$K1" >"$LOG" 2>&1
rc=$?
check "tg-lve: dkms install refused by the installed hook (rc $rc, dkms's pre_install error is 101)" \
	bash -c "[ $rc = 101 ] && grep -q '^taintguard-dkms: refused tg-lve/1.0: ' '$LOG' && grep -q 'pre_install failed' '$LOG'"
check "tg-lve: not installed" bash -c "! ls /lib/modules/$K1/updates/dkms/lve.ko* >/dev/null 2>&1"

# ------------------------------------------------------------ wl: built for 6.1, fails for 6.12
# broadcom-sta-dkms's postinst builds for every kernel of a chroot: with 6.12's
# headers out of sight it builds for 6.1 alone; 6.12 arrives after it, as a
# kernel from bookworm-backports does, through /etc/kernel/postinst.d.
mv "/lib/modules/$K2/build" "/lib/modules/$K2/build.tg-hidden"
apt-get install -y ./broadcom-sta-dkms_*.deb >"$LOG" 2>&1
rc=$?
mv "/lib/modules/$K2/build.tg-hidden" "/lib/modules/$K2/build"
check "wl: apt-get install broadcom-sta-dkms from Debian's non-free archive (exit $rc)" test $rc = 0
check "wl: built and installed for $K1 through the hook (a mark: it taints P)" \
	bash -c "ls /lib/modules/$K1/updates/dkms/wl.ko* >/dev/null 2>&1 &&
		 ls /var/lib/taintguard/marks/dkms-broadcom-sta-6.30.223.271-$K1.json >/dev/null 2>&1"
/etc/kernel/postinst.d/dkms "$K2" "/boot/vmlinuz-$K2" >"$LOG" 2>&1
/etc/kernel/postinst.d/dkms-taintguard "$K2" "/boot/vmlinuz-$K2" >"$D/hook.txt" 2>&1
rc=$?
check "wl: the build for $K2 fails (dkms left build/make.log), nothing installed for it" \
	bash -c "[ -s /var/lib/dkms/$WL/build/make.log ] && ! ls /lib/modules/$K2/updates/dkms/wl.ko* >/dev/null 2>&1"
cp "$D/hook.txt" "$LOG"
check "wl: the kernel postinst.d hook says before the reboot that $K2 will miss wl, and why (exit $rc)" \
	grep -qF "kernel $K2: $WL (dkms): module wl (/lib/modules/$K2/updates/dkms/wl.ko): will be missing: not built for this kernel: build failed, see /var/lib/dkms/$WL/build/make.log" "$D/hook.txt"

# ------------------------------------------------------------ audit --installed
taintguard audit --installed >"$D/audit.txt" 2>"$D/audit.err"
rc=$?
cat "$D/audit.txt" "$D/audit.err" >"$LOG"
n=$(wc -l <"$D/audit.txt")
check "audit --installed: default text of $n lines, fewer than 40 (exit $rc: marks)" bash -c "[ $rc = 1 ] && [ $n -lt 40 ]"
check "audit: wl named once, as $WL (dkms), with its taint P" \
	bash -c "[ \$(grep -c '^== $WL (dkms)\$' '$D/audit.txt') = 1 ] &&
		 [ \$(grep -c '^/lib/modules/$K1/updates/dkms/wl.ko[.a-z]*: mark' '$D/audit.txt') = 1 ] &&
		 ! grep -q '/usr/lib/modules/' '$D/audit.txt' &&
		 [ \$(grep -c '^  wl  *$WL (dkms)  *mark  *P' '$D/audit.txt') = 1 ]"
check "audit: wl listed as missing under $K2 with the reason (build failed, make.log)" \
	bash -c "sed -n '/^kernel $K2: /,/^kernel /p' '$D/audit.txt' |
		 grep -q '^  wl  *$WL (dkms)  *missing  */lib/modules/$K2/updates/dkms/wl.ko: not built for this kernel: build failed, see /var/lib/dkms/$WL/build/make.log\$'"
check "audit: the dpkg-owned in-tree modules are counted, not listed" \
	bash -c "grep -q 'allowed modules not listed' '$D/audit.txt' && ! grep -q '/kernel/drivers/' '$D/audit.txt'"
taintguard audit --installed --all >"$D/all.txt" 2>/dev/null
nmod=$(find /lib/modules/ -type f -name '*.ko*' | wc -l)
nall=$(grep -c '^/lib/modules/.*\.ko[.a-z]*: ' "$D/all.txt")
check "audit --all: every module, each once ($nall lines for $nmod module files)" \
	bash -c "[ $nall = $nmod ] && [ \$(grep '^/lib/modules/.*\.ko[.a-z]*: ' '$D/all.txt' | cut -d: -f1 | sort -u | wc -l) = $nmod ] &&
		 grep -q '^/lib/modules/$K2/kernel/.*: allow' '$D/all.txt' && grep -q '^== linux-image-$K1' '$D/all.txt'"

# ------------------------------------------------------------ purge
dpkg -L taintguard >"$D/files.txt"
apt-get purge -y taintguard >"$LOG" 2>&1
rc=$?
check "apt-get purge taintguard (exit $rc)" test $rc = 0
check "dpkg knows no taintguard" bash -c "! dpkg-query -W -f='\${Status}' taintguard 2>/dev/null | grep -q ."
# directories are shared (/lib is usrmerge's link); /usr/sbin/dkms is dkms's again (checked below)
left=$(while read -r f; do [ -d "$f" ] || [ "$f" = "$DKMS" ] && continue; [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done <"$D/files.txt")
for d in /usr/libexec/taintguard /usr/share/taintguard /etc/taintguard /var/lib/taintguard /usr/share/doc/taintguard; do
	[ -e "$d" ] && left="$left $d"
done
nfiles=$(wc -l <"$D/files.txt")
check "nothing of the package is left ($nfiles paths of dpkg -L; left:${left:- none})" test -z "$left" -a "$nfiles" -gt 20
check "$DKMS is dkms's own again, not diverted" \
	bash -c "[ -z \"\$(dpkg-divert --listpackage $DKMS)\" ] && [ ! -e $DKMS.distrib ] && [ \"\$(sha256sum <$DKMS)\" = '$dkms_sum' ] &&
		 ! ls /etc/dkms/framework.conf.d/*taintguard* /etc/modprobe.d/taintguard-* >/dev/null 2>&1"
dkms install tg-lve/1.0 -k "$K1" >"$LOG" 2>&1
rc=$?
check "dkms unhooked: tg-lve installs (exit $rc)" \
	bash -c "[ $rc = 0 ] && ls /lib/modules/$K1/updates/dkms/lve.ko* >/dev/null 2>&1 && ! grep -q taintguard '$LOG'"
echo "# $pass passed, $fail failed in the root"
