# Sourced by tests/dkms/run.sh (its dkms wrapper installed, add_pkg, remove_pkg,
# installed, record, check, $B, $K, $T, $MARKS): a DKMS build while rpm runs
# (issue 26).  Both write and remove their records in /var/lib/taintguard/marks
# at once.  For TG_RACE_SECONDS (default 30):
#   dkms    add, install (build, judge, stage, install, make final) and
#           remove tg-prop, over and over, through the installed wrapper
#           (3 times at least)
#   rpm     rpm -i / rpm -e of kmod-tgrace, a proprietary module for $K (a
#           mark) built here from tg-prop's source, with the build's plugin,
#           into / with its own rpmdb in $T (the host's is not touched)
#   reader  taintguard status, over and over
# Every command runs under timeout (a hang is a deadlock).  The reader must
# never fail (exit 3) and never list anything but those two; afterwards the
# records are exactly what is installed, and none is staged.
. tests/lib/races.sh
RACE_S=${TG_RACE_SECONDS:-30}
RDB=$T/rpmdb
RACE_PKG=kmod-tgrace-1.0-1.noarch
RACE_KO=/lib/modules/$K/extra/tgrace.ko
race_rpm() { # ARGS...: rpm into / with the build's plugin and the test's rpmdb
	timeout 120 rpm --root / --dbpath "$RDB" --nodeps --define "__plugindir $B" \
		--define "__transaction_taintguard %{__plugindir}/taintguard.so" \
		--define "_taintguard_policy $ROOT/policy/default.yaml" "$@"
}
race_cleanup() {
	[ -d "$RDB" ] && rpm --root / --dbpath "$RDB" --noplugins --nodeps -e kmod-tgrace >/dev/null 2>&1
	rm -f "$RACE_KO" "$MARKS/$RACE_PKG.json" /var/tmp/tgtest-scriptlets.log
	rmdir "/lib/modules/$K/extra" 2>/dev/null
	remove_pkg tg-prop tgprop
}

race_build() { # the module and its package, in $T/race
	local d=$T/race
	mkdir -p "$d/mod" "$d/top"
	sed 's/tgprop/tgrace/g' "$PKGS/tg-prop-1.0/tgprop.c" >"$d/mod/tgrace.c"
	echo 'obj-m := tgrace.o' >"$d/mod/Makefile"
	make -C "/lib/modules/$K/build" M="$d/mod" modules >"$d/build.log" 2>&1 || return 1
	rpmbuild --quiet --define "_topdir $d/top" --define "pkgname kmod-tgrace" \
		--define "pkgver 1.0" --define "moddir $d/mod" \
		--define "payload tgrace.ko:$RACE_KO" -bb "$ROOT/tests/rpm/specs/tgtest.spec" \
		>>"$d/build.log" 2>&1 || return 1
	RACE_RPM=$d/top/RPMS/noarch/$RACE_PKG.rpm
	[ -f "$RACE_RPM" ]
}

# dkms decides when the race ends: at the deadline, after 3 installs at least
# (one takes 10-30 s), by touching $RACE_STOP; the others run until then
race_dkms() { # LOG: one line per dkms run ("install 0", "remove 0")
	local r n=0
	while [ "$(date +%s)" -lt "$RACE_END" ] || [ $n -lt 3 ]; do
		n=$((n + 1))
		add_pkg tg-prop
		r=0; timeout 300 dkms install tg-prop/1.0 -k "$K" >>"$1.out" 2>&1 || r=$?; echo "install $r" >>"$1"
		r=0; timeout 300 dkms remove tg-prop/1.0 --all >>"$1.out" 2>&1 || r=$?; echo "remove $r" >>"$1"
	done
	touch "$RACE_STOP"
}
race_rpm_loop() { # LOG: one line per transaction ("i 0", "e 0")
	local r
	while [ ! -e "$RACE_STOP" ]; do
		r=0; race_rpm -i "$RACE_RPM" >>"$1.out" 2>&1 || r=$?; echo "i $r" >>"$1"
		r=0; race_rpm -e kmod-tgrace >>"$1.out" 2>&1 || r=$?; echo "e $r" >>"$1"
	done
}
race_reader() { # LOG: exit status, then status's lines joined by |
	local out rc
	while [ ! -e "$RACE_STOP" ]; do
		rc=0
		out=$(timeout 60 "$B/taintguard" status --check records --root / --dbpath "$RDB" 2>&1) || rc=$?
		printf '%s\t%s\n' "$rc" "$(tr '\n' '|' <<<"$out")" >>"$1"
	done
}

race_cleanup
if ! command -v rpmbuild >/dev/null; then
	notok "race dkms/rpm: rpmbuild is not installed (apt-get install rpm)"
elif ! race_build; then
	notok "race dkms/rpm: building kmod-tgrace failed"; tail -n 20 "$T/race/build.log" | sed 's/^/#   /'
else
	race_rpm -i "$RACE_RPM" >"$T/race/first" 2>&1
	check "race dkms/rpm: kmod-tgrace installs alone, a mark with a record" \
		test -f "$MARKS/$RACE_PKG.json" -a -f "$RACE_KO"
	race_rpm -e kmod-tgrace >>"$T/race/first" 2>&1
	RACE_END=$(( $(date +%s) + RACE_S )) RACE_STOP=$T/race/stop
	: >"$T/race/dk" ; : >"$T/race/rp"; : >"$T/race/rd"
	race_dkms "$T/race/dk" & p1=$!
	race_rpm_loop "$T/race/rp" & p2=$!
	race_reader "$T/race/rd" & p3=$!
	wait $p1 $p2 $p3
	echo "# race dkms/rpm: ${RACE_S}s at least; dkms runs $(wc -l <"$T/race/dk"), rpm transactions $(wc -l <"$T/race/rp"), status runs $(wc -l <"$T/race/rd")"
	check "race dkms/rpm: every dkms run and rpm transaction succeeded, none hung" \
		bash -c "test -s '$T/race/dk' -a -s '$T/race/rp' && ! grep -qv ' 0\$' '$T/race/dk' '$T/race/rp'"
	race_show_failures "$T/race/dk" "$T/race/rp"
	# each status run: exit 0 or 1, only the two racing packages (and their detail lines)
	awk -F'\t' -v rp="$RACE_PKG (rpm): mark" -v dk="tg-prop/1.0 (dkms): mark" '
		{ n++; rc[$1]++
		  if ($1 != 0 && $1 != 1) { bad++; print "exit " $1 ": " $2 > "/dev/stderr" }
		  k = split($2, l, "|")
		  for (i = 1; i <= k; i++) {
			if (index(l[i], rp) == 1) { srp++; continue }
			if (index(l[i], dk) == 1) { sdk++; continue }
			if (l[i] == "" || l[i] ~ /^  / || l[i] ~ /^no marked packages/) continue
			bad++; print "other: " l[i] > "/dev/stderr" } }
		END { printf "status: %d runs, %d wrong, kmod-tgrace listed %d times, tg-prop %d times; exits:", \
			     n, bad, srp, sdk
		      for (c in rc) printf " %s x%d", c, rc[c]; print ""
		      if (!srp || !sdk) print "the records never met: kmod-tgrace listed " srp+0 " times, tg-prop " sdk+0 > "/dev/stderr" }' \
		"$T/race/rd" >"$T/race/rd.sum" 2>"$T/race/rd.bad"
	echo "# race dkms/rpm: $(cat "$T/race/rd.sum")"
	check "race dkms/rpm: status never failed and listed nothing but the racing packages" \
		bash -c "test -s '$T/race/rd' -a ! -s '$T/race/rd.bad'"
	head -n 5 "$T/race/rd.bad" | cut -c 1-400 | sed 's/^/#   /'
	# afterwards: records == what is installed, all final, no temporary file
	want=; rpm --root / --dbpath "$RDB" -q kmod-tgrace >/dev/null 2>&1 && want="$RACE_PKG.json"
	installed tgprop && want="dkms-tg-prop-1.0-$K.json $want"
	have=$(ls "$MARKS" 2>/dev/null | sort | tr '\n' ' ')
	want=$(tr ' ' '\n' <<<"$want" | grep . | sort | tr '\n' ' ')
	check "race dkms/rpm: records ($have) == installed marked packages ($want), none staged" \
		bash -c "test '$have' = '$want' && ! grep -ls '\"state\": \"staged\"' '$MARKS'/*.json"
fi
race_cleanup
