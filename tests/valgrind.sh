#!/bin/bash
# The CLI under valgrind over every test module: no memory errors, no leaks.
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
OUT=${TG_MODULES_OUT:-tests/modules/out}
. tests/lib/kernel.sh
K=$TG_KERNEL
pass=0 fail=0
# the confined module readers (docs/confinement.md) would run valgrind's own system
# calls under their filter: read in the process valgrind watches
export TG_CONFINE=off
tests/modules/build.sh "$OUT" >/dev/null || { echo "not ok - test modules"; echo "0 passed, 1 failed"; exit 1; }
mapfile -t files < <(find "$OUT" -path "$OUT/.*" -prune -o -type f \( -name '*.ko' -o -name '*.ko.*' \) -print | sort)
vg() {	# vg DESCRIPTION ARGS...
	local d=$1; shift
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect "$B/taintguard" "$@" >/dev/null 2>"$LOG"
	if [ $? -eq 99 ] || grep -q '^==[0-9]*==' "$LOG"; then
		fail=$((fail + 1)); echo "not ok - $d"; head -n 40 "$LOG"
	else
		pass=$((pass + 1)); echo "ok - $d"
	fi
}
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
vg "check of ${#files[@]} test modules (text)" check --kernel "$K" --policy policy/default.yaml "${files[@]}"
vg "check of ${#files[@]} test modules (json, 1 job)" check --kernel "$K" --format json --jobs 1 "${files[@]}"
vg "check of an unreadable and a missing file" check --kernel "$K" /etc/hostname /nonexistent.ko
vg "policy show" policy show policy/default.yaml
vg "policy check of a broken policy" policy check tests/fuzz/corpus/policy/alias.yaml
# status: the guard checks (rpm asked, macro files read) and the records, of a root with
# a policy and a macro file
R=$(mktemp -d)
trap 'rm -f "$LOG"; rm -rf "$R"' EXIT
mkdir -p "$R/etc/rpm" "$R/etc/taintguard" "$R/var/lib/taintguard/marks"
cp policy/default.yaml "$R/etc/taintguard/policy.yaml"
printf '%%__transaction_taintguard %%{__plugindir}/taintguard.so\n%%_taintguard_mode warn\n' >"$R/etc/rpm/macros.x"
vg "status of a root (guard checks and records)" status --root "$R"
vg "status --accept" status --root "$R" --accept
vg "status --format json, accepted" status --root "$R" --format json
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
