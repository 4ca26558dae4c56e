/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit: what to audit.  A .rpm file, a directory of them
 * (recursive, sorted), a yum/dnf repository, local or remote (audit_repo.c),
 * or the installed system (the rpmdb's packages that own modules, dpkg's
 * packages and DKMS's modules/versions that do (pkg/owners.c), and the
 * module files no package owns: weak-updates links, copies by hand), each
 * file once.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rpm/header.h>
#include <rpm/rpmdb.h>
#include <rpm/rpmmacro.h>
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
	p->rpmdb_instance = headerGetInstance(ip->h);
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

/*
 * The identity of an installed module file: its device and inode, and the
 * kernel it is judged for (the R of its path).  Two paths to one file for
 * one kernel (/lib -> usr/lib, a link, a hard link) are one module; a
 * weak-updates link into another kernel's extra/ is judged for its own
 * kernel and stays an entry of its own.  -ENOENT: nothing there.
 */
static int file_key(const struct audit *a, const char *path, struct stat *st, char *rel, size_t len)
{
	if (!pkg_module_path_release(path, rel, len))
		*rel = '\0';
	return pkg_root_stat(a->o.root, path, st);
}

/* Drop the modules of @p whose file is already in @seen; add the others. */
static int once(struct audit *a, struct audit_pkg *p, struct pkg_fileset *seen)
{
	size_t w = 0;
	int r = 0;

	for (size_t i = 0; i < p->n_mods; i++) {
		char rel[256];
		struct stat st;
		int added = 1;

		if (r == 0 && file_key(a, p->mods[i]->path, &st, rel, sizeof(rel)) == 0)
			added = pkg_fileset_add(seen, &st, *rel ? rel : NULL, 0);
		if (added < 0)
			r = added;
		if (added == 0) {
			audit_module_free(p->mods[i]);
			continue;
		}
		p->mods[w++] = p->mods[i];
	}
	p->n_mods = w;
	return r;
}

/* The dpkg packages and DKMS modules/versions owning modules, as packages of the audit. */
static int add_owned(struct audit *a, struct pkg_fileset *seen)
{
	for (size_t i = 0; i < a->owners.n; i++) {
		const struct pkg_owned *ow = &a->owners.v[i];
		struct audit_pkg *p = audit_pkg_new(a);

		if (!p || !(p->name = strdup(ow->name)) || !(p->nevra = strdup(ow->label)))
			return -ENOMEM;
		p->installed = true;
		p->has_modules = true;
		/* dpkg keeps no signature of an installed package; DKMS built it here */
		p->sig = PKG_SIG_UNKNOWN;
		p->not_rpm = true;
		for (size_t j = 0; j < ow->files.n; j++)
			if (!audit_pkg_add_module(p, ow->files.v[j]))
				return -ENOMEM;
		if (once(a, p, seen) < 0)
			return -ENOMEM;
		if (!p->n_mods)
			p->has_modules = false;
	}
	return 0;
}

/* Modules below (usr/)lib/modules that no installed package owns. */
static int add_unowned(struct audit *a, struct pkg_fileset *seen)
{
	struct strv found = { 0 };
	struct audit_pkg *unowned = NULL;
	const char *tops[2];
	size_t nt = pkg_module_tops_distinct(a->o.root, tops);
	int r = 0;

	for (size_t t = 0; t < nt; t++)
		walk_modules(a, tops[t], &found, 0);
	for (size_t i = 0; i < found.n && r == 0; i++) {
		const char *key = found.v[i];
		char rel[256];
		struct stat st;

		/* owned, or met already by another path for the same kernel */
		if (file_key(a, key, &st, rel, sizeof(rel)) == 0 &&
		    (r = pkg_fileset_add(seen, &st, *rel ? rel : NULL, 0)) <= 0)
			continue;
		r = 0;
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
	strv_free(&found);
	return r;
}

struct inst_job {
	struct audit_module **mods;
	const struct audit *a;
	size_t n;
	/* the progress line (a terminal, not --quiet): the default report is short, the run is not */
	pthread_mutex_t mu;
	size_t done;
	struct timespec last;
};

static void inst_progress(struct inst_job *j, bool final)
{
	struct timespec now;

	if (!j->a->progress)
		return;
	pthread_mutex_lock(&j->mu);
	clock_gettime(CLOCK_MONOTONIC, &now);
	j->done += !final;
	if (final) {
		fputs("\r\033[K", stderr);
	} else if (audit_progress_due(&j->last, &now)) {
		fprintf(stderr, "\r\033[Kaudit: %zu/%zu installed modules read", j->done, j->n);
	}
	fflush(stderr);
	pthread_mutex_unlock(&j->mu);
}

/*
 * Is the name @path itself gone from the root (not only what a link of
 * that name points to)?  Asked when a module could not be opened: rpm
 * erased it meanwhile, while a dangling link stays and is reported.
 */
static bool name_gone(const struct audit *a, const char *path)
{
	char *disk = root_path(a, path);
	struct stat st;
	bool gone = disk && lstat(disk, &st) < 0 && errno == ENOENT;

	free(disk);
	return gone;
}

/*
 * A hidden candidate (its package's header classes it as an ELF relocatable
 * object, neither named nor placed as a module): the same content test as a
 * payload's (pkg_module_from_mem); a plain .o is no module and is dropped.
 */
static void open_hidden(const struct audit *a, struct audit_module *am)
{
	int fd = open(am->disk_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		am->vanished = e == ENOENT && name_gone(a, am->path);
		am->error = strf("cannot read: %s", strerror(e));
		return;
	}
	am->not_module = pkg_module_from_fd(fd, am->path, &a->o.limits, &am->m, &am->error) == 0;
	close(fd);
}

/* Read one installed module from disk, links resolved inside the root. */
static void read_installed(struct inst_job *j, struct audit_module *am)
{
	struct tg_error err = { 0 };
	char *disk = root_path(j->a, am->path), tgt[PATH_MAX];
	ssize_t n;

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
	/*
	 * Outside the module directories the content decides, as for a payload:
	 * a text file named .ko (vim's tutor.ko, in dpkg's lists) is no module.
	 */
	if (!pkg_in_module_dir(am->path)) {
		open_hidden(j->a, am);
		return;
	}
	if (tg_module_open_path(am->disk_path, &j->a->o.limits, &am->m, &err) < 0) {
		am->vanished = err.code == -ENOENT && name_gone(j->a, am->path);
		am->m = NULL;
		am->error = strdup(err.msg[0] ? err.msg : "cannot read module");
	}
}

static void open_installed(size_t i, unsigned worker, void *data)
{
	struct inst_job *j = data;

	(void)worker;
	read_installed(j, j->mods[i]);
	inst_progress(j, false);
}

/* The modules of @p for which @drop says so go. */
static void drop_modules(struct audit_pkg *p, bool (*drop)(const struct audit_module *))
{
	size_t w = 0;

	for (size_t i = 0; i < p->n_mods; i++) {
		if (!drop(p->mods[i])) {
			p->mods[w++] = p->mods[i];
			continue;
		}
		audit_module_free(p->mods[i]);
	}
	p->n_mods = w;
}

static bool not_module(const struct audit_module *am)
{
	return am->not_module;
}

static bool vanished(const struct audit_module *am)
{
	return am->vanished;
}

/* Hidden candidates that were no modules go; a package left without any is not listed. */
static void drop_not_modules(struct audit_pkg *p)
{
	drop_modules(p, not_module);
	if (!p->n_mods && !p->unowned)
		p->has_modules = false;
}

/*
 * Does the rpmdb of @root still hold the header @p was read from?  Its
 * instance (rpm numbers headers and never reuses a number), so a package
 * erased and installed again since is not the one that was read.  (A
 * Berkeley DB one read once rpm is done.)
 */
static bool still_installed(const char *root, const struct audit_pkg *p)
{
	rpmdbMatchIterator mi = NULL;
	rpmts ts;
	bool found;
	Header h;

	pkg_rpmdb_quiet(root);
	ts = pkg_ts_new(root);
	mi = ts ? rpmtsInitIterator(ts, RPMDBI_NAME, p->name, 0) : NULL;
	found = !ts;	/* cannot tell: kept, with its error */

	while (!found && mi && (h = rpmdbNextIterator(mi)) != NULL)
		found = headerGetInstance(h) == p->rpmdb_instance;
	rpmdbFreeIterator(mi);
	rpmtsFree(ts);
	return found;
}

/* Did a module of @p have no file when it was read? */
static bool any_vanished(const struct audit_pkg *p)
{
	for (size_t k = 0; k < p->n_mods; k++)
		if (vanished(p->mods[k]))
			return true;
	return false;
}

/*
 * rpm may erase a package while it is audited: its module files vanish
 * after the rpmdb was read (and may be back already, when it is installed
 * again).  A package a module file of which was missing when read, and
 * whose header the rpmdb no longer holds, was erased meanwhile and is left
 * out; so is one the rpmdb still holds while an rpm transaction runs on
 * the root (rpm removes an erased package's files before its header).  One
 * still installed on a quiet system keeps its "cannot be read" (its file
 * is missing).  A module no package owns whose name was gone when it was
 * read (rpm wrote it before adding its package's header and erased it
 * again, or someone removed it) goes too: not there, not owned, nothing to
 * report; a dangling link is still there and stays an error.
 */
static void drop_erased(struct audit *a)
{
	size_t w = 0;

	for (size_t i = 0; i < a->n_pkgs; i++) {
		struct audit_pkg *p = a->pkgs[i];

		if (p->unowned) {
			drop_modules(p, vanished);
			if (!p->n_mods) {
				audit_pkg_free(p);
				continue;
			}
		}
		/* rpm's lock first: no rpmdb read while a transaction runs (rpmdb packages only) */
		if (p->rpmdb_instance && any_vanished(p) &&
		    (pkg_rpm_busy(a->o.root) || !still_installed(a->o.root, p))) {
			audit_pkg_free(p);
			continue;
		}
		a->pkgs[w++] = p;
	}
	a->n_pkgs = w;
}

int audit_scan_installed(struct audit *a)
{
	struct pkg_fileset seen = { 0 };
	struct audit_module **all;
	size_t n_all = 0;
	int r = 0;

	if (!a->no_rpmdb) {
		rpmts ts = pkg_ts_new(a->o.root);

		if (!ts)
			return -ENOMEM;
		pkg_rpmdb_quiet(a->o.root);
		r = pkg_rpmdb_each(ts, add_installed, a, &a->n_skipped);
		rpmtsFree(ts);
	}
	/* each file once: the rpmdb's first, then dpkg's and DKMS's, then the unowned */
	for (size_t i = 0; r == 0 && i < a->n_pkgs; i++)
		r = once(a, a->pkgs[i], &seen);
	if (r == 0)
		r = pkg_owners_load(a->o.root, &a->owners);
	if (r == 0)
		r = add_owned(a, &seen);
	if (r == 0)
		r = add_unowned(a, &seen);
	pkg_fileset_free(&seen);
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
	{
		struct inst_job j = { .mods = all, .a = a, .n = n_all };

		pthread_mutex_init(&j.mu, NULL);
		clock_gettime(CLOCK_MONOTONIC, &j.last);
		r = tg_parallel(n_all, a->o.jobs, open_installed, &j);
		inst_progress(&j, true);
		pthread_mutex_destroy(&j.mu);
	}
	free(all);
	drop_erased(a);
	for (size_t i = 0; i < a->n_pkgs; i++)
		drop_not_modules(a->pkgs[i]);
	return r;
}
