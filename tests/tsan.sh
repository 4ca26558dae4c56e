#!/bin/bash
# ThreadSanitizer run of the threaded paths: `taintguard check` over every
# module of the installed distribution kernel (~4,000 files: the reading pool
# and the parallel prediction rounds both engage), built with -fsanitize=thread
# into build-tsan/.  Also checks that --jobs 2 and --jobs 1 give byte-identical
# JSON, and runs the work queue's unit test (the rpm plugin's threads) under
# TSan.  Prints ok/not ok lines and "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
. tests/lib/kernel.sh
K=$TG_KERNEL
DIR=/lib/modules/$K/kernel
OUT=tests/out/tsan
TB=build-tsan
mkdir -p "$OUT"
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
nok() { fail=$((fail + 1)); echo "not ok - $*"; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }

[ -d "$DIR" ] || { nok "no modules in $DIR (install linux-image-amd64)"; finish; }
# B is exported by tests/run-all.sh: name the build directory explicitly.
if make -s B=$TB CFLAGS='-O1 -g -fsanitize=thread' LDFLAGS=-fsanitize=thread $TB/taintguard \
	>"$OUT/build.log" 2>&1; then
	ok "ThreadSanitizer build"
else
	nok "ThreadSanitizer build: $(tail -n 3 "$OUT/build.log")"
	finish
fi

# TSan cannot start on kernels with high mmap randomisation (vm.mmap_rnd_bits
# 32: "unexpected memory mapping"); run without ASLR there.
RUN=()
if ! TSAN_OPTIONS=halt_on_error=1 "$TB/taintguard" --version >/dev/null 2>"$OUT/probe.err" &&
	grep -q "unexpected memory mapping" "$OUT/probe.err"; then
	RUN=(setarch "$(uname -m)" -R)
	echo "# ThreadSanitizer needs ASLR off on this kernel: running under setarch -R"
fi
for j in 1 2; do
	rc=0
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" "${RUN[@]}" "$TB/taintguard" check --kernel "$K" \
		--jobs $j --format json "$DIR" >"$OUT/check-$j.json" 2>"$OUT/check-$j.err" || rc=$?
	if [ $rc -le 2 ] && ! grep -q ThreadSanitizer "$OUT/check-$j.err"; then
		ok "check --jobs $j over $(find "$DIR" -name '*.ko*' | wc -l) modules: no data race (exit $rc)"
	else
		nok "check --jobs $j: exit $rc: $(grep -m1 -A3 ThreadSanitizer "$OUT/check-$j.err")"
	fi
done
# The work queue the rpm plugin reads a payload's modules with (rpm itself
# cannot host a sanitizer build): its unit test, many items on 2-64 threads.
if make -s B=$TB CFLAGS='-O1 -g -fsanitize=thread' LDFLAGS=-fsanitize=thread $TB/tests/test_workq \
	>>"$OUT/build.log" 2>&1 &&
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" "${RUN[@]}" "$TB/tests/test_workq" >"$OUT/workq.log" 2>&1; then
	ok "work queue (tests/unit/test_workq.c): no data race"
else
	nok "work queue under ThreadSanitizer: $(grep -m1 -A3 -E 'ThreadSanitizer|FAILED' "$OUT/workq.log")"
fi
if cmp -s "$OUT/check-1.json" "$OUT/check-2.json"; then
	ok "--jobs 1 and --jobs 2 give byte-identical JSON"
else
	nok "--jobs 1 and --jobs 2 differ (see $OUT/check-*.json)"
fi
finish
