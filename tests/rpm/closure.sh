# Sourced by tests/rpm/run.sh (its pkg, mkroot, rpmx, check): a refusal takes
# the added packages that need it along (rpm-plugin/closure.c), all or
# nothing when %_taintguard_refuse_scope is transaction (issue 25).  After
# each transaction: the exact rpmdb, nothing of what was left out on disk,
# rpm -Va --nofiles without an unmet requirement, each refusal and each
# package left out said once, no line longer than 160 columns.

# the root's /bin/sh as a package, so that rpm -Va sees every requirement met
pkg cl-base 1.0 "" --define 'pkgprovides /bin/sh'
pkg kmod-lve 1.0 "lve.ko:$MD/lve.ko"
pkg lve-utils 1.0 "" --define 'pkgrequires kmod-lve'
pkg lve-tools 1.0 "" --define 'pkgrequires lve-utils'
pkg kmod-good 1.0 "gplok.ko:$MD/gplok.ko"
pkg good-utils 1.0 "" --define 'pkgrequires kmod-good'
pkg lve-either 1.0 "" --define 'pkgrequires (kmod-lve or kmod-good)'
pkg lve-ifgood 1.0 "" --define 'pkgrequires (kmod-lve if good-utils)'
pkg lve-file 1.0 "" --define "pkgrequires $MD/lve.ko"
# an upgrade whose new module is refused, and a dependent that needs the new version
pkg kmod-up 1.0 "gplok.ko:$MD/kmodup.ko"
pkg kmod-up 2.0 "lve.ko:$MD/kmodup.ko"
pkg up-utils 1.0 "" --define 'pkgrequires kmod-up >= 1.0'
pkg up-utils 2.0 "" --define 'pkgrequires kmod-up >= 2.0'
pkg up-any 1.0 "" --define 'pkgrequires kmod-up'
# bad input: a loop among refused packages; a package that obsoletes (and
# replaces) a refused one
pkg loop-a 1.0 "lve.ko:$MD/loopa.ko" --define 'pkgrequires loop-b'
pkg loop-b 1.0 "lve.ko:$MD/loopb.ko" --define 'pkgrequires loop-a'
pkg loop-user 1.0 "" --define 'pkgrequires loop-a'
pkg lve-ng 1.0 "" --define 'pkgobsoletes kmod-lve' --define 'pkgprovides kmod-lve = 2.0'

# clroot: a test root with cl-base
clroot() {
	mkroot
	rpm --root "$R" --dbpath /var/lib/rpm --noplugins -i "$(P cl-base)" >/dev/null 2>&1 ||
		bail "closure: cl-base does not install"
}
db() { rpm --root "$R" --dbpath /var/lib/rpm -qa --qf '%{NEVR}\n' | grep -v '^gpg-pubkey' | sort | tr '\n' ' '; }
unmet() { rpm --root "$R" --dbpath /var/lib/rpm -Va --nofiles 2>&1 | grep -v 'should not be used' || true; }
said_once() {	# said_once TEXT: exactly one line of $OUT contains TEXT
	test "$(grep -cF -- "$1" <<<"$OUT")" = 1
}
longest() { grep -v 'should not be used' <<<"$OUT" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }'; }
cl_common() {	# cl_common NAME "EXPECTED RPMDB"
	check "$1: rpmdb is exactly: $2 (have: $(db))" test "$(db)" = "$2 "
	check "$1: rpm -Va --nofiles reports no unmet requirement" test -z "$(unmet)"
	check "$1: no line longer than 160 columns (longest $(longest))" test "$(longest)" -le 160
}
FIVE="$(P kmod-lve) $(P lve-utils) $(P lve-tools) $(P kmod-good) $(P good-utils)"

# --- C1. the five-package transaction ----------------------------------------------
clroot
# shellcheck disable=SC2086
rpmx -i $FIVE
cl_common "five" "cl-base-1.0-1 good-utils-1.0-1 kmod-good-1.0-1"
check "five: kmod-lve refused, said once" said_once "refused kmod-lve-1.0-1.noarch: module lve: "
check "five: lve-utils left out, once, naming what it needed and who provided it" \
	said_once "taintguard: lve-utils-1.0-1.noarch: not installed: needs kmod-lve, which taintguard refused (kmod-lve-1.0-1.noarch)"
check "five: lve-tools left out, once (two deep)" \
	said_once "taintguard: lve-tools-1.0-1.noarch: not installed: needs lve-utils, which is not installed either (lve-utils-1.0-1.noarch)"
check "five: nothing of the refused packages on disk" \
	test ! -e "$R$MD/lve.ko" -a ! -e "$R/etc/lve-utils.conf" -a ! -e "$R/etc/lve-tools.conf" -a ! -e "$R/usr/share/lve-tools"
check "five: no scriptlet of a refused package ran" bash -c "! grep -q lve '$R/var/tmp/tgtest-scriptlets.log'"
[ -z "${TG_CLOSURE_OUTPUT:-}" ] || echo "$OUT" >"$TG_CLOSURE_OUTPUT"
[ "$(db)" = "cl-base-1.0-1 good-utils-1.0-1 kmod-good-1.0-1 " ] || show

# --test: no psm_pre, so tsm_pre says it all; nothing installed
clroot
# shellcheck disable=SC2086
rpmx -i --test $FIVE
cl_common "five, --test" "cl-base-1.0-1"
check "five, --test: would refuse kmod-lve, lve-utils and lve-tools said once each" \
	bash -c 'grep -c "would refuse kmod-lve-1.0-1.noarch: module lve" <<<"$0" | grep -qx 1 &&
		grep -c "lve-utils-1.0-1.noarch: not installed: needs kmod-lve" <<<"$0" | grep -qx 1 &&
		grep -c "lve-tools-1.0-1.noarch: not installed: needs lve-utils" <<<"$0" | grep -qx 1' "$OUT"

# --- C2. rich and file requirements ------------------------------------------------------
clroot
rpmx -i "$(P kmod-lve)" "$(P kmod-good)" "$(P good-utils)" "$(P lve-either)" "$(P lve-ifgood)" "$(P lve-file)"
cl_common "rich/file" "cl-base-1.0-1 good-utils-1.0-1 kmod-good-1.0-1 lve-either-1.0-1"
check "rich: (kmod-lve if good-utils) left out, once" \
	said_once "lve-ifgood-1.0-1.noarch: not installed: needs (kmod-lve if good-utils), which taintguard refused"
check "file: $MD/lve.ko left out, once" \
	said_once "lve-file-1.0-1.noarch: not installed: needs $MD/lve.ko, which taintguard refused"
check "rich: (kmod-lve or kmod-good) installs, not named" test "$(count lve-either)" = 0
[ "$fail" -eq 0 ] || show

# --- C3. an upgrade whose new module is refused: the old stays, so does what needs it ---
clroot
rpmx -i "$(P kmod-up)" "$(P up-utils)"
installed up-utils || { show; bail "closure: kmod-up 1.0 and up-utils 1.0 do not install"; }
rpmx -U "$(P kmod-up 2.0)" "$(P up-utils 2.0)" "$(P up-any)"
cl_common "upgrade" "cl-base-1.0-1 kmod-up-1.0-1 up-any-1.0-1 up-utils-1.0-1"
check "upgrade: up-utils 2.0 held back, once, naming the version it needed" \
	said_once "up-utils-2.0-1.noarch: not installed: needs kmod-up >= 2.0, which taintguard refused (kmod-up-2.0-1.noarch)"
check "upgrade: the old module file is still there" test -e "$R$MD/kmodup.ko"
[ "$fail" -eq 0 ] || show

# --- C4. bad input -----------------------------------------------------------------------
clroot
rpmx -i "$(P loop-a)" "$(P loop-b)" "$(P loop-user)" "$(P kmod-good)"
cl_common "loop" "cl-base-1.0-1 kmod-good-1.0-1"
check "loop: each refused package said once, the user left out once" bash -c '
	for n in loop-a loop-b; do grep -c "refused $n-1.0-1.noarch: module lve" <<<"$0" | grep -qx 1 || exit 1; done
	grep -c "loop-user-1.0-1.noarch: not installed" <<<"$0" | grep -qx 1 &&
	! grep -q "loop-[ab]-1.0-1.noarch: not installed" <<<"$0"' "$OUT"
clroot
rpmx -i "$(P kmod-lve)" "$(P lve-ng)" "$(P lve-utils)"
cl_common "obsoletes" "cl-base-1.0-1 lve-ng-1.0-1 lve-utils-1.0-1"
check "obsoletes: what replaces the refused package meets the requirement: nobody left out" \
	test "$(count 'not installed')" = 0
# the refused version replaces an installed one (its erasure is skipped): the old stays
clroot
rpmx -i --define '_taintguard_mode warn' "$(P kmod-lve)" "$(P lve-utils)"
pkg kmod-lve 1.1 "lve.ko:$MD/lve.ko"
pkg lve-utils 1.1 "" --define 'pkgrequires kmod-lve'
rpmx -U "$(P kmod-lve 1.1)" "$(P lve-utils 1.1)"
cl_common "erased and refused" "cl-base-1.0-1 kmod-lve-1.0-1 lve-utils-1.1-1"
check "erased and refused: the old version stays and meets lve-utils 1.1: nobody left out" \
	test "$(count 'not installed')" = 0
# 1,000 dependents of one refused package: one spec, a thousand subpackages
N=1000
{
	echo "Name: many"; echo "Version: 1.0"; echo "Release: 1"; echo "Summary: many"
	echo "License: GPL-2.0-only"; echo "BuildArch: noarch"; echo "%description"; echo "many"
	for i in $(seq 1 $N); do
		printf '%%package -n many-%s\nSummary: d\nRequires: kmod-lve\n%%description -n many-%s\nd\n%%files -n many-%s\n' "$i" "$i" "$i"
	done
} >"$W/many.spec"
rpmbuild --quiet --define "_topdir $TOP" -bb "$W/many.spec" >"$W/build-many.log" 2>&1 ||
	{ cat "$W/build-many.log"; bail "rpmbuild many"; }
rpmsign --addsign --define "__gpg $(command -v gpg)" --define "_gpg_name rpmtest@taintguard.invalid" \
	"$RPMS"/many-[0-9]*-1.0-1.noarch.rpm >>"$W/build-many.log" 2>&1 || bail "rpmsign many"
clroot
t=$SECONDS
rpmx -i "$(P kmod-lve)" "$(P kmod-good)" "$RPMS"/many-[0-9]*-1.0-1.noarch.rpm
check "1,000 dependents: kmod-good only, in $((SECONDS - t)) s" test "$(db)" = "cl-base-1.0-1 kmod-good-1.0-1 "
# (the output is too long for one argument of bash -c)
said=$(grep -c 'many-[0-9]*-1.0-1.noarch: not installed: needs kmod-lve, which taintguard refused' <<<"$OUT" || true)
uniq=$(grep -o 'many-[0-9]*-1.0-1.noarch: not installed' <<<"$OUT" | sort -u | wc -l)
check "1,000 dependents: each said once ($said lines, $uniq packages)" test "$said" = $N -a "$uniq" = $N
check "1,000 dependents: rpm -Va --nofiles clean, no line over 160" test -z "$(unmet)" -a "$(longest)" -le 160

# --- C5. all or nothing --------------------------------------------------------------------
for t in "" --test; do
	clroot
	# shellcheck disable=SC2086
	rpmx -i $t --define '_taintguard_refuse_scope transaction' $FIVE
	cl_common "all or nothing${t:+ $t}" "cl-base-1.0-1"
	check "all or nothing${t:+ $t}: exit non-zero, one summary naming kmod-lve (exit $RC)" bash -c "test $RC != 0 &&
		test \$(grep -c 'nothing installed: kmod-lve-1.0-1.noarch is refused and %_taintguard_refuse_scope is transaction' <<<\"\$0\") = 1" "$OUT"
	check "all or nothing${t:+ $t}: the reason said once" said_once "kmod-lve-1.0-1.noarch: module lve: the kernel would refuse it"
	check "all or nothing${t:+ $t}: no scriptlet ran, no file" bash -c "! grep -qv cl-base '$R/var/tmp/tgtest-scriptlets.log' && test ! -e '$R/etc/kmod-good.conf'"
done
# the policy's refuse_scope decides when the macro is not defined
sed 's/^refuse_scope: package$/refuse_scope: transaction/' "$POLICY" >"$W/scope-policy.yaml"
grep -q '^refuse_scope: transaction$' "$W/scope-policy.yaml" || bail "closure: no refuse_scope in $POLICY"
clroot
# shellcheck disable=SC2086
rpmx -i --define "_taintguard_policy $W/scope-policy.yaml" $FIVE
cl_common "policy refuse_scope: transaction" "cl-base-1.0-1"
check "policy refuse_scope: transaction: one summary naming the policy's setting" \
	said_once "nothing installed: kmod-lve-1.0-1.noarch is refused and the policy's refuse_scope is transaction"
# ... and the macro, when defined, decides instead
clroot
# shellcheck disable=SC2086
rpmx -i --define "_taintguard_policy $W/scope-policy.yaml" --define '_taintguard_refuse_scope package' $FIVE
cl_common "policy transaction, macro package" "cl-base-1.0-1 good-utils-1.0-1 kmod-good-1.0-1"
# a typo must not weaken it
clroot
# shellcheck disable=SC2086
rpmx -i --define '_taintguard_refuse_scope transactoin' $FIVE
check "refuse scope typo: all or nothing, said so" bash -c "test '$(db)' = 'cl-base-1.0-1 ' && grep -q \"_taintguard_refuse_scope 'transactoin' is not package or transaction\" <<<\"\$0\"" "$OUT"

# --- C6. one package per rpm call, as zypper commits: refusals are remembered ------------
# kmod-lve refused in one transaction; lve-utils and lve-tools, each in a transaction
# of its own with --nodeps (rpmx), are left out: nothing installed provides what they
# need and taintguard refused (or left out) the package that did, a moment ago.
MEM=$R/var/lib/taintguard/refused
EARLIER=", in an earlier transaction at "
clroot
rpmx -i "$(P kmod-lve)"
check "remembered: kmod-lve refused (exit $RC), its record holds its provide" bash -c "test $RC != 0 &&
	grep -q '^package	kmod-lve-1.0-1.noarch$' '$MEM/kmod-lve' && grep -q '^provide	kmod-lve	8	1.0-1$' '$MEM/kmod-lve'"
rpmx -i "$(P lve-utils)"
cl_common "remembered, lve-utils" "cl-base-1.0-1"
check "remembered: lve-utils left out, said once, exit non-zero ($RC)" bash -c "test $RC != 0 &&
	test \$(grep -cF 'taintguard: lve-utils-1.0-1.noarch: not installed: needs kmod-lve, which taintguard refused (kmod-lve-1.0-1.noarch$EARLIER' <<<\"\$0\") = 1" "$OUT"
[ "$RC" != 0 ] || show
ends_at() { grep -qE "$1.*, (in an )?earlier (transaction )?at [0-9]{2}:[0-9]{2}\)\$" <<<"$OUT"; }
check "remembered: lve-utils's line whole, ending with the time" ends_at "lve-utils-1.0-1.noarch: not installed"
rpmx -i "$(P lve-tools)"
cl_common "remembered, lve-tools" "cl-base-1.0-1"
check "remembered: lve-tools left out (lve-utils was left out earlier too), once, exit non-zero ($RC)" bash -c "test $RC != 0 &&
	test \$(grep -cF 'taintguard: lve-tools-1.0-1.noarch: not installed: needs lve-utils, which taintguard left out (lve-utils-1.0-1.noarch, earlier at ' <<<\"\$0\") = 1" "$OUT"
check "remembered: lve-tools's line whole, ending with the time" ends_at "lve-tools-1.0-1.noarch: not installed"
rpmx -i "$(P kmod-good)"
rpmx -i "$(P good-utils)"
check "remembered: the innocent pair installs, one at a time, nothing said (exit $RC)" bash -c "test $RC = 0 &&
	test '$(db)' = 'cl-base-1.0-1 good-utils-1.0-1 kmod-good-1.0-1 ' && ! grep -q taintguard <<<\"\$0\"" "$OUT"
# warn mode only says it
rpmx -i --test --define '_taintguard_mode warn' "$(P lve-utils)"
check "remembered, warn mode: said as a warning, not left out (exit $RC)" bash -c "test $RC = 0 &&
	grep -qF 'warning: taintguard: warn mode: lve-utils-1.0-1.noarch needs kmod-lve, which taintguard refused (kmod-lve-1.0-1.noarch$EARLIER' <<<\"\$0\" &&
	! grep -q 'not installed' <<<\"\$0\"" "$OUT"
# past %_taintguard_refusal_memory (an hour) a record no longer leaves anything out, and goes
touch -d '2 hours ago' "$MEM/kmod-lve" "$MEM/lve-utils"
rpmx -i "$(P lve-utils)"
check "remembered: a record older than the bound leaves nothing out and is removed (exit $RC)" bash -c "test $RC = 0 &&
	test ! -e '$MEM/kmod-lve' && ! grep -q taintguard <<<\"\$0\"" "$OUT"
check "remembered: lve-utils installed, its own record gone" bash -c "rpm --root '$R' --dbpath /var/lib/rpm -q lve-utils && test ! -e '$MEM/lve-utils'"
# a shorter bound, by the macro
clroot
rpmx -i "$(P kmod-lve)"
touch -d '2 minutes ago' "$MEM/kmod-lve"
rpmx -i --define '_taintguard_refusal_memory 60' "$(P lve-utils)"
check "remembered: %_taintguard_refusal_memory 60: a 2-minute-old refusal is forgotten (exit $RC)" \
	bash -c "test $RC = 0 && rpm --root '$R' --dbpath /var/lib/rpm -q lve-utils"
# installing the refused package (an exception now) clears its record: its dependents install
clroot
rpmx -i "$(P kmod-lve)"
mkdir -p "$R/etc"
sed 's/^exceptions: \[\]$/exceptions:\n  - module: "lve"\n    action: allow\n    justification: "test: allow lve"/' \
	"$POLICY" >"$W/allow-lve.yaml"
grep -q 'module: "lve"' "$W/allow-lve.yaml" || bail "closure: no 'exceptions: []' in $POLICY"
rpmx -i --define "_taintguard_policy $W/allow-lve.yaml" "$(P kmod-lve)"
check "remembered: kmod-lve installed with an exception (exit $RC), its record gone" bash -c "test $RC = 0 &&
	rpm --root '$R' --dbpath /var/lib/rpm -q kmod-lve && test ! -e '$MEM/kmod-lve'"
rpmx -i "$(P lve-utils)"
cl_common "remembered, after the exception" "cl-base-1.0-1 kmod-lve-1.0-1 lve-utils-1.0-1"
check "remembered: lve-utils installs normally after that (exit $RC)" test "$RC" = 0
