#!/bin/bash
# Seed inputs for the fuzz harnesses, generated from the repository (binary
# seeds are never committed: they are rebuilt here from the test modules).
#   tests/fuzz/seeds.sh OUTDIR     -> OUTDIR/{module,decompress,symvers,policy,package,record,kimage,repodata,facts,guard}/
set -eu
cd "$(dirname "$0")/../.."
OUT=$1
MODS=${TG_MODULES_OUT:-tests/modules/out}
rm -rf "$OUT"
mkdir -p "$OUT"/{module,decompress,symvers,policy,package,record,kimage,repodata,facts,guard}
tests/modules/build.sh "$MODS" >/dev/null
# module: a few small test modules in each compression, a signed one, an edited one
for f in gplok.ko gplok.ko.xz gplok.ko.zst gplok.ko.gz lve.ko signedown.ko badsig.ko nover.ko \
	propexp.ko nsok.ko; do
	cp "$MODS/$f" "$OUT/module/"
done
# ... and the signature forms the kernel tells apart (key id, attributes, carried certificate)
for f in signedown_keyid signedown_attrs signedown_certs; do
	cp "$MODS/sig/$f.ko" "$OUT/module/"
done
# kimage: small synthetic kernels carrying the test key's certificate
openssl x509 -in "$MODS/.keys/signing_key.pem" -outform DER -out "$OUT/cert.der"
python3 tests/fuzz/kimage_seeds.py "$OUT/kimage" "$OUT/cert.der"
rm -f "$OUT/cert.der"
# decompress: selector byte (0 xz, 1 zstd, 2 gzip) + stream
head -c 3000 "$MODS/gplok.ko" >"$OUT/plain"
{ printf '\0'; xz --check=crc32 -c "$OUT/plain"; } >"$OUT/decompress/xz"
{ printf '\1'; zstd -q -c "$OUT/plain"; } >"$OUT/decompress/zstd"
{ printf '\2'; gzip -n -c "$OUT/plain"; } >"$OUT/decompress/gzip"
rm -f "$OUT/plain"
# symvers: the committed text seeds and a compressed slice of the real table
cp tests/fuzz/corpus/symvers/* "$OUT/symvers/"
. tests/lib/kernel.sh
K=$TG_KERNEL
if [ -f "/lib/modules/$K/build/Module.symvers" ]; then
	head -n 50 "/lib/modules/$K/build/Module.symvers" | gzip -n -c >"$OUT/symvers/real.gz"
fi
# policy: the default policy and the committed seeds
cp policy/default.yaml tests/fuzz/corpus/policy/* "$OUT/policy/"
# record: mark records of both sources, in both formats (docs/records.md)
cp tests/fuzz/corpus/record/* "$OUT/record/"
# guard: the committed seeds (selector byte + file), and rpm's own macro file as a macro file
cp tests/fuzz/corpus/guard/* "$OUT/guard/"
if [ -f /usr/lib/rpm/macros ]; then
	{ printf '\0'; head -c 65536 /usr/lib/rpm/macros; } >"$OUT/guard/rpm-macros"
fi
# package: a tiny rpm carrying a module (rpmbuild, the test spec)
if command -v rpmbuild >/dev/null; then
	T=$(mktemp -d)
	rpmbuild --quiet --define "_topdir $T" --define "pkgname tg-fuzz" --define "pkgver 1.0" \
		--define "moddir $PWD/$MODS" --define "payload gplok.ko.xz:/lib/modules/$K/extra/gplok.ko.xz" \
		--define "_binary_payload w9.gzdio" -bb tests/rpm/specs/tgtest.spec >/dev/null 2>&1 &&
		cp "$T"/RPMS/noarch/*.rpm "$OUT/package/"
	rm -rf "$T"
fi
# repodata: repomd.xml, filelists and primary of a repository made by createrepo_c
# from the package seed (a kmod), as the harness takes them (u32 length of
# repomd, u32 length of filelists, the three files); and a cached scan record
if command -v createrepo_c >/dev/null && ls "$OUT"/package/*.rpm >/dev/null 2>&1; then
	T=$(mktemp -d)
	cp "$OUT"/package/*.rpm "$T/"
	createrepo_c -q --general-compress-type=gz "$T" >/dev/null 2>&1 &&
		python3 - "$T" "$OUT/repodata" <<'EOF'
import glob, gzip, os, struct, sys
t, out = sys.argv[1], sys.argv[2]
md = open(os.path.join(t, "repodata", "repomd.xml"), "rb").read()
fl = gzip.open(glob.glob(os.path.join(t, "repodata", "*-filelists.xml.gz"))[0]).read()
pr = gzip.open(glob.glob(os.path.join(t, "repodata", "*-primary.xml.gz"))[0]).read()
open(os.path.join(out, "kmod-repo"), "wb").write(struct.pack("<II", len(md), len(fl)) + md + fl + pr)
# a cached scan record (pkg_repo_list_encode): one package, one kernel file
def s(x):
    if x is None:
        return struct.pack("<I", 0)
    b = x.encode()
    return struct.pack("<I", len(b) + 1) + b
rec = struct.pack("<QI", 2, 1) + s("kmod-x-1.0-1.x86_64.rpm") + s(None) + s("kmod-x") + \
      s("kmod-x-1.0-1.x86_64") + s("GPLv2") + s("sha256:" + "ab" * 32) + struct.pack("<Q", 4096) + \
      bytes([1]) + struct.pack("<I", 1) + s("/usr/src/kernels/6.1.0-1/Module.symvers")
open(os.path.join(out, "scan-record"), "wb").write(b"TGRL" + rec)
EOF
	rm -rf "$T"
fi
# facts: 'M' + a module (the harness writes, reads back and compares its facts
# and verdict), and 'F' + the facts of a few modules (written by the harness)
for f in gplok.ko lve.ko signedown.ko nsok.ko propexp.ko nover.ko; do
	{ printf 'M'; cat "$MODS/$f"; } >"$OUT/facts/M-$f"
done
FB=${B:-build}/fuzz/replay_facts
[ -x "$FB" ] || FB=${B:-build}/fuzz/fuzz_facts
if [ -x "$FB" ]; then
	for f in gplok.ko signedown.ko nsok.ko propexp.ko; do
		TG_FACTS_EMIT="$OUT/facts/F-$f" "$FB" "$OUT/facts/M-$f" >/dev/null 2>&1 || true
	done
fi
# regression inputs (crashes once found) join the seeds
for h in module decompress symvers policy package record kimage repodata facts guard; do
	if [ -d "tests/fuzz/regressions/$h" ]; then cp tests/fuzz/regressions/$h/* "$OUT/$h/" 2>/dev/null || true; fi
done
