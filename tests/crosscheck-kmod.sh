#!/bin/bash
# Cross-check the module reader against kmod's modinfo on every module of the
# installed distribution kernel, and check that none of them is predicted P
# or refused (the distribution's own modules load cleanly on their kernel).
set -eu
cd "$(dirname "$0")/.."
B=${B:-build}
. tests/lib/kernel.sh
K=$TG_KERNEL
DIR=/lib/modules/$K/kernel
OUT=tests/out/crosscheck
mkdir -p "$OUT"
if [ ! -d "$DIR" ]; then
	echo "not ok - no modules in $DIR (install linux-image-amd64)"
	echo "0 passed, 1 failed"
	exit 1
fi
rc=0
"$B/taintguard" check --kernel "$K" --format json "$DIR" > "$OUT/check.json" || rc=$?
find "$DIR" -name '*.ko*' -print0 | sort -z | xargs -0 modinfo > "$OUT/modinfo.txt"
python3 - "$OUT/check.json" "$OUT/modinfo.txt" "$rc" <<'PY'
import json, sys
verdicts = json.load(open(sys.argv[1]))
rc = int(sys.argv[3])
# modinfo prints blocks that start with "filename:"; keep the first value per key.
info, cur = {}, None
for line in open(sys.argv[2], encoding="utf-8", errors="replace"):
    key, _, val = line.rstrip("\n").partition(":")
    val = val.strip()
    if key == "filename":
        cur = info.setdefault(val, {})
    elif cur is not None and key not in cur:
        cur[key] = val
passed = failed = 0
def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("ok - " + what)
    else:
        failed += 1
        print("not ok - " + what)
mismatch = []
for v in verdicts:
    mi = info.get(v["path"], {})
    for ours, theirs in (("license", "license"), ("module", "name"),
                         ("depends", "depends"), ("vermagic", "vermagic")):
        a = (v.get(ours) or "").strip()
        b = mi.get(theirs, "")
        if a != b:
            mismatch.append("%s: %s ours=%r modinfo=%r" % (v["path"], ours, a, b))
check(len(verdicts) == len(info) and len(verdicts) > 1000,
      "read all %d modules (modinfo saw %d)" % (len(verdicts), len(info)))
check(not mismatch, "license, name, depends, vermagic equal modinfo's for every module (%d mismatches)" % len(mismatch))
for m in mismatch[:20]:
    print("#   " + m)
bad = [v["path"] for v in verdicts if v.get("error") or not v["loads"] or "P" in v["taint"]]
check(not bad, "no distribution module is unreadable, refused or P (%d are)" % len(bad))
for b in bad[:20]:
    print("#   " + b)
for v in verdicts:
    if v["path"] in bad[:5]:
        print("#   " + json.dumps(v)[:600])
check(all(v["action"] == "allow" for v in verdicts), "policy allows every distribution module")
check(rc == 0, "exit code 0 for an all-allowed tree (got %d)" % rc)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
