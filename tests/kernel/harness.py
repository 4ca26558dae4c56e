#!/usr/bin/env python3
"""Host side of the taintguard kernel test (tests/kernel/run.sh drives it).

  harness.py plan CASES MODDIR ROOT PLAN KVER [ENFORCE_CASES]
      Read cases.tsv, add the distribution's own modules as extra cases, lay out
      the initramfs tree ROOT/tg (modules + one load script per case) and write
      PLAN (JSON: one entry per boot).  Cases of ENFORCE_CASES boot with
      module.sig_enforce=1; the extra kernel arguments of boot N are written to
      PLANDIR/append/N.  With TG_SUBSET=FILE (run.sh --subset) only the cases
      FILE names are booted (one name or shell pattern per line, "#" comments;
      distribution modules as dist-NAME); the others are listed as not run.
  harness.py vmlinux BZIMAGE OUT
      Extract the uncompressed ELF vmlinux from a bzImage (for PVH direct boot,
      which skips the slow in-guest decompression under TCG).
  harness.py compare PLAN LOGDIR TASKGUARD KVER MODDIR
      Parse the serial logs, decode the taint masks and compare what the kernel
      did with cases.tsv and with `taintguard check --format json` (given, for
      enforcing boots, the target's .config with CONFIG_MODULE_SIG_FORCE=y).  Prints one
      "ok"/"not ok" line per case and "N passed, N failed"; exit 1 on failure.
"""
import errno
import fnmatch
import json
import lzma
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "modules"))
from caseset import ARCHES, read_cases, config_of  # noqa: E402

# Kernel taint bits, include/linux/panic.h (6.1).
TAINT_LETTERS = "PFSRMBUDAWCIOELKXTN"

# The distribution's own modules checked as extra cases (no dependencies in
# Debian 6.1's modules.dep): the real kernel must load them without taint.
# ax88796b_rust and qt2025 are Rust PHY drivers (7.x; libphy loaded first),
# skipped where the kernel has no such module.
DIST_MODULES = ["dummy", "veth", "ifb", "nlmon", "nls_cp437", "ax88796b_rust", "qt2025"]


def letters(mask):
    return "".join(c for i, c in enumerate(TAINT_LETTERS) if mask >> i & 1)


def mask_of(s):
    m = 0
    for c in s:
        if c in TAINT_LETTERS:
            m |= 1 << TAINT_LETTERS.index(c)
    return m


def norm_letters(s):
    """'POE', 'none', '-', '' -> canonical kernel-order letters ('' for none)."""
    if s is None or s in ("-", "none", ""):
        return ""
    return letters(mask_of(s))


def errno_of(v):
    """ENOENT, -ENOENT, -2, 2, 'err -2' -> 2; None/'-'/'' -> None."""
    if v is None:
        return None
    if isinstance(v, int):
        return abs(v) or None
    v = str(v).strip()
    if v in ("", "-", "0", "none"):
        return None
    m = re.fullmatch(r"-?(\d+)", v)
    if m:
        return int(m.group(1))
    name = v.lstrip("-").upper()
    return getattr(errno, name, None)


def ename(n):
    return errno.errorcode.get(n, str(n)) if n else "-"


# kmod 30 insmod prints mod_strerror(): a few errnos get their own text.
KMOD_MSG = {
    "Invalid module format": errno.ENOEXEC,
    "Unknown symbol in module": errno.ENOENT,
    "Invalid parameters": errno.EINVAL,
}


def errno_from_insmod(msg):
    m = re.search(r"could not insert module .*?: (.*)$", msg)
    if not m:
        return None
    text = m.group(1).strip()
    if text in KMOD_MSG:
        return KMOD_MSG[text]
    for n in errno.errorcode:
        if os.strerror(n) == text:
            return n
    return None


# ---------------------------------------------------------------- plan



def modinfo(path, field):
    try:
        r = subprocess.run(["modinfo", "-F", field, path], capture_output=True, text=True)
    except OSError:
        return []
    if r.returncode != 0:
        return []
    return [x for x in r.stdout.replace(",", "\n").split() if x]


def modname_of_path(p):
    b = os.path.basename(p)
    b = re.sub(r"\.ko(\.(xz|zst|gz))?$", "", b)
    return b.replace("-", "_")


# The target kernel's files are below TG_KROOT (a kernel unpacked from its
# packages by tests/kernel/target.sh), else below /.
KROOT = os.environ.get("TG_KROOT", "")


def intree_index(kver):
    """modules.dep of the target kernel: name -> (relpath, [dep relpaths])."""
    base = "%s/lib/modules/%s" % (KROOT, kver)
    idx = {}
    with open(base + "/modules.dep") as f:
        for l in f:
            if ":" not in l:
                continue
            mod, deps = l.split(":", 1)
            idx[modname_of_path(mod)] = (mod, deps.split())
    return base, idx


def intree_closure(names, idx):
    """In-tree relpaths needed for module names, dependencies first."""
    order, seen = [], set()
    by_path = {v[0]: v for v in idx.values()}

    def visit(path):
        if path in seen:
            return
        seen.add(path)
        for d in by_path.get(path, (path, []))[1]:
            visit(d)
        order.append(path)

    for n in names:
        n = n.replace("-", "_")
        if n in idx:
            visit(idx[n][0])
    return order


# What the enforcing boots add to the kernel command line.
ENFORCE_APPEND = "module.sig_enforce=1"


def read_subset(path):
    """Case names (or shell patterns) of a subset file, or None for all cases."""
    if not path:
        return None
    pats = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                pats.append(line)
    return pats


def in_subset(name, pats):
    """A CASE@COND row is named by CASE too (the subset holds for every kernel)."""
    names = {name, name.partition("@")[0]}
    return pats is None or any(fnmatch.fnmatchcase(n, p) for n in names for p in pats)


def cmd_plan(cases_path, moddir, root, plan_path, kver, enforce_path=None):
    base, idx = intree_index(kver)
    tg = os.path.join(root, "tg")
    mdir = os.path.join(tg, "m")
    cdir = os.path.join(tg, "cases")
    shutil.rmtree(tg, ignore_errors=True)
    os.makedirs(cdir)
    # Every test module file, same relative layout as the build output.
    shutil.copytree(moddir, mdir, ignore=shutil.ignore_patterns(
        "*.o", "*.c", "*.h", "*.cmd", "*.mod", "*.mod.c", "Makefile", "Kbuild",
        "modules.order", "Module.symvers", ".tmp_versions", ".*"))
    plan, intree = [], set()
    config = config_of(kver, KROOT)
    cases = [(c, False) for c in read_cases(cases_path, kver, config)]
    if enforce_path:
        cases += [(c, True) for c in read_cases(enforce_path, kver, config)]
    # Rows that say the case cannot be made for this kernel: no boot, listed
    # by compare with their reason.
    skipped = [{"case": c["case"], "why": c["skip"]} for c, _ in cases if "skip" in c]
    cases = [(c, e) for c, e in cases if "skip" not in c]
    # A subset (make check's short run of a slow guest): the cases left out
    # are said, with the count, so a short run never passes for a full one.
    subset = read_subset(os.environ.get("TG_SUBSET"))
    notrun = [c["case"] for c, _ in cases if not in_subset(c["case"], subset)]
    cases = [(c, e) for c, e in cases if in_subset(c["case"], subset)]
    with open(os.path.join(os.path.dirname(os.path.abspath(plan_path)), "notrun.json"), "w") as f:
        json.dump(notrun, f, indent=1)
    with open(os.path.join(os.path.dirname(os.path.abspath(plan_path)), "skipped.json"), "w") as f:
        json.dump(skipped, f, indent=1)
    for c, enforce in cases:
        pre = [p for p in c.get("preload", "-").split(",") if p not in ("", "-")]
        files = pre + [c["file"]]
        own = {modname_of_path(p) for p in files}
        for p in files:
            own.update(n.replace("-", "_") for n in modinfo(os.path.join(moddir, p), "name"))
        # modprobe would load the in-tree providers named by depends= first.
        deps = []
        for p in files:
            deps += [d for d in modinfo(os.path.join(moddir, p), "depends")
                     if d.replace("-", "_") not in own]
        deps = intree_closure(deps, idx)
        plan.append({"case": c["case"], "file": c["file"], "preload": pre,
                     "intree": deps, "expect": c, "dist": False, "sig_enforce": enforce})
    for n in DIST_MODULES:
        if n not in idx or not in_subset("dist-" + n, subset):
            continue
        rel = idx[n][0]
        deps = intree_closure([n], idx)[:-1]
        plan.append({"case": "dist-" + n, "file": "intree/" + rel, "preload": [],
                     "intree": deps, "dist": True, "abs": os.path.join(base, rel),
                     "expect": {"case": "dist-" + n, "loads": "yes", "module_taint": "none",
                                "kernel_taint": "none", "refusal": "-", "refusal_errno": "-",
                                "refusal_symbol": "-", "action": "allow"}})
        intree.add(rel)
    adir = os.path.join(os.path.dirname(os.path.abspath(plan_path)), "append")
    shutil.rmtree(adir, ignore_errors=True)
    os.makedirs(adir)
    for i, p in enumerate(plan):
        p["idx"] = i
        intree.update(p["intree"])
        with open(os.path.join(adir, str(i)), "w") as f:
            f.write(ENFORCE_APPEND if p.get("sig_enforce") else "")
        with open(os.path.join(cdir, str(i)), "w") as f:
            for d in p["intree"]:
                f.write("dep intree/%s\n" % d)
            for d in p["preload"]:
                f.write("pre %s\n" % d)
            f.write("load %s\n" % p["file"])
    for rel in sorted(intree):
        dst = os.path.join(mdir, "intree", rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(os.path.join(base, rel), dst)
    with open(plan_path, "w") as f:
        json.dump(plan, f, indent=1)
    n_enf = sum(1 for _, e in cases if e)
    print("%d boots (%d cases from %s%s, %d distribution modules), %d in-tree modules%s"
          % (len(plan), len(cases) - n_enf, cases_path,
             ", %d with module.sig_enforce=1 from %s" % (n_enf, enforce_path) if n_enf else "",
             len(plan) - len(cases), len(intree),
             ", %d cases skipped on this kernel" % len(skipped) if skipped else ""))


# ---------------------------------------------------------------- vmlinux

def cmd_vmlinux(bz, out):
    data = open(bz, "rb").read()
    cands = [(b"\xfd7zXZ\x00", ["xz", "-dc"]), (b"\x28\xb5\x2f\xfd", ["zstd", "-dc"]),
             (b"\x1f\x8b\x08", ["gzip", "-dc"])]
    for magic, cmd in cands:
        pos = data.find(magic)
        while pos >= 0:
            r = subprocess.run(cmd, input=data[pos:], capture_output=True)
            if r.stdout[:4] == b"\x7fELF":
                with open(out, "wb") as f:
                    f.write(r.stdout)
                return 0
            pos = data.find(magic, pos + 1)
    return 1


# ---------------------------------------------------------------- compare

def parse_log(path):
    """-> dict(boot, loads=[{kind,file,rc,before,after,msg,mods,dmesg}], end, error)."""
    r = {"loads": [], "end": None, "boot": None, "error": None}
    cur = None
    try:
        text = open(path, errors="replace").read()
    except OSError as e:
        r["error"] = str(e)
        return r
    for raw in text.splitlines():
        i = raw.find("TG")
        if i < 0:
            continue
        l = raw[i:]
        if l.startswith("TGBOOT "):
            r["boot"] = int(l.split("tainted=")[1])
        elif l.startswith("TGERROR"):
            r["error"] = l
        elif l.startswith("TGLOAD "):
            kv = dict(x.split("=", 1) for x in l.split()[1:])
            cur = {"kind": kv["kind"], "file": kv["file"], "rc": int(kv["rc"]),
                   "before": int(kv["tainted_before"]), "after": int(kv["tainted_after"]),
                   "msg": [], "mods": [], "dmesg": []}
            r["loads"].append(cur)
        elif l.startswith("TGMSG ") and cur:
            cur["msg"].append(l[6:])
        elif l.startswith("TGMOD ") and cur:
            kv = dict(x.split("=", 1) for x in l.split()[1:])
            cur["mods"].append(kv)
        elif l.startswith("TGDMESG ") and cur:
            cur["dmesg"].append(l[8:])
        elif l.startswith("TGEND "):
            r["end"] = int(l.split("tainted=")[1])
    return r


def observe(plan_entry, log):
    """What the kernel did with the case's own load."""
    if log["error"] or log["end"] is None or not log["loads"]:
        return None
    last = log["loads"][-1]
    if last["kind"] != "load":
        return None
    o = {"loads": last["rc"] == 0, "before": last["before"], "after": last["after"],
         "kernel_taint": letters(last["after"] & ~last["before"]),
         "module_taint": None, "errno": None, "symbols": [], "dmesg": last["dmesg"],
         "msg": last["msg"], "rc": last["rc"],
         "pre_failed": [x["file"] for x in log["loads"][:-1] if x["rc"] != 0]}
    if last["mods"]:
        o["module"] = last["mods"][-1]["name"]
        o["module_taint"] = norm_letters(last["mods"][-1]["taint"])
    if last["rc"] != 0:
        o["errno"] = errno_from_insmod(" ".join(last["msg"]))
        for d in last["dmesg"]:
            m = re.search(r": Unknown symbol (\S+) \(err (-?\d+)\)", d)
            if m:
                o["symbols"].append((m.group(1), abs(int(m.group(2)))))
    # Every symbol the kernel named in a complaint (module_layout CRC, namespace,
    # duplicate export, unknown symbol).
    o["mentions"] = set(s for s, _ in o["symbols"])
    for d in last["dmesg"]:
        m = re.search(r"(?:disagrees about version of symbol|uses symbol|exports duplicate symbol) "
                      r"\(?([A-Za-z0-9_.]+)", d)
        if m:
            o["mentions"].add(m.group(1))
    return o


def sig_force_config(kver, outdir):
    """The target's .config as a kernel built with CONFIG_MODULE_SIG_FORCE=y would have it."""
    path = os.path.join(outdir, "config-%s-sig-force" % kver)
    lines = [l for l in open("%s/boot/config-%s" % (KROOT, kver)).read().splitlines()
             if not re.match(r"(# )?CONFIG_MODULE_SIG_FORCE[= ]", l)]
    with open(path, "w") as f:
        f.write("\n".join(lines + ["CONFIG_MODULE_SIG_FORCE=y"]) + "\n")
    return path


def taintguard(tg, kver, files, target, config=None):
    cmd = [tg, "check", "--format", "json", "--kernel", kver] + files + [target]
    if config:
        cmd[4:4] = ["--config", config]
    if KROOT:
        cmd[4:4] = ["--root", KROOT]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "cannot run taintguard: %s" % e
    try:
        vs = json.loads(res.stdout)
    except ValueError:
        return None, "no JSON (rc=%d): %s" % (res.returncode, res.stderr.strip()[:200])
    for v in vs:
        if v.get("path") == target:
            return v, None
    return None, "no verdict for %s (rc=%d)" % (target, res.returncode)


def fmt_side(loads, mt, kt, err, syms):
    return "loads=%s mod=%s kern=%s errno=%s sym=%s" % (
        {True: "yes", False: "no", None: "?"}[loads], (mt or "none") if mt is not None else "-",
        (kt or "none") if kt is not None else "-", ename(err), ",".join(syms) or "-")


def why_variant(cond):
    """The reason a CASE@COND row applies, in words."""
    if "," in cond:
        return "; ".join(why_variant(c) for c in cond.split(","))
    if cond in ARCHES.values():
        return "the %s loader" % cond
    if cond.startswith("!"):
        return "kernel built without %s" % cond[1:]
    if cond.startswith("CONFIG_"):
        return "kernel built with %s" % cond
    if cond.startswith(">="):
        return "a loader rule of %s and later" % cond[2:]
    return "a loader before %s" % cond.lstrip("<")


def outcome(e):
    if e.get("loads") == "yes":
        return "loads, taint %s" % (norm_letters(e.get("module_taint")) or "none")
    return "refused %s %s" % (e.get("refusal", "-"), ename(errno_of(e.get("refusal_errno"))))


def cmd_compare(plan_path, logdir, tg, kver, moddir):
    plan = json.load(open(plan_path))
    force_cfg = None
    if any(p.get("sig_enforce") for p in plan):
        force_cfg = sig_force_config(kver, os.path.dirname(os.path.abspath(plan_path)))
    passed = failed = 0
    table = []
    findings = []
    for p in plan:
        name = p["case"]
        log = parse_log(os.path.join(logdir, "%03d.log" % p["idx"]))
        o = observe(p, log)
        if o is None:
            failed += 1
            print("not ok - %s (no result from the guest: %s; see %s/%03d.log)"
                  % (name, log["error"] or "boot timed out or crashed", logdir, p["idx"]))
            continue
        e = p["expect"]
        before = o["before"]
        unobs = letters(before)  # bits already set: the kernel cannot show them again
        problems = []

        # ---- kernel vs cases.tsv
        exp_loads = {"yes": True, "no": False}.get(e.get("loads", "-"))
        exp_mt = e.get("module_taint", "-")
        exp_kt = e.get("kernel_taint", "-")
        exp_err = errno_of(e.get("refusal_errno"))
        exp_sym = [s for s in e.get("refusal_symbol", "-").split(",") if s not in ("", "-")]
        k_syms = [s for s, _ in o["symbols"]]
        tsv_diff = []
        if exp_loads is not None and exp_loads != o["loads"]:
            tsv_diff.append("loads")
        if o["loads"] and exp_mt != "-" and norm_letters(exp_mt) != o["module_taint"]:
            tsv_diff.append("module_taint")
        if not o["loads"] and exp_mt not in ("-", "none", ""):
            tsv_diff.append("module_taint")
        if exp_kt != "-" and letters(mask_of(norm_letters(exp_kt)) & ~before) != o["kernel_taint"]:
            tsv_diff.append("kernel_taint")
        if not o["loads"] and exp_err != o["errno"]:
            tsv_diff.append("errno")
        if o["loads"] and exp_err:
            tsv_diff.append("errno")
        if exp_sym and set(exp_sym) - o["mentions"]:
            tsv_diff.append("symbol")

        # ---- kernel vs taintguard
        if p.get("dist"):
            target, files = p["abs"], []
        else:
            target = os.path.join(moddir, p["file"])
            files = [os.path.join(moddir, x) for x in p["preload"]]
        v, verr = taintguard(tg, kver, files, target, force_cfg if p.get("sig_enforce") else None)
        tg_side = None
        tg_diff = []
        if v is not None and v.get("error"):
            v, verr = None, "error: %s" % v["error"]
        if v is None:
            tg_diff.append("verdict")
            tg_side = verr
        else:
            t_loads = bool(v.get("loads"))
            t_mt = norm_letters(v.get("module_taint") or "")
            t_kt = norm_letters(v.get("taint") or "")
            refs = v.get("refusal") or []
            t_err = errno_of(refs[0].get("err")) if refs else None
            if v.get("errno") not in (None, 0):
                t_err = errno_of(v.get("errno"))  # what the kernel returns to insmod
            t_syms = []
            for r in refs:
                if errno_of(r.get("err")) in (errno.ENOENT, errno.EINVAL) and r.get("symbols"):
                    t_syms += [s for s in r["symbols"] if s not in t_syms]
            if t_loads != o["loads"]:
                tg_diff.append("loads")
            if o["loads"] and t_mt != o["module_taint"]:
                tg_diff.append("module_taint")
            if letters(mask_of(t_kt) & ~before) != o["kernel_taint"]:
                tg_diff.append("kernel_taint")
            if not o["loads"] and t_err != o["errno"]:
                tg_diff.append("errno")
            if k_syms and set(k_syms) != set(t_syms):
                tg_diff.append("symbol")
            if p.get("dist") and v.get("action") != "allow":
                tg_diff.append("action")
            tg_side = fmt_side(t_loads, t_mt if t_loads else None, t_kt, t_err, t_syms)
            if p.get("dist"):
                tg_side += " action=%s" % v.get("action")
        k_side = fmt_side(o["loads"], o["module_taint"], o["kernel_taint"], o["errno"],
                          k_syms or sorted(o["mentions"]))
        if before:
            k_side += " (already set before: %s)" % unobs
        e_side = fmt_side(exp_loads, norm_letters(exp_mt) if exp_mt != "-" else None,
                          norm_letters(exp_kt) if exp_kt != "-" else None, exp_err, exp_sym)
        if tsv_diff:
            problems.append("cases.tsv differs in " + ",".join(tsv_diff))
        if tg_diff:
            problems.append("taintguard differs in " + ",".join(tg_diff))
        if o["pre_failed"]:
            problems.append("preload failed: " + ",".join(o["pre_failed"]))
        if problems:
            failed += 1
            print("not ok - %s (%s)" % (name, "; ".join(problems)))
            key = [d.split("] ", 1)[-1] for d in o["dmesg"] + o["msg"]
                   if re.search(r"Unknown symbol|version|namespace|ELF|duplicate|insmod:|taint", d)]
            table.append((name, k_side, e_side, tg_side or "-", key[:6]))
            findings.append({"case": name, "kernel": k_side, "cases.tsv": e_side,
                             "taintguard": tg_side, "problems": problems,
                             "already_set_before": unobs, "dmesg": o["dmesg"], "insmod": o["msg"]})
        else:
            passed += 1
            print("ok - %s" % name)
    if table:
        w0 = max(len(r[0]) for r in table + [("case",)])
        print("#")
        print("# %-*s | %s" % (w0, "case", "kernel | cases.tsv | taintguard"))
        for r in table:
            print("# %-*s | kernel:     %s" % (w0, r[0], r[1]))
            print("# %-*s | cases.tsv:  %s" % (w0, "", r[2]))
            print("# %-*s | taintguard: %s" % (w0, "", r[3]))
            for d in r[4]:
                print("# %-*s |   log: %s" % (w0, "", d))
        with open(os.path.join(os.path.dirname(plan_path), "findings.json"), "w") as f:
            json.dump(findings, f, indent=1)
    # Cases whose outcome on this kernel differs from the base row (6.1's): the
    # CASE@CONDITION rows of cases.tsv that apply here, with the kernel's reason.
    for p in plan:
        if "@" in p["case"]:
            e = p["expect"]
            print("# differs from the base row: %s (%s; here: %s)"
                  % (p["case"], why_variant(e["variant"]), outcome(e)))
    spath = os.path.join(os.path.dirname(os.path.abspath(plan_path)), "skipped.json")
    skipped = json.load(open(spath)) if os.path.exists(spath) else []
    for sk in skipped:
        print("# skipped on this kernel: %s (%s)" % (sk["case"], sk["why"]))
    npath = os.path.join(os.path.dirname(os.path.abspath(plan_path)), "notrun.json")
    notrun = json.load(open(npath)) if os.path.exists(npath) else []
    if notrun:
        print("# subset (%s): %d cases not run here; make check-kernel-all runs them"
              % (os.environ.get("TG_SUBSET", "?"), len(notrun)))
    print("# agreement %d/%d with kernel %s%s%s" % (passed, passed + failed, kver,
                                                     ", %d cases skipped" % len(skipped) if skipped else "",
                                                     ", subset: %d not run" % len(notrun) if notrun else ""))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def main():
    a = sys.argv[1:]
    if a and a[0] == "plan" and len(a) in (6, 7):
        return cmd_plan(*a[1:]) or 0
    if a and a[0] == "vmlinux" and len(a) == 3:
        return cmd_vmlinux(*a[1:])
    if a and a[0] == "compare" and len(a) == 6:
        return cmd_compare(*a[1:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
