/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Records of marked DKMS modules, next to the rpm plugin's:
 * /var/lib/taintguard/marks/dkms-<module>-<version>-<kver>.json, listed by
 * "taintguard status".  A record exists while the DKMS module/version is
 * installed for that kernel; "taintguard-dkms sync" drops the others.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hook.h"

static int record_path(const struct settings *s, const char *module, const char *version,
		       const char *kernel, char *buf, size_t len)
{
	if (!safe_name(module) || !safe_name(version) || !safe_name(kernel))
		return -EINVAL;
	if (bfmt(buf, len, "%s/dkms-%s-%s-%s.json", s->marks_dir, module, version, kernel) < 0)
		return -ENAMETOOLONG;
	return 0;
}

static int mkdir_p(const char *dir)
{
	char tmp[PATH_MAX];

	if (bfmt(tmp, sizeof(tmp), "%s", dir) < 0)
		return -ENAMETOOLONG;
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
				return -errno;
			*p = '/';
		}
	return mkdir(tmp, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

int record_write(const struct settings *s, const char *module, const char *version,
		 const char *kernel, const char *arch, const struct tg_verdict *const *v,
		 size_t n)
{
	char path[PATH_MAX], tmp[PATH_MAX], pkg[512], when[32];
	enum tg_action worst = TG_ACTION_ALLOW;
	time_t now = time(NULL);
	struct tm tm;
	size_t shown = 0;
	FILE *f;
	int fd, r;

	r = record_path(s, module, version, kernel, path, sizeof(path));
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (v[i]->action > worst)
			worst = v[i]->action;
	if (worst == TG_ACTION_ALLOW)
		return record_remove(s, module, version, kernel);
	r = mkdir_p(s->marks_dir);
	if (r < 0) {
		msg("cannot create %s: %s", s->marks_dir, strerror(-r));
		return r;
	}
	if (bfmt(tmp, sizeof(tmp), "%s.tmp-XXXXXX", path) < 0)
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		msg("cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return -ENOMEM;
	}
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	bfmt(pkg, sizeof(pkg), "%s/%s", module, version);
	fputs("{\"format\":\"taintguard-mark/1\",\"source\":\"dkms\",\"package\":", f);
	tg_json_string(f, pkg);
	fputs(",\"kernel\":", f);
	tg_json_string(f, kernel);
	fputs(",\"arch\":", f);
	tg_json_string(f, arch ? arch : "");
	fputs(",\"action\":", f);
	tg_json_string(f, tg_action_name(worst));
	fputs(",\"recorded\":", f);
	tg_json_string(f, when);
	fputs(",\"modules\":[", f);
	for (size_t i = 0; i < n; i++) {
		if (v[i]->action == TG_ACTION_ALLOW)
			continue;
		fputs(shown++ ? ",\n " : "\n ", f);
		tg_verdict_write_json(v[i], f);
	}
	fputs("\n]}\n", f);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0 || fclose(f) != 0) {
		unlink(tmp);
		msg("cannot write %s", path);
		return -EIO;
	}
	if (rename(tmp, path) < 0) {
		r = -errno;
		unlink(tmp);
		msg("cannot write %s: %s", path, strerror(-r));
		return r;
	}
	return 0;
}

int record_remove(const struct settings *s, const char *module, const char *version,
		  const char *kernel)
{
	char path[PATH_MAX];
	int r = record_path(s, module, version, kernel, path, sizeof(path));

	if (r < 0)
		return r;
	return unlink(path) == 0 || errno == ENOENT ? 0 : -errno;
}

/* Value of top-level string field "key" in a record we wrote. */
static int field(const char *json, const char *key, char *buf, size_t len)
{
	char pat[64];
	const char *p;
	size_t o = 0;

	bfmt(pat, sizeof(pat), "\"%s\":\"", key);
	p = strstr(json, pat);
	if (!p)
		return -ENOENT;
	for (p += strlen(pat); *p && *p != '"'; p++) {
		if (*p == '\\')
			return -EINVAL;	/* our names never need escapes */
		if (o + 1 >= len)
			return -ENAMETOOLONG;
		buf[o++] = *p;
	}
	buf[o] = '\0';
	return *p == '"' ? 0 : -EINVAL;
}

int record_sync(struct settings *s, bool verbose)
{
	const char *tree = settings_dkms_tree(s);
	DIR *d = opendir(s->marks_dir);
	struct dirent *e;
	int removed = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[PATH_MAX], head[2048], pkg[256], k[128], a[128], *slash;
		size_t len = strlen(e->d_name);
		ssize_t got;
		int fd;

		if (strncmp(e->d_name, "dkms-", 5) || len < 10 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		if (bfmt(path, sizeof(path), "%s/%s", s->marks_dir, e->d_name) < 0)
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		got = read(fd, head, sizeof(head) - 1);
		close(fd);
		if (got <= 0)
			continue;
		head[got] = '\0';
		if (!strstr(head, "\"source\":\"dkms\"") || field(head, "package", pkg, sizeof(pkg)) ||
		    field(head, "kernel", k, sizeof(k)) || field(head, "arch", a, sizeof(a)))
			continue;
		slash = strchr(pkg, '/');
		if (!slash)
			continue;
		*slash = '\0';
		if (!safe_name(pkg) || !safe_name(slash + 1) || !safe_name(k) || !safe_name(a))
			continue;
		if (dkms_is_installed(tree, pkg, slash + 1, k, a))
			continue;
		if (unlink(path) == 0) {
			removed++;
			if (verbose)
				msg("removed %s: %s/%s is no longer installed for %s", path, pkg,
				    slash + 1, k);
		}
	}
	closedir(d);
	return removed;
}
