#!/bin/bash
# Version matrix for taintguard-dkms: run an upstream dkms (its dkms.in, e.g.
# from "git show v3.4.3:dkms.in" of github.com/dkms-project/dkms) in a private
# sandbox (own /etc/dkms, dkms tree, install tree; nothing on the system is
# touched except /run/tg-dkms-test) with taintguard's sign_file and PRE_INSTALL
# directive, and check what each dkms version does with a denied module.
#
#   tests/dkms/versions.sh DKMS.IN VERSION
#
# Root, kernel headers and a built taintguard-dkms ($B) are needed.  dkms < 3.1
# has no --no-depmod: it runs depmod on the real /lib/modules/KVER (which
# regenerates the same files, since the sandbox installs elsewhere).
# Output: ok/not ok lines, last line "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 2
ROOT=$PWD
B=${B:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
IN=${1:?usage: versions.sh DKMS.IN VERSION}
VER=${2:?usage: versions.sh DKMS.IN VERSION}
K=${TG_DKMS_KERNEL:-6.1.0-57-amd64}
SB=$(mktemp -d /tmp/tg-dkms-sb.XXXXXX)
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - dkms $VER: $*"; }
notok() { fail=$((fail + 1)); echo "not ok - dkms $VER: $*"; sed 's/^/#   /' "$SB/out" | tail -n 25; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }
trap 'rm -rf "$SB" /run/tg-dkms-test' EXIT

mkdir -p "$SB/etc/dkms/framework.conf.d" "$SB/var/lib/dkms" "$SB/usr/src" "$SB/lib/modules/$K" \
	"$SB/modprobe.d" "$SB/marks" "$SB/hook" /run/tg-dkms-test
sed -e "s|@RELEASE_STRING@|$VER|g" -e "s|@MODDIR@|$SB/lib/modules|g" -e "s|@SBINDIR@|$SB|g" \
	-e "s|@LIBDIR@|$SB/lib/dkms|g" -e "s|@KCONFDIR@|$SB/etc/kernel|g" -e "s|/etc/dkms/|$SB/etc/dkms/|g" \
	-e "s|dkms_tree=\"/var/lib/dkms\"|dkms_tree=\"$SB/var/lib/dkms\"|" \
	-e "s|source_tree=\"/usr/src\"|source_tree=\"$SB/usr/src\"|" \
	-e "s|install_tree=\"/lib/modules\"|install_tree=\"$SB/lib/modules\"|" \
	-e "s|/var/lib/dkms/mok|$SB/var/lib/dkms/mok|g" "$IN" > "$SB/dkms"
chmod +x "$SB/dkms"
ln -s "/usr/src/linux-headers-$K" "$SB/lib/modules/$K/build"
cp "/lib/modules/$K/modules.dep" "$SB/lib/modules/$K/"
printf 'dkms_tree="%s"\ntry_sign_modules="true"\n' "$SB/var/lib/dkms" > "$SB/etc/dkms/framework.conf"
cp "$B/taintguard-dkms" "$SB/hook/"
ln -s taintguard-dkms "$SB/hook/taintguard-dkms-sign"
ln -s taintguard-dkms "$SB/hook/taintguard-dkms-pre-install"
echo "sign_file=\"$SB/hook/taintguard-dkms-sign\"" > "$SB/etc/dkms/framework.conf.d/zz-taintguard.conf"
cat > "$SB/tg.conf" <<EOF
framework_conf=$SB/etc/dkms/framework.conf
dkms_tree=$SB/var/lib/dkms
install_tree=$SB/lib/modules
modprobe_dir=$SB/modprobe.d
marks_dir=$SB/marks
dkms=$SB/dkms
policy=$SB/policy.yaml
EOF
cp "$ROOT/policy/default.yaml" "$SB/policy.yaml"
export TAINTGUARD_DKMS_CONF=$SB/tg.conf
for p in tg-lve tg-prop tg-clean; do cp -r "$ROOT/tests/dkms/pkgs/$p-1.0" "$SB/usr/src/"; done
D() { "$SB/dkms" "$@" --no-depmod > "$SB/out" 2>&1; }
st() { "$SB/dkms" status "$1/1.0" -k "$K" 2>/dev/null | sed -n 's/.*: \([a-z]*\).*/\1/p' | head -n 1; }
inst() { compgen -G "$SB/lib/modules/$K/updates/dkms/$1.ko*" >/dev/null || compgen -G "$SB/lib/modules/$K/extra/$1.ko*" >/dev/null; }
DIRECTIVE=PRE_INSTALL=../../../../../../../../../../../../../../../..$SB/hook/taintguard-dkms-pre-install

# sign_file alone (dkms >= 3.0.4; older ones call sign_tool, which only
# /etc/dkms/framework.conf itself can set: the wrapper's directive is the veto there)
if grep -q 'sign_file' "$IN"; then
	D add tg-lve/1.0
	D install tg-lve/1.0 -k "$K"; rc=$?
	check "sign_file only: lve not installed (dkms rc $rc)" bash -c "! ls $SB/lib/modules/$K/*/*/lve.ko* $SB/lib/modules/$K/*/lve.ko* >/dev/null 2>&1"
	check "sign_file only: denial in dkms output" grep -q "refused tg-lve/[^:]*: module lve: " "$SB/out"
	check "sign_file only: modprobe.d rule" grep -qx "install lve /bin/false" "$SB/modprobe.d/taintguard-lve.conf"
	echo "# dkms $VER: sign_file deny -> rc $rc, status '$(st tg-lve)'"
	"$SB/hook/taintguard-dkms" sync > "$SB/out" 2>&1
	check "sign_file only: after sync dkms status is 'added'" test "$(st tg-lve)" = added
else
	echo "# dkms $VER has no sign_file callback (sign_tool era): only the directive can veto"
	D add tg-lve/1.0
	D build tg-lve/1.0 -k "$K"
	check "no sign_file: lve builds" test "$(st tg-lve)" = built
fi

# PRE_INSTALL directive
DKMS_DIRECTIVE_TG=$DIRECTIVE D install tg-lve/1.0 -k "$K"; rc=$?
check "directive: lve refused with rc 101 (got $rc)" test "$rc" = 101
check "directive: lve stays built" test "$(st tg-lve)" = built
D add tg-prop/1.0
rm -f /run/tg-dkms-test/tg-prop-pre-install
DKMS_DIRECTIVE_TG=$DIRECTIVE D install tg-prop/1.0 -k "$K"; rc=$?
check "directive: tg-prop installed (rc $rc)" inst tgprop
check "directive: tg-prop marked in output" grep -q "marked tg-prop/[^:]*: module tgprop: " "$SB/out"
check "directive: tg-prop's own PRE_INSTALL ran" grep -q "kernel=$K" /run/tg-dkms-test/tg-prop-pre-install
check "directive: tg-prop record" test -s "$SB/marks/dkms-tg-prop-1.0-$K.json"

# a dkms.conf that drops the directive (unset DKMS_DIRECTIVE_TG) installs without our
# PRE_INSTALL; the hook's guard denies its modules (hooks/guard.c), sign_file deletes them
cp -r "$ROOT/tests/dkms/pkgs/tg-clean-1.0" "$SB/usr/src/tg-bypass-1.0"
sed -i 's/^PACKAGE_NAME=.*/PACKAGE_NAME="tg-bypass"/' "$SB/usr/src/tg-bypass-1.0/dkms.conf"
echo 'unset DKMS_DIRECTIVE_TG' >>"$SB/usr/src/tg-bypass-1.0/dkms.conf"
D add tg-bypass/1.0
DKMS_DIRECTIVE_TG=$DIRECTIVE D install tg-bypass/1.0 -k "$K"; rc=$?
check "dkms.conf drops the directive: dkms runs no pre_install" bash -c "! grep -q 'Running the pre_install script' '$SB/out'"
if grep -q 'sign_file' "$IN"; then
	check "guard: tg-bypass's clean module not installed (dkms rc $rc)" bash -c "! compgen -G '$SB/lib/modules/$K/*/*/tgclean.ko*' >/dev/null && ! compgen -G '$SB/lib/modules/$K/*/tgclean.ko*' >/dev/null"
	check "guard: the reason names its dkms.conf and the rule" \
		bash -c "grep -q 'tg-bypass/1.0/source/dkms.conf could switch taintguard.s check off' '$SB/out' && grep -q \"policy: rule 'guard'\" '$SB/out'"
else
	check "no sign_file: tg-bypass installs past the dropped directive" inst tgclean
fi
# the audit after dkms (what the wrapper runs next) takes it out on every version
"$SB/hook/taintguard-dkms" after-dkms install tg-bypass/1.0 -k "$K" > "$SB/out" 2>&1
check "guard: after the audit tg-bypass is not installed" bash -c "! compgen -G '$SB/lib/modules/$K/*/*/tgclean.ko*' >/dev/null && ! compgen -G '$SB/lib/modules/$K/*/tgclean.ko*' >/dev/null"
D remove tg-bypass/1.0 --all
"$SB/hook/taintguard-dkms" sync > "$SB/out" 2>&1

# exception, then plain install; remove; sync
sed -i 's|^exceptions: \[\]$|exceptions:\n  - package: "tg-lve/*"\n    module: "lve"\n    action: mark\n    justification: "test"|' "$SB/policy.yaml"
DKMS_DIRECTIVE_TG=$DIRECTIVE D install tg-lve/1.0 -k "$K"; rc=$?
check "exception: lve installs (rc $rc)" inst lve
check "exception: rule removed" test ! -e "$SB/modprobe.d/taintguard-lve.conf"
D remove tg-lve/1.0 --all; D remove tg-prop/1.0 --all
"$SB/hook/taintguard-dkms" sync > "$SB/out" 2>&1
check "remove + sync: records gone" bash -c "! ls $SB/marks/*.json >/dev/null 2>&1"
check "remove: dkms status empty" test -z "$("$SB/dkms" status 2>/dev/null)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
