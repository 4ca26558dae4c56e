/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The four checks of taintguard status (what each one proves: status_guard.c).
 * Each finding names the file and, through rpm, the package owning it.
 */
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "guard_status.h"
#include "strf.h"

static void check_set(struct status_check *c, enum guard_state s, char *file, const char *fmt,
		      ...) __attribute__((format(printf, 4, 5)));
static void check_set(struct status_check *c, enum guard_state s, char *file, const char *fmt,
		      ...)
{
	va_list ap;

	c->state = s;
	free(c->summary);
	va_start(ap, fmt);
	if (vasprintf(&c->summary, fmt, ap) < 0)
		c->summary = NULL;
	va_end(ap);
	free(c->file);
	c->file = file;
}

/* The first word of %__transaction_taintguard: the path rpm loads. */
static char *first_word(const char *s)
{
	size_t skip = strspn(s, " \t");

	return strndup(s + skip, strcspn(s + skip, " \t"));
}

/* Is our plugin installed here at all (or was it, when the state was accepted)? */
static bool plugin_expected(struct gs_ctx *g, const char *so)
{
	if (g->rec.plugin || (so && gs_exists(g->root, so)) || *g->transaction)
		return true;
	for (size_t i = 0; i < g->n_files; i++)
		if (guard_named_like_macros(g->files[i].path))
			return true;
	return false;
}

/* An installed program or library: the digest accepted, else rpm -V of its (our) package. */
static bool integrity(struct gs_ctx *g, const char *path, char **owner, char **why)
{
	const struct gs_file *rf = gs_record_file(&g->rec, path);
	char d[65];
	int v;

	*why = NULL;
	if (rf) {
		if (gs_digest(g->root, path, d) < 0 || strcmp(d, rf->digest)) {
			*why = strf("%s changed since it was accepted", path);
			return false;
		}
		return true;
	}
	if (!*owner)
		*owner = gs_owner_of(g, path);
	if (gs_ours(*owner) && (v = gs_verify_file(g, *owner, path, why)) == 0) {
		char *w = strf("%s: %s since package %s installed it", path, *why, *owner);

		free(*why);
		*why = w;
		return false;
	}
	return true;
}

void gs_check_plugin(struct gs_ctx *g, struct status_check *c)
{
	char *so, *loads = NULL, *why = NULL, *owner = NULL;
	unsigned line = 0;
	const char *by;

	if (!g->rpm) {
		check_set(c, GS_ABSENT, NULL, "no rpm command: the rpm plugin does not apply");
		return;
	}
	if (!g->evaluated) {
		check_set(c, GS_UNKNOWN, NULL, "cannot ask rpm: %s", g->rpm_error ? g->rpm_error : "?");
		return;
	}
	so = *g->plugindir ? strf("%s/taintguard.so", g->plugindir) : NULL;
	if (!plugin_expected(g, so)) {
		check_set(c, GS_ABSENT, NULL, "the rpm plugin is not installed");
		free(so);
		return;
	}
	by = gs_set_by(g, "__transaction_taintguard", &line);
	if (!*g->transaction) {
		check_set(c, GS_DOWN, by ? strdup(by) : NULL,
			  "%%__transaction_taintguard is empty: rpm does not load the plugin%s%s%s",
			  by ? " (set in " : " (no macro file sets it: the plugin's macro file "
			  "macros.transaction_taintguard is gone)", by ? by : "", by ? ")" : "");
		if (by)
			c->line = line;
		goto out;
	}
	if (!so || !gs_exists(g->root, so)) {
		const char *pby = gs_set_by(g, "__plugindir", &line);

		if (so)
			check_set(c, GS_DOWN, pby ? strdup(pby) : strdup(so),
				  "rpm loads plugins from %%{__plugindir} '%s', which has no "
				  "taintguard.so", g->plugindir);
		else
			check_set(c, GS_DOWN, pby ? strdup(pby) : NULL, "%%{__plugindir} is not "
				  "set: rpm loads no plugin");
		if (pby)
			c->line = line;
		goto out;
	}
	loads = first_word(g->transaction);
	if (!loads || strcmp(loads, so)) {
		char a[PATH_MAX], b[PATH_MAX], *ra, *rb;

		snprintf(a, sizeof(a), "%s%s", g->root, loads ? loads : "");
		snprintf(b, sizeof(b), "%s%s", g->root, so);
		ra = realpath(a, NULL);
		rb = realpath(b, NULL);
		if (!ra || !rb || strcmp(ra, rb)) {
			check_set(c, GS_DOWN, by ? strdup(by) : NULL,
				  "rpm loads '%s' as the taintguard plugin, not %s",
				  loads ? loads : "?", so);
			if (by)
				c->line = line;
			free(ra);
			free(rb);
			goto out;
		}
		free(ra);
		free(rb);
	}
	if (!integrity(g, so, &owner, &why)) {
		check_set(c, GS_DOWN, strdup(so), "%s", why);
		goto out;
	}
	check_set(c, GS_UP, by ? strdup(by) : NULL, "rpm loads %s", so);
	if (by)
		c->line = line;
out:
	free(why);
	free(owner);
	free(loads);
	free(so);
}

void gs_check_mode(struct gs_ctx *g, struct status_check *c, const struct status_check *plugin)
{
	const char *want = g->rec.mode ? g->rec.mode : "enforce", *by;
	char *have, *opts;
	unsigned line = 0;

	if (plugin->state == GS_ABSENT || plugin->state == GS_UNKNOWN) {
		check_set(c, plugin->state, NULL, "%s", plugin->summary ? plugin->summary : "");
		return;
	}
	/* the plugin's reading: the macro, else the options after the path, else enforce */
	opts = g->transaction + strspn(g->transaction, " \t");
	opts += strcspn(opts, " \t");
	opts += strspn(opts, " \t");
	have = strdup(*g->mode ? g->mode : *opts ? opts : "enforce");
	if (!have) {
		check_set(c, GS_UNKNOWN, NULL, "out of memory");
		return;
	}
	/* the plugin enforces what it does not understand */
	if (strcmp(have, "warn") && strcmp(have, "off") && strcmp(have, "enforce")) {
		free(have);
		have = strdup("enforce");
	}
	by = gs_set_by(g, "_taintguard_mode", &line);
	if (have && strcmp(have, want))
		check_set(c, GS_DOWN, by ? strdup(by) : NULL,
			  "%%_taintguard_mode is '%s', accepted: '%s'", have, want);
	else
		check_set(c, GS_UP, by ? strdup(by) : NULL, "%%_taintguard_mode is '%s'%s", want,
			  g->rec.mode ? " (accepted)" : "");
	if (by)
		c->line = line;
	free(have);
}

/* The policy the rpm plugin uses: %_taintguard_policy, else the site's, else the default. */
char *gs_policy_path(struct gs_ctx *g)
{
	if (g->policy_macro && *g->policy_macro)
		return strdup(g->policy_macro);
	if (gs_exists(g->root, TG_SYSCONFDIR "/policy.yaml"))
		return strdup(TG_SYSCONFDIR "/policy.yaml");
	return strdup(TG_DATADIR "/default.yaml");
}

void gs_check_policy(struct gs_ctx *g, struct status_check *c)
{
	char *path = gs_policy_path(g), full[PATH_MAX], d[65], *how = NULL;
	const struct gs_file *rf;
	struct tg_policy *p = NULL;
	struct tg_error err = { 0 };
	int v;

	if (!path) {
		check_set(c, GS_UNKNOWN, NULL, "out of memory");
		return;
	}
	rf = gs_record_file(&g->rec, path);
	snprintf(full, sizeof(full), "%s%s", g->root, path);
	if (!gs_exists(g->root, path)) {
		if (rf)
			check_set(c, GS_DOWN, path, "the accepted policy %s is gone: the built-in "
				  "policy is used, without its exceptions", path);
		else
			check_set(c, GS_ABSENT, path, "no policy installed (%s): the built-in policy "
				  "is used", path);
		return;
	}
	c->owner = gs_owner_of(g, path);
	if (tg_policy_load_path(full, NULL, &p, &err) < 0) {
		check_set(c, GS_DOWN, path, "the policy cannot be loaded, so the built-in one is "
			  "used without its exceptions: %s", err.msg);
		return;
	}
	tg_policy_free(p);
	if (c->owner && *c->owner && !gs_ours(c->owner)) {
		check_set(c, GS_DOWN, path, "the policy belongs to package %s, not to taintguard",
			  c->owner);
		return;
	}
	if (rf) {
		if (gs_digest(g->root, path, d) < 0 || strcmp(d, rf->digest))
			check_set(c, GS_DOWN, path, "the policy changed since it was accepted (if "
				  "you changed it: taintguard status --accept)");
		else
			check_set(c, GS_UP, path, "the policy is the one accepted");
		return;
	}
	if (gs_ours(c->owner) && (v = gs_verify_file(g, c->owner, path, &how)) != 0) {
		check_set(c, v > 0 ? GS_UP : GS_UNKNOWN, path, v > 0
			  ? "the policy is as package %s installed it"
			  : "the policy cannot be verified against package %s", c->owner);
		return;
	}
	if (how)
		check_set(c, GS_DOWN, path, "the policy changed since package %s installed it and "
			  "was never accepted (if you changed it: taintguard status --accept)",
			  c->owner);
	else	/* nothing to compare with: say so, without calling it down */
		check_set(c, GS_UNKNOWN, path, "cannot tell whether this is the policy the admin "
			  "installed: it was never accepted and no taintguard package installed it "
			  "(taintguard status --accept records it)");
	free(how);
}

/* The framework files dkms reads, in its order (framework.conf, then framework.conf.d/ *.conf). */
static int framework_files(const char *root, struct strv *v)
{
	char pat[PATH_MAX];
	glob_t gl;
	int r = 0;

	if (gs_exists(root, GS_FRAMEWORK))
		r = strv_push(v, GS_FRAMEWORK);
	snprintf(pat, sizeof(pat), "%s/etc/dkms/framework.conf.d/*.conf", root);
	memset(&gl, 0, sizeof(gl));
	if (r == 0 && glob(pat, 0, NULL, &gl) == 0) {
		qsort(gl.gl_pathv, gl.gl_pathc, sizeof(char *), gs_path_cmp);
		for (size_t i = 0; i < gl.gl_pathc && r == 0; i++)
			r = strv_push(v, gl.gl_pathv[i] + strlen(root));
	}
	globfree(&gl);
	return r;
}

/* The value of the last "try_sign_modules=" in @text, quotes removed ("" if none). */
static void assigned(const char *text, const char *var, char *out, size_t size)
{
	size_t vl = strlen(var);

	out[0] = '\0';
	for (const char *p = text; (p = strstr(p, var)) != NULL; p += vl) {
		const char *v = p + vl;
		size_t l;

		if ((p > text && !strchr(" \t\n;", p[-1])) || *v != '=')
			continue;
		v++;
		if (*v == '"' || *v == '\'')
			v++;
		l = strcspn(v, "\"' \t\n;");
		snprintf(out, size, "%.*s", (int)(l < size ? l : size - 1), v);
	}
}

void gs_check_dkms(struct gs_ctx *g, struct status_check *c)
{
	char full[PATH_MAX], *why = NULL, *owner = NULL;
	struct strv fw = { 0 };
	const char *last_sign = NULL;
	bool ours_last = false;

	if (!g->rec.dkms && !gs_exists(g->root, GS_SNIPPET) && !gs_exists(g->root, GS_HOOK)) {
		check_set(c, GS_ABSENT, NULL, "the DKMS hook is not installed");
		return;
	}
	if (framework_files(g->root, &fw) < 0) {
		check_set(c, GS_UNKNOWN, NULL, "out of memory");
		return;
	}
	for (size_t i = 0; i < fw.n; i++) {
		char *text = NULL, val[64];
		size_t len = 0;
		unsigned line;

		snprintf(full, sizeof(full), "%s%s", g->root, fw.v[i]);
		if (guard_read_file(full, &text, &len) < 0)
			continue;
		if (!strcmp(fw.v[i], GS_SNIPPET)) {
			if (guard_shell_mention(text, len, "sign_file", false)) {
				last_sign = GS_SNIPPET;
				ours_last = true;
			}
			free(text);
			continue;
		}
		if ((line = guard_shell_mention(text, len, "sign_file", false))) {
			last_sign = fw.v[i];
			ours_last = false;
		}
		assigned(text, "try_sign_modules", val, sizeof(val));
		if (!strcmp(val, "false")) {
			check_set(c, GS_DOWN, strdup(fw.v[i]), "try_sign_modules=false: dkms 3.3+ never "
				  "calls sign_file, taintguard's DKMS hook");
			c->line = guard_shell_mention(text, len, "try_sign_modules", false);
		} else if ((line = guard_shell_mention(text, len, "DKMS_DIRECTIVE", true))) {
			check_set(c, GS_DOWN, strdup(fw.v[i]), "it touches DKMS_DIRECTIVE_*, which carry "
				  "taintguard's PRE_INSTALL check");
			c->line = line;
		}
		free(text);
		if (c->state == GS_DOWN)
			goto out;
	}
	if (!gs_exists(g->root, GS_SNIPPET)) {
		check_set(c, GS_DOWN, strdup(GS_SNIPPET), "taintguard's framework snippet is gone: dkms "
			  "no longer calls taintguard-dkms-sign");
		goto out;
	}
	if (!ours_last) {
		check_set(c, GS_DOWN, last_sign ? strdup(last_sign) : strdup(GS_SNIPPET),
			  last_sign ? "it sets sign_file after taintguard's snippet: dkms calls that "
			  "instead of taintguard-dkms-sign" : "taintguard's snippet no longer sets "
			  "sign_file");
		goto out;
	}
	snprintf(full, sizeof(full), "%s%s", g->root, GS_SNIPPET);
	{
		char *text = NULL;
		size_t len = 0;

		if (guard_read_file(full, &text, &len) < 0 || !strstr(text, GS_SIGN_HOOK)) {
			check_set(c, GS_DOWN, strdup(GS_SNIPPET), "taintguard's snippet does not name %s",
				  GS_SIGN_HOOK);
			free(text);
			goto out;
		}
		free(text);
	}
	snprintf(full, sizeof(full), "%s%s", g->root, GS_HOOK);
	if (access(full, X_OK) != 0) {
		check_set(c, GS_DOWN, strdup(GS_HOOK), "the DKMS hook program is missing");
		goto out;
	}
	if (!integrity(g, GS_HOOK, &owner, &why)) {
		check_set(c, GS_DOWN, strdup(GS_HOOK), "%s", why);
		goto out;
	}
	/* Debian: the dkms wrapper over dpkg-divert carries PRE_INSTALL */
	if (gs_exists(g->root, "/usr/sbin/dkms.distrib")) {
		char *text = NULL;
		size_t len = 0;

		snprintf(full, sizeof(full), "%s/usr/sbin/dkms", g->root);
		if (guard_read_file(full, &text, &len) < 0 || !strstr(text, GS_WRAPPER_MARK)) {
			check_set(c, GS_DOWN, strdup("/usr/sbin/dkms"), "/usr/sbin/dkms is no longer "
				  "taintguard's wrapper (dkms.distrib is): PRE_INSTALL is not checked");
			free(text);
			goto out;
		}
		free(text);
	}
	check_set(c, GS_UP, strdup(GS_SNIPPET), "dkms calls %s for every module it builds", GS_SIGN_HOOK);
out:
	free(why);
	free(owner);
	strv_free(&fw);
}
