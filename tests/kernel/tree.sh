#!/bin/bash
# No false alarm on a distribution's own modules: `taintguard check --root`
# over the whole in-tree module tree of a kernel unpacked by
# tests/kernel/target.sh must predict that every module loads, none sets P,
# and the default policy allows all of them (staging modules get C, which is
# what the kernel does with them).  Rust modules (found by their v0-mangled
# symbols) are listed with the licence taintguard read.
#
# Usage: tests/kernel/tree.sh KVER|SERIES        (e.g. 7: trixie-backports' newest 7.x)
# Env:   B (build dir, default build)
set -u
cd "$(dirname "$0")/../.."
B=${B:-build}
bail() { echo "not ok - in-tree tree setup: $*"; echo "0 passed, 1 failed"; exit 1; }
[ $# -eq 1 ] || { echo "usage: $0 KVER|SERIES" >&2; exit 2; }
[ -x "$B/taintguard" ] || bail "$B/taintguard missing (run make)"
t=$(tests/kernel/target.sh "$1") || bail "tests/kernel/target.sh $1 failed"
read -r ROOT K _ <<<"$t"
TREE=$ROOT/lib/modules/$K/kernel
[ -d "$TREE" ] || bail "$TREE missing"
OUT=tests/out/tree-$K
mkdir -p "$OUT"
start=$(date +%s)
"$B/taintguard" check --root "$ROOT" --kernel "$K" --format json "$TREE" >"$OUT/check.json" 2>"$OUT/check.err"
rc=$?
echo "# kernel $K: taintguard check exit $rc in $(($(date +%s) - start)) s over $TREE"
python3 - "$OUT/check.json" "$TREE" "$rc" <<'PY'
import json, lzma, sys

path, tree, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
passed = failed = 0


def report(ok, what, bad=()):
    global passed, failed
    if ok:
        passed += 1
        print("ok - " + what)
    else:
        failed += 1
        print("not ok - " + what)
        for b in list(bad)[:20]:
            print("#   " + b)


try:
    vs = json.load(open(path))
except ValueError as e:
    print("not ok - taintguard wrote no JSON (%s)" % e)
    print("0 passed, 1 failed")
    sys.exit(1)
rel = lambda v: v["path"][len(tree) + 1:] if v["path"].startswith(tree) else v["path"]
n = len(vs)
report(n > 1000, "%d in-tree modules judged" % n)
report(rc == 0, "exit code %d (0: everything allowed)" % rc)
err = [rel(v) + ": " + str(v["error"]) for v in vs if v.get("error")]
report(not err, "%d modules unreadable" % len(err), err)
ref = [rel(v) + ": " + ",".join(r.get("code", "?") for r in v.get("refusal") or []) for v in vs
       if not v.get("error") and not v.get("loads")]
report(not ref, "%d modules predicted refused" % len(ref), ref)
prop = [rel(v) + ": taint " + (v.get("taint") or "") for v in vs
        if "P" in (v.get("taint") or "") + (v.get("module_taint") or "")]
report(not prop, "%d modules predicted to set P" % len(prop), prop)
other = sorted(set(v.get("taint") or "none" for v in vs) - {"none", "C"})
report(not other, "taints predicted: %s (none, or C for staging)" % ",".join(
    sorted(set(v.get("taint") or "none" for v in vs))), other)
notallow = [rel(v) + ": " + str(v.get("action")) for v in vs if v.get("action") != "allow"]
report(not notallow, "%d modules not allowed by the default policy" % len(notallow), notallow)
unver = [rel(v) + ": " + str(v.get("signature")) for v in vs if v.get("signature") != "verified"]
report(not unver, "%d signatures not verified with the image's keys" % len(unver), unver)
# Rust modules: their licence comes from the module! macro; read like C's.
rust = []
for v in vs:
    try:
        data = lzma.open(v["path"]).read() if v["path"].endswith(".xz") else open(v["path"], "rb").read()
    except OSError:
        continue
    if b"_RNv" in data:
        rust.append(v)
for v in rust:
    print("# Rust code in %s: licence %r, taint %s, action %s"
          % (rel(v), v.get("license"), v.get("taint") or "none", v.get("action")))
if any(True for _ in rust):
    report(all(v.get("license") and v.get("action") == "allow" for v in rust),
           "%d modules with Rust code: licence read, allowed" % len(rust))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
