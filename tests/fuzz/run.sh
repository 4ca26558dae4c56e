#!/bin/bash
# tests/fuzz/run.sh replay   run every harness once over its seeds and
#                            regression inputs (part of make check; any build)
# tests/fuzz/run.sh fuzz N   libFuzzer, N seconds per harness (make fuzz;
#                            clang build in build-fuzz/), prints exec counts
set -u
cd "$(dirname "$0")/../.."
MODE=${1:-replay}
SECS=${2:-30}
B=${B:-build}
HARNESSES="module decompress symvers policy package record kimage repodata facts guard"
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
nok() { fail=$((fail + 1)); echo "not ok - $*"; }

# libFuzzer learns from the coverage of this process, and ASan's runtime
# makes system calls a confined worker may not: the parsers are fuzzed here,
# unconfined (the confinement's own reader of worker answers is the "facts"
# harness).  Replays keep whatever the caller set.
[ "$MODE" = fuzz ] && export TG_CONFINE=off
SEEDS=$B/fuzz-seeds
tests/fuzz/seeds.sh "$SEEDS" || { nok "seed generation"; echo "$pass passed, $fail failed"; exit 1; }
for h in $HARNESSES; do
	n=$(ls "$SEEDS/$h" | wc -l)
	if [ "$MODE" = replay ]; then
		bin=$B/fuzz/replay_$h
		if [ ! -x "$bin" ]; then nok "$h: $bin not built"; continue; fi
		if "$bin" "$SEEDS/$h"/* >"$SEEDS/$h.log" 2>&1; then
			ok "$h: $n seed and regression inputs replayed"
		else
			nok "$h: replay failed"; tail -n 20 "$SEEDS/$h.log"
		fi
	else
		bin=$B/fuzz/fuzz_$h
		if [ ! -x "$bin" ]; then nok "$h: $bin not built"; continue; fi
		corpus=$B/fuzz-corpus/$h art=$B/fuzz-artifacts/$h/
		mkdir -p "$corpus" "$art"
		log=$B/fuzz-$h.log
		"$bin" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=1048576 \
			-artifact_prefix="$art" -print_final_stats=1 "$corpus" "$SEEDS/$h" >"$log" 2>&1
		rc=$?
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
		if [ $rc -eq 0 ]; then
			ok "$h: ${execs:-?} executions in ${SECS}s, no finding"
		else
			nok "$h: finding after ${execs:-?} executions (artifacts in $art; copy them to tests/fuzz/regressions/$h/)"
			grep -m 5 -E 'ERROR|SUMMARY|==[0-9]+==' "$log"
		fi
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
