"""Rows of tests/modules/cases.tsv that hold for one target kernel.

A row whose case is CASE@CONDITIONS is what the kernel does with CASE when
every one of CONDITIONS (comma-separated) holds for the target kernel, and
then replaces the row CASE (the last matching variant wins).  A condition is
OPVERSION, OP one of >=, <, on the kernel's version ("modsize@>=6.4": 6.4 and
later refuse what 6.1 loads), or an architecture name as the kernel's
.config says it ("livepatch@arm64,<6.4": arm64 6.1 has no livepatch).
"""
import os
import re

# CONFIG_<ARCH>=y of the target's .config -> the condition's name
ARCHES = {"X86_64": "x86_64", "ARM64": "arm64", "RISCV": "riscv", "S390": "s390", "PPC64": "ppc64"}


def version_of(kver):
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", kver or "")
    return tuple(int(x or 0) for x in m.groups()) if m else None


def arch_of(kver, kroot=None):
    """The target kernel's architecture: its .config (below TG_KROOT), else its release name."""
    kroot = os.environ.get("TG_KROOT", "") if kroot is None else kroot
    for cfg in ("%s/boot/config-%s" % (kroot, kver), "%s/lib/modules/%s/build/.config" % (kroot, kver)):
        try:
            with open(cfg) as f:
                on = {l.split("=")[0][7:] for l in f if l.startswith("CONFIG_") and l.rstrip().endswith("=y")}
        except OSError:
            continue
        for k, name in ARCHES.items():
            if k in on:
                return name
    m = re.search(r"[-.](amd64|x86_64|arm64|aarch64)$", kver or "")
    return {"amd64": "x86_64", "aarch64": "arm64"}.get(m.group(1), m.group(1)) if m else None


def holds_one(cond, kver, arch):
    if cond in ARCHES.values():
        if arch is None:
            raise ValueError("cases.tsv: architecture of kernel %r unknown" % kver)
        return cond == arch
    m = re.fullmatch(r"(>=|<)(\d+(?:\.\d+){0,2})", cond)
    if not m:
        raise ValueError("cases.tsv: bad condition %r" % cond)
    have = version_of(kver)
    if have is None:
        raise ValueError("cases.tsv: kernel release %r has no version" % kver)
    want = tuple(int(x) for x in (m.group(2).split(".") + ["0", "0"])[:3])
    return have >= want if m.group(1) == ">=" else have < want


def holds(cond, kver, arch=None):
    return all(holds_one(c, kver, arch) for c in cond.split(","))


def read_cases(path, kver, arch=None):
    arch = arch or arch_of(kver)
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    head = lines[0].split("\t")
    rows, order = {}, []
    for l in lines[1:]:
        row = l.split("\t")
        c = dict(zip(head, row + ["-"] * (len(head) - len(row))))
        name, _, cond = c["case"].partition("@")
        if cond and not holds(cond, kver, arch):
            continue
        if name not in rows:
            order.append(name)
        elif not cond:
            continue  # a variant seen earlier already replaced it
        c["variant"] = cond
        c["case"] = name if not cond else "%s@%s" % (name, cond)
        rows[name] = c
    return [rows[n] for n in order]
