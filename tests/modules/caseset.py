"""Rows of tests/modules/cases.tsv that hold for one target kernel.

A row whose case is CASE@CONDITIONS is what the kernel does with CASE when
every one of CONDITIONS (comma-separated) holds for the target kernel, and
then replaces the row CASE (the last matching variant wins).  A condition is
  OPVERSION   OP one of >=, <, on the kernel's version ("modsize@>=6.4": 6.4
              and later refuse what 6.1 loads);
  ARCH        an architecture name as the kernel's .config says it
              ("livepatch@arm64,<6.4": arm64 6.1 has no livepatch);
  CONFIG_X    the kernel's .config has CONFIG_X=y (or =m);
  !CONFIG_X   it has not ("vmrel@!CONFIG_MODVERSIONS": without MODVERSIONS
              the loader compares vermagic in full).
A row whose loads column is "skip" says the case cannot be made for such a
kernel; its refusal column says why (c["skip"]).  Callers print the reason.
"""
import os
import re

# CONFIG_<ARCH>=y of the target's .config -> the condition's name
ARCHES = {"X86_64": "x86_64", "ARM64": "arm64", "RISCV": "riscv", "S390": "s390", "PPC64": "ppc64"}


def version_of(kver):
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", kver or "")
    return tuple(int(x or 0) for x in m.groups()) if m else None


def config_paths(kver, kroot=None):
    kroot = os.environ.get("TG_KROOT", "") if kroot is None else kroot
    return ("%s/boot/config-%s" % (kroot, kver), "%s/lib/modules/%s/build/.config" % (kroot, kver))


def read_config(path):
    """Options set to y or m in a kernel .config -> set of CONFIG_ names."""
    on = set()
    with open(path) as f:
        for l in f:
            m = re.match(r"(CONFIG_\w+)=[ym]$", l.strip())
            if m:
                on.add(m.group(1))
    return on


def config_of(kver, kroot=None):
    """The target's .config (below TG_KROOT) as read_config() reads it; None if there is none."""
    for cfg in config_paths(kver, kroot):
        try:
            return read_config(cfg)
        except OSError:
            continue
    return None


def arch_of(kver, kroot=None, config=None):
    """The target kernel's architecture: its .config, else its release name."""
    config = config_of(kver, kroot) if config is None else config
    for k, name in ARCHES.items():
        if config and "CONFIG_" + k in config:
            return name
    m = re.search(r"[-.](amd64|x86_64|arm64|aarch64)$", kver or "")
    return {"amd64": "x86_64", "aarch64": "arm64"}.get(m.group(1), m.group(1)) if m else None


def holds_one(cond, kver, arch, config):
    if cond in ARCHES.values():
        if arch is None:
            raise ValueError("cases.tsv: architecture of kernel %r unknown" % kver)
        return cond == arch
    m = re.fullmatch(r"(!?)(CONFIG_\w+)", cond)
    if m:
        if config is None:
            raise ValueError("cases.tsv: condition %r needs the target kernel's .config" % cond)
        return (m.group(2) in config) != bool(m.group(1))
    m = re.fullmatch(r"(>=|<)(\d+(?:\.\d+){0,2})", cond)
    if not m:
        raise ValueError("cases.tsv: bad condition %r" % cond)
    have = version_of(kver)
    if have is None:
        raise ValueError("cases.tsv: kernel release %r has no version" % kver)
    want = tuple(int(x) for x in (m.group(2).split(".") + ["0", "0"])[:3])
    return have >= want if m.group(1) == ">=" else have < want


def holds(cond, kver, arch=None, config=None):
    return all(holds_one(c, kver, arch, config) for c in cond.split(","))


def read_cases(path, kver, config=None, arch=None):
    """config: read_config() of the target's .config (default: found below TG_KROOT)."""
    config = config_of(kver) if config is None else config
    arch = arch or arch_of(kver, config=config)
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    head = lines[0].split("\t")
    rows, order = {}, []
    for l in lines[1:]:
        row = l.split("\t")
        c = dict(zip(head, row + ["-"] * (len(head) - len(row))))
        name, _, cond = c["case"].partition("@")
        if cond and not holds(cond, kver, arch, config):
            continue
        if name not in rows:
            order.append(name)
        elif not cond:
            continue  # a variant seen earlier already replaced it
        c["variant"] = cond
        c["case"] = name if not cond else "%s@%s" % (name, cond)
        if c.get("loads") == "skip":
            c["skip"] = c.get("refusal", "-")
        rows[name] = c
    return [rows[n] for n in order]
