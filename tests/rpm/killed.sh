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

# --- a kill at each hook boundary (issue 26) ---------------------------------
# One transaction, kmod-ka then kmod-kb (kb requires ka: rpm orders them so),
# both marked, kb also carrying a 128 MiB file.  Each scriptlet of theirs
# waits while /tmp/hold-<scriptlet>-<name> exists in the root, after logging
# itself, so rpm stops exactly there and is SIGKILLed; where rpm stands then:
#   tsm_pre    ka's %pretrans: tsm_pre judged both, rpm < 6.1 called psm_pre
#              for ka's %pretrans stage (ka staged), no file, no rpmdb entry
#   first      kb's %pre: ka went through psm_post (final record, in the
#              rpmdb); kb's psm_pre staged kb, nothing of kb on disk yet
#   payload    kb's big file while rpm writes it (its temporary "path;hex"
#              name exists and is short of 128 MiB): kb staged, not in the rpmdb
#   psm_post   kb's %post: rpm added kb to the rpmdb and runs %post before it
#              calls psm_post, so kb's record is still the staged one
#   tsm_post   kb's %posttrans: every psm_post ran (both final), tsm_post not
# The payload has no scriptlet: the test polls for the temporary file and
# stops rpm (SIGSTOP) the moment it sees it, checks it is partial, then kills.
mkdir -p "$W/big"
head -c 134217728 /dev/zero >"$W/big/big.bin"
hold() { echo "while [ -e /tmp/hold-$1-%{name} ]; do sleep 0.1; done"; }
kp_defs=(--define 'with_pretrans 1' --define 'with_posttrans 1' --define "pretrans_extra $(hold pretrans)"
	--define "pre_extra $(hold pre)" --define "post_extra $(hold post)" --define "posttrans_extra $(hold posttrans)")
pkg kmod-ka 1.0 "propplain.ko:$MD/ka.ko" "${kp_defs[@]}"
cp "$MODS/propplain.ko" "$W/big/propplain.ko"
MODS=$W/big pkg kmod-kb 1.0 "propplain.ko:$MD/kb.ko big.bin:/opt/kb/big.bin" "${kp_defs[@]}" \
	--define 'pkgrequires kmod-ka'
rm -f "$W/big/big.bin"
KA=kmod-ka-1.0-1.noarch KB=kmod-kb-1.0-1.noarch

# kill_point NAME: the transaction above, SIGKILLed at NAME; 0 when rpm got there
kill_point() {
	local point=$1 hold="" line="" pid i t size=""
	mkroot
	cp "$(command -v sleep)" "$R/bin/sleep"
	rm -f "$R/var/tmp/tgtest-scriptlets.log"
	case $point in
	tsm_pre) hold=pretrans-kmod-ka line="pretrans kmod-ka-1.0" ;;
	first) hold=pre-kmod-kb line="pre kmod-kb-1.0" ;;
	psm_post) hold=post-kmod-kb line="post kmod-kb-1.0" ;;
	tsm_post) hold=posttrans-kmod-kb line="posttrans kmod-kb-1.0" ;;
	esac
	[ -z "$hold" ] || touch "$R/tmp/hold-$hold"
	rpm --root "$R" --dbpath /var/lib/rpm --nodeps --define "__plugindir $PLUGDIR" \
		${TG_PKGVERIFY_LEVEL:+--define "_pkgverify_level $TG_PKGVERIFY_LEVEL"} \
		--define "__transaction_taintguard %{__plugindir}/taintguard.so" \
		--define "_taintguard_policy $POLICY" -U "$(P kmod-ka)" "$(P kmod-kb)" >"$W/kp.out" 2>&1 &
	pid=$!
	KP_AT=""
	for i in $(seq 6000); do
		if [ -n "$line" ]; then
			grep -qx "$line" "$R/var/tmp/tgtest-scriptlets.log" 2>/dev/null && KP_AT=$point && break
		else
			t=$(find "$R/opt/kb" -name 'big.bin;*' 2>/dev/null | head -n 1)
			if [ -n "$t" ]; then
				kill -STOP "$pid" 2>/dev/null
				size=$(stat -c %s "$t" 2>/dev/null || echo 0)
				[ "$size" -lt 134217728 ] && KP_AT=$point
				break
			fi
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	rm -f "$R/tmp/hold-"*	# the scriptlet left behind ends within 0.1 s
	[ -z "$size" ] || echo "# payload: rpm stopped with big.bin;* at $size of 134217728 bytes"
	[ -n "$KP_AT" ]
}

# marked_listed NEVRA: status lists it as a mark of an installed package
marked_listed() { grep -qE "^$1 \(rpm\): mark( \[staged: installed, rpm did not finish\])?\$" <<<"$ST"; }
# what status says of NEVRA, for the table
said() {
	local l
	l=$(grep -E "^$1 \(rpm\)" <<<"$ST" | head -n 1)
	case $l in
	"") echo "-" ;;
	*"[staged, never installed: dropped]") echo "dropped" ;;
	*"[staged: installed"*) echo "mark" ;;	# the record's own state follows
	*"[stale"*) echo "STALE" ;;
	*": mark") echo "mark" ;;
	*) echo "?${l#*: }" ;;
	esac
}
kp_state() {	# kp_state: "ka: in/out status, kb: ..." for the table
	local p n
	for p in $KA $KB; do
		n=${p%-1.0-1.noarch}
		# where, what status says, and the record file's own state
		if installed "$n"; then printf 'in:%s' "$(said "$p")"; else printf 'out:%s' "$(said "$p")"; fi
		if [ -f "$(record "$p")" ]; then printf '(%s) ' "$(state_of "$(record "$p")")"; else printf '(none) '; fi
	done
}
KP_TABLE="point     | after the kill (ka kb: rpmdb:status(record))   | exit | after re-run"
for point in tsm_pre first payload psm_post tsm_post; do
	if ! kill_point "$point"; then
		nok "kill point $point: rpm never got there"; sed 's/^/#   /' "$W/kp.out"; continue
	fi
	status_of
	good=1
	for p in $KA $KB; do
		n=${p%-1.0-1.noarch}
		if installed "$n"; then
			marked_listed "$p" || good=0
		elif grep -qE "^$p \(rpm\): mark\$|^$p \(rpm\): mark \[staged: installed" <<<"$ST"; then
			good=0
		fi
	done
	# a package in the rpmdb always has its record (staged first): never unrecorded
	case $SRC in 0 | 1) ;; *) good=0 ;; esac
	row="$(printf '%-9s | %-46s | %-4s' "$point" "$(kp_state)" "$SRC")"
	check "kill point $point: status names every installed marked package and nothing else (exit $SRC)" \
		test "$good" = 1
	[ "$good" = 1 ] || echo "$ST" | sed 's/^/#   /'
	rm -f "$R/tmp/hold-"*
	# rpm names its temporary files "path;TID", TID the transaction's start
	# in seconds: a run again within the second of the killed one meets the
	# killed one's files under its own names (rpm 6.1 then fails kb's unpack,
	# "open failed - No such file or directory"). Again, a second later.
	sleep 1.1
	rpmx -U --replacepkgs "$(P kmod-ka)" "$(P kmod-kb)"
	status_of
	check "kill point $point, run again: both installed, both records final, status lists both (exit $SRC)" \
		bash -c "test $RC = 0 && test $SRC = 1 && rpm --root '$R' --dbpath /var/lib/rpm -q kmod-ka kmod-kb &&
			test \"\$(python3 -c 'import json,sys; print(*(json.load(open(f)).get(\"state\", \"final\") for f in sys.argv[1:]))' \
				'$(record $KA)' '$(record $KB)')\" = 'final final' &&
			grep -qx '$KA (rpm): mark' <<<\"\$0\" && grep -qx '$KB (rpm): mark' <<<\"\$0\"" "$ST"
	[ "$RC" = 0 ] && [ "$SRC" = 1 ] || { show; echo "$ST" | sed 's/^/#   /'; }
	KP_TABLE="$KP_TABLE
$row | $(kp_state)exit $SRC"
done
echo "# kill points (rpm $RPMVER; ka, kb both marked, kb after ka):"
echo "$KP_TABLE" | sed 's/^/#   /'
