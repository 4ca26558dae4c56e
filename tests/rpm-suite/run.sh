#!/bin/bash
# rpm's own test suite with taintguard inside it: the rpm of Debian 12, built
# from its source package (apt-get source rpm) in a Debian 12 root that has
# the package's Build-Depends (chroot bookworm-rpmsuite, tests/lib/chroot.sh),
# runs its autotest suite (tests/rpmtests, what "make check" runs) twice:
#
#   plain       the suite as it is
#   taintguard  our plugin in every test's rpm configuration: build's
#               taintguard.so in the test root's %__plugindir (and in the
#               chroot's own, for the tests that run rpm outside the test
#               root: run(), the Python bindings), macros.transaction_taintguard
#               in the test root's macros.d, the default policy where the
#               plugin looks for it, and runroot() without --noplugins (with
#               it, no test would load any plugin; no other plugin is in
#               %__plugindir, so dropping it adds ours and nothing else)
#
# and compares the per-test results of the two testsuite.log files: any test
# whose result differs is a failure of this suite, shown with what the
# suite logged for it.  Before the second run, rpm -vv in the test root shows
# that the plugin is loaded and its hooks called (runroot and run).
# The build is kept under $TG_RPMSUITE_DIR (default /var/tmp/taintguard-rpmsuite)
# and redone when the chroot or the source package changes; the logs of
# both runs are left there (results/).  Nothing is installed on this host.
# Environment: TG_RPMSUITE_JOBS (default 2): autotest's -j for each run.
set -u
cd "$(dirname "$0")/../.." || exit 2
B=${B:-build}
CHROOT=bookworm-rpmsuite
C=${TG_RPMSUITE_DIR:-/var/tmp/taintguard-rpmsuite}
JOBS=${TG_RPMSUITE_JOBS:-2}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
nok() { fail=$((fail + 1)); echo "not ok - $*"; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }
inroot() { tests/lib/chroot.sh run "$CHROOT" --scratch --bind "$C" "$@"; }

[ "$(id -u)" = 0 ] || { nok "needs root (chroots)"; finish; }
command -v mmdebstrap >/dev/null || { nok "mmdebstrap is not installed (make deps)"; finish; }
[ -f "$B/taintguard.so" ] || { nok "$B/taintguard.so is not built (make)"; finish; }
t0=$SECONDS
mkdir -p "$C/src" "$C/results" "$C/in"
exec 8>"$C/lock"
flock 8		# one run at a time: both use the same build tree

# ------------------------------------------------------------ source
# apt-get source in the chroot (its sources have deb-src); the host's apt is
# never asked.  Fetched once: remove $C/src for a newer Debian 12 upload.
chroot_dir=$(tests/lib/chroot.sh path "$CHROOT") || { nok "chroot $CHROOT"; finish; }
if ! ls "$C"/src/rpm_*.dsc >/dev/null 2>&1; then
	inroot -- sh -c "apt-get update -qq && cd '$C/src' && apt-get source --download-only -qq rpm" \
		>"$C/results/source.log" 2>&1 ||
		{ nok "apt-get source rpm"; sed 's/^/#   /' "$C/results/source.log"; finish; }
fi
DSC=$(ls -t "$C"/src/rpm_*.dsc | head -n 1)
VER=$(sed -n 's/^Version: //p' "$DSC")
S=$C/src/rpm
want="$(cat "$chroot_dir.stamp") $(sha256sum "$DSC" | cut -d' ' -f1)"
if [ ! -f "$C/build.stamp" ] || [ "$(cat "$C/build.stamp")" != "$want" ]; then
	rm -rf "$S" "$C/build.stamp"
	echo "# building rpm $VER (about ten minutes on two cores)"
	t1=$SECONDS
	# build-arch (all the binary packages are arch-dependent): the tree's own
	# build/ directory makes "debian/rules build" up to date at once
	inroot -- sh -c "cd '$C/src' && dpkg-source -x '${DSC##*/}' '$S' >/dev/null &&
		cd '$S' && dpkg-checkbuilddeps &&
		DEB_BUILD_OPTIONS='nocheck parallel=2' debian/rules build-arch" >"$C/results/build.log" 2>&1
	rc=$?
	[ "$rc" = 0 ] && [ -x "$S/rpm" ] && echo "$want" >"$C/build.stamp"
	echo "# built in $((SECONDS - t1)) s"
fi
[ -f "$C/build.stamp" ] && ok "rpm $VER built from its source package with its Build-Depends" ||
	{ nok "building rpm $VER (log: $C/results/build.log)"; tail -n 30 "$C/results/build.log" | sed 's/^/#   /'; finish; }

# ------------------------------------------------------------ the two runs
# What the taintguard run adds, and the script that sets up a run in the
# chroot (each run gets a fresh test root: make populate_testing).
rm -rf "$C/in" && mkdir -p "$C/in"
cp "$B/taintguard.so" rpm-plugin/macros.transaction_taintguard policy/default.yaml tests/rpm-suite/inroot.sh "$C/in/"
suite() {	# NAME: run the suite; its rpmtests.log in results/NAME.log
	local t1=$SECONDS rc
	if [ -n "${TG_RPMSUITE_COMPARE_ONLY:-}" ] && [ -s "$C/results/$1.out" ]; then
		echo "# $1 run: the last one's results (TG_RPMSUITE_COMPARE_ONLY)"; return
	fi
	rm -rf "$C/results/$1.dir"
	inroot -- bash "$C/in/inroot.sh" "$1" "$S/tests" "$C/in" "$JOBS" >"$C/results/$1.out" 2>&1
	rc=$?
	# autotest names its log after the suite (rpmtests)
	cp "$S/tests/rpmtests.log" "$C/results/$1.log" 2>/dev/null
	# the failed tests' directories, for whoever looks into a difference
	[ -d "$S/tests/rpmtests.dir" ] && cp -a "$S/tests/rpmtests.dir" "$C/results/$1.dir"
	echo "# $1 run: $((SECONDS - t1)) s (exit $rc)"
	grep -E '^proof: (plugin directory|[a-z]+: D: Plugin)' "$C/results/$1.out" | sed 's/^/#   /'
}
suite plain
suite taintguard

# rpm -vv in the test root (inroot.sh) called our hooks
for how in runroot run; do
	n=$(grep -c "^proof: $how: D: Plugin: calling hook .* in taintguard plugin" "$C/results/taintguard.out")
	[ "$n" -gt 0 ] && ok "the plugin is loaded in the test root ($how rpm -vv -U --test: $n hook calls)" ||
		nok "the plugin is not loaded in the test root ($how; $C/results/taintguard.out)"
done
# ... and ours alone: no stock plugin joins it when runroot loses --noplugins
dir=$(sed -n 's/^proof: plugin directory: //p' "$C/results/taintguard.out")
[ "$dir" = "taintguard.so " ] && ok "taintguard.so alone in the test root's %__plugindir" ||
	nok "the test root's %__plugindir holds: ${dir:-nothing}"
n=$(grep -c "in taintguard plugin" "$C/results/plain.out")
[ "$n" = 0 ] && ok "the plain run has no taintguard (no hook call in its rpm -vv)" ||
	nok "the plain run loaded taintguard ($n hook calls)"

# ------------------------------------------------------------ compare
# the suite's own lines, one per test: "N: NAME   RESULT" (RESULT: ok, FAILED (FILE:LINE),
# skipped (FILE:LINE), expected failure (FILE:LINE), UNEXPECTED PASS)
results() {
	awk '
	match($0, /^ *[0-9]+: /) {
		n = $1; sub(/:$/, "", n); rest = substr($0, RLENGTH + 1)
		if (!match(rest, / +(ok|FAILED|skipped|expected failure|UNEXPECTED PASS)( \(.*\))?$/)) next
		r = substr(rest, RSTART); name = substr(rest, 1, RSTART - 1)
		sub(/^ +/, "", r); sub(/ \(.*$/, "", r)
		print n + 0 "\t" r "\t" name }' "$1" | sort -n
}
count() { awk -F'\t' -v r="$2" '$2 == r' "$1" | wc -l; }
for r in plain taintguard; do
	if [ -s "$C/results/$r.out" ]; then
		results "$C/results/$r.out" >"$C/results/$r.tsv"
	else
		: >"$C/results/$r.tsv"
	fi
	total=$(wc -l <"$C/results/$r.tsv")
	line="$(count "$C/results/$r.tsv" ok) passed, $(count "$C/results/$r.tsv" FAILED) failed, $(count "$C/results/$r.tsv" skipped) skipped, $(count "$C/results/$r.tsv" 'expected failure') expected failures of $total"
	if [ "$r" = plain ]; then line_plain=$line; else line_taintguard=$line; fi
	[ "$total" -gt 300 ] && ok "$r run: $line" || nok "$r run: only $total results ($C/results/$r.out)"
done
ndiff=0
while IFS=$'\t' read -r n a b name; do
	[ "$a" = "$b" ] && continue
	ndiff=$((ndiff + 1))
	nok "test $n ($name): ${a:-no result} plain, ${b:-no result} with taintguard"
	for r in plain taintguard; do
		# what the run logged for that test (autotest keeps the directory of a failure)
		[ -f "$C/results/$r.dir/$(printf %03d "$n")/rpmtests.log" ] &&
			grep -v '^$' "$C/results/$r.dir/$(printf %03d "$n")/rpmtests.log" | tail -n 40 | sed "s/^/#   $r: /"
	done
done < <(join -t $'\t' -a 1 -a 2 -e '' -o 0,1.2,2.2,1.3 \
	<(sort -t $'\t' -k1,1 "$C/results/plain.tsv") <(sort -t $'\t' -k1,1 "$C/results/taintguard.tsv") | sort -n)
[ "$ndiff" = 0 ] && ok "the same result for every test with and without taintguard"
echo "# plain:      $line_plain"
echo "# taintguard: $line_taintguard"
echo "# logs: $C/results/{plain,taintguard}.{log,out}; $((SECONDS - t0)) s"
finish
