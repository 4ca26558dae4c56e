/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sign-file HASH KEY CERT MODULE: dkms's framework-wide sign_file callback
 * (framework.conf.d, dkms >= 3.0.4), called once per built module before it
 * is compressed and copied into the dkms tree.  dkms ignores the exit status,
 * so the only veto here is deleting MODULE.  We sign first (chaining to the
 * signer dkms would have used, so MOK signing keeps working), then judge the
 * signed file, then act.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hook.h"

/* ID (and ID_LIKE) of /etc/os-release contain @what? */
static bool os_is(const char *what)
{
	char line[256];
	bool hit = false;
	FILE *f = fopen("/etc/os-release", "re");

	if (!f)
		return false;
	while (!hit && fgets(line, sizeof(line), f))
		if ((!strncmp(line, "ID=", 3) || !strncmp(line, "ID_LIKE=", 8)) &&
		    strstr(line + 3, what))
			hit = true;
	fclose(f);
	return hit;
}

static bool is_self(const char *path)
{
	char a[PATH_MAX], b[PATH_MAX];
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!strcmp(base, SIGN_NAME))
		return true;
	return realpath(path, a) && realpath("/proc/self/exe", b) && !strcmp(a, b);
}

static bool is_exec_file(const char *p)
{
	struct stat st;

	return p[0] && stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* The signer dkms would run without us, as dkms 3.0.10 computes it. */
static void real_signer(const struct settings *s, const char *k, char *buf, size_t len)
{
	char rel[256], *dot;

	buf[0] = '\0';
	if (s->sign_file[0]) {
		hk_bfmt(buf, len, "%s", s->sign_file);
		return;
	}
	if (hk_framework_get(s, "sign_file", k, buf, len) == 0 && buf[0] && !is_self(buf))
		return;
	buf[0] = '\0';
	if (!k)
		return;
	hk_bfmt(rel, sizeof(rel), "%s", k);
	dot = strrchr(rel, '.');
	if (dot)
		*dot = '\0';
	if (os_is("ubuntu")) {
		static const char *const dirs[] = { "/usr/bin/kmodsign", "/usr/sbin/kmodsign",
						    "/bin/kmodsign" };

		for (size_t i = 0; i < 3 && !buf[0]; i++)
			if (is_exec_file(dirs[i]))
				hk_bfmt(buf, len, "%s", dirs[i]);
		if (!buf[0])
			hk_bfmt(buf, len, "/usr/src/linux-headers-%s/scripts/sign-file", k);
	} else if (os_is("debian")) {
		hk_bfmt(buf, len, "/usr/lib/linux-kbuild-%s/scripts/sign-file", rel);
	}
	if (!buf[0] || access(buf, F_OK) != 0)
		hk_bfmt(buf, len, "/lib/modules/%s/build/scripts/sign-file", k);
}

static const char *self_path(void)
{
	static char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return PROG;
	buf[n] = '\0';
	return buf;
}

static const char *module_release(const char *path, char *buf, size_t len)
{
	struct tg_module *m = NULL;
	struct tg_limits lim;
	const char *r;

	tg_limits_default(&lim);
	if (tg_module_open_path(path, &lim, &m, NULL) < 0)
		return NULL;
	r = tg_target_release(NULL, path, m, buf, len);
	tg_module_free(m);
	return r;
}

/* ".../<m>/<v>/build/..." -> "<m>", "<v>" and the build dir. */
static int package_from_path(const char *path, const struct dkms_ctx *c, char *m, char *v,
			     char *build, size_t len)
{
	const char *p = strstr(path, "/build/");

	if (c->module && c->module_version && hk_safe_name(c->module) &&
	    hk_safe_name(c->module_version)) {
		char needle[600];
		const char *q;

		hk_bfmt(needle, sizeof(needle), "/%s/%s/build/", c->module, c->module_version);
		q = strstr(path, needle);
		hk_bfmt(m, len, "%s", c->module);
		hk_bfmt(v, len, "%s", c->module_version);
		if (q)
			hk_bfmt(build, len, "%.*s", (int)(q - path + strlen(needle) - 1), path);
		else
			hk_bfmt(build, len, "%.*s", (int)(strrchr(path, '/') - path), path);
		return 0;
	}
	if (p && p > path) {
		const char *ve = p, *vs = ve, *ms;

		while (vs > path && vs[-1] != '/')
			vs--;
		ms = vs > path ? vs - 1 : vs;
		while (ms > path && ms[-1] != '/')
			ms--;
		if (vs > path && ms < vs - 1) {
			hk_bfmt(m, len, "%.*s", (int)(vs - 1 - ms), ms);
			hk_bfmt(v, len, "%.*s", (int)(ve - vs), vs);
			hk_bfmt(build, len, "%.*s", (int)(p - path + 6), path);
			if (hk_safe_name(m) && hk_safe_name(v))
				return 0;
		}
	}
	return -ENOENT;
}

int hk_mode_sign(int argc, char **argv)
{
	char m[256] = "", v[256] = "", build[PATH_MAX] = "", pkg[600], signer[PATH_MAX];
	char relbuf[256], nbuf[128], out[1024], retry[1024], rule[PATH_MAX];
	const char *module, *k, *name, *arch;
	struct strv files = { 0 }, ctx_files = { 0 };
	struct target *targets = NULL;
	struct judgement j = { 0 };
	struct settings s;
	struct dkms_ctx c;
	struct tg_verdict *me = NULL;
	int sign_rc = 0, rc;
	size_t self = 0;
	bool unlinked = false;

	if (argc != 5) {
		hk_msg("sign-file: expected HASH KEY CERT MODULE, got %d arguments", argc - 1);
		return 2;
	}
	module = argv[4];
	hk_msg_stderr_fallback();
	hk_settings_load(&s);
	hk_dkms_ctx_get(&c);
	arch = c.arch ? c.arch : "x86_64";
	k = c.kernelver && hk_safe_name(c.kernelver) ? c.kernelver :
						       module_release(module, relbuf, sizeof(relbuf));

	/* 1. Sign, exactly as dkms would have. */
	real_signer(&s, k, signer, sizeof(signer));
	if (is_exec_file(signer) && !is_self(signer)) {
		char *sargv[] = { signer, argv[1], argv[2], argv[3], (char *)module, NULL };

		sign_rc = hk_run_wait(sargv);
	} else {
		hk_msg("no module signer found (%s); %s is left unsigned",
		       signer[0] ? signer : "none configured", module);
	}

	/* 2. Judge it with its siblings from the same build (and installed DKMS modules). */
	if (package_from_path(module, &c, m, v, build, sizeof(build)) < 0) {
		hk_bfmt(m, sizeof(m), "unknown");
		hk_bfmt(v, sizeof(v), "0");
		const char *sl = strrchr(module, '/');

		if (sl && sl > module)
			hk_bfmt(build, sizeof(build), "%.*s", (int)(sl - module), module);
		else
			hk_bfmt(build, sizeof(build), "%s", sl ? "/" : ".");
	}
	hk_bfmt(pkg, sizeof(pkg), "%s/%s", m, v);
	hk_collect_modules(&files, build, true);
	if (!strv_has(&files, module))
		strv_push(&files, module);
	targets = calloc(files.n, sizeof(*targets));
	if (!targets) {
		hk_msg("out of memory");
		return sign_rc;
	}
	for (size_t i = 0; i < files.n; i++) {
		targets[i].path = files.v[i];
		targets[i].package = pkg;
		if (!strcmp(files.v[i], module))
			self = i;
	}
	if (k) {
		char dir[PATH_MAX];

		hk_bfmt(dir, sizeof(dir), "%s/%s/updates/dkms", s.install_tree, k);
		hk_installed_context(dir, &files, &ctx_files);
	}
	if (hk_judge(&s, k, targets, files.n, &ctx_files, &j) < 0 || j.n <= self) {
		hk_msg("could not judge %s; leaving it to the install-time checks", module);
		rc = sign_rc;
		goto out;
	}
	me = &j.v[self];
	k = j.release ? j.release : k;
	if (j.guard)
		c.wrapped = false;	/* its dkms.conf can drop the wrapper's PRE_INSTALL */
	name = hk_verdict_name(me, nbuf, sizeof(nbuf));
	rc = sign_rc;

	if (me->action != TG_ACTION_DENY || s.mode == HOOK_WARN) {
		if (name && k)
			hk_rule_drop(&s, name, pkg, k, arch);
		if (me->action == TG_ACTION_ALLOW)
			goto out;
		if (c.wrapped && me->action == TG_ACTION_MARK) {
			hk_msg("%s (dkms %s): marked by taintguard policy (rule %s); details at install",
			       name ? name : module, pkg, me->rule ? me->rule : "?");
			goto out;
		}
		hk_bfmt(out, sizeof(out), "%s",
			me->action == TG_ACTION_DENY ?
				"mode=warn: dkms builds and installs it anyway; recorded for \"taintguard status\"" :
				"dkms builds and installs it as usual; recorded for \"taintguard status\"");
		hk_report_verdict(&j, me, pkg, out, NULL);
		if (!c.wrapped && k) {
			const struct tg_verdict **vp = calloc(j.n, sizeof(*vp));

			for (size_t i = 0; vp && i < j.n; i++)
				vp[i] = &j.v[i];
			if (vp)
				hk_record_write(&s, &j, m, v, k, arch, vp, j.n);
			free(vp);
		}
		goto out;
	}

	/* 3. Deny. */
	if (name && k)
		hk_rule_add(&s, name, pkg, k, arch, me->n_reasons ? me->reasons[0] : NULL);
	if (name)
		hk_rule_path(&s, name, rule, sizeof(rule));
	else
		hk_bfmt(rule, sizeof(rule), "(no rule: unusable module name)");
	switch (s.sign_file_deny) {
	case SIGN_DENY_UNLINK:
		unlinked = true;
		break;
	case SIGN_DENY_KEEP:
		break;
	case SIGN_DENY_AUTO:
		if (c.autoinstall && !s.fail_kernel_upgrade)
			break;	/* never fail a kernel upgrade: the audit right after removes it */
		unlinked = !c.wrapped;
		break;
	}
	if (unlinked) {
		if (unlink(module) < 0 && errno != ENOENT)
			hk_msg("cannot delete %s: %s", module, strerror(errno));
		hk_bfmt(out, sizeof(out),
			"outcome: %s deleted so that dkms cannot install it (dkms may go on to say "
			"\"cp: cannot stat\"); \"modprobe %s\" is blocked by %s",
			module, name ? name : "?", rule);
		/* dkms < 3.1.7 leaves a half-built state that "sync" cleans (hk_rule_sync). */
		hk_bfmt(retry, sizeof(retry), "%s sync; dkms install %s -k %s", self_path(), pkg,
			k ? k : "KVER");
		hk_report_verdict(&j, me, pkg, out, retry);
		rc = 1;	/* dkms >= 3.1.6 then shows this output with its warning */
	} else if (c.autoinstall && !s.fail_kernel_upgrade) {
		hk_bfmt(out, sizeof(out),
			"outcome: autoinstall (kernel upgrade) goes on; taintguard uninstalls %s right "
			"after it, and \"modprobe %s\" is blocked by %s",
			pkg, name ? name : "?", rule);
		hk_bfmt(retry, sizeof(retry), "dkms install %s -k %s", pkg, k ? k : "KVER");
		hk_report_verdict(&j, me, pkg, out, retry);
	} else if (c.wrapped) {
		hk_msg("%s (dkms %s): DENIED by taintguard policy (rule %s); taintguard's pre_install "
		       "check will refuse to install it; \"modprobe %s\" is blocked by %s",
		       name ? name : module, pkg, me->rule ? me->rule : "?", name ? name : "?", rule);
	} else {
		hk_bfmt(out, sizeof(out),
			"outcome: kept in the build (sign_file_deny=keep); \"modprobe %s\" is blocked by %s",
			name ? name : "?", rule);
		hk_bfmt(retry, sizeof(retry), "dkms install %s -k %s", pkg, k ? k : "KVER");
		hk_report_verdict(&j, me, pkg, out, retry);
	}
out:
	hk_judgement_free(&j);
	free(targets);
	strv_free(&files);
	strv_free(&ctx_files);
	return rc;
}
