#!/bin/bash
# What git tracks must be source: no build output, no binary, no fuzz finding
# left where libFuzzer wrote it.  Fails, naming each file, when git tracks
#   - an ELF file (object, module, library, program),
#   - an archive or a compressed file (ar and so .a/.deb, tar, cpio, rpm, zip,
#     gzip, xz, zstd, bzip2, lz4), by its first bytes or by its name,
#   - Python byte code (.pyc, __pycache__/),
#   - a libFuzzer artefact (crash-*, leak-*, timeout-*, oom-*, slow-unit-*),
# outside the folders named in ALLOWED.  Contents are told by their magic
# bytes (od), not by file(1), so the check needs nothing beyond coreutils.
#   tests/tools/hygiene.sh     (suite "hygiene" of tests/run-all.sh; make check-fast)
set -u
cd "$(dirname "$0")/../.."

# Inputs of the fuzz harnesses are data on purpose: seeds and regression
# inputs (tests/fuzz/seeds.sh copies both into the replayed corpus).  These
# are the only folders where any of the above may be tracked.
ALLOWED="tests/fuzz/corpus/ tests/fuzz/regressions/"

pass=0 fail=0
top=$(git rev-parse --show-toplevel 2>/dev/null)
if [ -z "$top" ] || ! [ "$top" -ef . ]; then
	# a release tarball (make dist) has no history to keep clean, also
	# when unpacked inside another checkout
	echo "skip - not the top of a git work tree"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

allowed() {
	local a
	for a in $ALLOWED; do
		case $1 in "$a"*) return 0 ;; esac
	done
	return 1
}

# What the first bytes say, into $what (functions set it rather than print
# it: a subshell per tracked file would cost more than the check).
# $1: the first 262 bytes in hex.
magic() {
	local h=$1
	what=
	case $h in
	7f454c46*)
		# e_type (byte 16) in the byte order of EI_DATA (byte 5)
		case ${h:10:2}:${h:32:4} in
		01:0100 | 02:0001) what="ELF relocatable object" ;;
		01:0200 | 02:0002) what="ELF executable" ;;
		01:0300 | 02:0003) what="ELF shared object" ;;
		*) what="ELF file" ;;
		esac ;;
	213c617263683e0a*) what="ar archive" ;;	# !<arch>\n: .a, .deb
	edabeedb*) what="rpm package" ;;
	1f8b*) what="gzip compressed" ;;
	fd377a585a00*) what="xz compressed" ;;
	28b52ffd*) what="zstd compressed" ;;
	04224d18*) what="lz4 compressed" ;;
	425a683[1-9]*) what="bzip2 compressed" ;;
	504b0304*) what="zip archive" ;;
	303730373031* | 303730373032* | 303730373037* | c771* | 71c7*) what="cpio archive" ;;
	*)
		# tar: "ustar" at offset 257
		[ "${h:514:10}" = 7573746172 ] && what="tar archive" ;;
	esac
}

# What the name says, into $what.
by_name() {
	local base=${1##*/}
	what=
	case $base in
	crash-* | leak-* | timeout-* | oom-* | slow-unit-*) what="libFuzzer artefact"; return ;;
	esac
	case $1 in
	*.pyc | *.pyo | __pycache__/* | */__pycache__/*) what="Python byte code" ;;
	*.o | *.ko | *.ko.* | *.a | *.so | *.so.[0-9]*) what="build output" ;;
	*.tar | *.tar.* | *.tgz | *.cpio | *.rpm | *.deb | *.zip | *.gz | *.xz | *.zst | *.bz2 | *.lz4)
		what="archive" ;;
	esac
}

looked=0 skipped=0
while IFS= read -r -d '' entry; do
	mode=${entry%% *}
	path=${entry#*$'\t'}
	# symbolic links and submodules are not file contents
	case $mode in 120000 | 160000) continue ;; esac
	if allowed "$path"; then skipped=$((skipped + 1)); continue; fi
	looked=$((looked + 1))
	what=
	if [ -f "$path" ]; then
		h=$(od -An -tx1 -v -N262 -- "$path")
		h=${h//[$' \n']/}
		magic "$h"
	fi
	[ -n "$what" ] || by_name "$path"
	[ -n "$what" ] || continue
	echo "not ok - tracked: $path ($what)"
	fail=$((fail + 1))
done < <(git ls-files -s -z)

if [ "$fail" -eq 0 ]; then
	echo "ok - $looked tracked files: no ELF, archive, compressed file, Python byte code or fuzz artefact"
	pass=$((pass + 1))
else
	echo "# remove them from git (git rm --cached) and let .gitignore keep them out;" \
		"fuzz inputs belong in one of: $ALLOWED"
fi
echo "# allowed: $skipped files in $ALLOWED"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
