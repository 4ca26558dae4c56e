#!/usr/bin/env python3
"""Compare `taintguard check --format json` with tests/modules/cases.tsv.

cases.tsv holds what the real kernel does with each test module (verified by
tests/kernel under QEMU; the rules are in docs/loader-rules.md).  Each case is
checked with its preloads in the same set, as modprobe would load them, plus
the exit code the command promises for the action.
"""
import json
import subprocess
import sys


from caseset import read_cases, config_of

tg, out, cases_path, kver = sys.argv[1:5]
EXIT = {"allow": 0, "mark": 1, "deny": 2}
passed = failed = 0


def report(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok - " + what)
    else:
        failed += 1
        print("not ok - %s%s" % (what, ("\n#   " + detail) if detail else ""))




def letters(s):
    return "" if s in ("-", "none", "") else s


config = config_of(kver)
for c in read_cases(cases_path, kver, config):
    if "skip" in c:
        print("# skipped on kernel %s: %s (%s)" % (kver, c["case"], c["skip"]))
        continue
    files = [out + "/" + p for p in c["preload"].split(",") if p not in ("-", "")]
    target = out + "/" + c["file"]
    cmd = [tg, "check", "--kernel", kver, "--format", "json"] + files + [target]
    res = subprocess.run(cmd, capture_output=True, text=True)
    try:
        vs = json.loads(res.stdout)
        v = [x for x in vs if x["path"] == target][0]
    except Exception as e:  # noqa: BLE001 - report any failure as a test failure
        report(False, c["case"], "no verdict (%s): rc=%d stderr=%s" % (e, res.returncode, res.stderr.strip()))
        continue
    problems = []
    want_loads = c["loads"] == "yes"
    if v["loads"] != want_loads:
        problems.append("loads %s, kernel %s" % (v["loads"], want_loads))
    if want_loads and letters(v["module_taint"]) != letters(c["module_taint"]):
        problems.append("module taint %r, kernel %r" % (v["module_taint"], c["module_taint"]))
    if letters(v["taint"]) != letters(c["kernel_taint"]):
        problems.append("kernel taint %r, kernel %r" % (v["taint"], c["kernel_taint"]))
    codes = [r["code"] for r in v["refusal"]]
    if c["refusal"] != "-" and (not codes or codes[0] != c["refusal"]):
        problems.append("refusal %r, expected %r" % (codes, c["refusal"]))
    if c["refusal"] == "-" and codes:
        problems.append("unexpected refusal %r" % codes)
    if c.get("refusal_errno", "-") != "-" and str(v["errno"]) != c["refusal_errno"]:
        problems.append("errno %s, kernel %s" % (v["errno"], c["refusal_errno"]))
    sym = c.get("refusal_symbol", "-")
    if sym != "-" and not any(sym in r["symbols"] for r in v["refusal"]):
        problems.append("refusal does not name %s" % sym)
    if v["action"] != c["action"]:
        problems.append("action %s, expected %s" % (v["action"], c["action"]))
    if not files and res.returncode != EXIT[c["action"]]:
        problems.append("exit code %d for action %s" % (res.returncode, c["action"]))
    if v["module"] and c["case"] == "renamed" and v["module"] == v["file_module"]:
        problems.append("renamed file not detected")
    report(not problems, c["case"], "; ".join(problems))

# Checks only newer loaders make (the kernel suites prove both sides): the
# same kernel files judged as a release before and after the rule.
for case, what, since, before, after in (
        ("twomodinfo", "more than one .modinfo section", "6.4", "6.3.0-99-amd64", "6.5.0-99-amd64"),
        ("shstrprog", "section name table is not a string table", "7.2", "6.12.0-99-amd64", "7.2.0-99-amd64"),
        ("strtabprog", "string table is not a string table", "7.2", "6.12.0-99-amd64", "7.2.0-99-amd64")):
    for rel, refused in ((after, True), (before, False)):
        res = subprocess.run([tg, "check", "--format", "json", "--kernel", rel,
                              "--symvers", "/lib/modules/%s/build/Module.symvers" % kver,
                              "--config", "/boot/config-%s" % kver, out + "/" + case + ".ko"],
                             capture_output=True, text=True)
        try:
            reasons = [r["reason"] for r in json.loads(res.stdout)[0]["refusal"]]
        except (ValueError, IndexError, KeyError) as e:
            report(False, "%s as %s" % (case, rel), "no verdict (%s): %s" % (e, res.stderr.strip()))
            continue
        got = any(what in r for r in reasons)
        report(got == refused, "%s as %s: %s %s" % (case, rel, what,
               "refused (%s+)" % since if refused else "accepted (before %s)" % since), repr(reasons))

# The livepatch refusal of a kernel without CONFIG_LIVEPATCH (proven by arm64
# 6.1 in the kernel-arm64 suite): up to 6.3 the O that check_modinfo() set
# before it stays in the kernel's mask, 6.4+ leaves none.  Same kernel files,
# CONFIG_LIVEPATCH dropped from the .config.
nolp = out + "/.config-nolivepatch"
with open("/boot/config-%s" % kver) as f, open(nolp, "w") as o:
    o.writelines(l for l in f if not l.startswith("CONFIG_LIVEPATCH="))
for rel, taint in (("6.3.0-99-amd64", "O"), ("6.5.0-99-amd64", "")):
    res = subprocess.run([tg, "check", "--format", "json", "--kernel", rel,
                          "--symvers", "/lib/modules/%s/build/Module.symvers" % kver,
                          "--config", nolp, out + "/livepatch.ko"], capture_output=True, text=True)
    try:
        v = json.loads(res.stdout)[0]
        codes = [r["code"] for r in v["refusal"]]
    except (ValueError, IndexError, KeyError) as e:
        report(False, "livepatch without CONFIG_LIVEPATCH as %s" % rel, "no verdict (%s): %s" % (e, res.stderr.strip()))
        continue
    report(codes[:1] == ["livepatch-unsupported"] and letters(v["taint"]) == taint and not v["loads"],
           "livepatch without CONFIG_LIVEPATCH as %s: refused, kernel taint %s" % (rel, taint or "none"),
           "refusal %r, taint %r" % (codes, v["taint"]))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
