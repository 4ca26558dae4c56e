#!/bin/bash
# Runs taintguard's test suites and prints one summary line per suite and a
# total "N passed, N failed, N skipped".  Usage: tests/run-all.sh [SUITE...]
# Suites: unit modules renamed suse crosscheck fuzz-regress mutate valgrind policy-sync library imagecache foreign-images audit repos rpm
# rpm-4.16 rpm-4.20 rpm-6.1 kupdate clients guard dkms package deb kernel kernel-6.12 kernel-7 kernel-arm64
# kernel-s390x kernel-ppc64el kernel-5.10
# sanitize hygiene structure (default: all);
# kernel-6.12: the real-kernel harness on bookworm-backports' newest 6.12 (unpacked from its
# packages, not installed: tests/kernel/target.sh); kernel-7: the same on trixie-backports' newest
# 7.x (built without MODVERSIONS; test modules built in the trixie-kbuild chroot), and taintguard
# over all its in-tree modules (no false alarm); kernel-arm64: the same on Debian 12's arm64
# 6.1 (modules cross-built with gcc-aarch64-linux-gnu, booted with qemu-system-aarch64 under
# TCG); kernel-s390x, kernel-ppc64el: the same on Debian 12's s390x and ppc64el 6.1, a subset
# of the cases (tests/kernel/subset-ARCH.txt; all with TG_KERNEL_ALL=1), not in the default
# list; foreign-images: Debian 12's s390x and ppc64el kernel packages unpacked (downloaded
# once, about 80 MB, then cached), their in-tree modules' signatures verified and other
# architectures' modules refused (not booted); rpm-matrix: the
# three rpm-VERSION suites (rpm is the system's 4.18); rpm-compat: old name of rpm-4.16.
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
export B
ALL="hygiene structure unit modules renamed suse crosscheck fuzz-regress mutate valgrind policy-sync library imagecache foreign-images audit repos rpm rpm-4.16 rpm-4.20 rpm-6.1 kupdate clients guard dkms package deb kernel kernel-6.12 kernel-7 kernel-arm64 kernel-s390x kernel-ppc64el kernel-5.10 sanitize"
SUITES=${*:-$ALL}
SUITES=${SUITES//rpm-matrix/rpm-4.16 rpm-4.20 rpm-6.1}
SUITES=${SUITES//rpm-compat/rpm-4.16}
total_pass=0
total_fail=0
total_skip=0
failed_suites=""
suite_times=""
LOGDIR=tests/out/logs
mkdir -p "$LOGDIR"
# The image cache (docs/cache.md): this run's own, warm after the first judgement of each
# kernel, never the host's /var/cache/taintguard.  Suites that test the cache use their own.
if [ -z "${TAINTGUARD_IMAGE_CACHE:-}" ]; then
	TG_IMAGE_CACHE_TMP=$(mktemp -d /tmp/tg-image-cache.XXXXXX)
	export TAINTGUARD_IMAGE_CACHE=$TG_IMAGE_CACHE_TMP/images
	trap 'rm -rf "$TG_IMAGE_CACHE_TMP"' EXIT
fi

# Each suite prints "ok"/"not ok" lines and a last line "N passed, N failed"
# (", N skipped" when it skips: counted apart, neither passed nor failed).
# --subset FILE for a slow guest's suite, unless every case is asked for
# (TG_KERNEL_ALL=1: make check-kernel-all).
subset() { [ "${TG_KERNEL_ALL:-}" = 1 ] || printf '%s\n' --subset "$1"; }
run_suite() {
	local name=$1; shift
	local log=$LOGDIR/$name.log
	local t0=$SECONDS
	if [ -n "${IN_LANE:-}" ]; then
		# the second lane: quiet, its results read by the main shell at the end
		"$@" >"$log" 2>&1
		count_suite "$name" $? $((SECONDS - t0)) >>"$LANE_RESULTS"
		return
	fi
	echo "=== $name"
	"$@" 2>&1 | tee "$log"
	account_suite $(count_suite "$name" "${PIPESTATUS[0]}" $((SECONDS - t0)))
}
# "NAME PASSED FAILED SKIPPED SECONDS" of a suite's log and exit code
count_suite() {
	local name=$1 rc=$2 secs=$3 log=$LOGDIR/$1.log
	local line p f sk=0
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -n "$line" ]; then
		p=${line%% passed*}
		f=${line#*passed, }; f=${f%% failed*}
		# ", N skipped" when the suite reports skips
		case $line in *" skipped"*) sk=${line#*failed, }; sk=${sk%% skipped*} ;; esac
	else
		p=0; f=1
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	echo "$name $p $f $sk $secs"
}
account_suite() {
	local name=$1 p=$2 f=$3 sk=$4 secs=$5
	# where the run's time goes (CI must stay under an hour); not a test
	suite_times="$suite_times $name ${secs}s"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + sk))
	[ "$f" -eq 0 ] || failed_suites="$failed_suites $name"
}

# One line per cmocka test, from its TAP output: "ok", "not ok", or "skip"
# with the reason the test printed ("skip: ..." just before its skip()).  The
# unit tests that read the target kernel's own files take it from TG_KERNEL.
suite_unit() {
	local pass=0 fail=0 skipped=0 t name out rc line why n nfail plan
	# shellcheck source=tests/lib/kernel.sh
	. tests/lib/kernel.sh
	for t in "$B"/tests/test_*; do
		[ -x "$t" ] || continue
		name=$(basename "$t")
		out=$(CMOCKA_MESSAGE_OUTPUT=TAP "$t" 2>&1)
		rc=$?
		why="" n=0 nfail=0 plan=0
		while IFS= read -r line; do
			case $line in
			"1.."[0-9]*) plan=$((plan + ${line#1..})) ;;	# one plan per group
			"skip: "*) why=${line#skip: } ;;
			"ok "[0-9]*)
				n=$((n + 1)); pass=$((pass + 1)); echo "ok - $name: ${line#* - }" ;;
			"not ok "[0-9]*" # SKIP "*)
				n=$((n + 1)); skipped=$((skipped + 1))
				echo "skip - $name: ${line#* # SKIP }${why:+: $why}"; why="" ;;
			"not ok "[0-9]*)
				n=$((n + 1)); nfail=$((nfail + 1)); echo "not ok - $name: ${line#* - }" ;;
			"# ok - "*) ;;
			"#"*) echo "$line" ;;
			esac
		done <<< "$out"
		fail=$((fail + nfail))
		# a crash or a failed group setup: fewer results than planned, or an exit code alone
		if [ "$n" -eq 0 ] || [ "$n" -ne "$plan" ] || { [ "$rc" -ne 0 ] && [ "$nfail" -eq 0 ]; }; then
			fail=$((fail + 1)); echo "not ok - $name exited $rc after $n of $plan tests"
			printf '%s\n' "$out" | tail -n 20
		fi
	done
	# No binaries at all is a broken build, not a pass.
	if [ $((pass + fail + skipped)) -eq 0 ]; then echo "not ok - no unit test binaries in $B/tests"; fail=1; fi
	echo "$pass passed, $fail failed, $skipped skipped"
	[ "$fail" -eq 0 ]
}

suite_build_san() {
	# B is exported by this script; name the sanitizer build directory
	# explicitly or make would put ASan objects into the normal build.
	if make -s SANITIZE=1 B=build-san all unit; then echo "ok - ASan+UBSan build"; echo "1 passed, 0 failed"
	else echo "not ok - ASan+UBSan build"; echo "0 passed, 1 failed"; return 1; fi
}

# The Debian chroots the chosen suites need (tests/lib/chroot.sh), made in the
# background from the start, in the order the suites come: making one is mostly
# downloading and unpacking, which the suites before it overlap.  A suite that
# needs one still being made waits for it (chroot.sh locks each); one that
# failed here is tried again, and reported, by its suite.
chroots_for() {
	case $1 in
	rpm-4.20) echo trixie ;;
	rpm-6.1 | clients) echo sid ;;
	deb) echo bookworm-debbuild bookworm-deb ;;
	kernel-7) echo trixie-kbuild ;;
	kernel-5.10) echo bullseye-kbuild ;;
	esac
}
prefetch_chroots() {
	local s c want=" "
	[ "$(id -u)" = 0 ] && command -v mmdebstrap >/dev/null || return 0
	for s in $SUITES; do
		for c in $(chroots_for "$s"); do
			case $want in *" $c "*) ;; *) want="$want$c " ;; esac
		done
	done
	[ -n "${want// /}" ] || return 0
	echo "# making in the background, when not made yet:$want(log: $LOGDIR/chroots.log)"
	(for c in $want; do tests/lib/chroot.sh path "$c" >/dev/null || true; done) \
		>"$LOGDIR/chroots.log" 2>&1 &
	PREFETCH=$!
}
PREFETCH=
[ -n "${TG_NO_PREFETCH:-}" ] || prefetch_chroots

dispatch() {
	local s=$1
	case $s in
	# what git tracks: no build output, binary, byte code or fuzz finding (tests/tools/hygiene.sh)
	hygiene) run_suite hygiene tests/tools/hygiene.sh ;;
	# calls go one way: no two files of a directory, and no two directories, call each other
	structure) run_suite structure python3 tests/tools/callcycles.py --build "$B" --files lib \
		--files util --files pkg --files guard --files cli --files rpm-plugin --files hooks ;;
	unit) run_suite unit suite_unit ;;
	modules) run_suite modules tests/modules/check.sh ;;
	# the installed kernels' files under vendor-like names: judged as under their own
	renamed) run_suite renamed tests/modules/renamed.sh ;;
	suse) run_suite suse tests/modules/suse.sh ;;
	crosscheck) run_suite crosscheck tests/crosscheck-kmod.sh ;;
	fuzz-regress) run_suite fuzz-regress tests/fuzz/run.sh replay ;;
	mutate) run_suite mutate tests/mutate/run.sh ;;
	valgrind) run_suite valgrind tests/valgrind.sh ;;
	policy-sync) run_suite policy-sync tests/policy-sync/run.sh ;;
	library) run_suite library tests/library/run.sh ;;	# built against the installed .so
	# the image cache through the CLI with the real kernels' images (root: owners, mounts)
	imagecache) run_suite imagecache tests/imagecache/run.sh ;;
	foreign-images) run_suite foreign-images tests/foreign-images/run.sh ;;
	audit) run_suite audit tests/audit/run.sh ;;
	repos) run_suite repos tests/repos/run.sh ;;	# repositories by URL (local HTTP servers), the cache
	rpm) run_suite rpm tests/rpm/run.sh ;;
	# the same suite with other rpm releases (tests/rpm/matrix.sh)
	rpm-4.16 | rpm-4.20 | rpm-6.1) run_suite "$s" tests/rpm/matrix.sh "${s#rpm-}" ;;
	kupdate) run_suite kupdate tests/kupdate/run.sh ;;	# kernel updates: Debian 6.1 -> 6.12 kernel RPMs
	# dnf 4, zypper (host) and dnf5 (unstable chroot) installing from a local repository
	clients) run_suite clients tests/clients/run.sh ;;
	guard) run_suite guard tests/guard/run.sh ;;	# packages and files that would switch taintguard off
	dkms) run_suite dkms tests/dkms/run.sh ;;
	package) run_suite package tests/package/run.sh ;;
	# the .deb: built in a Debian 12 chroot, lintian, installed and purged on a fresh DKMS root
	deb) run_suite deb tests/deb/run.sh ;;
	kernel) run_suite kernel tests/kernel/run.sh ;;
	kernel-6.12) run_suite kernel-6.12 tests/kernel/run.sh --target 6.12 ;;
	# then taintguard over all its in-tree modules: no false alarm (tests/kernel/tree.sh)
	kernel-7) run_suite kernel-7 tests/kernel/run.sh --target 7
		run_suite kernel-7-tree tests/kernel/tree.sh 7 ;;
	kernel-arm64) run_suite kernel-arm64 tests/kernel/run.sh --target 6.1-arm64 ;;
	# Slow guests (TCG-only architectures, old kernels) boot a subset in make check:
	# every rule that depends on byte order or release at least once (the subset
	# file says why each case is there); make check-kernel-all boots every case.
	kernel-s390x) run_suite kernel-s390x tests/kernel/run.sh --target 6.1-s390x $(subset tests/kernel/subset-s390x.txt) ;;
	kernel-ppc64el) run_suite kernel-ppc64el tests/kernel/run.sh --target 6.1-ppc64el $(subset tests/kernel/subset-ppc64el.txt) ;;
	# kernel-5.10: Debian 11's 5.10 (test modules built in the bullseye-kbuild chroot)
	kernel-5.10) run_suite kernel-5.10 tests/kernel/run.sh --target 5.10 $(subset tests/kernel/subset-5.10.txt) ;;
	sanitize)
		# The same unit and module suites, rebuilt with ASan+UBSan; the
		# threaded paths under ThreadSanitizer.
		run_suite sanitize-build suite_build_san
		B=build-san; export B
		run_suite sanitize-unit suite_unit
		# The parsers themselves, in this process where ASan watches them:
		# ASan's runtime makes system calls a confined worker may not (a
		# worker killed for them would make a module unreadable); so does
		# TSan's.  The confinement is tested by the unit tests above, ASan
		# included, and by every other suite.
		export TG_CONFINE=off
		run_suite sanitize-modules tests/modules/check.sh
		run_suite sanitize-audit tests/audit/run.sh
		run_suite sanitize-fuzz-regress tests/fuzz/run.sh replay
		run_suite sanitize-mutate tests/mutate/run.sh
		B=build; export B
		run_suite sanitize-thread tests/tsan.sh
		unset TG_CONFINE ;;
	*) echo "unknown suite $s" >&2; exit 2 ;;
	esac
}

# The second lane: the slow TCG guests (one boot at a time each) run beside
# the other suites, most of which keep one core busy at most, so their boots
# use the other; their output is printed at the end.  TG_LANES=1: one lane.
LANE_SUITES=${TG_LANE_SUITES:-"kernel-arm64 kernel-s390x kernel-ppc64el kernel-5.10"}
lane= main=
for s in $SUITES; do
	case " $LANE_SUITES " in *" $s "*) lane="$lane $s" ;; *) main="$main $s" ;; esac
done
LANE=
LANE_RESULTS=$LOGDIR/lane.results
if [ -n "$lane" ] && [ -n "$main" ] && [ "${TG_LANES:-2}" != 1 ]; then
	: >"$LANE_RESULTS"
	echo "# beside the others, one boot at a time (TG_LANES=1: after them):$lane"
	(IN_LANE=1 TG_JOBS=${TG_LANE_JOBS:-1}; export TG_JOBS
	 for s in $lane; do dispatch "$s"; done) </dev/null &
	LANE=$!
else
	main="$main $lane"
fi
for s in $main; do dispatch "$s"; done
if [ -n "$LANE" ]; then
	wait "$LANE"
	while read -r name p f sk secs; do
		echo "=== $name (ran beside the others)"
		cat "$LOGDIR/$name.log"
		account_suite "$name" "$p" "$f" "$sk" "$secs"
	done <"$LANE_RESULTS"
	for s in $lane; do
		grep -q "^$s " "$LANE_RESULTS" || account_suite "$s" 0 1 0 0
	done
fi
# a chroot no chosen suite reached yet: not left half made in the background
[ -z "$PREFETCH" ] || wait "$PREFETCH"
echo "=== summary"
echo "time per suite:$suite_times (in all ${SECONDS}s)" | fold -s -w 100
[ -z "$failed_suites" ] || echo "failed suites:$failed_suites"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
