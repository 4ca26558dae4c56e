#!/usr/bin/env python3
"""Real kernel trees under vendor-like release names are judged by their files, not their names.

Every RHEL 9 kernel calls itself 5.14.0 and carries loaders of 5.14 to 6.4+.
Each installed Debian kernel's files (image, System.map, .config, modules and
export list, all unchanged: links) are put under a temporary root with
another release name: a 6.12 named like RHEL 9.5, a 6.1 named like RHEL 9.4,
and the reverse of each (6.1 named 6.12.0-1, 6.12 named 6.1.0-1).  Every case
of cases.tsv, with its preloads, must get exactly the verdict it gets against
the original tree (which compare.py and the kernel suites prove equal to the
kernel's): loads, taints, refusal codes, errno, action.

The names are made in a private mount namespace (renamed.sh runs this under
unshare -m): tmpfs over /boot and /lib/modules holding links to the real
files under both names, so other suites on the host see nothing.

Usage: renamed.py TAINTGUARD OUTDIR CASES.TSV
"""
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from caseset import read_cases

tg, out, cases_path = sys.argv[1:4]
NAMES = {"6.12": ("5.14.0-503.40.1.el9_5.x86_64", "6.1.0-1-amd64"),
         "6.1": ("5.14.0-427.42.1.el9_4.x86_64", "6.12.0-1-amd64")}
passed = failed = 0


def installed():
    """The installed Debian kernels with image, .config and export list, by series."""
    found = {}
    for rel in sorted(os.listdir("/lib/modules")):
        series = ".".join(rel.split(".")[:2])
        if (series in NAMES and os.path.exists("/boot/vmlinuz-" + rel) and
                os.path.exists("/boot/config-" + rel) and
                os.path.exists("/lib/modules/%s/build/Module.symvers" % rel)):
            found[series] = rel
    return found


def shadow(tmp, d):
    """Keep D's files at TMP/orig-D, read-only, and lay a tmpfs of links to them over D.

    Read-only, and unmounted before TMP is removed (unshadow()): a removal
    that walked into the bind mount would delete the host's real files.
    """
    keep = tmp + "/orig" + d.replace("/", "-")
    os.makedirs(keep)
    subprocess.run(["mount", "--bind", d, keep], check=True)
    subprocess.run(["mount", "-o", "remount,bind,ro", keep], check=True)
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", d], check=True)
    for f in os.listdir(keep):
        os.symlink(keep + "/" + f, d + "/" + f)
    return keep


def unshadow(tmp, d):
    """Undo shadow(): the tmpfs first, then the bind mount; only then may TMP go."""
    keep = tmp + "/orig" + d.replace("/", "-")
    subprocess.run(["umount", d], check=True)
    subprocess.run(["umount", keep], check=True)
    os.rmdir(keep)


def rename(keep_boot, keep_mods, rel, new):
    """/boot/*-NEW and /lib/modules/NEW: links to REL's files, nothing changed."""
    for f in ("vmlinuz", "System.map", "config"):
        if os.path.exists("%s/%s-%s" % (keep_boot, f, rel)):
            os.symlink("%s/%s-%s" % (keep_boot, f, rel), "/boot/%s-%s" % (f, new))
    os.symlink(keep_mods + "/" + rel, "/lib/modules/" + new)


def verdict(kernel, files, target):
    cmd = [tg, "check", "--kernel", kernel, "--format", "json"] + files + [target]
    res = subprocess.run(cmd, capture_output=True, text=True)
    try:
        v = [x for x in json.loads(res.stdout) if x["path"] == target][0]
    except (ValueError, IndexError, KeyError) as e:
        return "no verdict (%s): %s" % (e, res.stderr.strip())
    return (v["loads"], v["taint"], v["module_taint"], [r["code"] for r in v["refusal"]],
            v["errno"], v["action"], res.returncode)


def judge(args):
    rel, c = args
    files = [out + "/" + p for p in c["preload"].split(",") if p not in ("-", "")]
    return verdict(rel, files, out + "/" + c["file"])


kernels = installed()
if not kernels:
    print("# no Debian 6.1 or 6.12 kernel with its files installed: nothing to compare")
if os.environ.get("TG_RENAMED_NS") != "1":
    sys.exit("renamed.py: run it through renamed.sh (a private mount namespace)")
tmp = tempfile.mkdtemp()    # never removed recursively: it holds bind mounts
keep_boot, keep_mods = shadow(tmp, "/boot"), shadow(tmp, "/lib/modules")
with ThreadPoolExecutor(2) as pool:
    for series, rel in sorted(kernels.items()):
        cases = [c for c in read_cases(cases_path, rel) if "skip" not in c]
        original = list(pool.map(judge, [(rel, c) for c in cases]))
        for new in NAMES[series]:
            rename(keep_boot, keep_mods, rel, new)
            renamed = pool.map(judge, [(new, c) for c in cases])
            for c, want, got in zip(cases, original, renamed):
                case = c["case"]
                what = "%s as %s (files of %s)" % (case, new, rel)
                if want == got and not isinstance(want, str):
                    passed += 1
                    print("ok - " + what)
                else:
                    failed += 1
                    print("not ok - %s\n#   original %r\n#   renamed  %r" % (what, want, got))
unshadow(tmp, "/lib/modules")
unshadow(tmp, "/boot")
os.rmdir(tmp)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
