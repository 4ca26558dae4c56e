/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Facts of a package's file list, from the header alone: the common case
 * (no kernel module) costs one pass over the names and no payload read.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rpm/rpmfiles.h>

#include "pkg.h"

/* A regular file rpm writes (not a %ghost): the only kind that can be a module. */
static bool real_file(rpmfiles files, int i)
{
	return S_ISREG(rpmfilesFMode(files, i)) && !(rpmfilesFFlags(files, i) & RPMFILE_GHOST);
}

/* The header's types, if they describe this very file list (the indexes must match). */
static const struct pkg_ftypes *matching(rpmfiles files, const struct pkg_ftypes *types)
{
	return pkg_ftypes_count(types) == (size_t)rpmfilesFC(files) ? types : NULL;
}

void pkg_files_scan(rpmfiles files, const struct pkg_ftypes *types, struct pkg_files_facts *f)
{
	int fc = (int)rpmfilesFC(files);

	types = matching(files, types);
	memset(f, 0, sizeof(*f));
	for (int i = 0; i < fc; i++) {
		struct pkg_class c;
		char *fn;

		if (!real_file(files, i) || !(fn = rpmfilesFN(files, i)))
			continue;
		switch (pkg_classify_file(fn, pkg_ftype(types, i), &c)) {
		case PKG_MODULE: {
			const int *links = NULL;
			uint32_t nl = rpmfilesFLinks(files, i, &links);

			f->n_modules++;
			if (nl <= 1 || links[nl - 1] == i)	/* rpm writes a hardlink set once */
				f->n_prepared++;
			f->oot |= c.named && !c.in_tree;
			break;
		}
		case PKG_SYMVERS:
		case PKG_CONFIG:
		case PKG_IMAGE:
		case PKG_SYSMAP:
			f->kernel_files = true;
			break;
		default:
			break;
		}
		free(fn);
	}
}

int pkg_files_each(rpmfiles files, const struct pkg_ftypes *types, unsigned kinds, pkg_path_fn fn,
		   void *ctx)
{
	int fc = (int)rpmfilesFC(files), r = 0;

	types = matching(files, types);
	for (int i = 0; i < fc && r >= 0; i++) {
		struct pkg_class c;
		char *path;

		if (!real_file(files, i) || !(path = rpmfilesFN(files, i)))
			continue;
		if (kinds & PKG_KIND_BIT(pkg_classify_file(path, pkg_ftype(types, i), &c)))
			r = fn(ctx, path, &c);
		free(path);
	}
	return r < 0 ? r : 0;
}
