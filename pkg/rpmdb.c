/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Installed packages (the rpmdb of a root) that own module files. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpm/header.h>
#include <rpm/rpmdb.h>
#include <rpm/rpmfiles.h>
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
