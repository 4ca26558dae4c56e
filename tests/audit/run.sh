#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# taintguard audit: builds a small yum repository at test time (rpmbuild +
# createrepo_c, real kernel modules built with kbuild, a gpg key made on the
# spot) and checks verdicts per package, exit codes, JSON/JUnit/SARIF, --jobs
# determinism, --excludes, signatures, corrupted packages and --installed.
#
#   tests/audit/run.sh            (B=build by default; KEEP=1 keeps the tmp dir)
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
B=${B:-build}
TG=$TOP/$B/taintguard
. tests/lib/kernel.sh
KVER=$TG_KERNEL
export KVER	# the Python checks below read it
KBUILD=/lib/modules/$KVER/build
PASS=0
FAIL=0

POLICY=$TOP/policy/default.yaml
# audits use a cache of their own (never the host's /var/cache/taintguard); the
# suite's repeated audits of one repository then compare cached and fresh reads
tg() {
	local cmd=$1; shift
	if [ "$cmd" = audit ]; then set -- --cache "$T/cache" "$@"; fi
	"$TG" "$cmd" --policy "$POLICY" "$@"
}
ok() { echo "ok - $*"; PASS=$((PASS + 1)); }
notok() { echo "not ok - $*"; FAIL=$((FAIL + 1)); }
check() { # check "description" command...
	local d=$1
	shift
	if "$@"; then ok "$d"; else notok "$d"; fi
}
finish() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
	exit $?
}

T=$(mktemp -d /tmp/tg-audit.XXXXXX)
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$T"' EXIT; else echo "# keeping $T"; fi

# ------------------------------------------------------------ prerequisites
[ -x "$TG" ] || make -s >/dev/null 2>&1 || true
if [ ! -x "$TG" ]; then notok "taintguard is built ($TG)"; finish; fi
for tool in rpmbuild rpmsign rpmkeys gpg python3; do
	command -v $tool >/dev/null || { notok "$tool is installed"; finish; }
done
if ! command -v createrepo_c >/dev/null; then
	apt-get install -y -qq createrepo-c >/dev/null 2>&1 || true
fi
command -v createrepo_c >/dev/null || { notok "createrepo_c is installed (apt-get install createrepo-c)"; finish; }
[ -d "$KBUILD" ] || { notok "kernel build tree $KBUILD"; finish; }
SYMVERS=$KBUILD/Module.symvers
[ -f "$SYMVERS" ] || SYMVERS=/usr/src/linux-headers-$KVER/Module.symvers
[ -f "$SYMVERS" ] || { notok "Module.symvers of $KVER"; finish; }

# ------------------------------------------------------------------ modules
# The project's test modules (tests/modules/build.sh, shared with every suite).
MODS=$T/mods
OUT=${TG_MODULES_OUT:-tests/modules/out}
mkdir -p "$MODS"
need="gplok lve propplain propexp gplimp propgpl exporter dupexp"
have_all() { for m in $need; do [ -f "$1/$m.ko" ] || return 1; done; }
TG_KERNEL=$KVER tests/modules/build.sh "$OUT" >"$T/kbuild.log" 2>&1 && have_all "$OUT" &&
	for m in $need; do cp "$OUT/$m.ko" "$MODS/"; done
if ! have_all "$MODS"; then notok "test modules built"; tail -20 "$T/kbuild.log"; finish; fi
ok "test modules built"

# ----------------------------------------------------------------- packages
TOPDIR=$T/rpmbuild
mkdir -p "$TOPDIR"/{SPECS,SOURCES,BUILD,RPMS,SRPMS} "$T/repo" "$T/src"
EXTRA=/lib/modules/$KVER/extra

# mkpkg NAME LICENSE PAYLOAD "SRC:DEST ..."
mkpkg() {
	local name=$1 license=$2 payload=$3 files=$4 spec=$TOPDIR/SPECS/$1.spec f src dst
	{
		echo "Name: $name"
		echo "Version: 1.0"
		echo "Release: 1"
		echo "Summary: taintguard audit test package $name"
		echo "License: $license"
		echo "BuildArch: noarch"
		echo "%global debug_package %{nil}"
		echo "%global __os_install_post %{nil}"
		echo "%global __brp_strip %{nil}"
		echo "%description"
		echo "test package"
		echo "%install"
		for f in $files; do
			src=${f%%:*}
			dst=${f#*:}
			echo "mkdir -p %{buildroot}$(dirname "$dst")"
			echo "cp $src %{buildroot}$dst"
		done
		echo "%files"
		for f in $files; do echo "${f#*:}"; done
	} >"$spec"
	rpmbuild -bb --quiet --define "_topdir $TOPDIR" --define "_binary_payload $payload" \
		--define "_build_id_links none" "$spec" >"$T/rpmbuild-$name.log" 2>&1 &&
		cp "$TOPDIR/RPMS/noarch/$name-1.0-1.noarch.rpm" "$T/repo/"
}

xz --check=crc32 -k -c "$MODS/lve.ko" >"$MODS/lve.ko.xz"
zstd -q -c "$MODS/propplain.ko" >"$MODS/propplain.ko.zst"
echo "no modules here" >"$T/src/README"

built=0
mkpkg kmod-gplok "GPL-2.0-only" w9.gzdio "$MODS/gplok.ko:$EXTRA/gplok.ko" && built=$((built + 1))
mkpkg kmod-lve "GPL-2.0-only" w2.xzdio "$MODS/lve.ko.xz:$EXTRA/lve.ko.xz" && built=$((built + 1))
mkpkg kmod-prop "Proprietary" w9.bzdio "$MODS/propplain.ko.zst:$EXTRA/propplain.ko.zst" && built=$((built + 1))
mkpkg kmod-propexp "Proprietary" w19.zstdio "$MODS/propexp.ko:$EXTRA/propexp.ko" && built=$((built + 1))
mkpkg kmod-gplimp "GPL-2.0-only" w19.zstdio "$MODS/gplimp.ko:$EXTRA/gplimp.ko" && built=$((built + 1))
mkpkg kernel-devel-tg "GPL-2.0-only" w2.xzdio "$SYMVERS:/usr/src/kernels/$KVER/Module.symvers $(dirname "$SYMVERS")/.config:/usr/src/kernels/$KVER/.config" && built=$((built + 1))
mkpkg nomods "MIT" w9.gzdio "$T/src/README:/usr/share/doc/nomods/README" && built=$((built + 1))
mkpkg kmod-broken "GPL-2.0-only" w9.gzdio "$MODS/gplok.ko:$EXTRA/broken/gplok.ko" && built=$((built + 1))
mkpkg kmod-signed "GPL-2.0-only" w19.zstdio "$MODS/gplok.ko:$EXTRA/signed/gplok.ko" && built=$((built + 1))
if [ $built -eq 9 ]; then ok "9 packages built with rpmbuild (gzip, bzip2, xz, zstd payloads)"; else
	notok "packages built ($built of 9)"
	tail -5 "$T"/rpmbuild-*.log
	finish
fi

# a signed package, with a throwaway key
export GNUPGHOME=$T/gnupg
mkdir -m 700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key 'taintguard test <tg-test@example.invalid>' \
	rsa2048 sign never >/dev/null 2>&1
gpg --batch --armor --export tg-test@example.invalid >"$T/key.asc" 2>/dev/null
check "rpmsign signs kmod-signed" rpmsign --addsign --define "_gpg_name tg-test@example.invalid" --define "__gpg $(command -v gpg)" \
	--define "_gpg_path $GNUPGHOME" "$T/repo/kmod-signed-1.0-1.noarch.rpm" >"$T/sign.log" 2>&1
mkdir -p "$T/keydb"
rpmkeys --dbpath "$T/keydb" --initdb >/dev/null 2>&1
check "key imported into a private keyring" rpmkeys --dbpath "$T/keydb" --import "$T/key.asc"

# corrupt the payload of kmod-broken: flip bytes in the middle of the payload
python3 - "$T/repo/kmod-broken-1.0-1.noarch.rpm" <<'EOF'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
def hdr(off):
    il, dl = struct.unpack('>II', b[off + 8:off + 16])
    return off + 16 + il * 16 + dl
sig_end = hdr(96)
sig_end += (8 - sig_end % 8) % 8
payload = hdr(sig_end)
mid = payload + (len(b) - payload) // 2
for i in range(mid, mid + 16):
    b[i] ^= 0x5a
open(p, 'wb').write(bytes(b))
EOF

createrepo_c -q "$T/repo" >/dev/null 2>&1
check "createrepo_c made repodata" test -f "$T/repo/repodata/repomd.xml"

# ------------------------------------------------------------ the audit
J=$T/out.json
tg audit --format json "$T/repo" >"$J" 2>"$T/err.txt"
rc=$?
check "repository audit exits 3 (a corrupted package is an error)" test $rc -eq 3
check "no progress bar when stderr is not a terminal" sh -c "! grep -q 'packages,' '$T/err.txt'"
check "error message names the package file" grep -q "taintguard: .*kmod-broken-1.0-1.noarch.rpm: payload" "$T/err.txt"

py() { python3 - "$J" "$@"; }
check "JSON parses and has the package contract" py <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "audit/1"
for p in d["packages"]:
    for k in ("package", "nevra", "file", "license_tag", "action", "status", "error", "signature",
              "targets", "modules", "taint"):
        assert k in p, k
    for m in p["modules"]:
        for k in ("path", "package", "nevra", "license_tag", "module", "license", "kernel", "loads",
                  "taint", "refusal", "action", "rule", "reasons", "error", "gpl_only_known"):
            assert k in m, k
        assert m["package"] == p["package"] and m["nevra"] == p["nevra"]
        assert m["license_tag"] == p["license_tag"]
EOF

expect() { # expect PACKAGE STATUS
	py "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = {p["package"]: p for p in d["packages"]}
got = p.get(sys.argv[2], {}).get("status")
if got != sys.argv[3]:
    print("#  %s: expected %s, got %s" % (sys.argv[2], sys.argv[3], got))
    sys.exit(1)
EOF
}
check "kmod-gplok: allow" expect kmod-gplok allow
check "kmod-lve: deny (forced-taint list)" expect kmod-lve deny
check "kmod-prop (Proprietary, .ko.zst in a bzip2 payload): mark" expect kmod-prop mark
check "kmod-propexp (Proprietary exporter): mark" expect kmod-propexp mark
check "kmod-gplimp (GPL user of a proprietary export in another package): deny" expect kmod-gplimp deny
check "kmod-broken (flipped payload bytes): error" expect kmod-broken error
check "kmod-signed: allow" expect kmod-signed allow

check "details: lve is refused, gplimp refused after inheriting P from its proprietary import, license tags" py <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = {p["package"]: p for p in d["packages"]}
lve = p["kmod-lve"]["modules"][0]
assert lve["path"].endswith("/extra/lve.ko.xz") and lve["forced_taint"] and not lve["loads"], lve
assert lve["license"] == "GPL" and lve["license_tag"] == "GPL-2.0-only"
imp = p["kmod-gplimp"]["modules"][0]
assert not imp["loads"], imp
# the kernel (tests/modules/cases.tsv, gplimp): resolving the proprietary
# import first makes the module proprietary, then ktime_get is denied
codes = [r["code"] for r in imp["refusal"]]
assert codes[:1] == ["gpl-only-denied"], codes
assert "P" in [f["flag"] for f in imp["flags"]], imp
assert "P" in p["kmod-prop"]["taint"]
assert p["kmod-prop"]["license_tag"] == "Proprietary"
assert p["kmod-prop"]["modules"][0]["license"] == "Proprietary"
EOF
check "target kernel, symvers and .config come from the kernel-devel package in the repository" py <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
for p in d["packages"]:
    if p["package"] == "kmod-broken":
        continue
    t = p["targets"]
    assert len(t) == 1 and t[0]["kernel"] == os.environ["KVER"], t
    assert t[0]["symvers_source"] == "package", t
    assert "kernel-devel-tg-1.0-1.noarch:/usr/src/kernels/%s/Module.symvers" % os.environ["KVER"] == t[0]["symvers"], t
    assert "kernel-devel-tg-1.0-1.noarch:/usr/src/kernels/%s/.config" % os.environ["KVER"] == t[0]["config"], t
    for m in p["modules"]:
        assert m["gpl_only_known"] is True, m
EOF
check "packages without modules are skipped, not listed" py <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
names = [p["package"] for p in d["packages"]]
assert "nomods" not in names and "kernel-devel-tg" not in names, names
assert d["summary"]["skipped_without_modules"] == 2, d["summary"]
assert names == sorted(names), names
EOF
check "signatures: signed package without its key is nokey, others unsigned" py <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = {p["package"]: p for p in d["packages"]}
assert p["kmod-signed"]["signature"]["status"] == "nokey", p["kmod-signed"]["signature"]
assert "Key ID" in (p["kmod-signed"]["signature"]["info"] or ""), p["kmod-signed"]["signature"]
assert p["kmod-gplok"]["signature"]["status"] == "unsigned"
EOF

tg audit --format json --dbpath "$T/keydb" "$T/repo/kmod-signed-1.0-1.noarch.rpm" "$T/repo/kernel-devel-tg-1.0-1.noarch.rpm" >"$T/signed.json" 2>"$T/signed.err"
rc=$?
check "signed package with its key in --dbpath: signature ok, exit 0" python3 - "$T/signed.json" $rc <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert sys.argv[2] == "0", sys.argv[2]
p = d["packages"][0]
assert p["package"] == "kmod-signed" and p["signature"]["status"] == "ok", p
EOF

# --jobs determinism
tg audit --format json --jobs 1 "$T/repo" >"$T/j1.json" 2>/dev/null
tg audit --format json --jobs 2 "$T/repo" >"$T/j2.json" 2>/dev/null
check "--jobs 1 and --jobs 2 give byte-identical JSON" cmp -s "$T/j1.json" "$T/j2.json"
check "--jobs 2 matches the default run" cmp -s "$J" "$T/j2.json"

# a directory of .rpm files (no repodata), without the broken package
mkdir -p "$T/dir/sub"
cp "$T"/repo/*.rpm "$T/dir/sub/"
rm "$T/dir/sub/kmod-broken-1.0-1.noarch.rpm"
tg audit --format json "$T/dir" >"$T/dir.json" 2>"$T/dir.err"
rc=$?
check "directory of packages (recursive, no repodata): exit 2 (something denied)" test $rc -eq 2
check "directory audit finds the same verdicts" python3 - "$T/dir.json" "$J" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
va = {p["package"]: p["status"] for p in a["packages"]}
vb = {p["package"]: p["status"] for p in b["packages"] if p["package"] != "kmod-broken"}
assert va == vb, (va, vb)
EOF

# --excludes
tg audit --excludes "$T/dir" >"$T/excl.txt" 2>/dev/null
check "--excludes prints the denied NEVRAs for dnf" \
	test "$(cat "$T/excl.txt")" = "excludepkgs=kmod-gplimp-1.0-1.noarch,kmod-lve-1.0-1.noarch"

# a single package alone: gplimp without its provider is still refused (unknown symbol)
tg audit "$T/repo/kmod-gplok-1.0-1.noarch.rpm" >"$T/one.txt" 2>&1
rc=$?
check "single clean package: text summary, exit 0 or 1 (symvers from the host)" \
	sh -c "[ $rc -le 1 ] && grep -q '^1 package with kernel modules: ' '$T/one.txt'"
tg audit --symvers "$SYMVERS" "$T/repo/kmod-gplok-1.0-1.noarch.rpm" "$T/repo/nomods-1.0-1.noarch.rpm" >"$T/one.txt" 2>&1
rc=$?
check "package without modules next to a clean one: exit 0" test $rc -eq 0
check "text output: only the summary and the count of what is allowed (problems first)" \
	sh -c "! grep -q 'kmod-gplok' '$T/one.txt' && grep -q '1 package without modules skipped' '$T/one.txt' &&
	       grep -q '^1 allowed module not listed (1 package with nothing else); --all lists every module\$' '$T/one.txt' &&
	       [ \$(grep -c . '$T/one.txt') -eq 2 ]"
tg audit --all --symvers "$SYMVERS" "$T/repo/kmod-gplok-1.0-1.noarch.rpm" "$T/repo/nomods-1.0-1.noarch.rpm" >"$T/all.txt" 2>&1
check "text output with --all has the package summary and module details" \
	sh -c "grep -q '^kmod-gplok-1.0-1.noarch: allow, 1 module' '$T/all.txt' && grep -q '^== kmod-gplok' '$T/all.txt' && grep -q '1 package without modules skipped' '$T/all.txt' && ! grep -q 'not listed' '$T/all.txt'"

# A package cannot vouch for its own modules: its forged Module.symvers (GPL-only
# ktime_get claimed plain EXPORT_SYMBOL) is not used; the host's table judges it.
sed 's/\tktime_get\tvmlinux\tEXPORT_SYMBOL_GPL/\tktime_get\tvmlinux\tEXPORT_SYMBOL/' "$SYMVERS" >"$T/forged.symvers"
mkdir -p "$T/forge"
if mkpkg kmod-forge "Proprietary" w9.gzdio "$MODS/propgpl.ko:$EXTRA/propgpl.ko $T/forged.symvers:/usr/src/kernels/$KVER/Module.symvers"; then
	mv "$T/repo/kmod-forge-1.0-1.noarch.rpm" "$T/forge/"
	tg audit --format json "$T/forge/kmod-forge-1.0-1.noarch.rpm" >"$T/forge.json" 2>"$T/forge.err"
	rc=$?
	check "forged Module.symvers in a module package: not used, propgpl denied (exit $rc = 2)" \
		python3 - "$T/forge.json" "$rc" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["packages"][0]
assert sys.argv[2] == "2", sys.argv[2]
assert p["action"] == "deny", p["action"]
assert p["targets"][0]["symvers_source"] != "package", p["targets"]
assert "ktime_get" in json.dumps(p["modules"][0]["refusal"]), p["modules"][0]["refusal"]
EOF2
	check "forged Module.symvers: the message names the file and why" \
		grep -q "kmod-forge-1.0-1.noarch.rpm: /usr/src/kernels/$KVER/Module.symvers: not used for kernel $KVER: the package also ships out-of-tree modules" "$T/forge.err"
else
	notok "rpmbuild kmod-forge"
fi

# repository metadata in another encoding than UTF-8 (createrepo_c 0.17's parser
# crashed on encoding="UTF-7" with an unconvertible byte: found by the fuzzer)
cp -a "$T/repo" "$T/utf7repo"
sed -i '1s/encoding="UTF-8"/encoding="UTF-7"/; s/<revision>/<revision>\xff/' "$T/utf7repo/repodata/repomd.xml"
tg audit "$T/utf7repo" >"$T/utf7.out" 2>"$T/utf7.err"
rc=$?
check "repomd.xml declaring UTF-7: exit 3, the file and the cause named, nothing judged (exit $rc)" \
	bash -c "test $rc -eq 3 && grep -q 'utf7repo/repodata/repomd.xml: declares encoding .UTF-7.; repository metadata must be UTF-8' '$T/utf7.err' && ! grep -q allow '$T/utf7.out'"

# broken inputs
head -c 4000 "$T/repo/kmod-gplok-1.0-1.noarch.rpm" >"$T/trunc.rpm"
echo "not an rpm" >"$T/junk.rpm"
cp "$T/repo/kmod-gplok-1.0-1.noarch.rpm" "$T/hdr.rpm"
python3 - "$T/hdr.rpm" <<'EOF'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
def hdr(off):
    il, dl = struct.unpack('>II', b[off + 8:off + 16])
    return off + 16 + il * 16 + dl, il
end, _ = hdr(96)
end += (8 - end % 8) % 8
hend, il = hdr(end)
store = end + 16 + il * 16
# flip a byte of the header's data store (the Summary text lives there)
i = b.index(b"taintguard audit test package", store)
b[i] ^= 0x20
open(p, 'wb').write(bytes(b))
EOF
for f in trunc junk hdr; do
	tg audit --format json "$T/$f.rpm" >"$T/$f.json" 2>"$T/$f.err"
	rc=$?
	check "$f.rpm: exit 3 and a package error, never clean" python3 - "$T/$f.json" $rc <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert sys.argv[2] == "3", sys.argv[2]
p = d["packages"][0]
assert p["status"] == "error" and p["error"], p
EOF
done
check "header digest failure is reported as such" grep -q "header digest" "$T/hdr.err"

# JUnit
tg audit --format junit "$T/repo" >"$T/junit.xml" 2>/dev/null
check "JUnit: parses, one testcase per package, failure for deny, error for corrupt" python3 - "$T/junit.xml" <<'EOF'
import os, sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
assert r.tag == "testsuites"
cases = {c.get("name"): c for c in r.iter("testcase")}
assert len(cases) == 7, list(cases)
assert cases["kmod-lve-1.0-1.noarch"].find("failure") is not None
assert cases["kmod-gplimp-1.0-1.noarch"].find("failure") is not None
assert cases["kmod-gplok-1.0-1.noarch"].find("failure") is None
assert cases["kmod-broken-1.0-1.noarch"].find("error") is not None
props = {p.get("name"): p.get("value") for p in cases["kmod-prop-1.0-1.noarch"].iter("property")}
assert props["action"] == "mark" and props["license_tag"] == "Proprietary", props
assert props["kernel"].startswith(os.environ["KVER"] + " kernel-devel-tg"), props
ts = r.find("testsuite")
assert ts.get("tests") == "7" and ts.get("failures") == "2" and ts.get("errors") == "1", ts.attrib
EOF

# SARIF
tg audit --format sarif "$T/repo" >"$T/sarif.json" 2>/dev/null
check "SARIF 2.1.0: required fields, one result per denied/marked module" python3 - "$T/sarif.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["version"] == "2.1.0" and "sarif-2.1.0" in s["$schema"]
run = s["runs"][0]
assert run["tool"]["driver"]["name"] == "taintguard"
rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
res = run["results"]
for r in res:
    assert r["ruleId"] in rules and rules[r["ruleIndex"]] == r["ruleId"]
    assert r["level"] in ("error", "warning")
    assert r["message"]["text"]
    assert r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
by = {}
for r in res:
    by.setdefault(r["properties"]["package"], []).append(r)
assert by["kmod-lve"][0]["level"] == "error" and by["kmod-lve"][0]["ruleId"] == "refused-by-kernel" or \
       by["kmod-lve"][0]["ruleId"] == "forced-taint-list", by["kmod-lve"]
assert by["kmod-prop"][0]["level"] == "warning" and by["kmod-prop"][0]["ruleId"] == "proprietary"
assert by["kmod-gplimp"][0]["level"] == "error"
assert "kmod-gplok" not in by and "kmod-signed" not in by
assert any(r["ruleId"] == "read-error" for r in by["kmod-broken"])
EOF

# ----------------------------------------------------------- --installed
R=$T/root
mkdir -p "$R"
# Set-up, not what is under test: --noplugins, or a host with taintguard
# installed (its rpm plugin in rpm's default macros) refuses kmod-lve here.
if rpm --root "$R" -i --nodeps --noscripts --noplugins --ignorearch --nosignature \
	"$T/repo/kmod-gplok-1.0-1.noarch.rpm" "$T/repo/kmod-lve-1.0-1.noarch.rpm" >"$T/rpmi.log" 2>&1; then
	ok "packages installed into a test root"
	mkdir -p "$R/lib/modules/$KVER/updates/dkms" "$R/lib/modules/6.1.0-99-amd64/weak-updates" \
		"$R/usr/src/linux-headers-$KVER"
	cp "$MODS/propplain.ko" "$R/lib/modules/$KVER/updates/dkms/"
	# a newer kernel reusing kmod-gplok's module through weak-updates
	ln -s "/lib/modules/$KVER/extra/gplok.ko" "$R/lib/modules/6.1.0-99-amd64/weak-updates/gplok.ko"
	cp "$SYMVERS" "$R/usr/src/linux-headers-$KVER/Module.symvers"
	# the kernel's config, as linux-image installs it: vermagic and signing facts
	mkdir -p "$R/boot"
	cp "$KBUILD/.config" "$R/boot/config-$KVER"
	tg audit --installed --root "$R" --format json >"$T/inst.json" 2>"$T/inst.err"
	rc=$?
	check "--installed: exit 2, owned packages and unowned modules (DKMS, weak-updates)" \
		python3 - "$T/inst.json" $rc <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
assert sys.argv[2] == "2", sys.argv[2]
p = {(x["package"] or "(unowned)"): x for x in d["packages"]}
assert set(p) == {"kmod-gplok", "kmod-lve", "(unowned)"}, list(p)
assert p["kmod-lve"]["status"] == "deny" and p["kmod-lve"]["installed"]
assert p["kmod-gplok"]["status"] == "allow", p["kmod-gplok"]
assert p["kmod-gplok"]["targets"][0]["symvers_source"] == "host", p["kmod-gplok"]["targets"]
u = {m["path"]: m for m in p["(unowned)"]["modules"]}
K = os.environ["KVER"]
assert set(u) == {"/lib/modules/%s/updates/dkms/propplain.ko" % K,
                  "/lib/modules/6.1.0-99-amd64/weak-updates/gplok.ko"}, list(u)
w = u["/lib/modules/6.1.0-99-amd64/weak-updates/gplok.ko"]
assert w["link_target"] == "/lib/modules/%s/extra/gplok.ko" % K and w["kernel"] == "6.1.0-99-amd64", w
assert w["error"] is None and w["owned"] is False and w["module"] == "gplok", w
assert u["/lib/modules/%s/updates/dkms/propplain.ko" % K]["action"] == "mark"
EOF
	# kmod-gplok's module file gone on a quiet system (no rpm running, its
	# header still there), the weak-updates link to it dangling: both are
	# unreadable (exit 3), neither taken for something erased meanwhile
	mv "$R/lib/modules/$KVER/extra/gplok.ko" "$T/gplok.ko.away"
	tg audit --installed --root "$R" --format json >"$T/miss.json" 2>"$T/miss.err"
	rc=$?
	mv "$T/gplok.ko.away" "$R/lib/modules/$KVER/extra/gplok.ko"
	check "--installed: a missing module file and a dangling link are errors (exit 3), still listed" \
		python3 - "$T/miss.json" $rc <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
assert sys.argv[2] == "3", sys.argv[2]
p = {(x["package"] or "(unowned)"): x for x in d["packages"]}
assert set(p) == {"kmod-gplok", "kmod-lve", "(unowned)"}, list(p)
K = os.environ["KVER"]
g = {m["path"]: m for m in p["kmod-gplok"]["modules"]}
assert "No such file" in (g["/lib/modules/%s/extra/gplok.ko" % K]["error"] or ""), g
u = {m["path"]: m for m in p["(unowned)"]["modules"]}
assert u["/lib/modules/6.1.0-99-amd64/weak-updates/gplok.ko"]["error"], u
EOF
else
	notok "packages installed into a test root"
	tail -5 "$T/rpmi.log"
fi

# ------------------------------------------------- --installed on a Debian root
# Usrmerged (lib -> usr/lib) with two kernels: in-tree-like modules of a .deb
# installed by the real dpkg (its .list says /lib/modules/...), a DKMS module
# laid out as dkms lays it (tree copy, kernel-KVER-ARCH link, installed copy in
# updates/dkms/), and a link in updates/ to a packaged module: every file is
# listed once, named by its owner; the default text lists only the problems.
D=$T/debroot
K2=6.1.0-98-tg
ARCH=$(dpkg --print-architecture 2>/dev/null || echo amd64)
if command -v dpkg-deb >/dev/null && command -v dpkg >/dev/null; then
	mkdir -p "$D/usr/lib" "$D/var/lib/dpkg/info" "$D/var/lib/dpkg/updates" "$D/var/lib/dpkg/triggers" \
		"$D/usr/src/linux-headers-$KVER" "$D/boot"
	ln -s usr/lib "$D/lib"
	: >"$D/var/lib/dpkg/status"
	: >"$D/var/lib/dpkg/available"
	cp "$SYMVERS" "$D/usr/src/linux-headers-$KVER/Module.symvers"
	cp "$KBUILD/.config" "$D/boot/config-$KVER"
	P=$T/deb/linux-image-tg
	mkdir -p "$P/DEBIAN" "$P/lib/modules/$KVER/kernel/drivers/tg" "$P/lib/modules/$K2/kernel/drivers/tg"
	cp "$MODS/gplok.ko" "$P/lib/modules/$KVER/kernel/drivers/tg/"
	cp "$MODS/gplok.ko" "$P/lib/modules/$K2/kernel/drivers/tg/"
	printf 'Package: linux-image-tg\nVersion: 1.0-1\nArchitecture: %s\nMaintainer: t <t@example.org>\nDescription: taintguard audit test kernel modules\n' \
		"$ARCH" >"$P/DEBIAN/control"
	if dpkg-deb --root-owner-group --build "$P" "$T/deb/linux-image-tg.deb" >"$T/deb.log" 2>&1 &&
	   dpkg --root="$D" --force-all --no-triggers -i "$T/deb/linux-image-tg.deb" >>"$T/deb.log" 2>&1 &&
	   grep -q "^/lib/modules/$KVER/kernel/drivers/tg/gplok.ko$" "$D/var/lib/dpkg/info/linux-image-tg.list"; then
		ok "a .deb of in-tree-like modules installed by dpkg into a usrmerged root"
	else
		notok "a .deb of in-tree-like modules installed by dpkg into a usrmerged root"
		tail -5 "$T/deb.log"
	fi
	# DKMS's layout for tgwl/1.0 built for KVER (docs/dkms.md)
	DT=$D/var/lib/dkms/tgwl
	mkdir -p "$DT/1.0/$KVER/$ARCH/module" "$D/usr/lib/modules/$KVER/updates/dkms" "$D/usr/src/tgwl-1.0"
	ln -s "/usr/src/tgwl-1.0" "$DT/1.0/source"
	cp "$MODS/propplain.ko" "$DT/1.0/$KVER/$ARCH/module/"
	cp "$MODS/propplain.ko" "$D/usr/lib/modules/$KVER/updates/dkms/"
	ln -s "1.0/$KVER/$ARCH" "$DT/kernel-$KVER-$ARCH"
	# a second path to the packaged module, in a directory the kernel table walks
	ln -s ../kernel/drivers/tg/gplok.ko "$D/usr/lib/modules/$KVER/updates/tglink.ko"
	# What K2 will miss: tgwl's build for K2 failed (dkms left build/make.log
	# naming K2, no 1.0/K2/); tgnot/2.0 was never built for K2; tgexcl/3.0's
	# dkms.conf (in a source/ directory of its own, as dkms ldtarball leaves
	# it) has a BUILD_EXCLUSIVE_KERNEL ERE that matches KVER only.
	mkdir -p "$DT/1.0/build"
	printf 'DKMS make.log for tgwl-1.0 for kernel %s (%s)\nMon Jan  1 00:00:00 UTC 2024\ntgwl.c:1: error: too old\n' \
		"$K2" "$ARCH" >"$DT/1.0/build/make.log"
	printf 'PACKAGE_NAME="tgwl"\nPACKAGE_VERSION="1.0"\nBUILT_MODULE_NAME[0]="propplain"\n' >"$D/usr/src/tgwl-1.0/dkms.conf"
	# dkms_install NAME VERSION MODULE: built and installed for KVER, as dkms does
	dkms_install() {
		mkdir -p "$D/var/lib/dkms/$1/$2/$KVER/$ARCH/module"
		cp "$MODS/$3.ko" "$D/var/lib/dkms/$1/$2/$KVER/$ARCH/module/"
		cp "$MODS/$3.ko" "$D/usr/lib/modules/$KVER/updates/dkms/"
		ln -s "$2/$KVER/$ARCH" "$D/var/lib/dkms/$1/kernel-$KVER-$ARCH"
	}
	dkms_install tgnot 2.0 exporter
	mkdir -p "$D/usr/src/tgnot-2.0"
	ln -s /usr/src/tgnot-2.0 "$D/var/lib/dkms/tgnot/2.0/source"
	printf 'PACKAGE_NAME="tgnot"\nPACKAGE_VERSION="2.0"\n' >"$D/usr/src/tgnot-2.0/dkms.conf"
	dkms_install tgexcl 3.0 propexp
	mkdir -p "$D/var/lib/dkms/tgexcl/3.0/source"
	EXCL=${KVER//./\\.}
	EXCL="^(${EXCL//+/\\+}|7\\.[0-9]+\\..*)\$"
	printf 'PACKAGE_NAME="tgexcl"\nBUILD_EXCLUSIVE_KERNEL="%s"\n' "$EXCL" >"$D/var/lib/dkms/tgexcl/3.0/source/dkms.conf"

	tg audit --installed --root "$D" >"$T/deb.txt" 2>"$T/deb.err"
	rc=$?
	# K2 has no export table in the root: its gplok is marked (not fully checked), KVER's is allowed
	# three marked packages of a dozen lines each and the kernel table: short all the same
	check "Debian root: default text, exit 1, only the problems: the marked modules, not the allowed one (exit $rc)" \
		bash -c "[ $rc -eq 1 ] && ! grep -q '$KVER/kernel/drivers/tg/gplok' '$T/deb.txt' &&
			 grep -q '^/lib/modules/$K2/kernel/drivers/tg/gplok.ko: mark' '$T/deb.txt' &&
			 [ \$(grep -c '^== ' '$T/deb.txt') -eq 3 ] && [ \$(wc -l <'$T/deb.txt') -le 52 ] &&
			 grep -q '^4 packages with kernel modules: 0 deny, 3 mark, 1 allow, 0 error; 5 modules' '$T/deb.txt'"
	check "Debian root: the DKMS module named NAME/VERSION (dkms) once, with its taint" \
		bash -c "grep -q '^== tgwl/1.0 (dkms)\$' '$T/deb.txt' && [ \$(grep -c 'propplain.ko' '$T/deb.txt') -eq 3 ] &&
			 grep -q '^  propplain *tgwl/1.0 (dkms) *mark POE' '$T/deb.txt'"
	check "Debian root: what is left out is counted (modules, kernel table)" \
		bash -c "grep -q '^2 allowed modules not listed (1 package with nothing else); --all lists every module\$' '$T/deb.txt' &&
			 grep -q '^  (2 more load cleanly, allowed: not listed; --all lists them)\$' '$T/deb.txt'"
	# K2's rows: what it will miss, with why; KVER's: nothing missing
	check "Debian root: K2 lists the three DKMS modules it will miss, with why and the log; KVER none" \
		bash -c "sed -n '/^kernel $K2: /,/^kernel /p' '$T/deb.txt' >'$T/k2.txt' &&
			 grep -q '^kernel $K2: 0 modules, 3 missing\$' '$T/k2.txt' &&
			 grep -qF 'propplain            tgwl/1.0 (dkms)          missing        /lib/modules/$K2/updates/dkms/propplain.ko: not built for this kernel: build failed, see /var/lib/dkms/tgwl/1.0/build/make.log' '$T/k2.txt' &&
			 grep -qF 'exporter             tgnot/2.0 (dkms)         missing        /lib/modules/$K2/updates/dkms/exporter.ko: not built for this kernel yet' '$T/k2.txt' &&
			 grep -qF 'propexp              tgexcl/3.0 (dkms)        missing        /lib/modules/$K2/updates/dkms/propexp.ko: not built for this kernel: BUILD_EXCLUSIVE_KERNEL=\"$EXCL\" in /var/lib/dkms/tgexcl/3.0/source/dkms.conf excludes it' '$T/k2.txt' &&
			 grep -q '^kernel $KVER: 4 modules\$' '$T/deb.txt' && [ \$(grep -c ' missing ' '$T/deb.txt') -eq 3 ]"
	tg audit --installed --root "$D" --all >"$T/deball.txt" 2>&1
	check "Debian root: --all lists every module, each once (a module behind /lib and /usr/lib, and a link)" \
		bash -c "grep -q '^/lib/modules/$KVER/kernel/drivers/tg/gplok.ko: allow' '$T/deball.txt' &&
			 [ \$(grep -c '^/lib/modules/.*/gplok.ko: ' '$T/deball.txt') -eq 2 ] && ! grep -q '/usr/lib/modules' '$T/deball.txt' &&
			 grep -q '^== linux-image-tg_1.0-1_$ARCH\$' '$T/deball.txt' &&
			 grep -q '^  gplok  *linux-image-tg  *allow .*updates/tglink.ko\$' '$T/deball.txt'"
	tg audit --installed --root "$D" --format json >"$T/deb.json" 2>/dev/null
	check "Debian root: JSON has every module once, dpkg and DKMS owners, nothing unowned" \
		python3 - "$T/deb.json" "$K2" <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
K, K2 = os.environ["KVER"], sys.argv[2]
p = {x["package"]: x for x in d["packages"]}
assert set(p) == {"linux-image-tg", "tgwl/1.0 (dkms)", "tgnot/2.0 (dkms)", "tgexcl/3.0 (dkms)"}, list(p)
assert sorted(m["path"] for m in p["linux-image-tg"]["modules"]) == sorted(
    "/lib/modules/%s/kernel/drivers/tg/gplok.ko" % k for k in (K, K2)), p["linux-image-tg"]["modules"]
assert [m["path"] for m in p["tgwl/1.0 (dkms)"]["modules"]] == ["/lib/modules/%s/updates/dkms/propplain.ko" % K]
assert p["tgwl/1.0 (dkms)"]["action"] == "mark" and "P" in p["tgwl/1.0 (dkms)"]["taint"]
rows = {r["release"]: r["modules"] for r in d["kernels"]}
assert sorted(rows) == sorted([K, K2]), list(rows)
own = {m["file"]: m["package"] for m in rows[K]}
assert own == {"/lib/modules/%s/updates/dkms/propplain.ko" % K: "tgwl/1.0 (dkms)",
               "/lib/modules/%s/updates/dkms/exporter.ko" % K: "tgnot/2.0 (dkms)",
               "/lib/modules/%s/updates/dkms/propexp.ko" % K: "tgexcl/3.0 (dkms)",
               "/lib/modules/%s/updates/tglink.ko" % K: "linux-image-tg"}, own
assert all(m["outcome"] != "missing" for m in rows[K]), rows[K]
miss = {m["module"]: m for m in rows[K2]}
assert sorted(miss) == ["exporter", "propexp", "propplain"], rows[K2]
for name, pkg in (("propplain", "tgwl/1.0"), ("exporter", "tgnot/2.0"), ("propexp", "tgexcl/3.0")):
    m = miss[name]
    assert m["outcome"] == "missing" and m["place"] == "dkms-not-built", m
    assert m["package"] == pkg + " (dkms)" and m["path"] == "/lib/modules/%s/updates/dkms/%s.ko" % (K2, name), m
assert miss["propplain"]["reason"] == "not built for this kernel: build failed, see /var/lib/dkms/tgwl/1.0/build/make.log", miss["propplain"]
assert miss["exporter"]["reason"] == "not built for this kernel yet", miss["exporter"]
assert miss["propexp"]["reason"].startswith("not built for this kernel: BUILD_EXCLUSIVE_KERNEL="), miss["propexp"]
EOF
	# The Debian kernel postinst.d hook, run for K2 against this root (its
	# trees as host paths, as tests/kupdate drives it): the same lines.
	mkdir -p "$T/hookmarks" "$T/hookmodprobe"
	cat >"$T/hook.conf" <<EOC
policy=$POLICY
root=$D
install_tree=$D/lib/modules
dkms_tree=$D/var/lib/dkms
marks_dir=$T/hookmarks
modprobe_dir=$T/hookmodprobe
framework_conf=$T/framework.conf
dkms=/bin/false
EOC
	TAINTGUARD_DKMS_CONF=$T/hook.conf "$TOP/$B/taintguard-dkms" kernel-postinst "$K2" >"$T/hook.txt" 2>&1
	rc=$?
	M="kernel $K2: "
	check "kernel hook for K2: exit 0, each DKMS module K2 will miss named with why (exit $rc)" \
		bash -c "[ $rc -eq 0 ] &&
			 grep -qF '${M}tgwl/1.0 (dkms): module propplain ($D/lib/modules/$K2/updates/dkms/propplain.ko): will be missing: not built for this kernel: build failed, see $D/var/lib/dkms/tgwl/1.0/build/make.log' '$T/hook.txt' &&
			 grep -qF '${M}tgnot/2.0 (dkms): module exporter ($D/lib/modules/$K2/updates/dkms/exporter.ko): will be missing: not built for this kernel yet' '$T/hook.txt' &&
			 grep -qF '${M}tgexcl/3.0 (dkms): module propexp ($D/lib/modules/$K2/updates/dkms/propexp.ko): will be missing: not built for this kernel: BUILD_EXCLUSIVE_KERNEL=\"$EXCL\" in $D/var/lib/dkms/tgexcl/3.0/source/dkms.conf excludes it' '$T/hook.txt' &&
			 [ \$(grep -c 'will be missing: ' '$T/hook.txt') -eq 3 ] &&
			 grep -qF '${M}3 DKMS module(s) installed for another kernel will be missing under it' '$T/hook.txt'"
	{ echo "# default audit --installed of the Debian test root:"; sed 's/^/#   /' "$T/deb.txt"; }
else
	notok "dpkg and dpkg-deb are installed"
fi

# ---------------------------------------------------------------- conflicts between packages
# Two packages exporting the same symbol: the set loads in sorted order and the
# kernel refuses the second exporter (tests/modules: dupexp, proved under QEMU).
mv "$T/repo" "$T/repo.main"
mkdir -p "$T/repo" "$T/conflict"
mkpkg kmod-a-exporter "GPL-2.0-only" w19.zstdio "$MODS/exporter.ko:$EXTRA/exporter.ko" &&
	mkpkg kmod-b-dupexp "GPL-2.0-only" w19.zstdio "$MODS/dupexp.ko:$EXTRA/dupexp.ko" &&
	mv "$T/repo"/*.rpm "$T/conflict/"
rm -rf "$T/repo"
mv "$T/repo.main" "$T/repo"
tg audit --format json --kernel "$KVER" "$T/conflict" >"$T/conflict.json" 2>"$T/conflict.err"
rc=$?
check "two packages exporting tg_plain_fn: the second is denied (duplicate-export), exit 2" \
	python3 - "$T/conflict.json" $rc <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert sys.argv[2] == "2", sys.argv[2]
p = {p["package"]: p for p in d["packages"]}
assert p["kmod-a-exporter"]["status"] == "allow", p["kmod-a-exporter"]
m = p["kmod-b-dupexp"]["modules"][0]
r = m["refusal"][0]
assert p["kmod-b-dupexp"]["status"] == "deny" and r["code"] == "duplicate-export", m
assert r["symbols"] == ["tg_plain_fn"] and "exporter" in r["reason"], r
EOF
both_alone() {
	tg audit -q --kernel "$KVER" "$T/conflict/kmod-a-exporter-1.0-1.noarch.rpm" >/dev/null &&
		tg audit -q --kernel "$KVER" "$T/conflict/kmod-b-dupexp-1.0-1.noarch.rpm" >/dev/null
}
check "the same packages audited one at a time: both allowed" both_alone

# ---------------------------------------------------------------- signatures
# Verified with the keys of the host's kernel image: the distribution's own
# dummy.ko, and the same with one signed byte changed (tests/modules sig/,
# proved under QEMU: EKEYREJECTED).
mv "$T/repo" "$T/repo.main"
mkdir -p "$T/repo" "$T/sigs"
ABSOUT=$(cd "$OUT" && pwd)
mkpkg kmod-c-distsig "GPL-2.0-only" w19.zstdio "$ABSOUT/dist/dummy.ko:$EXTRA/tgdummy.ko" &&
	mkpkg kmod-d-badsig "GPL-2.0-only" w19.zstdio "$ABSOUT/sig/dummy_modified.ko:$EXTRA/tgdummy.ko" &&
	mv "$T/repo"/*.rpm "$T/sigs/"
rm -rf "$T/repo"
mv "$T/repo.main" "$T/repo"
for p in kmod-c-distsig kmod-d-badsig; do
	tg audit --format json --kernel "$KVER" "$T/sigs/$p-1.0-1.noarch.rpm" >"$T/$p.json" 2>"$T/$p.err"
	echo $? >"$T/$p.rc"
done
check "signed by the kernel's key: verified, allowed (exit 0)" \
	python3 - "$T/kmod-c-distsig.json" "$(cat "$T/kmod-c-distsig.rc")" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert sys.argv[2] == "0", sys.argv[2]
m = d["packages"][0]["modules"][0]
assert m["signature"] == "verified" and m["action"] == "allow" and not m["incomplete"], m
assert "Build time autogenerated kernel key" in m["signature_detail"], m
EOF
check "a signed byte changed: refused bad-signature, -EKEYREJECTED, denied (exit 2)" \
	python3 - "$T/kmod-d-badsig.json" "$(cat "$T/kmod-d-badsig.rc")" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert sys.argv[2] == "2", sys.argv[2]
p = d["packages"][0]
m = p["modules"][0]
assert p["status"] == "deny" and m["signature"] == "rejected", m
assert m["refusal"][0]["code"] == "bad-signature" and m["errno"] == -129 and m["taint"] == "", m
EOF

# ---------------------------------------------------------------- hidden modules
# lve.ko shipped as /opt/vendor/engine.bin (a scriptlet could insmod it): only
# the file class rpmbuild records in the header says it is an ELF relocatable.
mv "$T/repo" "$T/repo.main"
mkdir -p "$T/repo" "$T/hidden"
mkpkg vendor-engine "GPL-2.0-only" w19.zstdio "$MODS/lve.ko:/opt/vendor/engine.bin" &&
	mv "$T/repo"/*.rpm "$T/hidden/"
rm -rf "$T/repo"
mv "$T/repo.main" "$T/repo"
tg audit --format json --kernel "$KVER" "$T/hidden" >"$T/hidden.json" 2>"$T/hidden.err"
rc=$?
check "lve.ko hidden as /opt/vendor/engine.bin: found by its file class, denied, said where it lives" \
	python3 - "$T/hidden.json" $rc <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert sys.argv[2] == "2", sys.argv[2]
p = d["packages"][0]
assert p["package"] == "vendor-engine" and p["status"] == "deny", p
m = p["modules"][0]
assert m["path"] == "/opt/vendor/engine.bin" and m["module"] == "lve" and m["hidden"] is True, m
assert any("/opt/vendor/engine.bin, outside the module directories" in n for n in m["notes"]), m["notes"]
EOF
# A repository's filelists carry no file classes (docs/candidates.md): a package
# whose only module hides is skipped, and the report says so; one chosen for a
# named module has its hidden one found from its header too.
mv "$T/repo" "$T/repo.main"
mkdir -p "$T/repo" "$T/hrepo"
mkpkg vendor-mixed "GPL-2.0-only" w19.zstdio "$MODS/gplok.ko:$EXTRA/gplok.ko $MODS/lve.ko:/opt/vendor/engine.bin" &&
	mv "$T/repo"/*.rpm "$T/hrepo/"
rm -rf "$T/repo"
mv "$T/repo.main" "$T/repo"
cp "$T/hidden"/*.rpm "$T/hrepo/"
createrepo_c -q "$T/hrepo" >/dev/null 2>&1
tg audit --no-cache --kernel "$KVER" "$T/hrepo" >"$T/hrepo.txt" 2>&1
rc=$?
check "repository: the package chosen for gplok.ko has its hidden lve found and denied (exit $rc = 2)" \
	sh -c "test $rc = 2 && grep -q '^  refused vendor-mixed-1.0-1.noarch: module lve hidden as /opt/vendor/engine.bin (modprobe' '$T/hrepo.txt'"
check "repository: the package whose only module hides is skipped by the metadata, and the report says so" \
	sh -c "! grep -q vendor-engine '$T/hrepo.txt' && grep -q '^note: 1 of them by repository file lists, which carry no file classes' '$T/hrepo.txt'"

# ---------------------------------------------------------- kernel update
# A kernel package among the audited ones (image, .config, export table: a
# second kernel K2, the host's or unpacked, repackaged) is a kernel update of --root: the root's
# module in K2's extra/ (built for $KVER) is judged against K2 and gets the
# rpm plugin's line; a package with K2's export table but no image is not a
# kernel and says nothing of the root.
. tests/lib/second_kernel.sh
if ! tg_second_kernel "$KVER"; then
	notok "kernel update: a second kernel, installed or unpacked by tests/kernel/target.sh (only $KVER here, and none could be fetched)"
else
	mkdir -p "$T/k2" "$T/kroot/lib/modules/$K2/extra"
	gzip -c "$K2R/usr/src/linux-headers-$K2/Module.symvers" >"$T/k2/symvers.gz"
	D2=$(ls "$K2R/lib/modules/$K2/kernel/drivers/net/"dummy.ko*)
	mkdir -p "$T/repo.k" && mv "$T/repo" "$T/repo.main" && mkdir -p "$T/repo"
	mkpkg tgkernel "GPL-2.0-only" w1.gzdio "$K2R/boot/vmlinuz-$K2:/boot/vmlinuz-$K2 $K2R/boot/config-$K2:/boot/config-$K2 $T/k2/symvers.gz:/lib/modules/$K2/symvers.gz $D2:/lib/modules/$K2/kernel/drivers/net/${D2##*/}"
	mkpkg tgnotkernel "GPL-2.0-only" w1.gzdio "$T/k2/symvers.gz:/lib/modules/$K2/symvers.gz $K2R/boot/config-$K2:/boot/config-$K2"
	mv "$T/repo"/*.rpm "$T/repo.k/" && rmdir "$T/repo" && mv "$T/repo.main" "$T/repo"
	cp "$MODS/gplok.ko" "$T/kroot/lib/modules/$K2/extra/tgkup.ko"
	tg audit --no-cache --format json --root "$T/kroot" "$T/repo.k/tgkernel-1.0-1.noarch.rpm" \
		"$T/repo.k/tgnotkernel-1.0-1.noarch.rpm" >"$T/kup.json" 2>"$T/kup.err"
	check "kernel update: one entry, for tgkernel and $K2, with the root's module refused (JSON)" python3 -c '
import json, sys
k = json.load(open(sys.argv[1]))["kernel_updates"]
assert len(k) == 1 and k[0]["release"] == sys.argv[2] and k[0]["nevra"] == "tgkernel-1.0-1.noarch", k
assert k[0]["modules"] == 1 and k[0]["error"] is None, k
assert k[0]["lines"] == ["kernel %s: (no package): module gplok (/lib/modules/%s/extra/tgkup.ko): the kernel would refuse it: "
                         % (sys.argv[2], sys.argv[2]) + k[0]["lines"][0].split("the kernel would refuse it: ")[1]], k
' "$T/kup.json" "$K2"
	tg audit --no-cache --root "$T/kroot" "$T/repo.k/tgkernel-1.0-1.noarch.rpm" >"$T/kup.txt" 2>&1
	check "kernel update (text): the count and the line, after the report" sh -c "grep -q '^kernel $K2 (tgkernel-1.0-1.noarch): 1 installed module will not load cleanly under it\$' '$T/kup.txt' &&
		grep -q '^  kernel $K2: (no package): module gplok (/lib/modules/$K2/extra/tgkup.ko): the kernel would refuse it: ' '$T/kup.txt'"
	rm -rf "$T/repo.k" "$T/kroot" "$T/k2"
fi

# ---------------------------------------------------------------- usage
tg audit --help >"$T/help.txt"
check "--help exits 0 and documents --installed, --excludes and exit codes" \
	sh -c "grep -q -- '--installed' '$T/help.txt' && grep -q -- '--excludes' '$T/help.txt' && grep -q 'Exit codes' '$T/help.txt'"
tg audit >/dev/null 2>"$T/usage.err"
rc=$?
check "no PATH: exit 3 with a message" sh -c "[ $rc -eq 3 ] && grep -q '^taintguard: audit needs' '$T/usage.err'"
tg audit "$T/nonexistent.rpm" >/dev/null 2>"$T/ne.err"
rc=$?
check "missing file: 'taintguard: FILE: cause', exit 3" \
	sh -c "[ $rc -eq 3 ] && grep -q '^taintguard: $T/nonexistent.rpm: No such file' '$T/ne.err'"

finish
