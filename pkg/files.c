/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Facts of a package's file list, from the header alone: the common case
 * (no kernel module) costs one pass over the names and no payload read.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rpm/rpmfiles.h>
#include <rpm/rpmtag.h>

#include "pkg.h"

/* A regular file rpm writes (not a %ghost): the only kind that can be a module. */
static bool real_file(rpmfiles files, int i)
{
	return S_ISREG(rpmfilesFMode(files, i)) && !(rpmfilesFFlags(files, i) & RPMFILE_GHOST);
}

rpmfiles pkg_header_classes(Header h, rpmfiles files)
{
	rpmfiles c = h ? rpmfilesNew(NULL, h, RPMTAG_BASENAMES, 0) : NULL;

	if (c && rpmfilesFC(c) != rpmfilesFC(files))	/* indexes would not match */
		c = rpmfilesFree(c);
	return c;
}

void pkg_files_scan(rpmfiles files, rpmfiles classes, struct pkg_files_facts *f)
{
	int fc = (int)rpmfilesFC(files);

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < fc; i++) {
		struct pkg_class c;
		char *fn;

		if (!real_file(files, i) || !(fn = rpmfilesFN(files, i)))
			continue;
		switch (pkg_classify_file(fn, rpmfilesFClass(classes ? classes : files, i), &c)) {
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

int pkg_files_each(rpmfiles files, unsigned kinds, pkg_path_fn fn, void *ctx)
{
	int fc = (int)rpmfilesFC(files), r = 0;

	for (int i = 0; i < fc && r >= 0; i++) {
		struct pkg_class c;
		char *path;

		if (!real_file(files, i) || !(path = rpmfilesFN(files, i)))
			continue;
		if (kinds & PKG_KIND_BIT(pkg_classify_file(path, rpmfilesFClass(files, i), &c)))
			r = fn(ctx, path, &c);
		free(path);
	}
	return r < 0 ? r : 0;
}
