# Sourced by tests/rpm/run.sh (its pkg, mkroot, check, rpmx, $TG): records
# written and removed while others read them (issue 26).  For
# TG_RACE_SECONDS (default 60) at once:
#   writers  rpm -i / rpm -e of a marked package, over and over, into two
#            roots (two transactions in two roots at once, each with the
#            plugin writing and removing its records)
#   readers  taintguard status and taintguard audit --installed on the first
#            root, over and over
# Every command runs under timeout (a hang is a deadlock).  A reader must
# never fail on a record (exit 3, an error line), never list a package that
# was never installed, and always list the package installed throughout;
# afterwards the records are exactly the installed marked packages.
. "$REPO/tests/lib/races.sh"
RACE_S=${TG_RACE_SECONDS:-60}
TG=$REPO/$B/taintguard
pkg kmod-race 1.0 "propplain.ko:$MD/race.ko"
pkg kmod-stay 1.0 "propplain.ko:$MD/stay.ko"
RACE=kmod-race-1.0-1.noarch STAY=kmod-stay-1.0-1.noarch
for x in a b; do
	mkroot
	rpmx -i "$(P kmod-stay)"
	[ "$RC" = 0 ] || { show; bail "races: kmod-stay does not install"; }
	rm -rf "$W/race-$x" && mv "$R" "$W/race-$x"
done
RA=$W/race-a RB=$W/race-b

rpm_in() {	# rpm_in ROOT ARGS...: rpm with the build's plugin, under timeout
	local root=$1; shift
	timeout 120 rpm --root "$root" --dbpath /var/lib/rpm --nodeps --define "__plugindir $PLUGDIR" \
		${TG_PKGVERIFY_LEVEL:+--define "_pkgverify_level $TG_PKGVERIFY_LEVEL"} \
		--define "__transaction_taintguard %{__plugindir}/taintguard.so" \
		--define "_taintguard_policy $POLICY" "$@"
}
# writer ROOT LOG: install and erase kmod-race until the deadline; one line per
# transaction ("i 0", "e 0": operation and exit status)
writer() {
	local root=$1 log=$2 r
	while [ "$(date +%s)" -lt "$END" ]; do
		r=0; rpm_in "$root" -i "$(P kmod-race)" >>"$log.out" 2>&1 || r=$?; echo "i $r" >>"$log"
		r=0; rpm_in "$root" -e kmod-race >>"$log.out" 2>&1 || r=$?; echo "e $r" >>"$log"
	done
}
# reader KIND LOG: status (text) or audit --installed on $RA until the
# deadline; one line per run: exit status, then what it said of each package
reader() {
	local kind=$1 log=$2 out rc
	while [ "$(date +%s)" -lt "$END" ]; do
		rc=0
		if [ "$kind" = status ]; then
			out=$(timeout 60 "$TG" status --check records --root "$RA" --dbpath /var/lib/rpm 2>&1) || rc=$?
		else
			out=$(timeout 60 "$TG" audit --installed --root "$RA" --dbpath /var/lib/rpm \
				--kernel "$K" 2>&1) || rc=$?
		fi
		printf '%s\t%s\n' "$rc" "$(tr '\n' '|' <<<"$out")" >>"$log"
	done
}
END=$(( $(date +%s) + RACE_S ))
writer "$RA" "$W/wa" & wa=$!
writer "$RB" "$W/wb" & wb=$!
reader status "$W/rs" & rs=$!
# the rpm matrix's chroots build no taintguard-audit (createrepo_c, librepo)
AUDIT_READER=; [ -x "$(dirname "$TG")/taintguard-audit" ] && AUDIT_READER=1
: >"$W/ra"
ra=
if [ -n "$AUDIT_READER" ]; then reader audit "$W/ra" & ra=$!; fi
wait $wa $wb $rs $ra || true
n_wa=$(wc -l <"$W/wa") n_wb=$(wc -l <"$W/wb") n_rs=$(wc -l <"$W/rs") n_ra=$(wc -l <"$W/ra")
echo "# races: ${RACE_S}s; transactions: root a $n_wa, root b $n_wb; status runs $n_rs, audit --installed runs $n_ra"
check "races: no rpm transaction failed or hung (exit 124)" \
	bash -c "! grep -qv ' 0\$' '$W/wa' '$W/wb'"
race_show_failures "$W/wa" "$W/wb"

# what the status runs saw of kmod-race, by state; and anything that is wrong
awk -F'\t' -v race="$RACE" -v stay="$STAY" '
	{ n++; rc[$1]++
	  seen = "absent"
	  if (index($2, race " (rpm): mark [staged, never installed: dropped]")) seen = "staged, dropped"
	  else if (index($2, race " (rpm): mark [staged: installed")) seen = "staged, installed"
	  else if (index($2, race " (rpm): mark [stale")) seen = "stale (erased, record going)"
	  else if (index($2, race " (rpm): mark|")) seen = "mark"
	  st[seen]++
	  if (!index($2, stay " (rpm): mark|")) { bad++; print "lost " stay ": " $2 > "/dev/stderr" }
	  if ($1 != 1) { bad++; print "exit " $1 ": " $2 > "/dev/stderr" }
	  m = $2; gsub(/[^|]*kmod-(race|stay)-1\.0-1\.noarch \(rpm\)[^|]*\|/, "", m)
	  gsub(/  [^|]*\|/, "", m)
	  if (m != "") { bad++; print "other: " m > "/dev/stderr" } }
	END { printf "status: %d runs, %d wrong; exits:", n, bad
	      for (c in rc) printf " %s x%d", c, rc[c]; printf "; kmod-race seen:"
	      for (s in st) printf " %s x%d,", s, st[s]; print "" }' "$W/rs" >"$W/rs.sum" 2>"$W/rs.bad"
echo "# $(cat "$W/rs.sum")"
check "races: status never failed on a record, never lost kmod-stay, listed nothing else" \
	test ! -s "$W/rs.bad"
head -n 5 "$W/rs.bad" | cut -c 1-400 | sed 's/^/#   /'
# audit --installed: never an error (exit 3) or a hang; kmod-stay always there
if [ -n "$AUDIT_READER" ]; then
awk -F'\t' -v stay="kmod-stay" '
	{ n++; rc[$1]++
	  if ($1 == 3 || $1 >= 124) { bad++; print "exit " $1 ": " $2 > "/dev/stderr" }
	  if (!index($2, stay)) { bad++; print "no " stay ": " $2 > "/dev/stderr" } }
	END { printf "audit --installed: %d runs, %d wrong; exits:", n, bad
	      for (c in rc) printf " %s x%d", c, rc[c]; print "" }' "$W/ra" >"$W/ra.sum" 2>"$W/ra.bad"
echo "# $(cat "$W/ra.sum")"
check "races: audit --installed never failed or hung, always saw kmod-stay" test ! -s "$W/ra.bad"
head -n 5 "$W/ra.bad" | cut -c 1-2000 | sed 's/^/#   /'
else
	echo "# no taintguard-audit in $(dirname "$TG"): the audit --installed reader not run with rpm $RPMVER"
fi

# afterwards: records == installed marked packages, in both roots, all final
for x in a b; do
	R=$W/race-$x
	want=$(rpm --root "$R" --dbpath /var/lib/rpm -q kmod-race kmod-stay 2>/dev/null | grep -v 'not installed' | sort | tr '\n' ' ')
	have=$(ls "$R/var/lib/taintguard/marks" 2>/dev/null | sed 's/\.json$//' | sort | tr '\n' ' ')
	check "races: root $x: records ($have) == installed marked packages ($want), none staged, no temporary file" \
		bash -c "test '$have' = '$want' && ! grep -l '\"state\": \"staged\"' '$R'/var/lib/taintguard/marks/*.json && ! ls '$R/var/lib/taintguard/marks' | grep -q tmp"
done
R=$RA
