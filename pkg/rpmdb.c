/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Installed packages (the rpmdb of a root) that own module files. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <rpm/header.h>
#include <rpm/rpmdb.h>
#include <rpm/rpmfiles.h>
#include <rpm/rpmmacro.h>
#include <rpm/rpmts.h>

#include "pkg.h"

static int collect_module(void *ctx, const char *path, const struct pkg_class *c)
{
	struct strv *cl = ctx;

	/*
	 * Installed files are opened from disk one by one: those named as
	 * modules (a kernel package's modules.* files and vmlinuz are not), and
	 * those the header's file class says are ELF relocatable objects
	 * outside the module directories (a module hidden as
	 * /opt/vendor/engine.bin; a plain .o is dropped once read).
	 */
	if (!c->named && !c->hidden)
		return 0;
	return strv_push(cl, path);
}

int pkg_rpmdb_each(rpmts ts, pkg_installed_fn fn, void *ctx, size_t *skipped)
{
	rpmdbMatchIterator mi = rpmtsInitIterator(ts, RPMDBI_PACKAGES, NULL, 0);
	Header h;
	int r = 0;

	while (r >= 0 && mi && (h = rpmdbNextIterator(mi))) {
		rpmfiles files = rpmfilesNew(NULL, h, 0, RPMFI_KEEPHEADER);
		struct pkg_ftypes *types = pkg_ftypes_new(h);	/* installed headers keep them */
		struct strv cl = { 0 };
		struct pkg_installed p = { .h = h };

		if (!files) {
			pkg_ftypes_free(types);
			continue;
		}
		r = pkg_files_each(files, types, PKG_KIND_BIT(PKG_MODULE), collect_module, &cl);
		rpmfilesFree(files);
		pkg_ftypes_free(types);
		if (r == 0 && !cl.n) {	/* the common case */
			(*skipped)++;
			continue;
		}
		if (r == 0)
			r = pkg_info_from_header(h, &p.info);
		if (r == 0) {
			p.modules = cl.v;
			p.n_modules = cl.n;
			r = fn(ctx, &p);
		}
		pkg_info_free(&p.info);
		strv_free(&cl);
	}
	rpmdbFreeIterator(mi);
	return r < 0 ? r : 0;
}

int pkg_rpmdb_owners(rpmts ts, const char *path, struct strv *names)
{
	rpmdbMatchIterator mi = rpmtsInitIterator(ts, RPMDBI_INSTFILENAMES, path, 0);
	Header h;
	int r = 0;

	while (r == 0 && mi && (h = rpmdbNextIterator(mi)) != NULL) {
		const char *name = headerGetString(h, RPMTAG_NAME);

		if (name && !strv_has(names, name))
			r = strv_push(names, name);
	}
	rpmdbFreeIterator(mi);
	return r;
}

/* rpm's transaction lock file of @root (%_rpmlock_path), opened read-only; -1 when there is none. */
static int rpmlock_open(const char *root)
{
	char *lp = rpmExpand("%{?_rpmlock_path}", NULL);
	char *path = lp && *lp ? tg_root_resolve(root, lp) : NULL;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;

	free(path);
	free(lp);
	return fd;
}

/*
 * rpm holds a write lock on %_rpmlock_path (an fcntl lock, rpmio's
 * rpmlock.c) for a whole transaction; readers never take it, and F_GETLK
 * only looks.
 */
bool pkg_rpm_busy(const char *root)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = rpmlock_open(root);
	bool busy = fd >= 0 && fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;

	if (fd >= 0)
		close(fd);
	return busy;
}

/* Is @root's rpmdb a Berkeley DB one (a Packages file, no rpmdb.sqlite)? */
static bool rpmdb_is_bdb(const char *root)
{
	char *db = rpmExpand("%{?_dbpath}", NULL);
	char *pk = NULL, *sq = NULL, *rp = NULL, *rs = NULL;
	struct stat st;
	bool bdb = false;

	if (db && *db && asprintf(&pk, "%s/Packages", db) >= 0 && asprintf(&sq, "%s/rpmdb.sqlite", db) >= 0 &&
	    (rp = tg_root_resolve(root, pk)) && (rs = tg_root_resolve(root, sq)))
		bdb = stat(rp, &st) == 0 && stat(rs, &st) < 0;
	free(db);
	free(pk);
	free(sq);
	free(rp);
	free(rs);
	return bdb;
}

void pkg_rpmdb_quiet(const char *root)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };

	for (int i = 0; i < PKG_RPMDB_WAIT_S * 10 && rpmdb_is_bdb(root) && pkg_rpm_busy(root); i++)
		nanosleep(&pause, NULL);
}
