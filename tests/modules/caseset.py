"""Rows of tests/modules/cases.tsv that hold for one target kernel.

A row whose case is CASE@CONDITION is what the kernel does with CASE when
CONDITION holds for the target kernel, and then replaces the row CASE (the
last matching variant wins).  CONDITION is
  OPVERSION       OP one of >=, <, e.g. "modsize@>=6.4": 6.4 and later refuse
                  what 6.1 loads;
  CONFIG_X        the kernel's .config has CONFIG_X=y (or =m);
  !CONFIG_X       it has not, e.g. "vmrel@!CONFIG_MODVERSIONS": without
                  MODVERSIONS the loader compares vermagic in full.
A row whose loads column is "skip" says the case cannot be made for such a
kernel; its refusal column says why (c["skip"]).  Callers print the reason.
"""
import re


def version_of(kver):
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", kver or "")
    return tuple(int(x or 0) for x in m.groups()) if m else None


def read_config(path):
    """Options set to y or m in a kernel .config -> set of CONFIG_ names."""
    on = set()
    with open(path) as f:
        for l in f:
            m = re.match(r"(CONFIG_\w+)=[ym]$", l.strip())
            if m:
                on.add(m.group(1))
    return on


def holds(cond, kver, config=None):
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


def read_cases(path, kver, config=None):
    """config: read_config() of the target's .config (needed by CONFIG_ conditions)."""
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    head = lines[0].split("\t")
    rows, order = {}, []
    for l in lines[1:]:
        row = l.split("\t")
        c = dict(zip(head, row + ["-"] * (len(head) - len(row))))
        name, _, cond = c["case"].partition("@")
        if cond and not holds(cond, kver, config):
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
