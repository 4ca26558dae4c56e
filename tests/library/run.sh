#!/bin/bash
# libtaintguard as a library user meets it: installed (make install-lib into
# a scratch DESTDIR), found through its pkg-config file, a program compiled
# and linked against the installed .so (tests/library/example.c) and run; the
# .so exports exactly the functions lib/taintguard.h declares, all under the
# version node of lib/libtaintguard.map; the program's verdicts agree with
# `taintguard check` on the test modules.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
notok() { echo "not ok - $1"; fail=$((fail + 1)); }
check() { local d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
tests/modules/build.sh tests/modules/out >/dev/null || { echo "not ok - test modules"; echo "0 passed, 1 failed"; exit 1; }
K=$(cat tests/modules/out/.built)

check "make install-lib DESTDIR=... PREFIX=/usr" make -s install-lib B="$B" DESTDIR="$T" PREFIX=/usr
check "header, .so, .a and taintguard.pc installed" test -f "$T/usr/include/taintguard.h" -a \
	-f "$T/usr/lib/libtaintguard.so.0" -a -L "$T/usr/lib/libtaintguard.so" -a \
	-f "$T/usr/lib/libtaintguard.a" -a -f "$T/usr/lib/pkgconfig/taintguard.pc"
export PKG_CONFIG_PATH="$T/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$T"
FLAGS=$(pkg-config --cflags --libs taintguard 2>&1)
check "pkg-config --cflags --libs taintguard ($FLAGS)" bash -c "pkg-config --exists taintguard && grep -q -- '-ltaintguard' <<<'$FLAGS'"

# ABI: the .so's dynamic symbols are the header's functions, versioned.
cc -E -P -I"$T/usr/include" -x c "$T/usr/include/taintguard.h" | grep -oE '\btg_[a-z0-9_]+ *\(' |
	sed 's/ *($//' | sort -u >"$T/declared"
nm -D --defined-only "$T/usr/lib/libtaintguard.so.0" | awk '$2 == "T" { print $3 }' >"$T/exported.v"
sed 's/@.*//' "$T/exported.v" | sort -u >"$T/exported"
check "the .so exports every declared function ($(wc -l <"$T/declared") of them)" \
	bash -c "! comm -23 '$T/declared' '$T/exported' | grep ."
check "the .so exports nothing the header does not declare" \
	bash -c "! comm -13 '$T/declared' '$T/exported' | grep ."
check "every export is versioned TAINTGUARD_0.1" bash -c "! grep -v '@@TAINTGUARD_0.1$' '$T/exported.v'"
check "no internal helper is exported (tg_fail, tg_elf_*, tg_strpool_*)" \
	bash -c "! grep -qE '^(tg_fail|tg_elf_|tg_strpool_)' '$T/exported'"

# A program built against the installed library only.
# shellcheck disable=SC2086
check "example.c compiles and links against the installed library" \
	cc -std=c11 -Wall -Wextra -Werror -o "$T/example" tests/library/example.c $FLAGS
check "the program loads the installed libtaintguard.so.0" \
	bash -c "LD_LIBRARY_PATH='$T/usr/lib' ldd '$T/example' | grep -q '$T/usr/lib/libtaintguard.so.0'"
# The static archive defines no global symbol the header does not declare
# (a program's own strf or grow_array would otherwise replace the library's).
nm --defined-only "$T/usr/lib/libtaintguard.a" 2>/dev/null | awk '$2 ~ /^[A-Z]$/ { print $3 }' |
	sort -u >"$T/static.globals"
check "the .a's global symbols are the header's functions ($(wc -l <"$T/static.globals") of them)" \
	cmp -s "$T/declared" "$T/static.globals"

MODS="lve.ko gplok.ko propplain.ko gplimp.ko propexp.ko notlve.ko"
(cd tests/modules/out && LD_LIBRARY_PATH="$T/usr/lib" "$T/example" "$K" $MODS) >"$T/lib.out" 2>"$T/lib.err"
check "the program judges the test modules (exit 0)" test $? -eq 0 -a -s "$T/lib.out"
(cd tests/modules/out && "../../../$B/taintguard" check --format json --kernel "$K" \
	--policy ../../../policy/default.yaml $MODS) >"$T/check.json" 2>/dev/null
python3 - "$T/check.json" >"$T/check.out" <<'PY'
import json, sys
for v in json.load(open(sys.argv[1])):
    state = "error" if v["error"] else "loads" if v["loads"] else "refused"
    print(v["action"], v["taint"] or "-", state, v["path"])
PY
check "its verdicts equal taintguard check's ($(tr '\n' ';' <"$T/lib.out"))" cmp -s "$T/lib.out" "$T/check.out"

# The same program linked statically, beside names the library uses inside
# (util/'s strf, strv_push, buf_put_u32, grow_array; lib's tg_fail), each of
# which aborts: the library must keep calling its own.
cat >"$T/clash.c" <<'C'
#include <stdlib.h>
char *strf(void) { abort(); }
int strv_push(void) { abort(); }
int buf_put_u32(void) { abort(); }
int grow_array(void) { abort(); }
int tg_fail(void) { abort(); }
C
# shellcheck disable=SC2046
check "example.c with its own strf/strv_push/buf_put_u32/grow_array/tg_fail links the .a statically" \
	cc -std=c11 -Wall -Wextra -Werror -o "$T/example-static" tests/library/example.c "$T/clash.c" \
	-I"$T/usr/include" "$T/usr/lib/libtaintguard.a" \
	$(pkg-config --libs --static taintguard | sed 's/-L[^ ]*//; s/-ltaintguard//')
(cd tests/modules/out && "$T/example-static" "$K" $MODS) >"$T/static.out" 2>"$T/static.err"
check "statically linked, its verdicts equal taintguard check's too" cmp -s "$T/static.out" "$T/check.out"
[ "$fail" -eq 0 ] || { diff "$T/check.out" "$T/static.out" | head -n 5; head -n 5 "$T/static.err"; } | sed "s/^/#   /"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
