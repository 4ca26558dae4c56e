/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /etc/taintguard/dkms.conf, and what dkms's own framework.conf says. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook.h"

#define DEFAULT_CONF TG_SYSCONFDIR "/dkms.conf"

static void set_str(char *dst, const char *v)
{
	hk_bfmt(dst, PATH_MAX, "%s", v);
}

static void defaults(struct settings *s)
{
	memset(s, 0, sizeof(*s));
	s->mode = HOOK_ENFORCE;
	s->fail_kernel_upgrade = false;
	s->sign_file_deny = SIGN_DENY_AUTO;
	set_str(s->dkms, "dkms");
	set_str(s->install_tree, "/lib/modules");
	set_str(s->modprobe_dir, "/etc/modprobe.d");
	set_str(s->marks_dir, TG_LOCALSTATEDIR "/marks");
	set_str(s->framework_conf, "/etc/dkms/framework.conf");
	set_str(s->own_snippet, "/etc/dkms/framework.conf.d/zz-taintguard.conf");
	tg_limits_default(&s->limits);
}

/* "NAME=VALUE NAME=VALUE": all or nothing, so a typo never half-applies. */
static int parse_limits(struct settings *s, const char *val)
{
	struct tg_limits lim = s->limits;
	char buf[1024], *save = NULL;

	if (strlen(val) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, val);
	for (char *a = strtok_r(buf, " \t", &save); a; a = strtok_r(NULL, " \t", &save)) {
		struct tg_error err = { 0 };

		if (tg_limits_set(&lim, a, &err) < 0) {
			hk_msg("%s", err.msg);
			return -EINVAL;
		}
	}
	s->limits = lim;
	return 0;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

static char *trim(char *p)
{
	char *e;

	while (isspace((unsigned char)*p))
		p++;
	e = p + strlen(p);
	while (e > p && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return p;
}

static int apply(struct settings *s, const char *key, const char *val)
{
	static const struct {
		const char *key;
		size_t off;
	} paths[] = {
		{ "policy", offsetof(struct settings, policy) },
		{ "sign_file", offsetof(struct settings, sign_file) },
		{ "dkms", offsetof(struct settings, dkms) },
		{ "dkms_tree", offsetof(struct settings, dkms_tree) },
		{ "install_tree", offsetof(struct settings, install_tree) },
		{ "root", offsetof(struct settings, root) },
		{ "modprobe_dir", offsetof(struct settings, modprobe_dir) },
		{ "marks_dir", offsetof(struct settings, marks_dir) },
		{ "framework_conf", offsetof(struct settings, framework_conf) },
	};

	if (!strcmp(key, "mode")) {
		if (!strcmp(val, "enforce"))
			s->mode = HOOK_ENFORCE;
		else if (!strcmp(val, "warn"))
			s->mode = HOOK_WARN;
		else
			return -EINVAL;
		return 0;
	}
	if (!strcmp(key, "limits"))
		return parse_limits(s, val);
	if (!strcmp(key, "fail_kernel_upgrade"))
		return parse_bool(val, &s->fail_kernel_upgrade);
	if (!strcmp(key, "sign_file_deny")) {
		if (!strcmp(val, "auto"))
			s->sign_file_deny = SIGN_DENY_AUTO;
		else if (!strcmp(val, "unlink"))
			s->sign_file_deny = SIGN_DENY_UNLINK;
		else if (!strcmp(val, "keep"))
			s->sign_file_deny = SIGN_DENY_KEEP;
		else
			return -EINVAL;
		return 0;
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (!strcmp(key, paths[i].key)) {
			if (strlen(val) >= PATH_MAX)
				return -ENAMETOOLONG;
			set_str((char *)s + paths[i].off, val);
			return 0;
		}
	return -ENOENT;
}

int hk_settings_load(struct settings *s)
{
	const char *path = getenv("TAINTGUARD_DKMS_CONF");
	char line[PATH_MAX + 64];
	unsigned lineno = 0;
	FILE *f;
	int rc = 0;

	defaults(s);
	if (!path || !*path)
		path = DEFAULT_CONF;
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		hk_msg("%s: %s (using the defaults)", path, strerror(errno));
		return -errno;
	}
	set_str(s->path, path);
	while (fgets(line, sizeof(line), f)) {
		char *p = trim(line), *eq, *key, *val;
		size_t n;
		int r;

		lineno++;
		if (!*p || *p == '#')
			continue;
		eq = strchr(p, '=');
		if (!eq) {
			hk_msg("%s:%u: expected key=value, ignored", path, lineno);
			rc = -EINVAL;
			continue;
		}
		*eq = '\0';
		key = trim(p);
		val = trim(eq + 1);
		n = strlen(val);
		if (n >= 2 && (val[0] == '"' || val[0] == '\'') && val[n - 1] == val[0]) {
			val[n - 1] = '\0';
			val++;
		}
		r = apply(s, key, val);
		if (r == -ENOENT)
			hk_msg("%s:%u: unknown setting '%s', ignored", path, lineno, key);
		else if (r < 0)
			hk_msg("%s:%u: invalid value '%s' for %s, ignored", path, lineno, val, key);
		if (r < 0)
			rc = r;
	}
	fclose(f);
	return rc;
}

int hk_framework_get(const struct settings *s, const char *var, const char *kernelver, char *buf,
		     size_t len)
{
	/*
	 * dkms 3.0.9+ sources each file in a subshell and copies whitelisted
	 * variables back, last assignment winning; sourcing them in order in
	 * one shell gives the same values.  Output of the files is discarded.
	 */
	static const char script[] =
		"kernelver=$1; v=$2; own=$3; fw=$4\n"
		"for f in \"$fw\" \"$fw\".d/*.conf; do\n"
		"  [ -f \"$f\" ] || continue\n"
		"  [ -n \"$own\" ] && [ \"$f\" -ef \"$own\" ] && continue\n"
		"  . \"$f\" >/dev/null 2>&1 </dev/null\n"
		"done\n"
		"printf '%s' \"${!v}\"\n";
	char *argv[] = { "bash", "-c", (char *)script, "taintguard-dkms",
			 (char *)(kernelver ? kernelver : ""), (char *)var,
			 (char *)s->own_snippet, (char *)s->framework_conf, NULL };
	int r;

	buf[0] = '\0';
	r = hk_run_capture(argv, buf, len);
	if (r != 0) {
		buf[0] = '\0';
		return r < 0 ? r : -EIO;
	}
	return 0;
}

const char *hk_settings_dkms_tree(struct settings *s)
{
	if (!s->dkms_tree[0]) {
		if (hk_framework_get(s, "dkms_tree", NULL, s->dkms_tree, sizeof(s->dkms_tree)) < 0 ||
		    !s->dkms_tree[0])
			set_str(s->dkms_tree, "/var/lib/dkms");
	}
	return s->dkms_tree;
}
