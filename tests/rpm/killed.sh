# Sourced by tests/rpm/run.sh (its pkg, mkroot, check, $TG): rpm killed with
# SIGKILL in the middle of a transaction (issue 26), and packages with
# modules that have no record.  After each kill, taintguard status names
# every installed marked package and nothing that is not installed.

TG=$REPO/$B/taintguard
pkg kmod-propexp 1.0 "propplain.ko:$MD/propexp.ko"
pkg waiter 1.0 "" --define 'pkgrequires kmod-propexp' --define 'post_extra [ ! -e /tmp/slow ] || sleep 20'
pkg kmod-propslow 1.0 "propplain.ko:$MD/propslow.ko" --define 'post_extra [ ! -e /tmp/slow ] || sleep 20'
pkg kmod-propwait 1.0 "propplain.ko:$MD/propwait.ko" --define 'pre_extra [ ! -e /tmp/slow ] || sleep 20'
pkg kmod-noplug 1.0 "propplain.ko:$MD/noplug.ko"

# killed_at LINE PACKAGE...: rpm -i with the build's plugin, SIGKILL once the
# scriptlet log has LINE (the scriptlet then sleeps); the log is kept.
killed_at() {
	local line=$1 pid i; shift
	mkroot
	cp "$(command -v sleep)" "$R/bin/sleep"
	touch "$R/tmp/slow"	# the scriptlets below sleep only while it is there
	rm -f "$R/var/tmp/tgtest-scriptlets.log"
	rpm --root "$R" --dbpath /var/lib/rpm --nodeps --define "__plugindir $PLUGDIR" \
		${TG_PKGVERIFY_LEVEL:+--define "_pkgverify_level $TG_PKGVERIFY_LEVEL"} \
		--define "__transaction_taintguard %{__plugindir}/taintguard.so" \
		--define "_taintguard_policy $POLICY" -i "$@" >"$W/killed.out" 2>&1 &
	pid=$!
	for i in $(seq 300); do
		grep -qx "$line" "$R/var/tmp/tgtest-scriptlets.log" 2>/dev/null && break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	# the scriptlet's sleep outlives rpm a few seconds, holding nothing of ours
	rm -f "$R/tmp/slow"
}
status_of() {	# status_of: $ST and $SRC from taintguard status on $R
	set +e
	ST=$("$TG" status --root "$R" --dbpath /var/lib/rpm 2>&1); SRC=$?
	set -e
}
state_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("state", "final"))' "$1"; }

# the issue's scenario: waiter (needs kmod-propexp) killed in its %post
killed_at "post waiter-1.0" "$(P kmod-propexp)" "$(P waiter)"
status_of
check "killed in waiter's %post: kmod-propexp is installed" installed kmod-propexp
check "killed in waiter's %post: status lists kmod-propexp as marked (exit $SRC = 1)" \
	bash -c "test $SRC = 1 && grep -q '^kmod-propexp-1.0-1.noarch (rpm): mark' <<<\"\$0\" && grep -q 'module propplain, taint P' <<<\"\$0\"" "$ST"
[ "$SRC" = 1 ] || echo "$ST" | sed 's/^/#   /'
check "killed in waiter's %post: kmod-propexp's record is final (psm_post ran)" \
	test "$(state_of "$(record kmod-propexp-1.0-1.noarch)")" = final

# killed in the marked package's own %post: its record is still the staged one
killed_at "post kmod-propslow-1.0" "$(P kmod-propslow)"
status_of
check "killed in its own %post: the record is staged" \
	test "$(state_of "$(record kmod-propslow-1.0-1.noarch)")" = staged
check "killed in its own %post: installed, so status lists it as marked (exit $SRC = 1)" \
	bash -c "test $SRC = 1 && grep -q '^kmod-propslow-1.0-1.noarch (rpm): mark \[staged: installed' <<<\"\$0\"" "$ST"

# killed in %pre: staged before anything of it, never in the rpmdb: dropped
killed_at "pre kmod-propwait-1.0" "$(P kmod-propwait)"
status_of
check "killed in %pre: not installed, its record staged" \
	bash -c "! rpm --root '$R' --dbpath /var/lib/rpm -q kmod-propwait && test \"\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"state\"])' '$(record kmod-propwait-1.0-1.noarch)')\" = staged"
check "killed in %pre: status drops the staged record (exit $SRC = 0)" \
	bash -c "test $SRC = 0 && grep -q 'kmod-propwait-1.0-1.noarch (rpm): mark \[staged, never installed: dropped\]' <<<\"\$0\"" "$ST"
# the same transaction again converges: installed, final record
rpmx -i "$(P kmod-propwait)"
status_of
check "killed in %pre, run again: installed, record final, listed (exit $SRC = 1)" \
	bash -c "test $SRC = 1 && test \"\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(\"state\", \"final\"))' '$(record kmod-propwait-1.0-1.noarch)')\" = final"

# a marked package installed without the plugin: no record, judged now
rpm --root "$R" --dbpath /var/lib/rpm --nodeps --noplugins -i "$(P kmod-noplug)" >/dev/null 2>&1
status_of
check "--noplugins: status lists kmod-noplug as unrecorded, judged now (exit $SRC = 5)" \
	bash -c "test $SRC = 5 && grep -q '^kmod-noplug-1.0-1.noarch (rpm): mark \[unrecorded: judged now\]' <<<\"\$0\" && grep -q 'lib/modules/$K/extra/noplug.ko: module propplain, taint P' <<<\"\$0\"" "$ST"
check "--noplugins: the recorded package is not listed as unrecorded" \
	bash -c "! grep -q '^kmod-propwait.*unrecorded' <<<\"\$0\"" "$ST"
[ "$SRC" = 5 ] || echo "$ST" | sed 's/^/#   /'
