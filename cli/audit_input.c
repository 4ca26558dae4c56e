/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit: what to audit.  A .rpm file, a directory of them
 * (recursive, sorted), a yum/dnf repository, local or remote (audit_repo.c),
 * or the installed system (the rpmdb's packages that own modules, and the
 * module files no package owns: DKMS output, weak-updates links).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rpm/rpmts.h>

#include "audit.h"

/* ------------------------------------------------------------ files */

static int add_rpm_file(struct audit *a, const char *path)
{
	struct audit_pkg *p = audit_pkg_new(a);

	if (!p || !(p->file = strdup(path)))
		return -ENOMEM;
	return 0;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static bool has_suffix(const char *s, const char *sfx)
{
	size_t n = strlen(s), l = strlen(sfx);

	return n >= l && !strcmp(s + n - l, sfx);
}

/* The names in @dir, sorted, as "dir/name". */
static int dir_entries(const char *dir, struct strv *out)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int r = 0;

	if (!d)
		return -errno;
	while (r == 0 && (de = readdir(d)))
		if (de->d_name[0] != '.')
			r = strv_pushf(out, "%s/%s", dir, de->d_name);
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(char *), cmp_str);
	return r;
}

static int walk_rpms(struct audit *a, const char *dir, int depth)
{
	struct strv names = { 0 };
	int r;

	if (depth > 64)
		return 0;
	r = dir_entries(dir, &names);
	if (r < 0) {
		cli_error("%s: %s", dir, strerror(-r));
		strv_free(&names);
		return r;
	}
	for (size_t i = 0; i < names.n && r == 0; i++) {
		struct stat st;

		if (lstat(names.v[i], &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			r = walk_rpms(a, names.v[i], depth + 1);
		else if (has_suffix(names.v[i], ".rpm") && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
			r = add_rpm_file(a, names.v[i]);
	}
	strv_free(&names);
	return r;
}

int audit_collect(struct audit *a, const char *path)
{
	struct stat st;

	if (audit_is_url(path))
		return audit_repo_remote(a, path, PKG_REMOTE_BASEURL);
	if (stat(path, &st) < 0) {
		cli_error("%s: %s", path, strerror(errno));
		return -errno;
	}
	if (S_ISDIR(st.st_mode))
		return pkg_repo_detect(path) ? audit_repo_local(a, path) : walk_rpms(a, path, 0);
	return add_rpm_file(a, path);
}

/* ------------------------------------------------------- --installed */

/* @path below the root, as the host sees it (symlinks not resolved). */
static char *root_path(const struct audit *a, const char *path)
{
	const char *root = a->o.root && strcmp(a->o.root, "/") ? a->o.root : "";

	return strf("%s%s", root, path);
}

/* /usr/lib/modules and /lib/modules are the same place on merged-/usr systems. */
static const char *norm_modpath(const char *p)
{
	return strncmp(p, "/usr/lib/modules/", 17) ? p : p + 4;
}

static int cmp_norm(const void *x, const void *y)
{
	return strcmp(norm_modpath(*(char *const *)x), norm_modpath(*(char *const *)y));
}

/* Module files (and links to them) below @rel inside the root; build/ and source/ are not followed. */
static void walk_modules(const struct audit *a, const char *rel, struct strv *out, int depth)
{
	char *disk = root_path(a, rel);
	struct dirent *de;
	DIR *d;

	if (!disk || depth > 16 || !(d = opendir(disk))) {
		free(disk);
		return;
	}
	while ((de = readdir(d))) {
		char *child, *cdisk;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		child = strf("%s/%s", rel, de->d_name);
		cdisk = child ? root_path(a, child) : NULL;
		if (cdisk && lstat(cdisk, &st) == 0) {
			/* lstat: build/ and source/ are links into kernel trees, never walked */
			if (S_ISDIR(st.st_mode))
				walk_modules(a, child, out, depth + 1);
			else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
				 tg_module_file_name(de->d_name))
				strv_push(out, child);
		}
		free(child);
		free(cdisk);
	}
	closedir(d);
	free(disk);
}

static int add_installed(void *ctx, struct pkg_installed *ip)
{
	struct audit *a = ctx;
	struct audit_pkg *p = audit_pkg_new(a);

	if (!p)
		return -ENOMEM;
	p->installed = true;
	p->has_modules = true;
	p->name = ip->info.name;
	p->nevra = ip->info.nevra;
	p->license = ip->info.license;
	p->sig_info = ip->info.sig_info;
	p->sig = ip->info.signed_ ? PKG_SIG_INSTALLED : PKG_SIG_UNSIGNED;
	memset(&ip->info, 0, sizeof(ip->info));	/* taken */
	for (size_t i = 0; i < ip->n_modules; i++)
		if (!audit_pkg_add_module(p, ip->modules[i]))
			return -ENOMEM;
	return 0;
}

/* Modules below (usr/)lib/modules that no installed package owns. */
static int add_unowned(struct audit *a)
{
	struct strv found = { 0 }, owned = { 0 };
	struct audit_pkg *unowned = NULL;
	struct stat st1, st2;
	char *d1, *d2;
	int r = 0;

	for (size_t i = 0; i < a->n_pkgs; i++)
		for (size_t j = 0; j < a->pkgs[i]->n_mods; j++)
			if (strv_push(&owned, a->pkgs[i]->mods[j]->path) < 0)
				r = -ENOMEM;
	if (owned.n)
		qsort(owned.v, owned.n, sizeof(char *), cmp_norm);
	walk_modules(a, "/lib/modules", &found, 0);
	d1 = root_path(a, "/lib/modules");
	d2 = root_path(a, "/usr/lib/modules");
	if (d1 && d2 && stat(d2, &st2) == 0 &&
	    (stat(d1, &st1) < 0 || st1.st_ino != st2.st_ino || st1.st_dev != st2.st_dev))
		walk_modules(a, "/usr/lib/modules", &found, 0);
	free(d1);
	free(d2);
	for (size_t i = 0; i < found.n && r == 0; i++) {
		const char *key = found.v[i];
		char *disk = root_path(a, key);
		bool is_link = disk && lstat(disk, &st1) == 0 && S_ISLNK(st1.st_mode);

		free(disk);
		/* A weak-updates link is never the owned file itself: always reported. */
		if (!is_link && owned.n && bsearch(&key, owned.v, owned.n, sizeof(char *), cmp_norm))
			continue;
		if (!unowned) {
			unowned = audit_pkg_new(a);
			if (!unowned) {
				r = -ENOMEM;
				break;
			}
			unowned->unowned = true;
			unowned->installed = true;
			unowned->has_modules = true;
		}
		if (!audit_pkg_add_module(unowned, key))
			r = -ENOMEM;
	}
	strv_free(&owned);
	strv_free(&found);
	return r;
}

struct inst_job {
	struct audit_module **mods;
	const struct audit *a;
};

/*
 * A hidden candidate (its package's header classes it as an ELF relocatable
 * object, neither named nor placed as a module): the same content test as a
 * payload's (pkg_module_from_mem); a plain .o is no module and is dropped.
 */
static void open_hidden(struct audit_module *am, const struct tg_limits *lim)
{
	int fd = open(am->disk_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		am->error = strf("cannot read: %s", strerror(errno));
		return;
	}
	am->not_module = pkg_module_from_fd(fd, am->path, lim, &am->m, &am->error) == 0;
	close(fd);
}

/* Read one installed module from disk, links resolved inside the root. */
static void open_installed(size_t i, unsigned worker, void *data)
{
	struct inst_job *j = data;
	struct audit_module *am = j->mods[i];
	struct tg_error err = { 0 };
	char *disk = root_path(j->a, am->path), tgt[PATH_MAX];
	ssize_t n;

	(void)worker;
	if (disk && (n = readlink(disk, tgt, sizeof(tgt) - 1)) >= 0) {
		tgt[n] = 0;
		am->link_target = strdup(tgt);	/* a weak-updates link: reported as such */
	}
	free(disk);
	am->disk_path = tg_root_resolve(j->a->o.root, am->path);
	if (!am->disk_path) {
		am->error = strdup("cannot resolve the path inside the root (link loop?)");
		return;
	}
	if (!tg_module_file_name(am->path) && !pkg_in_module_dir(am->path)) {
		open_hidden(am, &j->a->o.limits);
		return;
	}
	if (tg_module_open_path(am->disk_path, &j->a->o.limits, &am->m, &err) < 0) {
		am->m = NULL;
		am->error = strdup(err.msg[0] ? err.msg : "cannot read module");
	}
}

/* Hidden candidates that were no modules go; a package left without any is not listed. */
static void drop_not_modules(struct audit_pkg *p)
{
	size_t w = 0;

	for (size_t i = 0; i < p->n_mods; i++) {
		if (!p->mods[i]->not_module) {
			p->mods[w++] = p->mods[i];
			continue;
		}
		audit_module_free(p->mods[i]);
	}
	p->n_mods = w;
	if (!w && !p->unowned)
		p->has_modules = false;
}

int audit_scan_installed(struct audit *a)
{
	rpmts ts = pkg_ts_new(a->o.root);
	struct audit_module **all;
	size_t n_all = 0;
	int r;

	if (!ts)
		return -ENOMEM;
	r = pkg_rpmdb_each(ts, add_installed, a, &a->n_skipped);
	rpmtsFree(ts);
	if (r == 0)
		r = add_unowned(a);
	if (r < 0)
		return r;
	for (size_t i = 0; i < a->n_pkgs; i++)
		n_all += a->pkgs[i]->n_mods;
	all = calloc(n_all ? n_all : 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	n_all = 0;
	for (size_t i = 0; i < a->n_pkgs; i++)
		for (size_t j = 0; j < a->pkgs[i]->n_mods; j++)
			all[n_all++] = a->pkgs[i]->mods[j];
	r = tg_parallel(n_all, a->o.jobs, open_installed, &(struct inst_job){ all, a });
	free(all);
	for (size_t i = 0; i < a->n_pkgs; i++)
		drop_not_modules(a->pkgs[i]);
	return r;
}
