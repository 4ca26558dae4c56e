#!/bin/bash
# taintguard policy sync on synthetic kernel source snippets of both
# historical layouts (old/: the strcmp chain of kernel/module.c, 3.5;
# new/: the module_license_offenders[] array of kernel/module/main.c, with an
# invented name and license string).  Not kernel source: written for the test.
set -u
cd "$(dirname "$0")/../.."
B=${B:-build}
TG=$B/taintguard
D=tests/policy-sync
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
nok() { fail=$((fail + 1)); echo "not ok - $*"; }
W=$(mktemp -d /tmp/tg-sync.XXXXXX)
trap 'rm -rf "$W"' EXIT
run() { "$TG" policy sync "$@" >"$W/out" 2>&1; RC=$?; }
expect() {	# expect DESCRIPTION RC PATTERN...
	local d=$1 want=$2 p bad=; shift 2
	for p in "$@"; do grep -qE -- "$p" "$W/out" || bad="missing /$p/"; done
	if [ "$RC" = "$want" ] && [ -z "$bad" ]; then ok "$d"; else nok "$d (exit $RC, want $want; $bad)"; sed 's/^/#   /' "$W/out"; fi
}

run --kernel-source $D/old --policy policy/default.yaml
expect "old layout (strcmp chain, 3.5): the default policy matches" 0 \
	"matches kernel 3.5.0 \(kernel/module.c\): 3 forced-taint names, 6 license strings"

run --kernel-source $D/new --policy policy/default.yaml
expect "new layout (offenders array): differences reported, exit 1" 1 \
	"^\+ forced-taint tgbad: in kernel 6.14.0" '^\+ license "GPL-2.0-tg-test"'
grep -q ndiswrapper "$W/out" && nok "ndiswrapper (strcmp(info->mod->name, ...)) was not found" || ok "ndiswrapper found in the newer spelling"

cp policy/default.yaml "$W/p.yaml"
run --kernel-source $D/new --policy "$W/p.yaml" --write
expect "--write updates the policy" 0 "updated"
run --kernel-source $D/new --policy "$W/p.yaml"
expect "after --write the policy matches the new tree" 0 "matches kernel 6.14.0"
run --kernel-source $D/old --policy "$W/p.yaml"
expect "... and still matches the old tree (additions are version-ranged)" 0 "matches kernel 3.5.0"
"$TG" policy check "$W/p.yaml" >/dev/null 2>&1 && ok "the written policy is valid" || nok "the written policy is valid"
grep -q "^# taintguard default policy" "$W/p.yaml" && ok "comments survive --write" || nok "comments survive --write"
# the names the kernel dropped: range closed, not deleted (history stays)
mkdir -p "$W/dropped"
cp -r $D/new/. "$W/dropped/"
python3 - "$W/dropped/kernel/module/main.c" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace('\t/* lve claims to be GPL but upstream won\'t provide source */\n\t"lve",\n', '')
open(p, 'w').write(s)
PY
run --kernel-source "$W/dropped" --policy "$W/p.yaml"
expect "a name the kernel dropped is reported" 1 "^- forced-taint lve: in the policy for 6.14.0, no longer in the kernel"
run --kernel-source "$W/dropped" --policy "$W/p.yaml" --write
expect "--write closes its version range" 0 "updated"
grep -q 'kernels: ">= 3.5, < 6.14.0"' "$W/p.yaml" && ok "lve now '>= 3.5, < 6.14.0'" || nok "lve range closed"
run --kernel-source $D/old --policy "$W/p.yaml"
expect "lve still applies to the old kernel" 0 "matches kernel 3.5.0"

run --kernel-source /etc --policy policy/default.yaml
expect "not a kernel tree: exit 3, message names it" 3 "^taintguard: /etc: no kernel/module/main.c"
run --policy policy/default.yaml
expect "no --kernel-source: exit 3" 3 "needs --kernel-source"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
