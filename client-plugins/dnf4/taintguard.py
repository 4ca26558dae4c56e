# SPDX-License-Identifier: GPL-2.0-or-later
"""taintguard for dnf 4: stop a transaction before rpm runs when taintguard would refuse a package.

rpm's plugin refuses a package in psm_pre, one element at a time: the packages that
need it are installed anyway (rpm cannot fail them from a plugin), and dnf shows the
reason only when a later element reaches a callback.  Here the downloaded packages
are judged with `taintguard audit` in pre_transaction (after dnf's test transaction,
before the real one), and a refusal stops everything with one message: each refused
package and its reason, the packages of the transaction that need it (from the
solver's own data), and the dnf command line that installs the rest.  rpm's plugin
stays the backstop for every other path (rpm -i, zypper, --disableplugin=taintguard).

Packages already in dnf's cache (an earlier download) are judged in `resolved`,
before the confirmation prompt.

A kernel among the downloaded packages: audit judges the root's out-of-tree modules
against it and the lines it says of them are printed here, once (the rpm plugin then
keeps them to its debug log: %_taintguard_kernel_update_said).  A kernel is never
stopped for them unless %_taintguard_kernel_update is deny, as in the rpm plugin.
"""

import fnmatch
import json
import os
import subprocess
import sys

import dnf
import dnf.exceptions
import hawkey
import rpm

MAXLINE = 160
TAG = 'taintguard: '
MORE = 'taintguard:   '


def wrap(line, more=MORE):
    """Cut a line at spaces so that no line is longer than MAXLINE."""
    out = []
    while len(line) > MAXLINE:
        cut = line.rfind(' ', len(more) + 1, MAXLINE)
        if cut < 0:
            cut = MAXLINE
        out.append(line[:cut])
        line = more + line[cut:].lstrip(' ')
    out.append(line)
    return out


def shell_quote(arg):
    if arg and all(c.isalnum() or c in '@%+=:,./-_' for c in arg):
        return arg
    return "'" + arg.replace("'", "'\\''") + "'"


def command_lines(argv):
    """A shell command split with ' \\' continuations, every line <= MAXLINE."""
    lines, cur = [], ' '
    for a in (shell_quote(x) for x in argv):
        if len(cur) > 2 and len(cur) + 1 + len(a) + 2 > MAXLINE:
            lines.append(cur + ' \\')
            cur = '   '
        cur += ' ' + a
    lines.append(cur)
    return lines


def pkg_forms(p):
    """The spellings of a package a command line may use (dnf's NEVRA forms)."""
    vr = '%s-%s' % (p.version, p.release)
    return (p.name, '%s.%s' % (p.name, p.arch), '%s-%s' % (p.name, p.version),
            '%s-%s' % (p.name, vr), '%s-%s.%s' % (p.name, vr, p.arch),
            '%s-%s:%s.%s' % (p.name, p.epoch, vr, p.arch))


def kernel_update():
    """The rpm plugin's %_taintguard_kernel_update: deny stops a kernel that breaks a module."""
    return rpm.expandMacro('%{?_taintguard_kernel_update}').strip() or 'warn'


def mode():
    """The rpm plugin's %_taintguard_mode: warn and off refuse nothing (an invalid mode enforces)."""
    m = rpm.expandMacro('%{?_taintguard_mode}').strip()
    return m or 'enforce'


class Verdict:
    """What taintguard says of one refused package."""

    def __init__(self, pkg, lines):
        self.pkg = pkg
        self.lines = lines


class Taintguard(dnf.Plugin):
    name = 'taintguard'

    def __init__(self, base, cli):
        super().__init__(base, cli)
        self.cli = cli
        self.command = '@BINDIR@/taintguard'
        self.cache = None
        self.kernel_lines = []

    def config(self):
        cp = self.read_config(self.base.conf)
        if cp.has_section('main') and cp.has_option('main', 'command'):
            self.command = cp.get('main', 'command')
        if cp.has_section('main') and cp.has_option('main', 'cache'):
            self.cache = cp.get('main', 'cache')

    # ---------------------------------------------------------------- judging

    def audit(self, pkgs):
        """Refused packages of @pkgs (downloaded), by `taintguard audit --format json`."""
        files = {os.path.realpath(p.localPkg()): p for p in pkgs}
        return self.run_audit(['--no-cache'], files, lambda jp: os.path.realpath(jp.get('file') or ''))

    def audit_cached(self, pkgs):
        """Refused packages of @pkgs that taintguard's audit cache knows by their checksum."""
        sums = {}
        for p in pkgs:
            if p.chksum:
                sums['%s:%s' % (hawkey.chksum_name(p.chksum[0]), p.chksum[1].hex())] = p
        opts = ['--cached-only'] + (['--cache', self.cache] if self.cache else [])
        return self.run_audit(opts, sums, lambda jp: jp.get('checksum'))

    def run_audit(self, opts, args, key):
        if not args:
            return []
        cmd = [self.command, 'audit', '--format', 'json', '--quiet'] + opts
        root = self.base.conf.installroot
        if root and root != '/':
            cmd += ['--root', root]
        policy = rpm.expandMacro('%{?_taintguard_policy}').strip()
        if policy:
            cmd += ['--policy', policy]
        try:
            r = subprocess.run(cmd + sorted(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True, check=False)
        except OSError as e:
            raise dnf.exceptions.Error(TAG + 'cannot judge the transaction: %s: %s' % (self.command, e))
        try:
            report = json.loads(r.stdout)
        except ValueError:
            last = (r.stderr.strip().splitlines() or ['exit status %d' % r.returncode])[-1]
            raise dnf.exceptions.Error(TAG + 'cannot judge the transaction: %s audit: %s'
                                       % (self.command, last))
        refused = []
        for ku in report.get('kernel_updates', []):
            self.kernel_lines.append(self.kernel_message(ku))
        for jp in report.get('packages', []):
            p = args.get(key(jp))
            if p is None or (jp.get('action') != 'deny' and jp.get('status') != 'error'):
                continue
            refused.append(Verdict(p, self.reason_lines(p, jp, policy)))
        return refused

    @staticmethod
    def kernel_message(ku):
        """A kernel of the transaction: the lines audit said of the root's modules under it."""
        lines = [TAG + x for x in ku.get('lines', [])]
        n = len(lines)
        if ku.get('error'):
            lines.append(TAG + 'kernel %s (%s): %s' % (ku.get('release'), ku.get('nevra'), ku['error']))
        elif n and kernel_update() == 'deny':
            lines.append(TAG + 'refusing to install %s: %d installed module%s would not load cleanly under '
                         'kernel %s (_taintguard_kernel_update is deny)'
                         % (ku.get('nevra'), n, '' if n == 1 else 's', ku.get('release')))
        elif n:
            lines.append(TAG + 'kernel %s (%s): %d installed module%s will not load cleanly under it '
                         '(installing it anyway; _taintguard_kernel_update deny stops such a transaction)'
                         % (ku.get('release'), ku.get('nevra'), n, '' if n == 1 else 's'))
        return (n > 0 and not ku.get('error') and kernel_update() == 'deny',
                [w for line in lines for w in wrap(line)])

    @staticmethod
    def reason_lines(p, jp, policy):
        lines, first = [], None
        for m in jp.get('modules', []):
            if m.get('action') == 'deny' or m.get('error'):
                lines.append(TAG + m.get('headline', ''))
                first = first or m.get('module')
        if jp.get('error'):
            lines.append(TAG + 'refused %s: %s' % (jp.get('nevra'), jp['error']))
        lines.append(TAG + 'to install %s anyway, add an exception (package: "%s", module: "%s", '
                     'action: mark, justification: ...)' % (jp.get('nevra'), p.name, first or '*'))
        lines.append(MORE + 'to %s, or set the rpm macro _taintguard_mode to warn'
                     % (policy or '/etc/taintguard/policy.yaml'))
        lines.append(MORE + 'details: taintguard explain ' + p.localPkg())
        return lines

    # ------------------------------------------------------------- dependents

    def dependents(self, refused):
        """Packages of the transaction that need a refused one: {pkg: (capability, provider)}.

        A package is left out when one of its requirements was met by a left-out
        package and, without the left-out ones, by nothing else: neither an added
        package that stays nor an installed one that stays (the old version of a
        refused upgrade stays).  Matching is the solver's (hawkey provides/file
        queries), to a fixed point, so a chain is followed to its end."""
        ts = self.base.transaction
        adding = list(ts.install_set)
        out = set(v.pkg for v in refused)
        out_names = set(p.name for p in out)
        removing = set(p for p in ts.remove_set if p.name not in out_names)
        sack = self.base.sack
        installed = set(sack.query().installed())
        deps = {}
        changed = True
        while changed:
            changed = False
            for p in adding:
                if p in out:
                    continue
                for req in p.requires:
                    cap = str(req)
                    if cap.startswith('rpmlib('):
                        continue
                    prov = set(sack.query().filter(provides=req))
                    if cap.startswith('/'):
                        prov |= set(sack.query().filter(file=cap))
                    gone = prov & out
                    if not gone:
                        continue
                    stays = [q for q in prov if q not in out and
                             ((q in adding) or (q in installed and q not in removing))]
                    if stays:
                        continue
                    deps[p] = (cap, sorted(gone, key=str)[0])
                    out.add(p)
                    changed = True
                    break
        return deps

    # ----------------------------------------------------------------- saying

    def rest_command(self, left_out):
        """The command line of this run without the left-out packages, or None."""
        argv = sys.argv[1:]
        specs = set()
        opts = getattr(getattr(self.cli, 'command', None), 'opts', None)
        for attr in ('pkg_specs', 'grp_specs', 'filenames'):
            specs.update(getattr(opts, attr, None) or [])
        forms = [f for p in left_out for f in pkg_forms(p)]
        dropped = [a for a in argv if a in specs and any(fnmatch.fnmatchcase(f, a) for f in forms)]
        kept = [a for a in argv if a in specs and a not in dropped]
        if not kept:
            return None
        names = sorted(set(p.name for p in left_out))
        return ['dnf'] + [a for a in argv if a not in dropped] + ['--exclude=' + ','.join(names)]

    def message(self, refused, deps, when):
        root = {}
        for v in refused:
            root[v.pkg] = v.pkg

        def origin(p):
            while p not in root:
                p = deps[p][1]
            return p
        lines = ['%s: %d package%s would be refused, %d more need%s %s; nothing was installed:' % (
            when, len(refused), 's' if len(refused) != 1 else '', len(deps), 's' if len(deps) == 1 else '',
            'it' if len(refused) == 1 else 'them')]
        for v in sorted(refused, key=lambda x: str(x.pkg)):
            for line in v.lines:
                lines += wrap(line)
            for p in deps:		# in the order found: a chain from its start
                if origin(p) != v.pkg:
                    continue
                cap, prov = deps[p]
                why = ('which taintguard refused' if prov in root else
                       'which is left out too (it needs %s)' % origin(prov).name)
                lines += wrap(TAG + '%s: not installed: needs %s, %s' % (p, cap, why))
        rest = self.rest_command(set(v.pkg for v in refused) | set(deps))
        if rest:
            lines.append(TAG + 'to install the rest:')
            lines += command_lines(rest)
        else:
            lines.append(TAG + 'nothing else was asked for')
        return '\n'.join(lines)

    def stop(self, refused, when):
        deps = self.dependents(refused)
        raise dnf.exceptions.Error(self.message(refused, deps, when))

    # ------------------------------------------------------------------ hooks

    def resolved(self):
        """Before the prompt: packages already downloaded (an earlier run), or whose
        checksum taintguard's audit cache knows, are judged now."""
        if mode() != 'off':
            # a kernel's lines are said in pre_transaction: rpm's plugin keeps them quiet
            rpm.addMacro('_taintguard_kernel_update_said', '1')
        if mode() in ('warn', 'off') or not self.base.transaction:
            return
        pkgs = [p for p in self.base.transaction.install_set if not p._is_local_pkg()]
        have = [p for p in pkgs if os.path.exists(p.localPkg()) and p.verifyLocalPkg()]
        refused = self.audit(have) + self.audit_cached([p for p in pkgs if p not in have])
        self.kernel_lines = []		# said in pre_transaction, once
        if refused:
            self.stop(refused, 'taintguard, before downloading (verdicts already known)')

    def pre_transaction(self):
        if mode() == 'off' or not self.base.transaction:
            return
        self.kernel_lines = []
        refused = self.audit(list(self.base.transaction.install_set))
        deny = [lines for stop, lines in self.kernel_lines if stop]
        if refused and mode() != 'warn':
            self.stop(refused, 'taintguard stopped the transaction before rpm ran')
        if deny:
            raise dnf.exceptions.Error('\n'.join(
                ['taintguard stopped the transaction before rpm ran: a kernel would break installed modules:']
                + [x for lines in deny for x in lines]))
        for _, lines in self.kernel_lines:
            sys.stderr.write('\n'.join(lines) + '\n')
        sys.stderr.flush()
