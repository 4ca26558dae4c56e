#!/bin/bash
# SUSE's supported flag without a SUSE kernel: the target kernel's files in a
# scratch root whose .config says CONFIG_SUSE_KERNEL_SUPPORTED=y, the test
# modules suse_ext (supported=external) and suse_none (no supported=) judged
# with and without kernel.unsupported=0 and allow_unsupported_modules 0
# (lib/vendor_suse.c, docs/loader-rules.md "V5 SUSE: the supported flag").
set -eu
cd "$(dirname "$0")/../.."
B=${B:-build}
OUT=${TG_MODULES_OUT:-tests/modules/out}
. tests/lib/kernel.sh
K=$TG_KERNEL
tests/modules/build.sh "$OUT" >/dev/null
R=$(mktemp -d)
trap 'rm -rf "$R"' EXIT
mkdir -p "$R/boot" "$R/lib/modules/$K/build" "$R/lib/modules/$K/kernel" "$R/etc/sysctl.d" \
	"$R/etc/modprobe.d" "$R/usr/lib"
ln -s ../../lib/modules "$R/usr/lib/modules"
{ grep -v SUSE_KERNEL_SUPPORTED "/boot/config-$K"; echo CONFIG_SUSE_KERNEL_SUPPORTED=y; } >"$R/boot/config-$K"
cp "/lib/modules/$K/build/Module.symvers" "$R/lib/modules/$K/build/"
# one in-tree module: the kernel's vermagic and struct module size
find "/lib/modules/$K/kernel/lib" -maxdepth 1 -name 'crc*.ko*' | head -1 | xargs -I{} cp {} "$R/lib/modules/$K/kernel/"
fail=0 pass=0
# expect CASE WANT: WANT is "loads taint module_taint modprobe_refused action" from the JSON
expect() {
	local got
	got=$("$B/taintguard" check -f json -p "$R/policy.yaml" --root "$R" -k "$K" "$OUT/$1.ko" |
		python3 -c 'import json,sys
v=json.load(sys.stdin)[0]
print(v["loads"], v["taint"] or "-", v["module_taint"] or "-",
      any(n.startswith("modprobe refuses") for n in v["notes"]),
      v["refusal"][0]["code"] if v["refusal"] else "-", v["action"])') || true
	if [ "$got" = "$2" ]; then
		echo "ok   $3: $1: $got"
		pass=$((pass + 1))
	else
		echo "FAIL $3: $1: got '$got', want '$2'"
		fail=$((fail + 1))
	fi
}
# the default policy, and a rule on what modprobe refuses
# (last: a refusal by the kernel still denies)
sed 's/^default:/  - name: modprobe-refuses\n    when: {modprobe_refused: true}\n    action: mark\n\ndefault:/' policy/default.yaml >"$R/policy.yaml"
grep -q modprobe_refused "$R/policy.yaml"
expect suse_ext "True OEX OEX False - allow" "defaults"
expect suse_none "True OEn OEn False - allow" "defaults"
echo "allow_unsupported_modules 0" >"$R/etc/modprobe.d/10-unsupported-modules.conf"
expect suse_ext "True OEX OEX False - allow" "modprobe"
expect suse_none "True OEn OEn True - mark" "modprobe"
printf '# later files win\nkernel.unsupported = 1\n' >"$R/etc/sysctl.d/10-a.conf"
printf 'kernel/unsupported=0\n' >"$R/etc/sysctl.d/90-b.conf"
expect suse_ext "True OEX OEX False - allow" "unsupported=0"
expect suse_none "False OE - False suse-unsupported deny" "unsupported=0"
echo "kernel.unsupported = 1" >"$R/etc/sysctl.conf"
expect suse_none "True OEn OEn True - mark" "sysctl.conf last"
# the same modules on the kernel as it is: supported= means nothing there
got=$("$B/taintguard" check -k "$K" "$OUT/suse_none.ko" | head -1) || true
case $got in
*"taint OE") echo "ok   $K as it is: $got"; pass=$((pass + 1)) ;;
*) echo "FAIL $K as it is: $got"; fail=$((fail + 1)) ;;
esac
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
