/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where the files are that decide whether taintguard runs, and what a path
 * is.  rpm's places come from rpm itself (the caller asks librpm or the rpm
 * command); dkms's are fixed; taintguard's own come from the build.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guard.h"

/* dkms's own places (the same in every release that has framework.conf.d) */
#define DKMS_FRAMEWORK "/etc/dkms/framework.conf"
#define DKMS_FRAMEWORK_D "/etc/dkms/framework.conf.d/*.conf"

const char *guard_kind_name(enum guard_kind k)
{
	switch (k) {
	case GUARD_MACRO:
		return "rpm macro file";
	case GUARD_RPMRC:
		return "rpmrc file";
	case GUARD_PLUGIN:
		return "file in rpm's plugin directory";
	case GUARD_DKMS_FRAMEWORK:
		return "dkms framework file";
	case GUARD_DKMS_CONF:
		return "dkms.conf";
	case GUARD_OWN:
		return "taintguard's own file";
	case GUARD_NONE:
		break;
	}
	return "other file";
}

int guard_places_add_own(struct guard_places *pl, const char *path)
{
	return strv_push(&pl->own, path);
}

int guard_places_init(struct guard_places *pl, const char *policy)
{
	static const char *const own[] = {
		TG_SYSCONFDIR "/", TG_DATADIR "/", TG_LIBEXECDIR "/", TG_LOCALSTATEDIR "/",
		TG_BINDIR "/taintguard",
		/* hooks/install.sh's files outside our directories */
		"/etc/dkms/framework.conf.d/zz-taintguard.conf",
		"/etc/kernel/postinst.d/dkms-taintguard",
		"/etc/kernel/install.d/41-taintguard-dkms.install",
	};

	memset(pl, 0, sizeof(*pl));
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (guard_places_add_own(pl, own[i]) < 0)
			goto oom;
	if (policy && *policy == '/' && guard_places_add_own(pl, policy) < 0)
		goto oom;
	return 0;
oom:
	guard_places_free(pl);
	return -ENOMEM;
}

void guard_places_free(struct guard_places *pl)
{
	strv_free(&pl->macro);
	strv_free(&pl->rpmrc);
	strv_free(&pl->own);
	free(pl->plugindir);
	memset(pl, 0, sizeof(*pl));
}

int guard_places_set_plugindir(struct guard_places *pl, const char *dir)
{
	size_t l;

	free(pl->plugindir);
	pl->plugindir = NULL;
	if (!dir || *dir != '/')
		return dir && *dir ? -EINVAL : 0;
	if (!(pl->plugindir = strdup(dir)))
		return -ENOMEM;
	for (l = strlen(pl->plugindir); l > 1 && pl->plugindir[l - 1] == '/'; l--)
		pl->plugindir[l - 1] = '\0';
	return 0;
}

/* @s with every "%{_target}" replaced by @target; malloc'ed. */
static char *subst_target(const char *s, const char *target)
{
	static const char key[] = "%{_target}";
	size_t n = 0, tl = strlen(target);
	char *out, *o;

	for (const char *p = strstr(s, key); p; p = strstr(p + 1, key))
		n++;
	out = malloc(strlen(s) + n * tl + 1);
	if (!out)
		return NULL;
	for (o = out; *s;) {
		if (!strncmp(s, key, sizeof(key) - 1)) {
			memcpy(o, target, tl);
			o += tl;
			s += sizeof(key) - 1;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

/* One macro path entry; "~/x" gives one entry per home (the root user's and @home). */
static int add_macro_entry(struct guard_places *pl, const char *e,
			   const char *target, const char *home)
{
	const char *homes[2] = { "/root", home };
	char *t = subst_target(e, target ? target : "");
	int r = 0;

	if (!t)
		return -ENOMEM;
	if (t[0] == '~' && t[1] == '/') {
		for (int i = 0; i < 2 && r == 0; i++) {
			char *p;

			if (!homes[i] || *homes[i] != '/' || (i == 1 && !strcmp(homes[1], "/root")))
				continue;
			if (!(p = malloc(strlen(homes[i]) + strlen(t))))
				r = -ENOMEM;
			else {
				strcpy(p, homes[i]);
				strcat(p, t + 1);
				r = strv_push(&pl->macro, p);
				free(p);
			}
		}
	} else if (t[0] == '/') {
		r = strv_push(&pl->macro, t);
	} else if (t[0]) {
		r = -EINVAL;
	}
	free(t);
	return r;
}

/* rpm's rpmrc places: CONFDIR/rpmrc, CONFDIR/VENDOR/rpmrc, /etc/rpmrc, the users'. */
static int set_rpmrc(struct guard_places *pl, const char *confdir, const char *home)
{
	const char *const tails[] = { "/rpmrc", "/*/rpmrc" };
	const char *const homes[] = { "/root", home };
	char buf[4096];
	int r = 0;

	strv_free(&pl->rpmrc);
	for (size_t i = 0; i < 2 && r == 0; i++)
		if ((size_t)snprintf(buf, sizeof(buf), "%s%s", confdir, tails[i]) < sizeof(buf))
			r = strv_push(&pl->rpmrc, buf);
	if (r == 0)
		r = strv_push(&pl->rpmrc, "/etc/rpmrc");
	for (size_t i = 0; i < 2 && r == 0; i++) {
		if (!homes[i] || *homes[i] != '/' || (i == 1 && !strcmp(homes[1], "/root")))
			continue;
		/* rpm < 4.20: ~/.rpmrc; 4.20+: $XDG_CONFIG_HOME/rpm/rpmrc, ~/.rpmrc as fallback */
		if ((size_t)snprintf(buf, sizeof(buf), "%s/.rpmrc", homes[i]) < sizeof(buf))
			r = strv_push(&pl->rpmrc, buf);
		if (r == 0 && (size_t)snprintf(buf, sizeof(buf), "%s/.config/rpm/rpmrc", homes[i]) <
			      sizeof(buf))
			r = strv_push(&pl->rpmrc, buf);
	}
	return r;
}

int guard_places_set_macro_path(struct guard_places *pl, const char *path, const char *target,
				const char *home)
{
	char *copy = strdup(path ? path : ""), *save = NULL, *confdir = NULL;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	strv_free(&pl->macro);
	for (char *e = strtok_r(copy, ":", &save); e && r == 0; e = strtok_r(NULL, ":", &save)) {
		r = add_macro_entry(pl, e, target, home);
		/* the first entry is CONFDIR/macros: rpm's configuration directory */
		if (r == 0 && !confdir && *e == '/') {
			char *slash;

			if (!(confdir = strdup(e)))
				r = -ENOMEM;
			else if ((slash = strrchr(confdir, '/')) != NULL)
				*slash = '\0';
		}
	}
	if (r == 0 && confdir && *confdir)
		r = set_rpmrc(pl, confdir, home);
	free(confdir);
	free(copy);
	return r;
}

bool guard_glob_match(const char *glob, const char *path)
{
	/* glob(3) as rpmGlob() calls it: '*' stops at '/' and skips a leading '.' */
	return fnmatch(glob, path, FNM_PATHNAME | FNM_PERIOD) == 0;
}

bool guard_macro_skipped(const char *path)
{
	static const char *const sfx[] = { ".rpmnew", ".rpmsave", ".rpmorig" };
	size_t l = strlen(path);

	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
		if (l >= strlen(sfx[i]) && !strcmp(path + l - strlen(sfx[i]), sfx[i]))
			return true;
	return false;
}

bool guard_named_like_macros(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "macros.transaction_taintguard", 29);
}

static bool own_match(const struct guard_places *pl, const char *path)
{
	for (size_t i = 0; i < pl->own.n; i++) {
		const char *o = pl->own.v[i];
		size_t l = strlen(o);

		if (l && o[l - 1] == '/' ? !strncmp(path, o, l) && path[l]
					 : !strcmp(path, o))
			return true;
	}
	return false;
}

/* dkms sources dkms.conf from the source tree and /etc/dkms/MODULE[-...].conf with it. */
static bool dkms_conf(const char *path)
{
	return guard_glob_match("/usr/src/*/dkms.conf", path) ||
	       (guard_glob_match("/etc/dkms/*.conf", path) && strcmp(path, DKMS_FRAMEWORK));
}

enum guard_kind guard_classify(const struct guard_places *pl, const char *path)
{
	if (!path || *path != '/')
		return GUARD_NONE;
	if (own_match(pl, path))
		return GUARD_OWN;
	if (pl->plugindir) {
		size_t l = strlen(pl->plugindir);

		/* rpm loads NAME.so for %__transaction_NAME: ours is NAME taintguard */
		if (!strncmp(path, pl->plugindir, l) && path[l] == '/' && !strchr(path + l + 1, '/') &&
		    !strncmp(path + l + 1, "taintguard", 10))
			return GUARD_PLUGIN;
	}
	if (!guard_macro_skipped(path))
		for (size_t i = 0; i < pl->macro.n; i++)
			if (guard_glob_match(pl->macro.v[i], path))
				return GUARD_MACRO;
	for (size_t i = 0; i < pl->rpmrc.n; i++)
		if (guard_glob_match(pl->rpmrc.v[i], path))
			return GUARD_RPMRC;
	if (!strcmp(path, DKMS_FRAMEWORK) || guard_glob_match(DKMS_FRAMEWORK_D, path))
		return GUARD_DKMS_FRAMEWORK;
	if (dkms_conf(path))
		return GUARD_DKMS_CONF;
	return GUARD_NONE;
}

int guard_read_file(const char *path, char **text, size_t *len)
{
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int fd, r = 0;

	*text = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t got;

		if (n + 1 >= cap) {
			char *nb;

			if (cap > GUARD_MAX_FILE) {
				r = -EFBIG;
				break;
			}
			cap = cap ? cap * 2 : 8192;
			if (!(nb = realloc(buf, cap))) {
				r = -ENOMEM;
				break;
			}
			buf = nb;
		}
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			break;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	if (!buf && !(buf = malloc(1)))
		return -ENOMEM;
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}
