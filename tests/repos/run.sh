#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# taintguard audit of repositories where they live, with real parts: a yum
# repository built here with createrepo_c (the project's kmod test packages,
# a kernel-devel package carrying the running kernel's Module.symvers, and
# ~2,000 small packages without modules from tests/repos/fillers.sh), served
# by python3's http.server bound to 127.0.0.1 and audited by URL; metalinks,
# mirrorlists, file:// and https (a CA made here, handed over with
# --ca-cert: the host's trust store is never touched); broken checksums,
# truncated and missing downloads; the cache (second runs download nothing,
# a changed policy or kernel re-judges from it, corrupt entries are re-read,
# concurrent audits); --format jsonl; the progress bar on a terminal; a
# killed audit leaves nothing behind.  Requests are counted in the servers'
# logs.
#
#   tests/repos/run.sh        (B=build by default; KEEP=1 keeps the tmp dir)
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
B=${B:-build}
TG=$TOP/$B/taintguard
. tests/lib/kernel.sh
KVER=$TG_KERNEL
export KVER
KBUILD=/lib/modules/$KVER/build
POLICY=$TOP/policy/default.yaml
PASS=0
FAIL=0
ok() { echo "ok - $*"; PASS=$((PASS + 1)); }
notok() { echo "not ok - $*"; FAIL=$((FAIL + 1)); }
check() {
	local d=$1
	shift
	if "$@"; then ok "$d"; else notok "$d"; fi
}
finish() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
	exit $?
}

T=$(mktemp -d /tmp/tg-repos.XXXXXX)
PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
[ -z "${KEEP:-}" ] || echo "# keeping $T"
# every audit's temporary directory goes here: nothing may be left in it
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"

# ------------------------------------------------------------ prerequisites
[ -x "$TG" ] || { notok "taintguard is built ($TG)"; finish; }
for tool in rpmbuild createrepo_c python3 openssl script; do
	command -v $tool >/dev/null || { notok "$tool is installed"; finish; }
done
SYMVERS=$KBUILD/Module.symvers
[ -f "$SYMVERS" ] || { notok "Module.symvers of $KVER"; finish; }

# ------------------------------------------------ packages and the repository
OUT=${TG_MODULES_OUT:-tests/modules/out}
if ! tests/repos/mkrepo.sh "$T" 2>"$T/mkrepo.err"; then
	notok "the repository built (tests/repos/mkrepo.sh)"; cat "$T/mkrepo.err"; finish
fi
W=$T/www
R=$W/repo
ok "10 kmod and kernel packages built with rpmbuild, 2000 filler packages, metadata by createrepo_c ($(ls "$R"/Packages/*/*.rpm | wc -l) packages)"
REPO_BYTES=$(du -sb "$R" | cut -f1)

# the broken repository: two good kmods, kernel-devel, and four that fail to download
BR=$W/broken
mkdir -p "$BR"
cp "$T/pkgs/kmod-gplok-1.0-1.noarch.rpm" "$T/pkgs/kmod-lve-1.0-1.noarch.rpm" \
	"$T/pkgs/kernel-devel-tg-1.0-1.noarch.rpm" "$BR/"
for b in badsum trunc cut missing; do cp "$T/pkgs/kmod-$b-1.0-1.noarch.rpm" "$BR/"; done
createrepo_c -q "$BR" >>"$T/createrepo.log" 2>&1
# after the metadata: a byte flipped, half of a file, a file gone (cut: see server.py)
python3 - "$BR/kmod-badsum-1.0-1.noarch.rpm" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) // 2] ^= 0x01
open(sys.argv[1], "wb").write(b)
EOF
head -c "$(($(stat -c %s "$BR/kmod-trunc-1.0-1.noarch.rpm") / 2))" "$BR/kmod-trunc-1.0-1.noarch.rpm" >"$T/half"
mv "$T/half" "$BR/kmod-trunc-1.0-1.noarch.rpm"
rm "$BR/kmod-missing-1.0-1.noarch.rpm"

# ------------------------------------------------------------------ servers
python3 -u -m http.server --bind 127.0.0.1 0 --directory "$W" >"$T/http.out" 2>"$T/http.log" &
PIDS="$PIDS $!"
for _ in $(seq 50); do grep -q ' port ' "$T/http.out" 2>/dev/null && break; sleep 0.1; done
PORT=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$T/http.out")
[ -n "$PORT" ] || { notok "python3 -m http.server started"; finish; }
ok "python3 -m http.server serves the repositories on 127.0.0.1:$PORT"
URL=http://127.0.0.1:$PORT/repo
python3 tests/repos/server.py --dir "$W" --port-file "$T/cut.port" --log "$T/cut.log" \
	--cut /broken/kmod-cut-1.0-1.noarch.rpm --slow /slow/kmod-gplok-1.0-1.noarch.rpm &
PIDS="$PIDS $!"
for _ in $(seq 50); do [ -f "$T/cut.port" ] && break; sleep 0.1; done
CPORT=$(cat "$T/cut.port" 2>/dev/null)

mark() { wc -l <"$T/http.log"; }
# requests since mark $1 whose path matches $2
gets() { tail -n +"$(($1 + 1))" "$T/http.log" | grep -c "\"GET $2"; }
tga() { "$TG" audit --policy "$POLICY" "$@"; }

py() { python3 - "$@"; }
# statuses of a JSON report as "name=status ..."
statuses() {
	python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s=%s" % (p["package"], p["status"]) for p in d["packages"]))
EOF
}
# the package objects of two reports, without where each came from, are equal
same_verdicts() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
def load(f):
    d = json.load(open(f))
    out = {}
    for p in d["packages"]:
        p = dict(p)
        for k in ("file", "url"):
            p.pop(k, None)
        out[p["package"]] = p
    return out, d["summary"]
a, b = load(sys.argv[1]), load(sys.argv[2])
if a != b:
    for k in sorted(set(a[0]) | set(b[0])):
        if a[0].get(k) != b[0].get(k):
            print("#  %s differs" % k)
    if a[1] != b[1]:
        print("#  summary", a[1], b[1])
    sys.exit(1)
EOF
}
# exit code 2 and the same verdicts as the reference
rc_and_same() { [ "$1" -eq 2 ] && same_verdicts "$2" "$3"; }
EXPECTED="kmod-gplimp=deny kmod-gplok=allow kmod-lve=deny kmod-prop=mark kmod-propexp=mark"

# ------------------------------------------------------- the repository by URL
m=$(mark)
tga --cache "$T/cache" --format json "$URL/" >"$T/url.json" 2>"$T/url.err"
rc=$?
check "audit by URL: exit 2 (something denied)" test $rc -eq 2
check "audit by URL: the verdicts per package ($EXPECTED)" test "$(statuses "$T/url.json")" = "$EXPECTED"
check "audit by URL: nothing but the JSON on stdout, no progress bar off a terminal" \
	sh -c "python3 -m json.tool '$T/url.json' >/dev/null && ! grep -q 'fetch \\[' '$T/url.err'"
check "audit by URL: kernel exports and .config from the repository's kernel-devel" py "$T/url.json" <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
for p in d["packages"]:
    t = p["targets"]
    assert len(t) == 1 and t[0]["kernel"] == os.environ["KVER"], t
    assert t[0]["symvers_source"] == "package", t
    assert t[0]["symvers"] == "kernel-devel-tg-1.0-1.noarch:/usr/src/kernels/%s/Module.symvers" % os.environ["KVER"], t
    assert p["url"].startswith("http://127.0.0.1:") and p["url"].endswith(".rpm") and p["file"] is None, p
    assert p["checksum"].startswith("sha256:"), p["checksum"]
assert d["summary"]["skipped_without_modules"] == 2001, d["summary"]
EOF
n_rpm=$(gets "$m" '/repo/Packages/.*\.rpm')
n_fill=$(gets "$m" '/repo/Packages/f/')
check "audit by URL: 6 packages downloaded (5 kmods, kernel-devel), no filler ($n_rpm, $n_fill)" \
	test "$n_rpm" -eq 6 -a "$n_fill" -eq 0
read_bytes=$(tail -n +"$((m + 1))" "$T/http.log" | sed -n 's/.*"GET \/\([^ ]*\) HTTP.*/\1/p' |
	(cd "$W" && xargs stat -c %s) | awk '{ s += $1 } END { print s + 0 }')
pct=$(awk -v a="$read_bytes" -v b="$REPO_BYTES" 'BEGIN { printf "%.1f", 100 * a / b }')
check "audit by URL reads $read_bytes of the repository's $REPO_BYTES bytes ($pct %, goal < 10 %)" \
	awk -v a="$read_bytes" -v b="$REPO_BYTES" 'BEGIN { exit !(a * 10 < b) }'
check "no temporary directory left behind" sh -c "[ -z \"\$(ls -A '$TMPDIR')\" ]"

tga --no-cache --format json "$R" >"$T/local.json" 2>"$T/local.err"
check "the same repository audited on disk: the same verdicts and details" same_verdicts "$T/url.json" "$T/local.json"

# ------------------------------------------------------------- the cache
m=$(mark)
start=$(date +%s.%N)
tga --cache "$T/cache" --format json "$URL/" >"$T/url2.json" 2>"$T/url2.err"
rc=$?
secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
check "cached re-audit: same exit code and byte-identical report" sh -c "[ $rc -eq 2 ] && cmp -s '$T/url.json' '$T/url2.json'"
check "cached re-audit: only repomd.xml requested, no package, no other metadata ($(gets "$m" '/'))" \
	test "$(gets "$m" '/')" -eq 1 -a "$(gets "$m" '/repo/repodata/repomd.xml')" -eq 1
check "cached re-audit of an unchanged repository in under a second (${secs}s)" \
	awk -v s="$secs" 'BEGIN { exit !(s < 1.0) }'
tga --cache "$T/cache" -v --format json "$URL/" >/dev/null 2>"$T/url3.err"
check "--verbose says what the cache did" grep -q "cache $T/cache: [0-9]* hits, 0 misses" "$T/url3.err"

# a changed policy: judged again from the cache, nothing downloaded
python3 - "$POLICY" "$T/lenient.yaml" <<'EOF'
import sys
s = open(sys.argv[1]).read()
old = "when: {taint: P}\n    action: mark"
assert old in s
open(sys.argv[2], "w").write(s.replace(old, "when: {taint: P}\n    action: allow"))
EOF
m=$(mark)
"$TG" audit --policy "$T/lenient.yaml" --cache "$T/cache" --format json "$URL/" >"$T/pol.json" 2>/dev/null
"$TG" audit --policy "$T/lenient.yaml" --no-cache --format json "$R" >"$T/pol-ref.json" 2>/dev/null
pol_ok() { [ "$(gets "$m" '.*\.rpm')" -eq 0 ] && ! cmp -s "$T/pol.json" "$T/url.json" &&
	same_verdicts "$T/pol.json" "$T/pol-ref.json"; }
check "changed policy: re-judged from the cache (no package downloaded), as a fresh audit judges" pol_ok
# a changed kernel: another release, its exports from --symvers (a forged table)
sed 's/\tktime_get\tvmlinux\tEXPORT_SYMBOL_GPL/\tktime_get\tvmlinux\tEXPORT_SYMBOL/' "$SYMVERS" >"$T/other.symvers"
m=$(mark)
tga --kernel 6.1.0-999-tg --symvers "$T/other.symvers" --cache "$T/cache" --format json "$URL/" >"$T/kern.json" 2>/dev/null
tga --kernel 6.1.0-999-tg --symvers "$T/other.symvers" --no-cache --format json "$R" >"$T/kern-ref.json" 2>/dev/null
kern_ok() { [ "$(gets "$m" '.*\.rpm')" -eq 0 ] && ! cmp -s "$T/kern.json" "$T/url.json" &&
	same_verdicts "$T/kern.json" "$T/kern-ref.json"; }
check "changed kernel: re-judged from the cache (no package downloaded), as a fresh audit judges" kern_ok

# corrupt entries: told once, re-read, never believed; then the cache is whole again
entries=$(find "$T/cache/packages" -type f ! -name '.tmp-*' | sort)
e1=$(echo "$entries" | sed -n 1p)
e2=$(echo "$entries" | sed -n 2p)
e3=$(echo "$entries" | sed -n 3p)
python3 - "$e1" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[-1] ^= 0x40
open(sys.argv[1], "wb").write(b)
EOF
head -c 100 "$e2" >"$T/short" && cat "$T/short" >"$e2"
cp "$e3" "$e1.other" && cp "$e3" "$e2.other"
m=$(mark)
tga --cache "$T/cache" --format json "$URL/" >"$T/corrupt.json" 2>"$T/corrupt.err"
check "corrupt cache entries: re-read (2 packages downloaded), never believed: the same report" \
	sh -c "[ $(gets "$m" '.*\.rpm') -eq 2 ] && cmp -s '$T/url.json' '$T/corrupt.json'"
check "corrupt cache entries: the user is told once" \
	sh -c "[ \$(grep -c 'corrupt entr' '$T/corrupt.err') -eq 1 ] && grep -q '2 corrupt entries were not believed' '$T/corrupt.err'"
rm -f "$e1.other" "$e2.other"
cp "$e3" "$e1"	# another package's entry under this one's name
m=$(mark)
tga --cache "$T/cache" --format json "$URL/" >"$T/swap.json" 2>"$T/swap.err"
check "an entry renamed to another package's name: not believed, that package re-read" \
	sh -c "[ $(gets "$m" '.*\.rpm') -eq 1 ] && cmp -s '$T/url.json' '$T/swap.json' && grep -q 'names another key' '$T/swap.err'"
m=$(mark)
tga --cache "$T/cache" --format json "$URL/" >/dev/null 2>"$T/whole.err"
check "after the re-reads the cache is whole again: nothing downloaded, no warning" \
	sh -c "[ $(gets "$m" '.*\.rpm') -eq 0 ] && [ ! -s '$T/whole.err' ]"

# two audits at once on an empty cache: both right, the cache whole
tga --cache "$T/cc" --format json "$URL/" >"$T/c1.json" 2>"$T/c1.err" &
c1=$!
tga --cache "$T/cc" --format json "$URL/" >"$T/c2.json" 2>"$T/c2.err" &
c2=$!
wait $c1; r1=$?
wait $c2; r2=$?
m=$(mark)
tga --cache "$T/cc" --format json "$URL/" >"$T/c3.json" 2>"$T/c3.err"
check "concurrent audits into one cache: both exit 2 with the full report, the cache whole afterwards" \
	sh -c "[ $r1 -eq 2 ] && [ $r2 -eq 2 ] && cmp -s '$T/c1.json' '$T/url.json' && cmp -s '$T/c2.json' '$T/url.json' &&
	       cmp -s '$T/c3.json' '$T/url.json' && [ $(gets "$m" '.*\.rpm') -eq 0 ] && [ ! -s '$T/c3.err' ] &&
	       [ -z \"\$(find '$T/cc' -name '.tmp-*')\" ]"

# a local repository: cached packages are not even opened
cp -r "$R" "$T/localrepo"
tga --cache "$T/lc" --format json "$T/localrepo" >"$T/l1.json" 2>/dev/null
mv "$T/localrepo/Packages/k" "$T/k.away"
tga --cache "$T/lc" --format json "$T/localrepo" >"$T/l2.json" 2>"$T/l2.err"
rc=$?
check "local repository, cached: its packages moved away, the same report (nothing opened)" \
	sh -c "[ $rc -eq 2 ] && cmp -s '$T/l1.json' '$T/l2.json'"
mv "$T/k.away" "$T/localrepo/Packages/k"

# a cache directory other users can write is not used
mkdir -p "$T/open" && chmod 0777 "$T/open"
tga --cache "$T/open" --format json "$URL/" >"$T/open.json" 2>"$T/open.err"
rc=$?
check "a cache directory others can write: not used, said, the audit goes on" \
	sh -c "[ $rc -eq 2 ] && grep -q 'writable by other users' '$T/open.err' && [ -z \"\$(ls -A '$T/open')\" ]"

# ------------------------------------------------------- broken downloads
BURL=http://127.0.0.1:$PORT/broken
m=$(mark)
tga --cache "$T/bc" --format json "$BURL" >"$T/broken.json" 2>"$T/broken.err"
rc=$?
check "broken repository: exit 3" test $rc -eq 3
check "broken checksum, truncated and missing downloads: an error for each, never clean" py "$T/broken.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = {x["package"] or x["nevra"]: x for x in d["packages"]}
want = {"kmod-badsum": "checksum doesn't match", "kmod-trunc": "1.0-1.noarch.rpm",
        "kmod-missing": "404"}
for name, why in want.items():
    x = p.get(name) or p.get(name + "-1.0-1.noarch")
    assert x and x["status"] == "error" and x["modules"] == [], (name, x)
    assert "download of" in x["error"] and why in x["error"], (name, x["error"])
assert p["kmod-gplok"]["status"] == "allow" and p["kmod-lve"]["status"] == "deny"
EOF
check "each download error names the package and the cause on stderr" sh -c "
	grep -q 'kmod-badsum-1.0-1.noarch: download of kmod-badsum-1.0-1.noarch.rpm failed: .*checksum' '$T/broken.err' &&
	grep -q 'kmod-missing-1.0-1.noarch: download of .*404' '$T/broken.err' &&
	grep -q 'kmod-trunc-1.0-1.noarch: download of .*failed' '$T/broken.err'"
check "the truncated file's error says the size is wrong" \
	sh -c "python3 -c \"import json,sys; d=json.load(open('$T/broken.json')); e=[p['error'] for p in d['packages'] if p['package']=='kmod-trunc'][0]; print(e)\" | grep -qi 'size\\|length'"
m=$(mark)
tga --cache "$T/bc" --format json "$BURL" >/dev/null 2>&1
check "failed packages are never cached: asked for again ($(gets "$m" '/broken/kmod-\(badsum\|trunc\|missing\)'))" \
	test "$(gets "$m" '/broken/kmod-\(badsum\|trunc\|missing\)')" -ge 3
if [ -n "$CPORT" ]; then
	tga --no-cache --format json "http://127.0.0.1:$CPORT/broken/" >"$T/cut.json" 2>"$T/cut.err"
	rc=$?
	check "a transfer cut short (full Content-Length, half the body): an error, exit 3" py "$T/cut.json" $rc <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert sys.argv[2] == "3", sys.argv[2]
x = [p for p in d["packages"] if p["package"] == "kmod-cut"][0]
assert x["status"] == "error" and "download of" in x["error"], x
EOF
else
	notok "tests/repos/server.py started"
fi

# --------------------------------------------------------------- JSON lines
tga --cache "$T/bc" --format jsonl "$BURL" >"$T/broken.jsonl" 2>/dev/null
tga --cache "$T/cache" --format jsonl "$URL/" >"$T/url.jsonl" 2>/dev/null
check "jsonl: a package object per line, as --format json has it, then a summary line" \
	py "$T/url.jsonl" "$T/url.json" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
d = json.load(open(sys.argv[2]))
assert [l["record"] for l in lines] == ["package"] * len(d["packages"]) + ["summary"], lines
for l, p in zip(lines, d["packages"]):
    l = dict(l)
    del l["record"]
    assert l == p, (l, p)
s = dict(lines[-1])
for k in ("record", "taintguard", "format"):
    s.pop(k)
assert s == d["summary"], (s, d["summary"])
EOF
check "jsonl: packages that failed with nothing to judge come first, as soon as they failed" \
	py "$T/broken.jsonl" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
st = [(l.get("package"), l.get("status")) for l in lines if l["record"] == "package"]
errs = [s for s in st if s[1] == "error"]
assert len(errs) == 3 and st[:3] == errs, st
assert lines[-1]["record"] == "summary" and lines[-1]["error"] == 3, lines[-1]
EOF

# ------------------------------------------------- metalink, mirrorlist, file://
python3 - "$R/repodata/repomd.xml" "$W/metalink.xml" "$W/badmetalink.xml" "$PORT" <<'EOF'
import hashlib, os, sys
md, good, bad, port = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
data = open(md, "rb").read()
def ml(sha):
    return """<?xml version="1.0" encoding="utf-8"?>
<metalink version="3.0" xmlns="http://www.metalinker.org/" type="dynamic" generator="taintguard-test" xmlns:mm0="http://fedorahosted.org/mirrormanager">
 <files>
  <file name="repomd.xml">
   <mm0:timestamp>%d</mm0:timestamp>
   <size>%d</size>
   <verification>
    <hash type="sha256">%s</hash>
   </verification>
   <resources maxconnections="1">
    <url protocol="http" type="http" location="XX" preference="100">http://127.0.0.1:1/repo/repodata/repomd.xml</url>
    <url protocol="http" type="http" location="XX" preference="90">http://127.0.0.1:%s/repo/repodata/repomd.xml</url>
   </resources>
  </file>
 </files>
</metalink>
""" % (int(os.path.getmtime(md)), len(data), sha, port)
open(good, "w").write(ml(hashlib.sha256(data).hexdigest()))
open(bad, "w").write(ml("0" * 64))
EOF
printf 'http://127.0.0.1:%s/nowhere/\nhttp://127.0.0.1:%s/repo/\n' "$PORT" "$PORT" >"$W/mirrorlist.txt"
tga --no-cache --format json --metalink "http://127.0.0.1:$PORT/metalink.xml" >"$T/ml.json" 2>"$T/ml.err"
rc=$?
check "metalink (first mirror dead): exit 2, the same verdicts as the base URL" \
	rc_and_same $rc "$T/ml.json" "$T/url.json"
tga --no-cache --format json --metalink "http://127.0.0.1:$PORT/badmetalink.xml" >"$T/bml.json" 2>"$T/bml.err"
rc=$?
check "metalink whose hash repomd.xml does not match: exit 3, said" \
	sh -c "[ $rc -eq 3 ] && grep -q 'badmetalink.xml' '$T/bml.err' && [ ! -s '$T/bml.json' ]"
tga --no-cache --format json --mirrorlist "http://127.0.0.1:$PORT/mirrorlist.txt" >"$T/mirr.json" 2>"$T/mirr.err"
rc=$?
check "mirrorlist (first mirror 404): exit 2, the same verdicts as the base URL" \
	rc_and_same $rc "$T/mirr.json" "$T/url.json"
tga --no-cache --format json "file://$R" >"$T/file.json" 2>"$T/file.err"
rc=$?
check "file:// URL: exit 2, the same verdicts as over HTTP" rc_and_same $rc "$T/file.json" "$T/url.json"
tga --no-cache "http://127.0.0.1:1/repo/" >/dev/null 2>"$T/dead.err"
rc=$?
check "an unreachable repository: exit 3 and a message naming it" \
	sh -c "[ $rc -eq 3 ] && grep -q '^taintguard: http://127.0.0.1:1/repo/: ' '$T/dead.err'"

# --------------------------------------------------------------------- https
mkdir -p "$T/pki"
(
	cd "$T/pki" &&
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 \
		-subj "/CN=taintguard test CA" >/dev/null 2>&1 &&
	openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj "/CN=127.0.0.1" >/dev/null 2>&1 &&
	printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >ext &&
	openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 2 \
		-extfile ext >/dev/null 2>&1
)
if [ -f "$T/pki/srv.pem" ]; then
	python3 tests/repos/server.py --dir "$W" --port-file "$T/https.port" --log "$T/https.log" \
		--https "$T/pki/srv.pem" "$T/pki/srv.key" &
	PIDS="$PIDS $!"
	for _ in $(seq 50); do [ -f "$T/https.port" ] && break; sleep 0.1; done
	SPORT=$(cat "$T/https.port" 2>/dev/null)
	tga --no-cache --ca-cert "$T/pki/ca.pem" --format json "https://127.0.0.1:$SPORT/repo/" >"$T/https.json" 2>"$T/https.err"
	rc=$?
	check "https with the test CA (--ca-cert, host trust store untouched): the same verdicts" \
		rc_and_same $rc "$T/https.json" "$T/url.json"
	tga --no-cache --format json "https://127.0.0.1:$SPORT/repo/" >/dev/null 2>"$T/https-untrusted.err"
	rc=$?
	check "https without the CA: refused (exit 3), the message names the certificate problem" \
		sh -c "[ $rc -eq 3 ] && grep -qi 'certificate\\|issuer\\|SSL\\|TLS' '$T/https-untrusted.err'"
else
	notok "a test CA and server certificate made with openssl"
fi

# ------------------------------------------------------ xml:base locations
# a package whose location names another base: an http one is followed, a
# file:// one (this machine's files, from a remote repository's metadata) is not
mkdir -p "$W/based" && cp -r "$R/repodata" "$W/based/" && ln -s "$R/Packages" "$W/based/Packages"
python3 - "$W/based" "$PORT" <<'EOF'
import glob, gzip, hashlib, os, re, sys
d, port = sys.argv[1], sys.argv[2]
md_path = os.path.join(d, "repodata", "repomd.xml")
md = open(md_path).read()
old = glob.glob(os.path.join(d, "repodata", "*-primary.xml.gz"))[0]
pr = gzip.open(old).read().decode()
pr = pr.replace('<location href="Packages/k/kmod-gplok-1.0-1.noarch.rpm"/>',
                '<location xml:base="file:///tmp/elsewhere/" href="Packages/k/kmod-gplok-1.0-1.noarch.rpm"/>')
pr = pr.replace('<location href="Packages/k/kmod-lve-1.0-1.noarch.rpm"/>',
                '<location xml:base="http://127.0.0.1:%s/repo/" href="Packages/k/kmod-lve-1.0-1.noarch.rpm"/>' % port)
assert pr.count("xml:base") == 2, pr.count("xml:base")
z = gzip.compress(pr.encode(), mtime=0)
sha = hashlib.sha256(z).hexdigest()
new = os.path.join(d, "repodata", "%s-primary.xml.gz" % sha)
os.unlink(old)
open(new, "wb").write(z)
block = re.search(r'<data type="primary">.*?</data>', md, re.S).group(0)
nb = re.sub(r'<checksum type="sha256">[0-9a-f]+</checksum>', '<checksum type="sha256">%s</checksum>' % sha, block, count=1)
nb = re.sub(r'href="[^"]*"', 'href="repodata/%s"' % os.path.basename(new), nb)
nb = re.sub(r'<size>\d+</size>', '<size>%d</size>' % len(z), nb, count=1)
open(md_path, "w").write(md.replace(block, nb))
EOF
m=$(mark)
tga --no-cache --format json "http://127.0.0.1:$PORT/based/" >"$T/based.json" 2>"$T/based.err"
rc=$?
check "xml:base: an http base is followed, a file:// one from a remote repository is refused (exit 3)" \
	py "$T/based.json" "$rc" "$(gets "$m" '/repo/Packages/k/kmod-lve')" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert sys.argv[2] == "3" and sys.argv[3] == "1", sys.argv[2:]
p = {x["package"]: x for x in d["packages"]}
assert p["kmod-lve"]["status"] == "deny" and "/repo/Packages/k/kmod-lve" in p["kmod-lve"]["url"], p["kmod-lve"]
g = p["kmod-gplok"]
assert g["status"] == "error" and "file:///tmp/elsewhere/" in g["error"] and "not fetched" in g["error"], g
EOF

# ----------------------------------------------------- zstd-compressed metadata
cp -r "$R" "$T/zrepo"
python3 - "$T/zrepo" <<'EOF'
import glob, gzip, hashlib, os, re, subprocess, sys
d = sys.argv[1]
md = open(os.path.join(d, "repodata", "repomd.xml")).read()
for kind in ("primary", "filelists"):
    old = glob.glob(os.path.join(d, "repodata", "*-%s.xml.gz" % kind))[0]
    raw = gzip.open(old).read()
    z = subprocess.run(["zstd", "-q", "-c"], input=raw, stdout=subprocess.PIPE, check=True).stdout
    new = os.path.join(d, "repodata", "%s-%s.xml.zst" % (hashlib.sha256(z).hexdigest(), kind))
    open(new, "wb").write(z)
    os.unlink(old)
    block = re.search(r'<data type="%s">.*?</data>' % kind, md, re.S).group(0)
    nb = re.sub(r'<checksum type="sha256">[0-9a-f]+</checksum>',
                '<checksum type="sha256">%s</checksum>' % hashlib.sha256(z).hexdigest(), block, count=1)
    nb = re.sub(r'href="[^"]*"', 'href="repodata/%s"' % os.path.basename(new), nb)
    nb = re.sub(r'<size>\d+</size>', '<size>%d</size>' % len(z), nb, count=1)
    md = md.replace(block, nb)
open(os.path.join(d, "repodata", "repomd.xml"), "w").write(md)
EOF
mkdir -p "$W/zrepo" && cp -r "$T/zrepo/repodata" "$W/zrepo/" && ln -s "$R/Packages" "$W/zrepo/Packages"
tga --no-cache --format json "$T/zrepo" >"$T/zlocal.json" 2>"$T/zlocal.err"
rc1=$?
tga --no-cache --format json "http://127.0.0.1:$PORT/zrepo/" >"$T/zurl.json" 2>"$T/zurl.err"
rc2=$?
z_ok() { rc_and_same $rc1 "$T/zlocal.json" "$T/url.json" && rc_and_same $rc2 "$T/zurl.json" "$T/url.json"; }
check "zstd-compressed primary and filelists (not readable by createrepo_c 0.17): local and by URL, the same verdicts" z_ok

# --------------------------------------------------- terminal, kill, facts
script -qec "'$TG' audit --policy '$POLICY' --no-cache --format json '$URL/' >'$T/tty.json'" "$T/tty.log" >/dev/null 2>&1
check "on a terminal: a progress bar on stderr, only the report on stdout" \
	sh -c "grep -q 'fetch \\[' '$T/tty.log' && python3 -m json.tool '$T/tty.json' >/dev/null"
if [ -n "$CPORT" ]; then
	mkdir -p "$W/slow" && cp "$T/pkgs/kmod-gplok-1.0-1.noarch.rpm" "$W/slow/" && createrepo_c -q "$W/slow" >/dev/null 2>&1
	tga --no-cache "http://127.0.0.1:$CPORT/slow/" >/dev/null 2>&1 &
	victim=$!
	# killed while the package is coming in (the server sends it slowly)
	for _ in $(seq 100); do grep -q '/slow/kmod-gplok.*slow-start' "$T/cut.log" 2>/dev/null && break; sleep 0.1; done
	had=$(ls -A "$TMPDIR" | wc -l)
	kill -9 $victim 2>/dev/null
	wait $victim 2>/dev/null
	for _ in $(seq 50); do [ -z "$(ls -A "$TMPDIR")" ] && break; sleep 0.1; done
	check "an audit killed (SIGKILL) while downloading leaves no temporary directory ($had removed by its reaper)" \
		sh -c "[ $had -ge 1 ] && [ -z \"\$(ls -A '$TMPDIR')\" ]"
fi
if [ -x "$B/fuzz/replay_facts" ]; then
	mkdir -p "$T/facts"
	n=0
	for f in "$OUT"/*.ko "$OUT"/*.ko.xz "$OUT"/*.ko.zst "$OUT"/*.ko.gz; do
		[ -f "$f" ] || continue
		{ printf 'M'; cat "$f"; } >"$T/facts/$(basename "$f")"
		n=$((n + 1))
	done
	check "module facts of all $n test modules: written, read back, the same facts and the same verdict" \
		"$B/fuzz/replay_facts" "$T"/facts/*
fi
check "no temporary directory left behind by any audit" sh -c "[ -z \"\$(ls -A '$TMPDIR')\" ]"

finish
