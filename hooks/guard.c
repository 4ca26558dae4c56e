/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A DKMS package that switches our check off: dkms sources its dkms.conf
 * (and /etc/dkms/MODULE[-VERSION[-KVER[-ARCH]]].conf) in a subshell and then
 * turns every DKMS_DIRECTIVE_* variable it still sees into a directive
 * assignment, in every release from 2.x to 3.4.  That is where the dkms
 * wrapper's PRE_INSTALL travels, so a dkms.conf that unsets
 * DKMS_DIRECTIVE_TG or adds a DKMS_DIRECTIVE_ZZ=PRE_INSTALL=... later in
 * the sort order installs without our PRE_INSTALL check.  What else a
 * dkms.conf sets for signing (SIGN_FILE, SIGN_TOOL, MOK_*) no dkms release
 * uses, and a plain PRE_INSTALL is replaced by ours (docs/dkms.md).
 *
 * Such a package gets the policy's guard action (tg_policy_decide_file) on
 * each of its modules, so every path that acts on a denied module (sign_file
 * deleting it, PRE_INSTALL refusing, the audit uninstalling) acts on it.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "hook.h"

/* The dkms.conf files of package @m/@v for kernel @k, as dkms's read_conf() sources them. */
static void conf_files(const struct settings *s, const char *m, const char *v, const char *k,
		       struct strv *out)
{
	/* hk_judge() gets const settings; the dkms tree is only a cached lookup */
	const char *tree = hk_settings_dkms_tree((struct settings *)s);
	char etc[PATH_MAX], path[PATH_MAX * 2], *slash;
	glob_t gl;

	if (hk_bfmt(path, sizeof(path), "%s/%s/%s/source/dkms.conf", tree, m, v) == 0)
		strv_push(out, path);
	/* /etc/dkms: where framework.conf is (a sandbox moves it) */
	hk_bfmt(etc, sizeof(etc), "%s", s->framework_conf);
	slash = strrchr(etc, '/');
	if (!slash)
		return;
	*slash = '\0';
	if (hk_bfmt(path, sizeof(path), "%s/%s.conf", etc, m) == 0)
		strv_push(out, path);
	if (hk_bfmt(path, sizeof(path), "%s/%s-%s.conf", etc, m, v) == 0)
		strv_push(out, path);
	if (k && hk_bfmt(path, sizeof(path), "%s/%s-%s-%s*.conf", etc, m, v, k) == 0) {
		memset(&gl, 0, sizeof(gl));
		if (glob(path, 0, NULL, &gl) == 0)
			for (size_t i = 0; i < gl.gl_pathc; i++)
				strv_push(out, gl.gl_pathv[i]);
		globfree(&gl);
	}
}

/* Prepend @reason to @v's reasons; the guard decides when that is worse. */
static void apply(struct tg_verdict *v, const struct tg_decision *d, const char *reason)
{
	char **nr;

	if (d->action == TG_ACTION_ALLOW)
		return;
	nr = realloc(v->reasons, (v->n_reasons + 1) * sizeof(*nr));
	if (nr) {
		v->reasons = nr;
		memmove(nr + 1, nr, v->n_reasons * sizeof(*nr));
		nr[0] = strdup(reason);
		if (nr[0])
			v->n_reasons++;
		else
			memmove(nr, nr + 1, v->n_reasons * sizeof(*nr));
	}
	if (d->action <= v->action)
		return;
	v->action = d->action;
	free(v->rule);
	v->rule = strdup(d->rule ? d->rule : "guard");
	free(v->justification);
	v->justification = d->justification ? strdup(d->justification) : NULL;
}

void hk_guard_judge(const struct settings *s, const struct target *targets, size_t n,
		    struct judgement *j)
{
	for (size_t i = 0; i < n && i < j->n; i++) {
		char m[256], v[256], reason[1024], why[512];
		const char *pkg = targets[i].package, *slash;
		struct strv files = { 0 };
		struct tg_decision d;
		bool seen = false;

		for (size_t p = 0; p < i && !seen; p++)
			seen = targets[p].package && pkg && !strcmp(targets[p].package, pkg);
		if (seen || !pkg || !(slash = strchr(pkg, '/')))
			continue;
		hk_bfmt(m, sizeof(m), "%.*s", (int)(slash - pkg), pkg);
		hk_bfmt(v, sizeof(v), "%s", slash + 1);
		if (!hk_safe_name(m) || !hk_safe_name(v))
			continue;
		conf_files(s, m, v, j->release, &files);
		for (size_t f = 0; f < files.n; f++) {
			char *text = NULL;
			size_t len = 0;
			const char *r;

			if (guard_read_file(files.v[f], &text, &len) < 0)
				continue;
			r = guard_dkms_conf_reason(text, len, why, sizeof(why));
			free(text);
			if (!r)
				continue;
			tg_policy_decide_file(j->policy, pkg, files.v[f], &d);
			hk_bfmt(reason, sizeof(reason),
				"the package's %s could switch taintguard's "
				"check off: %s [policy rule %s]",
				files.v[f], r, d.rule ? d.rule : "guard");
			for (size_t t = i; t < n && t < j->n; t++) {
				if (!targets[t].package || strcmp(targets[t].package, pkg))
					continue;
				apply(&j->v[t], &d, reason);
				if (j->v[t].action > j->worst)
					j->worst = j->v[t].action;
				if (d.action == TG_ACTION_DENY)
					j->guard = true;
			}
		}
		strv_free(&files);
	}
}
